"""Building the case's incidents: the entry point reporting and the command line use.

Current mentions are read, merged (:mod:`casebuilder.resolution.merge`) under the constraints of
analysts' merges and splits, and analysts' edits and grades are applied to the result
(:mod:`casebuilder.resolution.decisions`). The same inputs always give the same incidents.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from casebuilder.errors import NotFound
from casebuilder.preservation.case import Case
from casebuilder.resolution.decisions import Decision, load_decisions, merge_constraints
from casebuilder.resolution.merge import MergeCandidate, merge
from casebuilder.resolution.records import MentionRecord, load_mentions
from casebuilder.resolution.summary import Incident, _report_key


def incident_id(members: Sequence[MentionRecord]) -> str:
    """Named after its first-reported mention, so the id stays while that mention is in it."""
    first = min(members, key=lambda m: (_report_key(m.document.published_raw,
                                                    m.document.published), m.key))
    return "inc-" + hashlib.sha256(first.key.encode()).hexdigest()[:10]


def candidate(m: MentionRecord) -> MergeCandidate:
    place = m.place or {}
    targets = frozenset(str(c.value["target_type"]) for c in m.claims if c.kind == "target")
    tolls = frozenset(int(c.value["low"]) for c in m.claims
                      if c.kind == "killed" and c.value.get("low") and
                      not c.value.get("subgroup") and c.value.get("qualifier") != "vague")
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
    )


def build_incidents(case: Case) -> list[Incident]:
    mentions = load_mentions(case)
    decisions = load_decisions(case)
    return assemble(mentions, decisions)


def assemble(mentions: Sequence[MentionRecord], decisions: Sequence[Decision]
             ) -> list[Incident]:
    by_key = {m.key: m for m in mentions}
    together, apart = merge_constraints(decisions)
    clusters = merge([candidate(m) for m in mentions], together, apart)
    incidents = []
    for cluster in clusters:
        members = [by_key[c.key] for c in cluster.members]
        incidents.append(Incident(incident_id(members), members, list(cluster.reasons)))
    by_member = {m.key: i for i in incidents for m in i.mentions}
    for d in decisions:
        target = _target(d, by_member, incidents)
        if target is None:
            continue
        target.decisions.append({"action": d.action, "payload": d.payload, "reason": d.reason,
                                 "actor": d.actor, "at": d.at})
        if d.action in {"merge", "split"}:
            # The incident merged into, or what remains of the one split, keeps its id, so
            # later decisions and people's notes still find it.
            for other in incidents:
                if other.id == d.incident_id and other is not target:
                    other.id = incident_id(other.mentions) + "-split"
            target.id = d.incident_id
        if d.action == "grade":
            target.overrides["grade"] = {"grade": d.payload["grade"], "reason": d.reason}
        elif d.action == "edit":
            field = str(d.payload["field"])
            key = "killed_best" if field == "killed_best" else field
            target.overrides[key] = d.payload["value"]
    incidents.sort(key=lambda i: (min(_report_key(m.document.published_raw,
                                                  m.document.published) for m in i.mentions),
                                  i.id))
    return incidents


def _target(d: Decision, by_member: dict[str, Incident], incidents: Sequence[Incident]
            ) -> Incident | None:
    """The incident a decision applies to: for a split, what remains of the incident; for
    the others, the incident that still has the decision's id, else the one now holding most
    of the mentions the decision was made on."""
    if d.action == "split":
        remaining = {by_member[k].id: by_member[k] for k in d.payload.get("remaining", [])
                     if k in by_member}
        return next(iter(remaining.values()), None)
    if d.action != "merge":
        for named in incidents:
            if named.id == d.incident_id:
                return named
    votes: dict[str, int] = {}
    found: dict[str, Incident] = {}
    for key in d.payload.get("anchor_keys", []):
        holder = by_member.get(key)
        if holder is not None:
            votes[holder.id] = votes.get(holder.id, 0) + 1
            found[holder.id] = holder
    if not votes:
        return None
    best = max(votes, key=lambda i: (votes[i], -list(found).index(i)))
    return found[best]


def stale_decisions(case: Case) -> list[Decision]:
    """Decisions none of whose mentions exist any more (after re-extraction with changed
    rules): they no longer apply, and an analyst should look at them again."""
    keys = {m.key for m in load_mentions(case)}
    return [d for d in load_decisions(case)
            if not keys & set(d.payload.get("anchor_keys", [])) and
            not keys & set(d.payload.get("keys", []))]


def find_incident(incidents: Sequence[Incident], incident_id: str) -> Incident:
    for incident in incidents:
        if incident.id == incident_id or any(m.key == incident_id for m in incident.mentions):
            return incident
    raise NotFound(f"no incident {incident_id} in this case (see 'casebuilder incidents')")
