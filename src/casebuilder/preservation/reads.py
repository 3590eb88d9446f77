"""Reads are custody events too: a listing, a search, a text or a page shown is logged as a
``view`` entry naming what was seen (and the items, where it was items), then signed. The CLI
and the web interface both log their reads through :func:`log_view`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from casebuilder.preservation.case import Case
from casebuilder.preservation.custody import ItemRef
from casebuilder.store.schema import Item


def log_view(case: Case, what: str, items: Sequence[ItemRef] = (),
             details: dict[str, Any] | None = None) -> None:
    with case.transaction() as tx:
        tx.record("view", list(items), {"what": what, **(details or {})})
    case.checkpoint()


def text_of(case: Case, item: Item) -> tuple[Item, str] | None:
    """The text item of ``item`` (itself, if it is a text) and the text, or None."""
    with case.session() as session:
        text_item = item if item.text_item_id is None and (item.media_type or "").startswith(
            "text/plain") else session.get(Item, item.text_item_id) if item.text_item_id else None
    if text_item is None:
        return None
    with case.storage.open(text_item.sha256) as fh:
        return text_item, fh.read().decode("utf-8", "replace")
