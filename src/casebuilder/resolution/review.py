"""What people decide about stored incidents: merge, split, edit, grade, and the moves of the
review workflow (resolution.workflow, review.toml), assignments and comments.

Place in the flow: above the stored incidents (resolution.stored), below the front ends; the
command line and the web interface both come here. Every one of these is an analyst decision
(resolution.decisions): a reason is required, the custody log records it, and it names the
incident's mentions by their keys, so it follows them through later merging.
"""

from __future__ import annotations

from typing import Any

from casebuilder.errors import NotFound
from casebuilder.preservation.case import Case
from casebuilder.resolution.decisions import (
    Decision,
    DecisionError,
    load_decisions,
    record_decision,
    require_reason,
)
from casebuilder.resolution.stored import stored_incident, stored_record
from casebuilder.resolution.summary import Incident
from casebuilder.resolution.workflow import CHANGES, refusal, review_of, shipped_workflow


def move_incident(case: Case, incident_id: str, move_name: str, reason: str, *,
                  role: str | None) -> Decision:
    """Make one move of the workflow, as ``case.actor``. ``role`` is the person's web role
    (None on the command line, where whoever holds the case home acts for it; the four-eyes
    rule holds there too)."""
    workflow = shipped_workflow()
    move = workflow.moves.get(move_name)
    if move is None:
        raise DecisionError(f"no move {move_name!r}; the moves are {', '.join(workflow.moves)}")
    incident = stored_incident(case, incident_id)
    record = stored_record(case, incident.id)
    review = review_of(record.get("analyst_decisions") or [], workflow)
    refused = refusal(move, review, role, case.actor)
    if refused is not None:
        raise DecisionError(refused)
    return _decide(case, "review", incident,
                   {"move": move.name, "from": review.status, "to": move.to}, reason)


def assign_incident(case: Case, incident_id: str, assignee: str | None, reason: str
                    ) -> Decision:
    """Give an incident to one person (or to nobody) to work on."""
    return _decide(case, "assign", stored_incident(case, incident_id),
                   {"assignee": assignee or None}, reason)


def comment_on(case: Case, incident_id: str, text: str) -> Decision:
    """A note on an incident for the team; the text is the decision's reason."""
    return _decide(case, "comment", stored_incident(case, incident_id), {}, text)


def dismiss_duplicate(case: Case, incident_id: str, other_id: str, reason: str) -> Decision:
    """Say two incidents the duplicates queue offers are not one attack: a comment on the
    first naming the second, which takes the pair out of the queue
    (resolution/duplicates.py)."""
    require_reason(reason)
    other = stored_incident(case, other_id)
    return _decide(case, "comment", stored_incident(case, incident_id),
                   {"not_duplicate_of": other.id}, reason)


def dismissed_pairs(case: Case) -> list[tuple[str, str]]:
    """The pairs of incidents someone said are not one attack."""
    return [(d.incident_id, str(d.payload["not_duplicate_of"])) for d in load_decisions(case)
            if d.action == "comment" and d.payload.get("not_duplicate_of")]


def change_incident(case: Case, action: str, incident_id: str, payload: dict[str, Any],
                    reason: str) -> Decision:
    """Merge (payload ``others``: incident ids), split (``documents``: file names, item ids or
    mention keys to move out), edit (``field``, ``value``) or grade (``grade``) an incident."""
    if action not in CHANGES:
        raise DecisionError(f"{action!r} is not a change of an incident")
    incident = stored_incident(case, incident_id)
    payload = dict(payload)
    if action == "merge":
        others = [stored_incident(case, other) for other in payload.pop("others", [])]
        payload["keys"] = [m.key for i in [incident, *others] for m in i.mentions]
        payload["merged"] = [i.id for i in others]
    if action == "split":
        wanted = {str(d) for d in payload.pop("documents", [])}
        moved = [m.key for m in incident.mentions if m.document.name in wanted
                 or m.key in wanted or str(m.document.item_id) in wanted]
        if not moved or len(moved) == len(incident.mentions):
            raise DecisionError("split needs some, not all, of the incident's documents")
        payload["moved"] = moved
        payload["remaining"] = [m.key for m in incident.mentions if m.key not in moved]
        payload["anchor_keys"] = payload["remaining"]
    return _decide(case, action, incident, payload, reason)


def merged_into(case: Case, incident_id: str) -> str | None:
    """The incident that now holds an incident merged away (by a merge in force), so that a
    link or a note naming the old id still leads somewhere; None when no merge names it."""
    for d in reversed(load_decisions(case)):
        if d.action == "merge" and incident_id in (d.payload.get("merged") or []):
            keys = d.payload.get("keys") or []
            try:
                return stored_incident(case, str(keys[0])).id if keys else None
            except NotFound:  # its mentions are gone since (re-extraction)
                return None
    return None


def _decide(case: Case, action: str, incident: Incident, payload: dict[str, Any],
            reason: str) -> Decision:
    # The mentions the decision was made on: it follows the majority of them after merging.
    payload = {"anchor_keys": [m.key for m in incident.mentions], **payload}
    return record_decision(case, action, incident.id, payload, reason)
