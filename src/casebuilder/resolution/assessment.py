"""How well an incident is established: independent origins, contradictions, grades.

* **Independent origins.** Every supporting claim is traced to where it originates: the named
  speaker (a governor quoted by ten outlets is one origin), a journalist's or witness's own
  observation, or an outlet's own unattributed reporting. Denials do not count as support.
* **Contradictions** are listed side by side, each version with its sources: different weapons
  or causes (gunfire versus artillery), denials of responsibility and counter-accusations,
  claimed and disputed military objectives, different tolls given at the same time.
* **Grades.** Each claim gets an Admiralty grade: the reliability letter of its source's profile
  (profiles.toml) and a credibility digit from its corroboration. Each incident gets a
  civilian-harm grade as monitors such as Airwars use it: confirmed (a party accepted
  responsibility and none denied it), contested (responsibility denied or claimed by another
  party), fair (two or more independent, reasonably reliable origins), weak (one origin), or
  discounted (the dead are said to be combatants, or an analyst discounted it). The reasons are
  returned with the grade.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from casebuilder.model.claim_values import (
    CategoryValue,
    FigureValue,
    PerpetratorValue,
    TargetValue,
    WeaponValue,
)
from casebuilder.resolution.profiles import SourceIdentity, SourceProfiles, default_profiles
from casebuilder.resolution.records import ClaimRecord, claims_of
from casebuilder.resolution.summary import Incident, figures, generic_weapons

SUPPORTING = frozenset({"category", "killed", "injured", "place", "weapon", "target",
                        "civilian_status"})
SMALL_ARMS = frozenset({"gunfire"})
_DROP = re.compile(r"^(the|a|an|its|his|her|their)\s+")
_POSSESSIVE = re.compile(r"['’]s\b")


def speaker_identity(name: str, party: str | None,
                     identity: SourceIdentity | None = None) -> str:
    """One key for the same speaker however the text names them: "Pavlo Kyrylenko" and
    "Kyrylenko"; "Russia's defence ministry" and "the Russian defence ministry"; "the rail
    company" and "Ukraine's state railway company" (profiles.toml [identity])."""
    rules = identity or default_profiles().identity
    text = _POSSESSIVE.sub("", name.lower()).replace("’", "'")
    text = " ".join(rules.same_as.get(w, w) for w in re.sub(r"[^\w\s'-]", " ", text).split())
    for phrase, word in rules.same_as.items():
        if " " in phrase:
            text = re.sub(rf"\b{re.escape(phrase)}\b", word, text)
    text = _DROP.sub("", text.strip())
    words = [w for w in text.split() if w not in rules.generic_words]
    if not words:
        words = text.split() or ["unknown"]
    looks_like_person = all(w[:1].isupper() for w in name.split()) and 2 <= len(name.split()) <= 4
    key = words[-1] if looks_like_person else " ".join(words[-2:])
    return f"{party or '-'}:{key}"


def unattributed(claim: ClaimRecord, identity: SourceIdentity | None = None) -> bool:
    """A claim introduced by "initial reports", "local media" and the like names no source:
    it is its document's own account."""
    rules = identity or default_profiles().identity
    phrase = _DROP.sub("", claim.attributed_to.lower().strip())
    return claim.source_kind == "unknown" and phrase in rules.unattributed


def origin_of(claim: ClaimRecord) -> str:
    if claim.source_kind == "outlet" or unattributed(claim):
        return f"outlet:{claim.document.outlet.lower() or claim.document.name}"
    return speaker_identity(claim.attributed_to, claim.party)


def independent_origins(incident: Incident) -> dict[str, list[ClaimRecord]]:
    """Origins of the claims that support the incident, each with its claims."""
    origins: dict[str, list[ClaimRecord]] = defaultdict(list)
    own = {id(c) for c in incident.claims if c.source_kind == "outlet" or unattributed(c)}
    attributed_docs = {c.document.item_id for c in incident.claims
                       if c.kind in SUPPORTING and id(c) not in own}
    for claim in incident.claims:
        if claim.kind not in SUPPORTING or claim.evidentiality == "denied":
            continue
        if id(claim) in own and claim.document.item_id in attributed_docs:
            continue  # a headline restating its own sources is not another origin
        origins[origin_of(claim)].append(claim)
        for other in claim.also_attributed:
            origins[speaker_identity(other, None)].append(claim)
    return _join_unaffiliated(dict(origins))


