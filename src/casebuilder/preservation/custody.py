"""Appending custody entries: every action on a case becomes one line of the custody log.

An action's database rows and its custody entries are written as one unit of work
(:class:`CaseTransaction`): the rows are flushed, the entries appended to ``custody/log.jsonl``
and fsynced, then the database commits. If the commit fails the log file is cut back to its
previous length, so the log never records an action the database does not hold. The database
keeps a copy of each entry and the log's byte length; a writer that finds the file changed behind
its back refuses to append and asks for ``casebuilder verify``.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from casebuilder.errors import CaseHomeError, CaseWriteError, CustodyLogError, IntegrityError
from casebuilder.model.clock import Clock, format_utc
from casebuilder.preservation.canonical import canonical_bytes
from casebuilder.preservation.merkle import leaf_hash
from casebuilder.store.schema import CustodyEvent, LogState

#: Actions a custody entry may record. Stages add theirs here so the vocabulary stays in one place.
ACTIONS = frozenset(
    {
        "init",  # the case was created
        "ingest",  # an original was received (or received again from a new origin)
        "intake-failed",  # a path could not be taken in
        "parse",  # a format handler read an item (metadata, text) or failed to
        "derive",  # a derived file was made from an item
        "extract",  # claims and incident mentions were extracted from a text
        "extract-failed",  # the extractor failed on a text (recorded so it is not retried)
        "digest",  # a stored copy was read back and both digests recorded (sealing.py)
        "view",  # an item was shown or opened
        "export",  # data left the case in an export
        "annotate",  # an analyst added a note
        "edit",  # an analyst changed a derived record
        "verify",  # the case was verified
        "bundle",  # a court bundle was written
        "checkpoint-note",  # reserved for notes about checkpoints (e.g. a failed time-stamp)
        "store-note",  # what interrupted commands left in tmp/ or the store (leftovers.py)
    }
)


@dataclass(frozen=True)
class ItemRef:
    """How an entry names an item: by id and by content, so either can be checked. An item
    whose SHA-512 is not recorded yet is named without it (a ``digest`` entry adds it)."""

    id: int
    sha256: str
    sha512: str | None
    size: int
    role: str

    def as_entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": self.id, "role": self.role, "sha256": self.sha256,
                                 "size": self.size}
        if self.sha512 is not None:
            entry["sha512"] = self.sha512
        return entry


@dataclass
class CaseTransaction:
    session: Session
    case_id: str
    actor: str
    tool: str
    clock: Clock
    base_size: int
    pending: list[bytes] = field(default_factory=list)
    last_time: str = ""

    def record(
        self,
        action: str,
        items: Sequence[ItemRef] = (),
        details: dict[str, Any] | None = None,
    ) -> int:
        """Add one custody entry to this unit of work and return its sequence number."""
        if action not in ACTIONS:
            raise CustodyLogError(f"unknown custody action {action!r}")
        seq = self.base_size + len(self.pending)
        now = format_utc(self.clock())
        # Never let one command's entries run backwards if the clock steps back mid-command;
        # verification flags any backwards step between commands.
        now = max(now, self.last_time)
        self.last_time = now
        entry = {
            "action": action,
            "actor": self.actor,
            "case_id": self.case_id,
            "details": details or {},
            "items": [ref.as_entry() for ref in items],
            "seq": seq,
            "time": now,
            "tool": self.tool,
        }
        data = canonical_bytes(entry)
        self.session.add(
            CustodyEvent(
                seq=seq,
                leaf_hash=leaf_hash(data).hex(),
                action=action,
                actor=self.actor,
                time=now,
                entry=data.decode("utf-8"),
            )
        )
        self.pending.append(data)
        return seq


@contextmanager
def case_lock(lock_path: Path) -> Iterator[None]:
    """One writer per case home at a time, across processes."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise CaseHomeError(f"cannot open the case lock {lock_path}: {exc}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


class RunningLock:
    """Held (shared) by a command from its first unit of work until the checkpoint that signs
    its entries, so that verify can tell a command still running from entries nobody will
    sign. Shared, because commands may overlap (each takes the case lock for its writes)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def hold(self) -> None:
        if self._fd is not None:
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise CaseHomeError(f"cannot open the command lock {self.path}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def command_running(path: Path, own: RunningLock | None = None) -> bool:
    """Whether a command other than ``own`` holds the running lock at ``path``. Call it under
    the case lock: a command releases its running lock only after its checkpoint, which needs
    the case lock, so its signed-to-be entries and its lock are seen together."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # never created (no command since), or unreadable: nothing to tell
        return False
    mine = own is not None and own.held
    if mine and own is not None:
        own.release()  # our own hold would look like another's (flock is per open file)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
        if mine and own is not None:
            own.hold()


