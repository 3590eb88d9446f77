"""Appending custody entries: every action on a case becomes one line of the custody log.

An action's database rows and its custody entries are written as one unit of work
(:class:`CaseTransaction`): the rows are flushed, the log's new head is sealed with the case key
(``custody/seal.json``, see seal.py), the entries appended to ``custody/log.jsonl`` and fsynced,
then the database commits. If the commit fails the log file is cut back to its previous length,
so the log never records an action the database does not hold. The database keeps a copy of
each entry, the log's byte length and the last seal; a writer that finds the file changed behind
its back, or a head that neither the last seal nor a checkpoint signs, refuses to append and asks
for ``casebuilder verify``.
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

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sqlalchemy import select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from casebuilder.errors import CaseHomeError, CaseWriteError, CustodyLogError, IntegrityError
from casebuilder.model.clock import Clock, format_utc
from casebuilder.preservation.canonical import canonical_bytes
from casebuilder.preservation.keys import CaseSigner
from casebuilder.preservation.merkle import Frontier, leaf_hash
from casebuilder.preservation.seal import Seal, sign_seal, write_seal
from casebuilder.store.schema import Checkpoint, CustodyEvent, LogState

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
        "recover",  # an investigator set aside or adopted entries casebuilder did not seal
        "key-rotation",  # the case was given a new signing key, approved by the old one
        "store-note",  # what interrupted commands left in tmp/ or the store (leftovers.py)
        "incidents",  # the stored incidents were rebuilt or updated (resolution/stored.py)
        "user",  # a user account was added, given another role or disabled (accounts.py)
        "login",  # someone signed in to the web interface, or failed to (accounts.py)
        "logout",  # a web session was closed
        "restrict",  # an item was restricted to the cleared roles, or lifted (restriction.py)
    }
)

#: How far the last entry's time may be ahead of this machine's clock before a writer refuses:
#: a clock stepped back by NTP is carried forward; one a day behind is a wrong clock or a
#: forward-dated entry, and carrying it forward would stamp every later entry with it.
CLOCK_SKEW_SECONDS = 300


@dataclass(frozen=True)
class LogSealer:
    """What a unit of work needs to seal the log's new head before appending to it."""

    path: Path
    case_id: str
    public_key: Ed25519PublicKey
    signer: Callable[[], CaseSigner]  # loaded when a command first writes, not to read
    #: the keys a logged key rotation handed the case from or to (read only when needed)
    rotated_keys: Callable[[], tuple[Ed25519PublicKey, ...]] = tuple

    def genuine(self, seal: Seal) -> bool:
        """Sealed with the case key, or with a key a logged rotation handed it from (the unit
        of work that logs a rotation is sealed with the key it retires)."""
        return seal.verifies(self.public_key, self.case_id) or any(
            seal.verifies(key, self.case_id) for key in self.rotated_keys())


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

    @property
    def next_seq(self) -> int:
        """The sequence number the next entry recorded in this unit of work will get."""
        return self.base_size + len(self.pending)

    def record(
        self,
        action: str,
        items: Sequence[ItemRef] = (),
        details: dict[str, Any] | None = None,
    ) -> int:
        """Add one custody entry to this unit of work and return its sequence number."""
        if action not in ACTIONS:
            raise CustodyLogError(f"unknown custody action {action!r}")
        seq = self.next_seq
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


def last_entry_time(session: Session, clock: Clock, *, refuse_future: bool = True) -> str:
    """The time the last entry states (read from the entry itself, not from the row's ``time``
    column, which nothing signs). Entries never run backwards, so the next command carries a
    slightly later time forward; a last entry far in this clock's future is refused."""
    import json
    from datetime import timedelta

    row = session.execute(
        select(CustodyEvent.entry).order_by(CustodyEvent.seq.desc()).limit(1)
    ).first()
    if row is None:
        return ""
    try:
        stated = json.loads(row[0]).get("time")
    except (ValueError, AttributeError) as exc:
        raise CustodyLogError(f"the last custody entry cannot be read: {exc}; run "
                              "'casebuilder verify'") from exc
    if not isinstance(stated, str):
        raise CustodyLogError("the last custody entry has no time; run 'casebuilder verify'")
    now = clock()
    if refuse_future and stated > format_utc(now + timedelta(seconds=CLOCK_SKEW_SECONDS)):
        raise IntegrityError(
            f"the last custody entry is dated {stated}, after this machine's clock "
            f"({format_utc(now)}): "
            "the clock is wrong, or the entry was forward-dated. Nothing was written; check the "
            "clock and run 'casebuilder verify'"
        )
    return stated


