"""The element matrix of an incident: for each element of each crime, the claims for and
against it, and the status the rules give.

For every element the matrix lists the claims that SUPPORT it and the claims AGAINST it, as the
element's means of proof name them (:mod:`.signals`): the prosecutor investigates incriminating
and exonerating circumstances equally (Rome Statute art. 54(1)(a)), so denials, claimed
military objectives, counter-accusations, tolls of none and victims said to be combatants are
listed, never dropped. Each entry cites its claim: item, the sentence's offsets and quote (the
text slice), the words' offsets, who said it, how, and its Admiralty grade. Pattern signals
are shown with the pattern run's finding, or as awaited while no run exists.

The status of each element, and the rule that set it, come from ``rules/status.toml``
(:mod:`.status`), which also applies an analyst's finding in force (:mod:`.findings`). Nothing
here names a party: the same claims give the same matrix whoever is accused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from casebuilder.analysis.elements.catalogue import Catalogue, Charge, Crime, Element
from casebuilder.analysis.elements.findings import Finding, findings_of
from casebuilder.analysis.elements.pattern_evidence import NO_PATTERN_RUN, PatternEvidence
from casebuilder.analysis.elements.signals import SignalWords, claims_giving, signal_words
from casebuilder.analysis.elements.status import Situation, describe_rule, status_rules
from casebuilder.extraction.rules import RuleTable
from casebuilder.model.claim_values import PerpetratorValue
from casebuilder.resolution.assessment import ClaimGrade, claim_grades
from casebuilder.resolution.profiles import SourceProfiles, load_profiles
from casebuilder.resolution.records import ClaimRecord
from casebuilder.resolution.summary import Incident

CREDIBLE = frozenset({1, 2, 3})


@dataclass(frozen=True)
class Entry:
    """One claim speaking for or against an element, with where it stands in its source."""

    side: str  # "for" | "against"
    signal: str
    claim_id: int
    kind: str
    item_id: int
    document: str
    quote: str  # the sentence, as the text has it at [quote_start:quote_end]
    quote_start: int
    quote_end: int
    char_start: int  # the words the claim was read from
    char_end: int
    attributed_to: str
    source_kind: str
    evidentiality: str
    grade: str  # Admiralty: source reliability A-F and information credibility 1-6
    credibility: int
    party: str | None = None  # the acting party a perpetrator claim names (for the rules)

    def as_json(self) -> dict[str, Any]:
        return {"side": self.side, "signal": self.signal, "claim_id": self.claim_id,
                "kind": self.kind, "item_id": self.item_id, "document": self.document,
                "quote": self.quote, "quote_start": self.quote_start,
                "quote_end": self.quote_end, "char_start": self.char_start,
                "char_end": self.char_end, "attributed_to": self.attributed_to,
                "source_kind": self.source_kind, "evidentiality": self.evidentiality,
                "grade": self.grade}


@dataclass(frozen=True)
class PatternState:
    """A pattern signal of an element: its finding, or why there is none."""

    signal: str
    side: str
    state: str  # "awaited" | "found" | "not_found"
    summary: str

    def as_json(self) -> dict[str, Any]:
        return {"signal": self.signal, "side": self.side, "state": self.state,
                "summary": self.summary}


@dataclass(frozen=True)
class ElementRow:
    element: Element
    status: str
    rule: str
    why: str
    supporting: tuple[Entry, ...]
    contrary: tuple[Entry, ...]
    patterns: tuple[PatternState, ...]
    finding: Finding | None

    def as_json(self) -> dict[str, Any]:
        e = self.element
        return {"element": e.id, "crime": e.crime, "number": e.number, "kind": e.kind,
                "statement": e.statement, "common": e.common,
                "means": {"for": [s.name for s in e.supports],
                          "against": [s.name for s in e.contradicts]},
                "status": self.status, "rule": self.rule, "why": self.why,
                "for": [x.as_json() for x in self.supporting],
                "against": [x.as_json() for x in self.contrary],
                "patterns": [p.as_json() for p in self.patterns],
                "finding": self.finding.as_json() if self.finding else None}


@dataclass(frozen=True)
class CrimeMatrix:
    crime: Crime
    rows: tuple[ElementRow, ...]

    def statuses(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in self.rows:
            out[row.status] = out.get(row.status, 0) + 1
        return out

    def as_json(self) -> dict[str, Any]:
        return {"crime": self.crime.id, "title": self.crime.title,
                "statuses": self.statuses(), "elements": [r.as_json() for r in self.rows]}


@dataclass(frozen=True)
class IncidentMatrix:
    incident_id: str
    catalogue: str  # the catalogue's digest
    pattern_run: str | None
    crimes: tuple[CrimeMatrix, ...]
    charges: tuple[Charge, ...] = field(default_factory=tuple)

    @property
    def rows(self) -> list[ElementRow]:
        return [r for c in self.crimes for r in c.rows]

    def as_json(self) -> dict[str, Any]:
        by_crime = {c.crime.id: c for c in self.crimes}
        return {
            "incident": self.incident_id, "catalogue": self.catalogue,
            "pattern_run": self.pattern_run,
            "charges": [{"name": ch.name, "reads": ch.describe(), "about": ch.about,
                         "counts": [[{"crime": crime_id,
                                      "statuses": by_crime[crime_id].statuses()}
                                     for crime_id in count if crime_id in by_crime]
                                    for count in ch.counts]} for ch in self.charges],
            "crimes": [c.as_json() for c in self.crimes],
        }


def _entry(side: str, signal: str, c: ClaimRecord, grades: Mapping[int, ClaimGrade]) -> Entry:
    grade = grades.get(c.id)
    party = c.value.party if isinstance(c.value, PerpetratorValue) else None
    return Entry(side=side, signal=signal, claim_id=c.id, kind=c.kind,
                 item_id=c.document.item_id, document=c.document.name, quote=c.quote,
                 quote_start=c.sentence_start, quote_end=c.sentence_end,
                 char_start=c.char_start, char_end=c.char_end, attributed_to=c.attributed_to,
                 source_kind=c.source_kind, evidentiality=c.evidentiality,
                 grade=grade.code if grade else "F6", credibility=grade.credibility if grade
                 else 6, party=party)


def _entries(element: Element, side: str, claims: Sequence[ClaimRecord],
             grades: Mapping[int, ClaimGrade], words: SignalWords) -> tuple[Entry, ...]:
    signals = element.supports if side == "for" else element.contradicts
    out: list[Entry] = []
    seen: set[tuple[str, int]] = set()
    for signal in signals:
        if signal.pattern:
            continue
        for c in claims_giving(signal, claims, side=side, words=words):
            if (signal.name, c.id) not in seen:
                seen.add((signal.name, c.id))
                out.append(_entry(side, signal.name, c, grades))
    return tuple(out)


def _patterns(element: Element, evidence: PatternEvidence) -> tuple[PatternState, ...]:
    out = []
    for side, signals in (("for", element.supports), ("against", element.contradicts)):
        for s in signals:
            if not s.pattern:
                continue
            found = evidence.findings.get(s.argument or "")
            if evidence.run is None:
                out.append(PatternState(s.name, side, "awaited",
                                        "no pattern run for this case yet"))
            elif found is None or not found.holds:
                out.append(PatternState(s.name, side, "not_found",
                                        found.summary if found else
                                        f"pattern run {evidence.run} did not find it"))
            else:
                out.append(PatternState(s.name, side, "found", found.summary))
    return tuple(out)


def situation(element: Element, supporting: Sequence[Entry], contrary: Sequence[Entry],
              patterns: Sequence[PatternState], finding: Finding | None) -> Situation:
    """What the status rules read for one element."""
    pattern_for = [p for p in patterns if p.side == "for"]
    pattern_against = [p for p in patterns if p.side == "against"]
    if not patterns:
        state = "absent"
    elif any(p.state == "awaited" for p in patterns):
        state = "awaited"
    elif any(p.state == "found" for p in pattern_for):
        state = "found"
    else:
        state = "not_found"
    return Situation(
        kind=element.kind,
        supporting=len(supporting),
        contrary=len(contrary) + sum(1 for p in pattern_against if p.state == "found"),
        credible=any(x.credibility in CREDIBLE for x in supporting),
        parties=len({x.party for x in supporting if x.party is not None}),
        means=bool(element.signals),
        pattern=state,
        analyst=finding.status if finding else None)


def element_row(element: Element, claims: Sequence[ClaimRecord],
                grades: Mapping[int, ClaimGrade], evidence: PatternEvidence,
                finding: Finding | None, rules: RuleTable[Situation],
                words: SignalWords) -> ElementRow:
    supporting = _entries(element, "for", claims, grades, words)
    contrary = _entries(element, "against", claims, grades, words)
    patterns = _patterns(element, evidence)
    decision = rules.decide(situation(element, supporting, contrary, patterns, finding))
    return ElementRow(element, decision.outcome, decision.rule,
                      describe_rule(rules, decision.rule), supporting, contrary, patterns,
                      finding)


def crimes_in_reach(incident: Incident, catalogue: Catalogue,
                    words: SignalWords | None = None) -> list[Crime]:
    """The crimes whose conduct, consequence or circumstance elements some claim of the
    incident speaks for: what ``casebuilder elements`` shows when no charge is named."""
    chosen = words or signal_words()
    claims = incident.claims
    out = []
    for crime in catalogue.crimes.values():
        if any(claims_giving(s, claims, side="for", words=chosen)
               for e in crime.elements if not e.inferred and e.kind != "circumstance"
               for s in e.supports if not s.pattern):
            out.append(crime)
    return out


def element_matrix(incident: Incident, catalogue: Catalogue, crimes: Sequence[Crime],
                   *, charges: Sequence[Charge] = (), profiles: SourceProfiles | None = None,
                   evidence: PatternEvidence = NO_PATTERN_RUN,
                   rules: RuleTable[Situation] | None = None,
                   words: SignalWords | None = None) -> IncidentMatrix:
    """The matrix of ``incident`` for ``crimes`` (and the charges they were chosen by)."""
    table = rules or status_rules()
    chosen = words or signal_words()
    grades = {g.claim_id: g for g in claim_grades(incident, profiles or load_profiles())}
    findings = findings_of(incident)
    claims = incident.claims
    matrices = tuple(CrimeMatrix(crime, tuple(
        element_row(e, claims, grades, evidence, findings.get(e.id), table, chosen)
        for e in crime.elements)) for crime in crimes)
    return IncidentMatrix(incident.id, catalogue.digest, evidence.run, matrices,
                          tuple(charges))
