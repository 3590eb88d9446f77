"""Recording preserved items: each stored file gets its row, its origin and its custody entry.

Intake and every later stage that makes files (thumbnails, extracted text, exports kept in the
case) record them through these functions, so an item never exists without the custody entry
that states its hashes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from casebuilder.preservation.canonical import json_digest
from casebuilder.preservation.custody import CaseTransaction, ItemRef
from casebuilder.preservation.objects import StoredObject
from casebuilder.store.schema import Derivation, Item, Origin


def item_ref(item: Item, role: str | None = None) -> ItemRef:
    return ItemRef(item.id, item.sha256, item.sha512, item.size, role or item.kind)


def first_names(session: Session, item_ids: Sequence[int] | None = None) -> dict[int, str]:
    """The name each item was first received under, in the order names sort (an item
    received twice has two), for the items named or all of them."""
    query = select(Origin.item_id, func.min(Origin.name)).group_by(Origin.item_id)
    if item_ids is not None:
        query = query.where(Origin.item_id.in_(list(item_ids)))
    return {item_id: name for item_id, name in session.execute(query)}


def find_by_sha256(session: Session, sha256: str) -> Item | None:
    return session.execute(select(Item).where(Item.sha256 == sha256)).scalar_one_or_none()


def _new_item(
    session: Session,
    stored: StoredObject,
    *,
    kind: str,
    media_type: str | None,
    parse_status: str,
    fmt: str | None = None,
) -> Item:
    """A new item row; its custody entry number and time are set once the entry is written."""
    item = Item(
        sha256=stored.sha256,
        sha512=stored.sha512,
        size=stored.size,
        kind=kind,
        media_type=media_type,
        format=fmt,
        parse_status=parse_status,
        created_at="",
        entry_seq=-1,
    )
    session.add(item)
    session.flush()
    return item


def origin_record(o: Origin) -> dict[str, Any]:
    """How an origin is shown to people and written into bundles."""
    return {
        "relation": o.relation,
        "path": o.source_path,
        "name": o.name,
        "received_at": o.received_at,
        "actor": o.actor,
        "source_mtime": o.source_mtime,
        "parent_item": o.parent_item_id,
        "sidecar_item": o.sidecar_item_id,
        "collection": o.collection,
        "entry": o.entry_seq,
    }


@dataclass(frozen=True)
class OriginFacts:
    """Where and how a file arrived."""

    relation: str  # "file" | "archive-member" | "attachment" | "sidecar"
    source_path: str
    name: str
    parent_item_id: int | None = None
    source_mtime: str | None = None
    collection: dict[str, Any] | None = None
    sidecar_item_id: int | None = None
    source_path_bytes: str | None = None  # hex of the raw name when it was not valid UTF-8

    def as_entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "relation": self.relation,
            "source_path": self.source_path,
            "name": self.name,
        }
        if self.source_path_bytes is not None:
            entry["source_path_bytes"] = self.source_path_bytes
        if self.parent_item_id is not None:
            entry["parent_item"] = self.parent_item_id
        if self.source_mtime is not None:
            entry["source_mtime"] = self.source_mtime
        if self.collection is not None:
            entry["collection_sha256"] = json_digest(self.collection)
        if self.sidecar_item_id is not None:
            entry["sidecar_item"] = self.sidecar_item_id
        return entry


def record_received(
    tx: CaseTransaction,
    stored: StoredObject,
    origin: OriginFacts,
    *,
    media_type: str | None = None,
    notes: dict[str, Any] | None = None,
) -> tuple[Item, bool]:
    """Record a received original (new, or a known one arriving again). Returns (item, is_new)."""
    session = tx.session
    item = find_by_sha256(session, stored.sha256)
    is_new = item is None
    if item is None:
        item = _new_item(
            session, stored, kind="original", media_type=media_type, parse_status="pending"
        )
    details: dict[str, Any] = {"origin": origin.as_entry(), **(notes or {})}
    if not is_new:
        details["already_held"] = True
    if stored.set_aside is not None:
        details["stored_file_set_aside"] = stored.set_aside.as_entry()
    seq = tx.record("ingest", [item_ref(item, origin.relation)], details)
    if is_new:
        item.entry_seq = seq
        item.created_at = tx.last_time
    session.add(
        Origin(
            item_id=item.id,
            relation=origin.relation,
            source_path=origin.source_path,
            name=origin.name,
            parent_item_id=origin.parent_item_id,
            source_mtime=origin.source_mtime,
            received_at=tx.last_time,
            actor=tx.actor,
            collection=origin.collection,
            sidecar_item_id=origin.sidecar_item_id,
            entry_seq=seq,
        )
    )
    return item, is_new


def record_derived(
    tx: CaseTransaction,
    source: Item,
    stored: StoredObject,
    *,
    kind: str,
    media_type: str,
    tool: str,
    tool_version: str,
    name: str,
) -> Item:
    """Record a file made from ``source`` (extracted text, thumbnail) and how it was made."""
    session = tx.session
    item = find_by_sha256(session, stored.sha256)
    is_new = item is None
    if item is None:
        item = _new_item(
            session, stored, kind="derived", media_type=media_type, parse_status="derived", fmt=kind
        )
    existing = session.execute(
        select(Derivation).where(
            Derivation.derived_item_id == item.id,
            Derivation.source_item_id == source.id,
            Derivation.kind == kind,
        )
    ).scalar_one_or_none()
    if existing is not None:
        return item
    seq = tx.record(
        "derive",
        [item_ref(source, "source"), item_ref(item, "derived")],
        {
            "kind": kind,
            "tool": tool,
            "tool_version": tool_version,
            "name": name,
            "media_type": media_type,
            **(
                {"stored_file_set_aside": stored.set_aside.as_entry()}
                if stored.set_aside is not None
                else {}
            ),
        },
    )
    if is_new:
        item.entry_seq = seq
        item.created_at = tx.last_time
    session.add(
        Derivation(
            derived_item_id=item.id,
            source_item_id=source.id,
            kind=kind,
            tool=tool,
            tool_version=tool_version,
            created_at=tx.last_time,
            entry_seq=seq,
        )
    )
    return item



def record_report(
    tx: CaseTransaction,
    stored: StoredObject,
    sources: Sequence[Item],
    *,
    kind: str,
    media_type: str,
    tool: str,
    tool_version: str,
    name: str,
    details: dict[str, Any],
) -> Item:
    """Record a report made from many items: a derivation from each source (the ``derive``
    entries verify and bundles already check; only the first making of the same bytes adds
    them) and, each time it is made, one ``export`` entry naming the report and every item it
    read, since a report is data leaving the case."""
    item: Item | None = None
    for source in sources:
        item = record_derived(tx, source, stored, kind=kind, media_type=media_type,
                              tool=tool, tool_version=tool_version, name=name)
    if item is None:
        raise ValueError("a report relies on at least one item")
    tx.record("export", [item_ref(item, "report"), *(item_ref(s, "source") for s in sources)],
              {"what": "report", "kind": kind, "name": name, "media_type": media_type,
               **details})
    return item
