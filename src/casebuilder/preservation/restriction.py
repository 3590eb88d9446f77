"""Restricted items: witness statements, identities and the like, kept from the people not
cleared to see them (access.toml: ``[restricted.KIND]`` and the ``view_restricted``
permission).

Place in the flow: in preservation, beside the items. Restricting an item changes nothing of
it: a row says who restricted it, as what kind of material and why, and a custody entry
("restrict") records the same, so that the restriction, and its lifting, are evidence of how
the case was handled. What is withheld is the item and everything made from it (its text,
derived files, the members of an archive it is): :func:`withheld_items` is the one answer the
front ends and the resolution stage ask before they show, count or search anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from casebuilder.errors import CasebuilderError, NotFound
from casebuilder.preservation.access import shipped_access
from casebuilder.preservation.case import Case
from casebuilder.preservation.items import item_ref
from casebuilder.store.schema import Derivation, Item, ItemRestriction, Origin


class RestrictionError(CasebuilderError):
    """A restriction that cannot be made: an unknown kind, no reason, an item not held."""


@dataclass(frozen=True)
class Restriction:
    item_id: int
    restricted: bool
    kind: str | None
    reason: str
    actor: str
    at: str


def restrict_item(case: Case, item_id: int, kind: str, reason: str) -> Restriction:
    """Restrict one item (an original, or any item) as ``kind``, as ``case.actor``."""
    check_kind(kind)
    return _decide(case, item_id, True, kind, reason)


def check_kind(kind: str) -> None:
    """A restriction names a kind access.toml lists (checked before an ingest takes anything
    in, as before a restriction is recorded)."""
    kinds = shipped_access().restricted
    if kind not in kinds:
        raise RestrictionError(f"no kind of restricted material {kind!r}; the kinds are "
                               f"{', '.join(kinds)} (access.toml)")


def lift_restriction(case: Case, item_id: int, reason: str) -> Restriction:
    """Lift an item's restriction; an item that is not restricted is refused, so that the
    log never holds a lifting of nothing."""
    with case.session() as session:
        if item_id not in current_restrictions(session):
            raise RestrictionError(f"item {item_id} is not restricted")
    return _decide(case, item_id, False, None, reason)


def _decide(case: Case, item_id: int, restricted: bool, kind: str | None, reason: str
            ) -> Restriction:
    if not reason.strip():
        raise RestrictionError("a restriction, and its lifting, need a reason")
    with case.transaction() as tx:
        item = tx.session.get(Item, item_id)
        if item is None:
            raise NotFound(f"no item {item_id} in this case")
        seq = tx.record("restrict", [item_ref(item)],
                        {"restricted": restricted, "kind": kind, "reason": reason})
        row = ItemRestriction(item_id=item_id, restricted=restricted, kind=kind,
                              reason=reason, actor=case.actor, at=tx.last_time,
                              entry_seq=seq)
        tx.session.add(row)
    case.checkpoint()
    return Restriction(item_id, restricted, kind, reason, row.actor, row.at)


def current_restrictions(session: Session) -> dict[int, Restriction]:
    """The items restricted now, each with its latest restriction."""
    r = ItemRestriction
    latest = select(r.item_id, func.max(r.id).label("last")).group_by(r.item_id).subquery()
    rows = session.scalars(select(r).join(latest, r.id == latest.c.last)
                           .where(r.restricted.is_(True)))
    return {row.item_id: Restriction(row.item_id, True, row.kind, row.reason, row.actor, row.at)
            for row in rows}


def withheld_items(session: Session) -> frozenset[int]:
    """Every item a person not cleared must not see: the restricted items and all made from
    them (text, derived files, archive members and attachments), followed to the end."""
    found = set(current_restrictions(session))
    frontier = set(found)
    while frontier:
        made = _made_from(session, frontier)
        frontier = made - found
        found |= frontier
    return frozenset(found)


def _made_from(session: Session, items: Iterable[int]) -> set[int]:
    ids = sorted(items)
    made: set[int] = set()
    for start in range(0, len(ids), 500):  # bounded IN lists on every database
        chunk = ids[start:start + 500]
        made.update(session.scalars(select(Derivation.derived_item_id)
                                    .where(Derivation.source_item_id.in_(chunk))))
        made.update(i for i in session.scalars(select(Item.text_item_id)
                                               .where(Item.id.in_(chunk))) if i is not None)
        made.update(session.scalars(select(Origin.item_id)
                                    .where(Origin.parent_item_id.in_(chunk))))
    return made
