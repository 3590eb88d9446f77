"""Analysts' decisions on incidents: merge, split, edit and grade, each with a reason.

A decision is stored with the mention keys it concerns (keys survive re-extraction), with what
each of those mentions stood for (document, place, kind, date: see
:mod:`casebuilder.resolution.anchoring`, which re-anchors decisions if keys change) and written
to the custody log. Building incidents applies the decisions on top of automatic merging, so
re-running extraction or merging never undoes them: first every merge and split, in the order
they were made, then every edit and grade, in the order made, each on the incident now holding
most of the mentions it was made on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from casebuilder.errors import CasebuilderError
from casebuilder.preservation.case import Case
from casebuilder.resolution.assessment import GRADES
from casebuilder.store.schema import AnalystDecision

ACTIONS = ("merge", "split", "edit", "grade")
EDITABLE = ("place", "date", "categories", "killed_best", "injured_best", "note")


class DecisionError(CasebuilderError):
    """A decision cannot be made as asked (unknown incident, missing reason, bad value)."""


@dataclass(frozen=True)
class Decision:
    id: int
    action: str
    incident_id: str
    payload: dict[str, Any]
    reason: str
    actor: str
    at: str


def record_decision(case: Case, action: str, incident_id: str, payload: dict[str, Any],
                    reason: str) -> Decision:
    if action not in ACTIONS:
        raise DecisionError(f"unknown decision {action!r}")
    if not reason.strip():
        raise DecisionError("a reason is required for every decision on an incident")
    if action == "grade" and payload.get("grade") not in GRADES:
        raise DecisionError(f"grade must be one of {', '.join(GRADES)}")
    if action == "edit" and payload.get("field") not in EDITABLE:
        raise DecisionError(f"only these can be edited: {', '.join(EDITABLE)}")
    from casebuilder.resolution.anchoring import describe, referenced_keys

    # What each mention stood for (document, place, kind, date), so the decision can be
    # re-anchored if a later version of the extractor keys mentions differently.
    payload = dict(payload, anchors=describe(case, referenced_keys(payload)))
    custody_action = "edit" if action in {"edit", "grade"} else "annotate"
    with case.transaction() as tx:
        seq = tx.record(custody_action, details={"decision": action, "incident": incident_id,
                                                 "payload": payload, "reason": reason})
        row = AnalystDecision(action=action, incident_id=incident_id, payload=payload,
                              reason=reason, actor=tx.actor, at=tx.last_time, entry_seq=seq)
        tx.session.add(row)
        tx.session.flush()
        decision = Decision(row.id, action, incident_id, payload, reason, tx.actor, tx.last_time)
    case.checkpoint()
    return decision


def load_decisions(case: Case) -> list[Decision]:
    with case.session() as session:
        return [Decision(d.id, d.action, d.incident_id, dict(d.payload), d.reason, d.actor, d.at)
                for d in session.execute(select(AnalystDecision).order_by(
                    AnalystDecision.id)).scalars()]


def merge_constraints(decisions: Sequence[Decision]
                      ) -> tuple[list[list[str]], list[tuple[str, str]]]:
    """Groups of mention keys to keep together and pairs to keep apart, latest decision last."""
    together: list[set[str]] = []
    apart: set[tuple[str, str]] = set()
    for d in decisions:
        if d.action == "merge":
            keys = set(d.payload.get("keys", []))
            for a in keys:
                for b in keys:
                    apart.discard((a, b))
            joined = [g for g in together if g & keys]
            for g in joined:
                together.remove(g)
                keys |= g
            together.append(keys)
        elif d.action == "split":
            moved = set(d.payload.get("moved", []))
            remaining = set(d.payload.get("remaining", []))
            for g in together:
                g -= moved
            if len(moved) > 1:
                together.append(set(moved))
            apart |= {(a, b) for a in moved for b in remaining}
    return [sorted(g) for g in together if g], sorted(apart)
