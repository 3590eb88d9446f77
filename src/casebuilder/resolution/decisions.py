"""Analysts' decisions on incidents: merge, split, edit and grade, each with a reason (and
the review workflow's moves, assignments and comments: resolution.review).

A decision is stored with the mention keys it concerns (keys survive re-extraction), with what
each of those mentions stood for (document, place, kind, date: see
:mod:`casebuilder.resolution.anchoring`, which re-anchors decisions if keys change) and written
to the custody log. Building incidents applies the decisions on top of automatic merging, so
re-running extraction or merging never undoes them: first every merge and split, in the order
they were made, then every edit and grade, in the order made, each on the incident now holding
most of the mentions it was made on.

Nothing is ever removed: a decision is withdrawn by an ``undo`` decision naming it, with its own
reason, and an undo can itself be undone. Only decisions in force are applied.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from sqlalchemy import select

from casebuilder.errors import CasebuilderError
from casebuilder.model.terms import GRADES
from casebuilder.preservation.case import Case
from casebuilder.store.schema import AnalystDecision

#: assess: analysis/elements; review, assign, comment: the review workflow (resolution.review),
#: which changes nothing an incident holds, only where it stands and who works on it.
ACTIONS = ("merge", "split", "edit", "grade", "undo", "assess", "review", "assign", "comment")
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


def require_reason(reason: str) -> None:
    """Every decision on an incident gives its reason (checked before anything is read)."""
    if not reason.strip():
        raise DecisionError("a reason is required for every decision on an incident")


def record_decision(case: Case, action: str, incident_id: str, payload: dict[str, Any],
                    reason: str) -> Decision:
    if action not in ACTIONS:
        raise DecisionError(f"unknown decision {action!r}")
    require_reason(reason)
    if action == "grade" and payload.get("grade") not in GRADES:
        raise DecisionError(f"grade must be one of {', '.join(GRADES)}")
    if action == "edit":
        check_edit(payload.get("field"), payload.get("value"))
    if action == "merge":
        check_merge(incident_id, payload)
    if action == "undo":
        check_undo(case, payload.get("undoes"))
    if action == "review" and not (isinstance(payload.get("move"), str)
                                   and isinstance(payload.get("to"), str)):
        raise DecisionError("a review decision names its move and the status it moves to")
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


def edit_value(field: str, raw: str) -> Any:
    """An edited value as a person types it (command line, web form) made what an ``edit``
    decision holds: categories comma-separated, a figure as a number or low-high, a place as
    a JSON object, a date in ISO form; checked by :func:`check_edit` when recorded."""
    if field == "categories":
        return [c.strip() for c in raw.split(",") if c.strip()]
    if field in {"killed_best", "injured_best"}:
        low, _, high = raw.partition("-")
        try:
            return {"low": int(low), "high": int(high or low), "text": raw}
        except ValueError as exc:
            raise DecisionError(f"{field} takes a number or low-high, not {raw!r}") from exc
    if field == "place":
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise DecisionError("place takes a JSON object with name, lat, lon") from exc
    if field == "date":
        from casebuilder.model.partial_date import PartialDate

        try:
            PartialDate.parse_iso(raw)
        except ValueError as exc:
            raise DecisionError(f"not an ISO date or range: {raw}") from exc
    return raw


def check_edit(field: Any, value: Any) -> None:
    """An edited value must be one the rest of casebuilder can use as it stands."""
    if field not in EDITABLE:
        raise DecisionError(f"only these can be edited: {', '.join(EDITABLE)}")
    if field == "categories":
        from casebuilder.model.terms import CATEGORY_ORDER

        if not isinstance(value, list) or not value:
            raise DecisionError("categories takes one or more categories")
        unknown = [c for c in value if c not in CATEGORY_ORDER]
        if unknown:
            raise DecisionError(f"unknown categor{'ies' if len(unknown) > 1 else 'y'} "
                                f"{', '.join(map(repr, unknown))}; the categories are "
                                f"{', '.join(CATEGORY_ORDER)}")
    elif field in {"killed_best", "injured_best"}:
        figure = value if isinstance(value, dict) else {}
        low, high = figure.get("low"), figure.get("high")
        if not (_count(low) and _count(high) and low <= high):
            raise DecisionError(f"{field} takes a number or a range low-high with low <= high "
                                f"(not {figure.get('text', value)})")
    elif field == "place":
        if not isinstance(value, dict) or not isinstance(value.get("name"), str) or \
                not value["name"].strip():
            raise DecisionError("place takes a JSON object with a name, lat and lon")
        lat, lon = value.get("lat"), value.get("lon")
        if not (_number(lat) and _number(lon) and -90 <= lat <= 90 and -180 <= lon <= 180):
            raise DecisionError(f"place {value['name']!r} needs its coordinates: lat between "
                                "-90 and 90, lon between -180 and 180")
    elif field == "note" and not (isinstance(value, str) and value.strip()):
        raise DecisionError("note takes some text")


def _count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def check_merge(incident_id: str, payload: dict[str, Any]) -> None:
    """A merge joins other, distinct incidents (``merged``, as the command line records it),
    or at least two distinct mentions (``keys``)."""
    if "merged" in payload:
        others = payload["merged"]
        if not isinstance(others, list) or not others:
            raise DecisionError("merge needs at least one other incident")
        if incident_id in others or len(set(others)) != len(others):
            raise DecisionError("merge needs other, distinct incidents: an incident is not "
                                "merged with itself")
    keys = payload.get("keys", [])
    if not isinstance(keys, list) or len(set(keys)) < 2:
        raise DecisionError("merge needs at least two distinct mentions to join")


def check_undo(case: Case, undoes: Any) -> None:
    if not isinstance(undoes, int) or isinstance(undoes, bool):
        raise DecisionError("undo names the decision it withdraws by its number")
    with case.session() as session:
        if session.get(AnalystDecision, undoes) is None:
            raise DecisionError(f"there is no decision {undoes} to undo")


def all_decisions(case: Case) -> list[Decision]:
    """Every decision ever recorded, undos included, oldest first."""
    with case.session() as session:
        return [Decision(d.id, d.action, d.incident_id, dict(d.payload), d.reason, d.actor, d.at)
                for d in session.execute(select(AnalystDecision).order_by(
                    AnalystDecision.id)).scalars()]


def in_force(decisions: Sequence[Decision]) -> list[Decision]:
    """The decisions that apply: those no undo in force withdraws (an undo of an undo puts the
    first decision back), without the undos themselves."""
    by_id = {d.id: d for d in decisions}
    withdrawn: set[int] = set()
    for d in reversed(decisions):  # a later undo decides about an earlier one
        if d.action == "undo" and d.id not in withdrawn:
            target = d.payload.get("undoes")
            if isinstance(target, int) and target in by_id:
                withdrawn.add(target)
    return [d for d in decisions if d.action != "undo" and d.id not in withdrawn]


def load_decisions(case: Case) -> list[Decision]:
    """The decisions in force, oldest first (see :func:`in_force`)."""
    return in_force(all_decisions(case))


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