def lock_log_state(session: Session) -> LogState:
    """The database's record of the log (entry count, byte length), locked for this session."""
    state = session.execute(
        select(LogState).where(LogState.id == 1).with_for_update()
    ).scalar_one_or_none()
    if state is None:
        raise CustodyLogError("the case database has no log state; was the case initialised?")
    return state


def log_frontier(session: Session, state: LogState) -> Frontier:
    """The frontier of the committed log: as recorded, or rebuilt from the entries' leaf hashes
    (a case from before frontiers were kept, or a recorded one that does not add up)."""
    if state.frontier is not None:
        try:
            frontier = Frontier.from_json(state.frontier)
        except ValueError:
            frontier = None
        if frontier is not None and frontier.size == state.tree_size:
            return frontier
    leaves = session.execute(
        select(CustodyEvent.leaf_hash)
        .where(CustodyEvent.seq < state.tree_size)
        .order_by(CustodyEvent.seq)
    ).scalars()
    return Frontier.of([bytes.fromhex(h) for h in leaves])


def committed_seal(state: LogState) -> Seal | None:
    if state.seal is None:
        return None
    try:
        return Seal.from_line(state.seal)
    except CustodyLogError:
        return None


def unsigned_head(session: Session, state: LogState, sealer: LogSealer) -> str | None:
    """Why the committed head of the log is signed neither by the last unit of work's seal nor
    by a checkpoint, or None when it is. Entries under such a head were committed by someone
    who did not hold the case key: nothing may be sealed or signed on top of them."""
    size = state.tree_size
    root = log_frontier(session, state).root()
    seal = committed_seal(state)
    if seal is not None and seal.tree_size == size and seal.root == root.hex() and \
            sealer.genuine(seal):
        return None
    last = session.execute(
        select(Checkpoint).order_by(Checkpoint.id.desc()).limit(1)
    ).scalar_one_or_none()
    if last is not None and last.tree_size == size and last.root == root.hex():
        # its signature is checked by whoever adopted or wrote it, and by verify
        return None
    if size == 0:
        return None
    covered = 0 if last is None else last.tree_size
    what = "no seal" if state.seal is None else (
        "a seal that does not verify" if seal is None or not sealer.genuine(seal) else
        f"a seal over {seal.tree_size} entries")
    return (
        f"custody entries {covered}..{size - 1} are committed but neither the case key's seal "
        f"of a unit of work nor a checkpoint signs them (the database records {what}): they "
        "were added outside casebuilder, or by a version that did not seal its writes"
    )


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
    sealer: LogSealer,
    unsealed_base: bool = False,
) -> Iterator[CaseTransaction]:
    """Rows and entries of one action; the caller holds the case lock and ``state`` locked.

    Before the entries are appended the new head is sealed (seal.py). ``unsealed_base`` lets
    an investigator's explicit recovery write on top of a head nobody sealed; every other
    writer refuses to."""
    on_disk = log_path.stat().st_size if log_path.exists() else 0
    if on_disk != state.byte_length:
        raise CustodyLogError(
            f"the custody log {log_path} is {on_disk} bytes but the case recorded "
            f"{state.byte_length}: it was changed outside casebuilder. Nothing was written; "
            "run 'casebuilder verify' to see what differs"
        )
    if not unsealed_base:
        problem = unsigned_head(session, state, sealer)
        if problem is not None:
            raise IntegrityError(
                f"{problem}. Nothing was written; run 'casebuilder verify', and "
                "'casebuilder recover --reason ...' once an investigator has looked"
            )
    tx = CaseTransaction(
        session=session,
        case_id=case_id,
        actor=actor,
        tool=tool,
        clock=clock,
        base_size=state.tree_size,
        last_time=last_entry_time(session, clock),
    )
    try:
        yield tx
        if not tx.pending:
            session.commit()
            return
        blob = b"".join(line + b"\n" for line in tx.pending)
        frontier = log_frontier(session, state)
        base = (frontier.size, frontier.root())
        grown = frontier.extended([leaf_hash(line) for line in tx.pending])
        seal = sign_seal(sealer.signer(), case_id=case_id, base=base,
                         head=(grown.size, grown.root()), time=tx.last_time)
        state.tree_size += len(tx.pending)
        state.byte_length += len(blob)
        state.frontier = grown.as_json()
        state.seal = seal.as_line()
        session.flush()
        # Durable before the entries exist: whatever a crash leaves after the recorded end
        # is then either covered by this seal or was not written by this case's key holder.
        write_seal(sealer.path, seal)
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
    sealer: LogSealer,
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
                session, state, log_path, case_id=case_id, actor=actor, tool=tool,
                clock=clock, sealer=sealer,
            ) as tx:
                yield tx