def last_entry_time(session: Session) -> str:
    row = session.execute(
        select(CustodyEvent.time).order_by(CustodyEvent.seq.desc()).limit(1)
    ).first()
    return "" if row is None else str(row[0])


def lock_log_state(session: Session) -> LogState:
    """The database's record of the log (entry count, byte length), locked for this session."""
    state = session.execute(
        select(LogState).where(LogState.id == 1).with_for_update()
    ).scalar_one_or_none()
    if state is None:
        raise CustodyLogError("the case database has no log state; was the case initialised?")
    return state


@contextmanager
def unit_of_work(
    session: Session,
    state: LogState,
    log_path: Path,
    *,
    case_id: str,
    actor: str,
    tool: str,
    clock: Clock,
) -> Iterator[CaseTransaction]:
    """Rows and entries of one action; the caller holds the case lock and ``state`` locked."""
    on_disk = log_path.stat().st_size if log_path.exists() else 0
    if on_disk != state.byte_length:
        raise CustodyLogError(
            f"the custody log {log_path} is {on_disk} bytes but the case recorded "
            f"{state.byte_length}: it was changed outside casebuilder. Nothing was written; "
            "run 'casebuilder verify' to see what differs"
        )
    tx = CaseTransaction(
        session=session,
        case_id=case_id,
        actor=actor,
        tool=tool,
        clock=clock,
        base_size=state.tree_size,
        last_time=last_entry_time(session),
    )
    try:
        yield tx
        if not tx.pending:
            session.commit()
            return
        blob = b"".join(line + b"\n" for line in tx.pending)
        state.tree_size += len(tx.pending)
        state.byte_length += len(blob)
        session.flush()
    except OperationalError as exc:
        session.rollback()
        raise _database_write_error(exc) from exc
    except BaseException:
        session.rollback()
        raise
    _append_and_commit(session, log_path, on_disk, blob)


@contextmanager
def database_writes() -> Iterator[None]:
    """A write the database refuses (full disk, read-only file, I/O error) is a CaseWriteError:
    the command stops, with a message rather than a driver's traceback."""
    try:
        yield
    except OperationalError as exc:
        raise _database_write_error(exc) from exc


def _database_write_error(exc: OperationalError) -> CaseWriteError:
    """The database refused a write ("database or disk is full", a read-only file, an I/O
    error): the unit of work is rolled back and the command stops."""
    return CaseWriteError(f"the case database could not be written: {exc.orig}")


@contextmanager
def custody_transaction(
    sessions: sessionmaker[Session],
    log_path: Path,
    lock_path: Path,
    *,
    case_id: str,
    actor: str,
    tool: str,
    clock: Clock,
    prepare: Callable[[], None] | None = None,
) -> Iterator[CaseTransaction]:
    """One command's unit of work under the case lock. ``prepare`` runs first, under the same
    lock, and commits on its own (recovery from an interrupted command): whatever the command
    then does, a failure of its own cannot undo what recovery moved and logged."""
    with case_lock(lock_path):
        if prepare is not None:
            with database_writes():
                prepare()
        with sessions() as session:
            state = lock_log_state(session)
            with unit_of_work(
                session, state, log_path, case_id=case_id, actor=actor, tool=tool, clock=clock
            ) as tx:
                yield tx


def read_tail(log_path: Path, state: LogState) -> tuple[bytes, int] | None:
    """Whole entries after the recorded end of the log (written by a command that stopped
    before its database commit, or appended from outside): the bytes and how many entries.
    Anything else (a partial line, entries that do not continue the log) is refused."""
    import json

    on_disk = log_path.stat().st_size if log_path.exists() else 0
    if on_disk <= state.byte_length:
        return None
    with open(log_path, "rb") as fh:
        fh.seek(state.byte_length)
        tail = fh.read()
    lines = tail.split(b"\n")
    if not tail.endswith(b"\n"):
        raise CustodyLogError(
            f"the custody log {log_path} ends with a partial entry after the recorded end; "
            "run 'casebuilder verify'")
    for offset, raw in enumerate(lines[:-1]):
        try:
            seq = json.loads(raw).get("seq")
        except (ValueError, AttributeError) as exc:
            raise CustodyLogError(f"unreadable entry after the recorded end of {log_path}: "
                                  f"{exc}; run 'casebuilder verify'") from exc
        if seq != state.tree_size + offset:
            raise CustodyLogError(f"entries after the recorded end of {log_path} do not "
                                  "continue the log; run 'casebuilder verify'")
    return tail, len(lines) - 1