def _join_unaffiliated(origins: dict[str, list[ClaimRecord]]) -> dict[str, list[ClaimRecord]]:
    """A speaker named once with its party and once without ("Ukraine's state railway" and
    "the rail company") is one origin, when exactly one party goes with that name."""
    parties: dict[str, set[str]] = defaultdict(set)
    for key in origins:
        party, _, name = key.partition(":")
        if party not in {"-", "outlet"}:
            parties[name].add(party)
    joined: dict[str, list[ClaimRecord]] = defaultdict(list)
    for key, claims in origins.items():
        party, _, name = key.partition(":")
        if party == "-" and len(parties.get(name, ())) == 1:
            key = f"{next(iter(parties[name]))}:{name}"
        joined[key].extend(claims)
    return dict(joined)


def _version(claim: ClaimRecord) -> dict[str, Any]:
    return {"source": claim.attributed_to, "source_kind": claim.source_kind,
            "party": claim.party, "evidentiality": claim.evidentiality,
            "document": claim.document.name, "published": claim.document.published_raw,
            "quote": claim.quote, "char_start": claim.char_start, "char_end": claim.char_end}


def contradictions(incident: Incident) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    causes: dict[str, list[tuple[ClaimRecord, WeaponValue]]] = defaultdict(list)
    named: dict[str, list[ClaimRecord]] = defaultdict(list)
    for c, v in claims_of(incident.claims, WeaponValue):
        causes["small arms" if v.weapon in SMALL_ARMS else "explosive weapons"].append((c, v))
        if v.weapon not in generic_weapons():
            named[v.weapon].append(c)
    if len(causes) > 1:
        out.append({"aspect": "cause", "summary": "sources disagree on how the victims died",
                    "versions": [{"value": cause, "weapons": sorted({v.weapon
                                                                     for _, v in claimed}),
                                  "sources": [_version(c) for c, _ in claimed]}
                                 for cause, claimed in sorted(causes.items())]})
    if len(named) > 1:
        out.append({"aspect": "weapon", "summary": "sources name different weapons",
                    "versions": [{"value": weapon, "sources": [_version(c) for c in claims]}
                                 for weapon, claims in sorted(named.items())]})
    perpetrators = claims_of(incident.claims, PerpetratorValue)
    accusations = [(c, v) for c, v in perpetrators if not v.competing]
    counter = [(c, v) for c, v in perpetrators if v.competing]
    denials = [c for c in incident.claims if c.kind == "denial"]
    if denials or counter or len({v.party for _, v in accusations}) > 1:
        out.append({
            "aspect": "responsibility",
            "summary": "responsibility is denied or attributed to different parties",
            "accused": [dict(_version(c), accused=v.label) for c, v in accusations],
            "denied_by": [_version(c) for c in denials],
            "counter_accusations": [dict(_version(c), accused=v.label) for c, v in counter],
        })
    claimed = [c for c in incident.claims if c.kind == "military_objective"]
    disputed = [c for c in incident.claims if c.kind == "no_military_objective"]
    if claimed or disputed:
        out.append({"aspect": "military objective",
                    "summary": "a military objective is claimed or its existence disputed",
                    "claimed": [_version(c) for c in claimed],
                    "disputed": [_version(c) for c in disputed]})
    for measure in ("killed", "injured"):
        by_time: dict[str, dict[int | None, list[Any]]] = defaultdict(lambda: defaultdict(list))
        for f in figures(incident, measure):
            if not f.earlier_report:
                by_time[f.order[0]][f.low].append(f)
        for moment, values in sorted(by_time.items()):
            if len(values) > 1:
                out.append({"aspect": f"{measure} toll",
                            "summary": f"different {measure} figures reported at the same time",
                            "reported_at": moment,
                            "versions": [{"value": low, "sources": [f.as_json() for f in fs]}
                                         for low, fs in sorted(values.items(),
                                                               key=lambda kv: kv[0] or -1)]})
    return out


@dataclass(frozen=True)
class ClaimGrade:
    claim_id: int
    reliability: str
    credibility: int

    @property
    def code(self) -> str:
        return f"{self.reliability}{self.credibility}"


