"""Reads are custody events too: a listing, a search or a text shown is logged as a ``view``
entry naming what was seen (and the items, where it was items), then signed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from casebuilder.preservation.case import Case
from casebuilder.preservation.custody import ItemRef


def log_view(case: Case, what: str, items: Sequence[ItemRef] = (),
             details: dict[str, Any] | None = None) -> None:
    with case.transaction() as tx:
        tx.record("view", list(items), {"what": what, **(details or {})})
    case.checkpoint()
