"""Building the case's incidents: the entry point reporting and the command line use.

Current mentions are read, merged (:mod:`casebuilder.resolution.merge`) under the constraints of
analysts' merges and splits, and analysts' edits and grades are applied to the result
(:mod:`casebuilder.resolution.decisions`), after re-anchoring any decision whose mention keys an
upgrade changed (:mod:`casebuilder.resolution.anchoring`). The same inputs always give the same
incidents.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from casebuilder.errors import NotFound
from casebuilder.model.claim_values import DateValue, FigureValue, TargetValue
from casebuilder.preservation.case import Case
from casebuilder.resolution.anchoring import (
    Anchoring,
    anchor_of,
    anchoring_for,
    reanchor,
    referenced_keys,
    unapplied_decisions,
)
from casebuilder.resolution.decisions import Decision, load_decisions, merge_constraints
from casebuilder.resolution.merge import MergeCandidate, Parts, merge
from casebuilder.resolution.records import MentionRecord, claims_of, load_mentions
from casebuilder.resolution.summary import Incident, _report_key


def incident_id(members: Sequence[MergeCandidate]) -> str:
    """Named after its first-reported mention, so the id stays while that mention is in it."""
    first = min(members, key=lambda m: (m.order, m.key))
    return "inc-" + hashlib.sha256(first.key.encode()).hexdigest()[:10]


def candidate(m: MentionRecord) -> MergeCandidate:
    place = m.place or {}
    found = _placed(m, place)
    alternatives = tuple(_placed(m, other) for other in place.get("undecided") or ()
                         if isinstance(other, dict))
    return replace(found, alternatives=alternatives) if alternatives else found


def _placed(m: MentionRecord, place: dict[str, Any]) -> MergeCandidate:
    # a target named only as the setting (setting True; absent: named where harm is told)
    targets = frozenset(v.target_type for _, v in claims_of(m.claims, TargetValue)
                        if not v.setting)
    tolls = frozenset(v.low for c, v in claims_of(m.claims, FigureValue)
                      if c.kind == "killed" and v.low and not v.subgroup
                      and v.qualifier != "vague")
    return MergeCandidate(
        key=m.key,
        lat=place.get("lat"),
        lon=place.get("lon"),
        precision=str(place.get("precision") or ""),
        uncertainty_km=float(place.get("uncertainty_km") or 0.0),
        place_id=str(place.get("gazetteer_id") or ""),
        admin1=str(place.get("admin1") or ""),
        situation=m.situation,
        categories=frozenset(m.categories),
        when=m.date,
        basis=m.date_basis,
        reported=m.document.published,
        targets=targets,
        tolls=tolls,
        label=m.document.name,
        feature_kind=str(place.get("feature_kind") or ""),
        order=_report_key(m.document.published_raw, m.document.published),
        label_place=str(place.get("name") or m.place_name),
        occupation=any(v.period == "occupation" for _, v in claims_of(m.claims, DateValue)),
        tally=m.situation and not m.categories,
    )


def build_incidents(case: Case) -> list[Incident]:
    """The case's incidents as stored, brought up to date first (resolution/stored.py, which
    builds on this module and is therefore imported here, when called)."""
    from casebuilder.resolution.stored import stored_incidents

    return stored_incidents(case)


def merged_incidents(case: Case) -> list[Incident]:
    """The case's incidents merged afresh from every current mention: what the stored
    incidents must always equal."""
    mentions = load_mentions(case)
    decisions = load_decisions(case)
    anchoring = anchoring_for(case, decisions, {m.key: anchor_of(m) for m in mentions})
    return assemble(mentions, decisions, anchoring)


STRUCTURE = frozenset({"merge", "split"})


@dataclass
class Settled:
    """One incident as merging and the analysts' decisions settle it, named by mention keys:
    what the stored incidents keep (resolution/stored.py) and Incident is built from."""

    id: str
    members: list[MergeCandidate]  # in the order they joined
    reasons: list[str]
    decisions: list[dict[str, Any]] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def first_report(self) -> str:
        return min(m.order for m in self.members)


def assemble(mentions: Sequence[MentionRecord], recorded: Sequence[Decision],
             anchoring: Anchoring | None = None) -> list[Incident]:
    """Merge the mentions under the analysts' merges and splits, then apply edits and grades
    (see :func:`settle`)."""
    by_key = {m.key: m for m in mentions}
    if anchoring is None:
        anchoring = reanchor(recorded, {m.key: anchor_of(m) for m in mentions}, {})
    settled = settle([candidate(m) for m in mentions], recorded, anchoring)
    return [as_incident(s, by_key) for s in settled]


def as_incident(settled: Settled, mentions: Mapping[str, MentionRecord]) -> Incident:
    return Incident(settled.id, [mentions[m.key] for m in settled.members],
                    list(settled.reasons), list(settled.decisions), dict(settled.overrides))


def settle(candidates: Sequence[MergeCandidate], recorded: Sequence[Decision],
           anchoring: Anchoring, parts: Parts | None = None) -> list[Settled]:
    """Merge the mentions under the analysts' merges and splits, then apply edits and grades.

    Decisions are first re-anchored onto the current mentions (``anchoring``, worked out by
    :mod:`casebuilder.resolution.anchoring`, which also reads superseded runs). Decisions that
    no longer apply are left out here and reported by :func:`stale_decisions`. ``parts``, if
    given, learns which mentions met in the merge, and the mentions each decision names are
    put in one part (resolution/stored.py updates incidents part by part).

    All merges and splits are settled first (which mentions form which incident, and which
    incident keeps which id); only then is each edit and grade given to the incident that now
    holds most of the mentions it was made on. An edit made before a later split therefore
    follows the majority of its mentions, not an id the split may have handed on."""
    by_key = {c.key: c for c in candidates}
    decisions = anchoring.decisions
    together, apart = merge_constraints(decisions)
    clusters = merge(candidates, together, apart, parts=parts)
    if parts is not None:
        for d in decisions:
            keys = [k for k in referenced_keys(d.payload) if k in by_key]
            for key in keys[1:]:
                parts.union(keys[0], key)
    incidents = [Settled(incident_id(c.members), list(c.members), list(c.reasons))
                 for c in clusters]
    by_member = {m.key: i for i in incidents for m in i.members}
    as_recorded = {d.id: d for d in recorded}
    targets: dict[int, Settled] = {}
    for number, d in enumerate(decisions):
        if d.action not in STRUCTURE:
            continue
        target = _target(d, by_member, by_key)
        if target is None:
            continue
        targets[number] = target
        # The incident merged into, or what remains of the one split, keeps its id, so
        # later decisions and people's notes still find it.
        for other in incidents:
            if other.id == d.incident_id and other is not target:
                other.id = incident_id(other.members) + "-split"
        target.id = d.incident_id
    for number, d in enumerate(decisions):
        if d.action in STRUCTURE:
            continue
        target = _target(d, by_member, by_key)
        if target is not None:
            targets[number] = target
    for number, d in enumerate(decisions):  # in the order they were made: a later edit wins
        target = targets.get(number)
        if target is None:
            continue
        target.decisions.append({"id": d.id, "action": d.action,
                                 "payload": as_recorded[d.id].payload,
                                 "reason": d.reason, "actor": d.actor, "at": d.at,
                                 **anchoring.note(d)})
        if d.action == "grade":
            target.overrides["grade"] = {"grade": d.payload["grade"], "reason": d.reason}
        elif d.action == "edit":
            field_name = str(d.payload["field"])
            key = "killed_best" if field_name == "killed_best" else field_name
            target.overrides[key] = d.payload["value"]
    incidents.sort(key=lambda i: (i.first_report, i.id))
    return incidents


def _target(d: Decision, by_member: dict[str, Settled], by_key: dict[str, MergeCandidate]
            ) -> Settled | None:
    """The incident a decision applies to: the one now holding most of the mentions it was
    made on (for a split, of the mentions that remained). Ties go to the incident that now
    carries the id the decision was made on, then to the one holding the earliest-reported of
    those mentions (the mention that incident was named after), so the choice never depends
    on the order of anything but the case's own data."""
    keys = d.payload.get("remaining", []) if d.action == "split" else \
        d.payload.get("anchor_keys", [])
    votes: dict[int, int] = {}
    found: dict[int, Settled] = {}
    first: dict[int, tuple[str, str]] = {}
    for key in keys:
        holder = by_member.get(key)
        if holder is None:
            continue
        votes[id(holder)] = votes.get(id(holder), 0) + 1
        found[id(holder)] = holder
        m = by_key[key]
        rank = (m.order, m.key)
        first[id(holder)] = min(first.get(id(holder), rank), rank)
    if not votes:
        return None
    best = min(votes, key=lambda i: (-votes[i], found[i].id != d.incident_id, first[i],
                                     found[i].id))
    return found[best]


def stale_decisions(case: Case) -> list[Decision]:
    """Decisions that no longer apply: the mentions they were made on were replaced by
    re-extraction and none could be re-anchored (see :mod:`casebuilder.resolution.anchoring`).
    An analyst should look at them again."""
    return unapplied_decisions(case)


def find_incident(incidents: Sequence[Incident], incident_id: str) -> Incident:
    for incident in incidents:
        if incident.id == incident_id or any(m.key == incident_id for m in incident.mentions):
            return incident
    raise NotFound(f"no incident {incident_id} in this case (see 'casebuilder incidents')")
