"""The review workflow of an incident, as data (review.toml) and as state.

Place in the flow: below resolution.stored and resolution.review; read by the listing (each
listed line shows its status) and by the moves themselves. The state is never stored apart:
:func:`review_of` reads it from an incident's decisions in force, so a merge carries the
decisions of both incidents and an undo of a move takes its status back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from casebuilder.errors import ConfigurationError
from casebuilder.model.described import described, toml_of
from casebuilder.preservation.access import allowed, shipped_access

#: Decisions that change what an incident is (as opposed to where it is in its review).
CHANGES = ("merge", "split", "edit", "grade")


@dataclass(frozen=True)
class Move:
    name: str
    description: str
    sources: tuple[str, ...]  # the statuses it leaves
    to: str
    permission: str
    four_eyes: bool


@dataclass(frozen=True)
class Workflow:
    statuses: dict[str, str]  # status -> description, in order
    moves: dict[str, Move]
    first: str
    reopened_by_change: str
    changed_after: frozenset[str]


def parse_workflow(text: str, origin: str, permissions: Sequence[str]) -> Workflow:
    """A review.toml text as a workflow; every problem is named, with its move or status."""
    data = toml_of(text, origin)
    statuses = {name: str(body["description"])
                for name, body in described(data, "statuses", "status", origin).items()}

    def status(value: Any, where: str) -> str:
        if value not in statuses:
            raise ConfigurationError(f"{origin}: {where} names {value!r}, which is not a status")
        return str(value)

    moves = {}
    for name, body in described(data, "moves", "move", origin).items():
        sources = body.get("from")
        if not isinstance(sources, list) or not sources:
            raise ConfigurationError(f"{origin}: move {name!r} leaves no status ('from')")
        if body.get("permission") not in permissions:
            raise ConfigurationError(f"{origin}: move {name!r} needs permission "
                                     f"{body.get('permission')!r}, which access.toml lacks")
        moves[name] = Move(name, str(body["description"]),
                           tuple(status(s, f"move {name!r}") for s in sources),
                           status(body.get("to"), f"move {name!r}"),
                           str(body["permission"]), bool(body.get("four_eyes", False)))
    if not moves:
        raise ConfigurationError(f"{origin}: no [moves.NAME] table")
    return Workflow(statuses, moves, status(data.get("first"), "first"),
                    status(data.get("reopened_by_change"), "reopened_by_change"),
                    frozenset(status(s, "changed_after") for s in
                              data.get("changed_after") or []))


@cache
def shipped_workflow() -> Workflow:
    source = resources.files("casebuilder.resolution").joinpath("review.toml")
    return parse_workflow(source.read_text(encoding="utf-8"), "review.toml",
                          list(shipped_access().permissions))


@dataclass
class Review:
    """Where an incident stands: its status, since when and by whose move, who it is assigned
    to, and who may not make a four-eyes move on it (they changed or moved it in this round)."""

    status: str
    since: str | None = None
    by: str | None = None
    assigned: str | None = None
    involved: set[str] = field(default_factory=set)
    history: list[dict[str, Any]] = field(default_factory=list)
    comments: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"status": self.status, "since": self.since, "by": self.by,
                "assigned": self.assigned, "involved": sorted(self.involved),
                "history": self.history, "comments": self.comments}


def review_of(decisions: Sequence[Mapping[str, Any]], workflow: Workflow | None = None
              ) -> Review:
    """The review state an incident's decisions in force (its record's ``analyst_decisions``)
    add up to, taken in the order they were made."""
    workflow = workflow or shipped_workflow()
    review = Review(workflow.first)
    for d in sorted(decisions, key=lambda d: int(d.get("id") or 0)):
        action, actor, payload = d.get("action"), str(d.get("actor") or ""), d.get("payload") or {}
        step = {"decision": d.get("id"), "action": action, "actor": actor, "at": d.get("at"),
                "reason": d.get("reason")}
        if action == "review":
            review.status, review.since, review.by = str(payload.get("to")), d.get("at"), actor
            if review.status == workflow.reopened_by_change:
                review.involved = set()
            review.involved.add(actor)
            review.history.append(dict(step, move=payload.get("move"), to=payload.get("to")))
        elif action == "assign":
            review.assigned = payload.get("assignee") or None
            review.history.append(dict(step, assignee=review.assigned))
        elif action == "comment":
            review.comments.append(step)
        elif action in CHANGES:
            if review.status in workflow.changed_after:
                review.status, review.since, review.by = \
                    workflow.reopened_by_change, d.get("at"), actor
                review.involved = set()
                step["reopened"] = True
            review.involved.add(actor)
            review.history.append(step)
    return review


def moves_open(review: Review, role: str, actor: str,
               workflow: Workflow | None = None) -> list[Move]:
    """The moves ``actor`` (holding ``role``) may make now."""
    workflow = workflow or shipped_workflow()
    return [m for m in workflow.moves.values() if refusal(m, review, role, actor) is None]


def refusal(move: Move, review: Review, role: str | None, actor: str) -> str | None:
    if review.status not in move.sources:
        return (f"'{move.name}' moves an incident from {', '.join(move.sources)}; this one is "
                f"{review.status}")
    if role is not None and not allowed(role, move.permission):
        return f"'{move.name}' needs the permission {move.permission}, which a {role} lacks"
    if move.four_eyes and actor in review.involved:
        return (f"'{move.name}' needs a second person: {actor} changed or moved this incident "
                "in this round of review")
    return None