def claim_grades(incident: Incident, profiles: SourceProfiles) -> list[ClaimGrade]:
    """Admiralty grade of each claim: reliability from the source's profile; credibility
    1 confirmed by another independent origin, 2 probably true (a reliable source, stated or
    observed, uncontradicted), 3 possibly true (one origin, or unverified), 4 doubtful
    (contradicted by another source or part of a denial), 6 cannot be judged (unknown source)."""
    origins = independent_origins(incident)
    supporters: dict[tuple[str, str], set[str]] = defaultdict(set)
    for origin, claims in origins.items():
        for c in claims:
            supporters[(c.kind, _fact(c))].add(origin)
    disputed = {a["aspect"] for a in contradictions(incident)}
    out = []
    for c in incident.claims:
        profile = profiles.for_source(c.attributed_to if c.source_kind != "outlet"
                                      else c.document.outlet, c.source_kind)
        if c.source_kind == "unknown":
            credibility = 6
        elif c.evidentiality == "denied" or (c.kind == "weapon" and disputed & {"cause",
                                                                               "weapon"}):
            credibility = 4
        elif len(supporters.get((c.kind, _fact(c)), set())) >= 2:
            credibility = 1
        elif c.evidentiality in {"unverified", "alleged"} or profile.reliability in "DEF":
            credibility = 3
        else:
            credibility = 2
        out.append(ClaimGrade(c.id, profile.reliability, credibility))
    return out


def _fact(c: ClaimRecord) -> str:
    """What two claims must share to confirm each other."""
    v = c.value
    if isinstance(v, CategoryValue):
        return v.category
    if c.kind in {"killed", "injured"}:
        return c.kind  # any toll confirms that there were victims; the numbers may differ
    if isinstance(v, WeaponValue):
        return v.weapon
    if isinstance(v, TargetValue):
        return v.target_type
    return c.kind


def incident_grade(incident: Incident, profiles: SourceProfiles
                   ) -> tuple[str, list[str], int]:
    """The civilian-harm grade with its reasons, and the count of independent origins."""
    origins = independent_origins(incident)
    count = len(origins)
    reasons: list[str] = []
    if "grade" in incident.overrides:
        override = incident.overrides["grade"]
        return str(override["grade"]), [f"set by an analyst: {override['reason']}"], count
    populations = {v.population for c, v in claims_of(incident.claims, FigureValue)
                   if c.kind in {"killed", "injured"} and v.population}
    if populations and populations <= {"military"}:
        # Prisoners of war are protected persons, so their deaths are never discounted here.
        return "discounted", ["every casualty figure describes combatants"], count
    denials = [c for c in incident.claims if c.kind == "denial"]
    perpetrators = claims_of(incident.claims, PerpetratorValue)
    counter = [(c, v) for c, v in perpetrators if v.competing]
    accused = {v.party for _, v in perpetrators if not v.competing}
    # a party's own account of the attack: a military objective it claims, or its own forces
    # named as acting by its own source
    accepted = [c for c in incident.claims if (c.kind == "military_objective" and c.party)
                or (isinstance(c.value, PerpetratorValue) and not c.value.competing
                    and c.party == c.value.party)]
    for c in denials:
        reasons.append(f"{c.attributed_to} denied responsibility ({c.document.name})")
    for c, v in counter:
        reasons.append(f"{c.attributed_to} attributed it to {v.label} ({c.document.name})")
    if len(accused) > 1:
        reasons.append(f"sources accuse different parties: {', '.join(sorted(accused))}")
    credible = {o for o, claims in origins.items()
                if any(profiles.for_source(c.attributed_to, c.source_kind).reliability in "ABC"
                       for c in claims)}
    reasons.append(f"{count} independent origin(s), {len(credible)} of them reasonably "
                   f"reliable (A-C): {', '.join(sorted(origins))}")
    if denials or counter or len(accused) > 1:
        return "contested", reasons, count
    if accepted:
        reasons.insert(0, f"{accepted[0].attributed_to} acknowledged the strike "
                          f"({accepted[0].document.name})")
        return "confirmed", reasons, count
    if len(credible) >= 2:
        return "fair", reasons, count
    return "weak", reasons, count