def refuse_signed_tail(
    log_path: Path, state: LogState, entries: int, checkpoint_sizes: Iterable[int | None]
) -> None:
    """Entries past the recorded end that a checkpoint already signed were committed once: a
    command signs only what its database commit holds. So they were taken out of the database
    afterwards (rows deleted, or an older database put back), not left by a crash; moving them
    aside would hide that. ``None`` stands for a checkpoint whose size cannot be read."""
    sizes = list(checkpoint_sizes)
    if not any(size is None or size > state.tree_size for size in sizes):
        return
    known = [size for size in sizes if size is not None]
    signed = max(known, default=state.tree_size)
    raise IntegrityError(
        f"the custody log {log_path} holds {entries} entries after the end the database "
        f"records ({state.tree_size} entries), and a checkpoint "
        + (f"signed {signed} entries" if signed > state.tree_size else "that cannot be read")
        + ": entries that were committed and signed are missing from the database (rows "
        "deleted, or an older database put back). Nothing was moved or written; the case needs "
        "an investigator's attention. Run 'casebuilder verify'"
    )


def move_tail_aside(log_path: Path, state: LogState, tail: bytes, entries: int, clock: Clock
                    ) -> dict[str, Any]:
    """Moves the tail to a file of its own beside the log, cuts the log back to its recorded
    end and returns the details of the custody note that says so: nothing is lost and nothing
    is silently adopted."""
    aside = write_aside(log_path.parent, "interrupted", tail, clock)
    fd = os.open(log_path, os.O_WRONLY)
    try:
        os.ftruncate(fd, state.byte_length)
        os.fsync(fd)
    finally:
        os.close(fd)
    return {"note": "entries after the recorded end of the log (an interrupted command, or "
                    "added from outside) were moved aside, not adopted",
            "moved_to": aside.name, "entries": entries,
            "sha256": hashlib.sha256(tail).hexdigest()}


def write_aside(directory: Path, prefix: str, data: bytes, clock: Clock) -> Path:
    """Write ``data`` to a new read-only file ``<prefix>-<time>[-n].jsonl`` in ``directory``,
    never replacing one that exists, and make it durable (file and directory fsynced)."""
    stamp = format_utc(clock()).replace(":", "").replace(".", "")
    for n in range(1000):
        path = directory / (f"{prefix}-{stamp}.jsonl" if n == 0 else f"{prefix}-{stamp}-{n}.jsonl")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        except FileExistsError:
            continue
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(directory)
        return path
    raise CustodyLogError(f"cannot find a free name for {prefix}-{stamp}.jsonl in {directory}")


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def uncovered(session: Session, tree_size: int) -> dict[str, Any] | None:
    """Entries that no signed checkpoint covers yet: the checkpoint signed after this note
    will, and the log says so rather than signing them silently."""
    from casebuilder.store.schema import Checkpoint

    last = session.execute(select(Checkpoint.tree_size).order_by(Checkpoint.id.desc())
                           .limit(1)).scalar_one_or_none()
    covered = last or 0
    if covered >= tree_size:
        return None
    return {"note": "entries not covered by a signed checkpoint when this command began; "
                    "the checkpoint signed after this note covers them",
            "first": covered, "last": tree_size - 1}


def _append_and_commit(session: Session, log_path: Path, old_length: int, blob: bytes) -> None:
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        try:
            written = os.write(fd, blob)
            if written != len(blob):
                raise OSError(errno.ENOSPC, f"short write ({written} of {len(blob)} bytes)")
            os.fsync(fd)
        except OSError as exc:
            os.ftruncate(fd, old_length)
            session.rollback()
            raise CaseWriteError(f"cannot append to the custody log: {exc}") from exc
        try:
            session.commit()
        except BaseException as exc:
            # The database did not take the action, so the log must not claim it either.
            os.ftruncate(fd, old_length)
            os.fsync(fd)
            if isinstance(exc, OperationalError):
                raise _database_write_error(exc) from exc
            raise
    finally:
        os.close(fd)
