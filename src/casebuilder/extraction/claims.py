"""Claims and incident mentions: the values one document gives, each with its words.

A :class:`Claim` is one value (a category, a place, a date, a toll, a weapon ...) with the
character offsets of the words it came from, the sentence quoted whole, who says so
(:class:`~casebuilder.extraction.attribution.Attribution`) and the rule that took it. An
:class:`IncidentMention` is one attack or situation at one place as one document reports it:
its claims, in the order they were found.

A claim's value is one of the typed values of :mod:`casebuilder.model.claim_values` (one class
per kind, checked when the claim is made), serialised only by its ``to_json``.

A claim of kind ``not_taken`` (:data:`NOT_TAKEN`) is a *negative trace*: a value a sentence of
the mention offered that a rule set aside or gave another role ("Kyiv" read as the venue of
talks, "strikes" feared rather than done, a running total that is no attack's toll). Its value
says what (``what``, ``words``, and ``taken_as`` for a value given another role) and its
``rule`` names the rule table and the rule (``place_roles/venue-of-a-gathering``). It comes
only from a sentence that gave the mention something, is stored and digested like any claim,
and is never evidence: resolution keeps it apart (see resolution/records.py).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from casebuilder.errors import ClaimValueError
from casebuilder.extraction.attribution import Attribution
from casebuilder.gazetteer import Place
from casebuilder.model.claim_values import (
    NOT_TAKEN,
    CategoryValue,
    ClaimValue,
    DateValue,
    PlaceValue,
    fits,
    to_json,
)
from casebuilder.model.partial_date import PartialDate
from casebuilder.model.terms import CATEGORY_ORDER

__all__ = ["NOT_TAKEN", "Claim", "IncidentMention", "Provenance", "SourceText"]


@dataclass(frozen=True)
class Provenance:
    item_id: int
    char_start: int
    char_end: int
    quote: str  # the whole sentence the value came from
    sentence_start: int
    sentence_end: int


@dataclass(frozen=True)
class Claim:
    kind: str  # category | place | date | killed | injured | weapon | target | perpetrator
    #            | denial | military_objective | no_military_objective | civilian_status
    #            | statement | relative_date | not_taken (a value set aside: NOT_TAKEN)
    value: ClaimValue
    provenance: Provenance
    attribution: Attribution
    rule: str

    def __post_init__(self) -> None:
        if not fits(self.kind, self.value):
            raise ClaimValueError(f"a {self.kind} claim cannot have a "
                                  f"{type(self.value).__name__}")

    @property
    def in_text(self) -> bool:
        """False for a value cited to the collection's headline rather than the text."""
        return not (isinstance(self.value, PlaceValue) and self.value.field == "title")

    def as_json(self) -> dict[str, Any]:
        """The claim as stored and digested (keys: model.claim_values.CLAIM_RECORD_FIELDS)."""
        a = self.attribution
        p = self.provenance
        return {
            "kind": self.kind, "value": to_json(self.value), "rule": self.rule,
            "item_id": p.item_id, "char_start": p.char_start, "char_end": p.char_end,
            "quote": p.quote, "sentence_start": p.sentence_start, "sentence_end": p.sentence_end,
            "attributed_to": a.speaker, "speaker_role": a.role, "source_kind": a.kind,
            "party": a.party, "verb": a.verb, "evidentiality": a.evidentiality,
            "qualifiers": list(a.qualifiers), "also_attributed": list(a.others),
        }


