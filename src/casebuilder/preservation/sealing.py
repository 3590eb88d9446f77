"""Sealing: the second digest (SHA-512) of stored files, taken from the stored copy itself.

Ingest records each file with the SHA-256 it computes while storing it. Unless the case asks
for both digests in that pass (``[intake] second_digest = "inline"``), the item's SHA-512 is
left pending, so that ingest costs one hash, not two (docs/decisions/0003). Sealing reads the
stored copy back, computes SHA-256 and SHA-512 of it in one pass (two threads), checks the
SHA-256 and the size against the item's (so the bytes that reached the disk are the bytes
hashed at ingest) and records both digests in a ``digest`` custody entry per item, which also
sets the item's SHA-512. A copy that does not hash as recorded is not sealed and is reported;
verify reports it as a failure too.

It runs in a process of its own started at the end of a command (``casebuilder seal``, one at a
time per case, see :func:`seal_lock`), within ``verify`` (which reads every stored file anyway)
and before ``bundle`` writes a bundle (a bundle holds only items with both digests). Either
digest can then be checked by anyone with ``sha256sum`` and ``sha512sum``.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from casebuilder.errors import CasebuilderError
from casebuilder.preservation.case import Case
from casebuilder.preservation.custody import ItemRef
from casebuilder.preservation.objects import Digests
from casebuilder.store.schema import Item

#: Digests recorded per unit of work: each item's entry is committed within minutes of its
#: read-back, and one commit serves many small files.
BATCH_ITEMS = 200
BATCH_BYTES = 4 * 1024**3


@dataclass
class SealReport:
    sealed: list[int] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)  # item id, what is wrong


def pending_items(case: Case, item_ids: Sequence[int] | None = None
                  ) -> list[tuple[int, str, int]]:
    """(id, sha256, size) of the items whose SHA-512 is not recorded yet, oldest first."""
    query = select(Item.id, Item.sha256, Item.size).where(Item.sha512.is_(None))
    if item_ids is not None:
        query = query.where(Item.id.in_(list(item_ids)))
    with case.session() as session:
        return [(i, s, n) for i, s, n in session.execute(query.order_by(Item.id)).all()]


def seal_pending(case: Case, item_ids: Sequence[int] | None = None, *, by: str = "seal"
                 ) -> SealReport:
    """Read back and seal every pending item (of ``item_ids``, if given)."""
    report = SealReport()
    batch: dict[int, Digests] = {}
    batch_bytes = 0
    for item_id, sha256, size in pending_items(case, item_ids):
        try:
            digests = case.storage.rehash(sha256)
        except (OSError, CasebuilderError) as exc:
            report.problems.append((item_id, f"its stored file cannot be read: {exc}"))
            continue
        problem = mismatch(digests, sha256, size)
        if problem is not None:
            report.problems.append((item_id, problem))
            continue
        batch[item_id] = digests
        batch_bytes += size
        if len(batch) >= BATCH_ITEMS or batch_bytes >= BATCH_BYTES:
            report.sealed += record_digests(case, batch, by=by)
            batch, batch_bytes = {}, 0
    if batch:
        report.sealed += record_digests(case, batch, by=by)
    if report.sealed:
        case.checkpoint()
    return report


def mismatch(digests: Digests, sha256: str, size: int) -> str | None:
    """Why a stored copy read back cannot seal its item (None: it can)."""
    if digests.sha256 != sha256:
        return (f"its stored file's SHA-256 is {digests.sha256}, not the {sha256} recorded at "
                "ingest: not sealed")
    if digests.size != size:
        return f"its stored file is {digests.size} bytes, recorded as {size}: not sealed"
    return None


def record_digests(case: Case, found: dict[int, Digests], *, by: str) -> list[int]:
    """Record the digests read back from the store, one ``digest`` entry per item still
    pending (another process may have sealed some meanwhile); returns the items sealed."""
    sealed: list[int] = []
    if not found:
        return sealed
    with case.transaction() as tx:
        for item_id, digests in sorted(found.items()):
            item = tx.session.get(Item, item_id)
            if item is None or item.sha512 is not None or item.sha256 != digests.sha256:
                continue
            item.sha512 = digests.sha512
            tx.record("digest",
                      [ItemRef(item.id, item.sha256, item.sha512, item.size, item.kind)],
                      {"read_from": "the stored copy", "sha256_checked": True, "by": by})
            sealed.append(item_id)
    return sealed


def seal_lock_path(case_root: Path) -> Path:
    return case_root / "seal.lock"


@contextmanager
def seal_lock(case_root: Path) -> Iterator[None]:
    """Held by the sealer of a case. A second sealer waits for the first, then finds little or
    nothing left to do: no sealing is lost to a race between two starting at once."""
    fd = os.open(seal_lock_path(case_root), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def sealer_running(case_root: Path) -> bool:
    """Whether a sealer holds the case's seal lock (a shared probe: never in its way)."""
    try:
        fd = os.open(seal_lock_path(case_root), os.O_RDONLY)
    except OSError:
        return False  # never created: no sealer ever ran
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