def read_raw_tail(log_path: Path, state: LogState) -> bytes:
    """Whatever follows the recorded end of the log, whole lines or not (for ``recover``)."""
    on_disk = log_path.stat().st_size if log_path.exists() else 0
    if on_disk < state.byte_length:
        raise IntegrityError(
            f"the custody log {log_path} is {on_disk} bytes, shorter than the "
            f"{state.byte_length} the case recorded: entries were cut from it. Run "
            "'casebuilder verify'"
        )
    with open(log_path, "rb") as fh:
        fh.seek(state.byte_length)
        return fh.read()


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


def tail_sealed(session: Session, state: LogState, tail: bytes, sealer: LogSealer) -> bool:
    """Whether the seal on disk covers exactly the recorded log plus ``tail``, from the head the
    database's own seal records: then a command of this case, holding its key, wrote the tail
    and died before committing it. (Rows deleted after a commit leave the database's seal
    ahead of its entries, which no crash does.)"""
    from casebuilder.preservation.seal import read_seal

    if state.seal is not None:
        held = committed_seal(state)
        if held is None or held.tree_size != state.tree_size:
            return False
    try:
        seal = read_seal(sealer.path)
    except CustodyLogError:
        return False
    if seal is None or not sealer.genuine(seal):
        return False
    frontier = log_frontier(session, state)
    grown = frontier.extended([leaf_hash(line) for line in tail.split(b"\n")[:-1]])
    return (seal.base_size, seal.base_root, seal.tree_size, seal.root) == (
        frontier.size, frontier.root().hex(), grown.size, grown.root().hex())


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


def move_tail_aside(log_path: Path, state: LogState, tail: bytes, entries: int, clock: Clock,
                    *, sealed: bool = True) -> dict[str, Any]:
    """Moves the tail to a file of its own beside the log, cuts the log back to its recorded
    end and returns the details of the custody note that says so: nothing is lost and nothing
    is silently adopted. Only a sealed tail is moved by any command; an unsealed one only by
    an investigator's explicit ``recover``, whose entry says so."""
    aside = write_aside(log_path.parent, "interrupted", tail, clock)
    fd = os.open(log_path, os.O_WRONLY)
    try:
        os.ftruncate(fd, state.byte_length)
        os.fsync(fd)
    finally:
        os.close(fd)
    note = ("entries a command sealed with the case key and then did not commit (it was "
            "interrupted) were moved aside, not adopted") if sealed else (
            "entries after the recorded end of the log that casebuilder did not seal (added "
            "outside casebuilder) were moved aside by an investigator's explicit recovery")
    return {"note": note, "moved_to": aside.name, "entries": entries, "sealed": sealed,
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