@dataclass
class IncidentMention:
    """One attack or situation at one place, as one document reports it."""

    item_id: int
    place_name: str  # as written in the text ("Odessa")
    place: Place | None
    situation: bool  # an ongoing situation (siege, displacement) rather than one attack
    paragraph: int
    claims: list[Claim] = field(default_factory=list)
    first_sentence: int = 0
    paragraph_last: int = 0  # the last paragraph that added to it
    sentence_last: int = 0  # the last sentence that added to it
    #: Other places of the same name the document gave nothing to choose between (see
    #: gazetteer Resolution.undecided); merging may settle it with other documents.
    undecided: tuple[Place, ...] = ()

    @property
    def categories(self) -> list[str]:
        found = [c.value for c in self.claims if isinstance(c.value, CategoryValue)]
        categories = {v.category for v in found}
        # "killed"/"dead" in a report of a missile strike is the strike's toll: it makes a
        # killing only if some sentence says how (shot, executed) rather than just "killed".
        if "explosive_attack" in categories and all(
                v.weak for v in found if v.category == "killing"):
            categories.discard("killing")
        return [c for c in CATEGORY_ORDER if c in categories]

    def dates(self, role: str | None = None) -> list[tuple[Claim, DateValue]]:
        """The date claims (with their values), of one role ("event", "report") or all."""
        return [(c, c.value) for c in self.claims if isinstance(c.value, DateValue)
                and (role is None or c.value.role == role)]

    def event_date(self) -> tuple[PartialDate | None, str, str]:
        """The mention's date: the most precise event date its claims give. A mention dated
        by an occupation (a claim of rule ``occupation-period``) keeps only its dates that lie
        in that period and are not the period's own edges; failing those, the period."""
        dates = self.dates("event")
        period = next((d for d in dates if d[1].period == "occupation"), None)
        if period is not None:
            span = PartialDate.parse_iso(period[1].iso)
            dates = [d for d in dates if d is not period and not d[1].occupation_bound
                     and span.contains(PartialDate.parse_iso(d[1].iso))] or [period]
        if not dates:
            return None, "", ""
        best, value = min(dates, key=lambda d: (PartialDate.parse_iso(d[1].iso).days,
                                                d[1].ranking_distance,
                                                d[0].provenance.char_start))
        return PartialDate.parse_iso(value.iso), value.expression, best.rule

    def report_date(self) -> tuple[PartialDate | None, str]:
        """When no claim dates the event, the earliest date a source reported it on."""
        dates = [value for _, value in self.dates("report")]
        if not dates:
            return None, ""
        best = min(dates, key=lambda v: PartialDate.parse_iso(v.iso).start)
        return PartialDate.parse_iso(best.iso), best.expression

    def situation_span(self, war_start: date | None, published: date | None
                       ) -> PartialDate | None:
        """A continuing situation runs from its earliest stated start (or the war's start)
        to the report: "remained cut off" on 3 April is a siege from 24 February to then."""
        first = min((c.provenance.sentence_start for c in self.claims if c.in_text),
                    default=0)
        dated = [v for c, v in self.dates("event") if v.ranking_distance <= 60
                 and c.provenance.sentence_start == first]
        if dated:
            # "ordered residents to leave on 5 November", "taken to Crimea in October 2022":
            # a date given beside the harm, in the sentence that first reports the situation
            best = min(dated, key=lambda v: v.ranking_distance)
            return PartialDate.parse_iso(best.iso)
        starts = [PartialDate.parse_iso(v.iso).start for _, v in self.dates("event")]
        begin = war_start or min(starts, default=None)
        end = published or max((PartialDate.parse_iso(v.iso).end for _, v in self.dates()),
                               default=None)
        if begin is None or end is None or begin > end:
            return None
        return PartialDate.range(begin, end)

    def key(self, sha256: str) -> str:
        """A stable identity for the mention across re-extraction of the same text: the text,
        the place, the kind and the date, not the sentence offsets a new rule may move (an
        analyst's decisions name mentions by this key)."""
        place = self.place.gazetteer_id if self.place else self.place_name
        when, _, _ = self.event_date()
        raw = f"{sha256}:{place}:{int(self.situation)}:{when.iso() if when else ''}"
        return "m-" + hashlib.sha256(raw.encode()).hexdigest()[:16]


@dataclass
class SourceText:
    """The text of one item and what its collection says about it."""

    item_id: int
    text: str
    title: str = ""
    outlet: str = ""
    published: date | None = None
