"""Verifying a case: is everything still exactly as the custody log says it was?

Checks, each reporting every failure it finds rather than stopping at the first:

1. the log file: every line canonical JSON, sequence numbers in order, one case id, times
   never running backwards, nothing cut off mid-line;
2. the log against the database copy of every entry (an edited, removed, reordered or added
   line shows here even before the signatures are looked at);
3. checkpoints: each signature verifies with the case key, each root is the root of that prefix
   of the log, each later checkpoint is consistent with the earlier one, the latest covers the
   whole log, time-stamp tokens (when present) match their checkpoints;
4. stored files: every item's file is present and re-hashes (SHA-256, and SHA-512 where it is
   recorded) to the values recorded in the database and in the custody entries that state them;
   an item whose SHA-512 is still pending is named in a note, and :func:`record_verification`
   records the SHA-512 verify read from its stored copy (a ``digest`` entry);
5. the database rows agree with the entries that recorded them, row for row and both ways:
   items (hashes, kind, format, parse results, creation time), origins (one per ``ingest``
   entry: time, actor, path, name, relation, parent, sidecar, mtime, collection digest),
   derivations (one per ``derive`` entry), extraction runs (one per ``extract`` entry; the
   digest of their mentions and claims is recomputed from the stored rows, and of an
   import's dataset rows; the current run of an item is the latest one logged), analysts'
   decisions (one per entry that records one)
   and texts the extractor failed on (one per ``extract-failed`` entry).

The log, the checkpoints and the database rows are read under the case lock, so a command
writing at the same time is seen either wholly or not at all; the stored files are re-hashed
after the lock is released (they never change once written). A command that has committed its
entries but not yet signed its checkpoint is given a moment to finish (``settle_seconds``);
if it still has not, and it holds the running lock (a long ingest, say), its unsigned entries
are a note, not a failure. Unsigned entries with no command running are a failure.
"""

from __future__ import annotations

import base64
import json
import stat
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeGuard

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sqlalchemy import select

from casebuilder.errors import (
    CasebuilderError,
    CaseHomeError,
    CustodyLogError,
    IntegrityError,
    SigningError,
)
from casebuilder.model.claim_values import CLAIM_RECORD_FIELDS, MENTION_RECORD_FIELDS
from casebuilder.model.clock import parse_utc
from casebuilder.preservation.canonical import json_digest, parse_canonical
from casebuilder.preservation.case import Case, running_lock_path
from casebuilder.preservation.checkpoint import SignedCheckpoint, checkpoint_message, later_than
from casebuilder.preservation.custody import case_lock, command_running
from casebuilder.preservation.keys import (
    load_public_key,
    public_key_digest,
    raw_public_key,
    verify_signature,
)
from casebuilder.preservation.merkle import Frontier, MerkleTree, leaf_hash, verify_consistency
from casebuilder.preservation.objects import Digests
from casebuilder.preservation.rotation import KeySchedule, digest_of
from casebuilder.preservation.seal import Seal
from casebuilder.preservation.staging import Survey
from casebuilder.store.schema import (
    AnalystDecision,
    CaseInfo,
    Checkpoint,
    Claim,
    CustodyEvent,
    DatasetRow,
    Derivation,
    ExtractionFailure,
    ExtractionRun,
    IncidentMention,
    IntakeFailure,
    Item,
    ItemRestriction,
    LogState,
    Origin,
)

#: How long verify waits, at most, for a command that has committed entries but not yet signed
#: the checkpoint that covers them (the moment between a unit of work and its checkpoint).
SETTLE_SECONDS = 2.0

#: A checkpoint's token may state a genTime this much before the checkpoint's own time: the
#: case's clock and the authority's are never quite the same.
TIMESTAMP_CLOCK_SKEW = timedelta(minutes=5)
#: Entries dated after their checkpoint are named one by one up to this many per checkpoint.
LATE_ENTRIES_SHOWN = 10

#: The columns of an incident mention, as extraction wrote them into its results digest
#: (defined once, in model/claim_values.py, for extraction and verification alike).
MENTION_FIELDS = MENTION_RECORD_FIELDS

#: Claim.as_json() key -> the claims column that holds it (the same name: each key of
#: model.claim_values.CLAIM_RECORD_FIELDS is a column of the claims table). A claim's value
#: is digested as stored, never re-serialised, so an edited value cannot pass.
CLAIM_FIELDS = {key: key for key in CLAIM_RECORD_FIELDS}

#: The claim fields of the results digest before the extractor added ``also_attributed`` to
#: Claim.as_json() (commit 22a0715). Runs logged before extraction recorded ``source_sha256``
#: (commit 5f7a9fa) always used it; runs logged in between recorded ``source_sha256`` but still
#: digested these fields, and nothing in their entry says so. For those the digest itself tells:
#: a digest of claims without the key cannot equal one of claims with it, so accepting this form
#: lets no edit of ``also_attributed`` pass in a run that digested it.
LEGACY_CLAIM_FIELDS = {key: col for key, col in CLAIM_FIELDS.items() if key != "also_attributed"}
#: The results format an ``extract`` entry records (``details.results_format``): which claim
#: fields its results digest covers. Entries logged before formats were recorded have none.
RESULTS_FORMATS = {2: CLAIM_FIELDS}
CURRENT_RESULTS_FORMAT = 2
#: The columns of a dataset row as an import digests them (``rows_sha256`` of its extract
#: entry, extraction/datasets/importing.py), in this order.
DATASET_ROW_FIELDS = ("number", "line", "line_end", "byte_start", "byte_end", "status", "rule",
                      "reason", "mention_key", "facts", "cells")


@dataclass(frozen=True)
class Finding:
    subject: str  # what is wrong: "item 12 (report.pdf)", "log entry 7", "checkpoint 3"
    problem: str  # what differs, in words

    def __str__(self) -> str:
        return f"{self.subject}: {self.problem}"


@dataclass
class VerificationReport:
    failures: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    log_intact: bool = True  # entries and checkpoints agree; safe to append to
    not_logged: str | None = None  # why record_verification wrote no entry
    #: items whose SHA-512 is not recorded yet, with the digests verify read from their
    #: stored copies when those matched the recorded SHA-256 and size (record_verification
    #: seals them); None for a pending item whose copy did not match
    pending: dict[int, Digests | None] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, subject: str, problem: str) -> None:
        self.failures.append(Finding(subject, problem))


@dataclass
class _LogLine:
    index: int
    raw: bytes
    entry: dict[str, Any] | None


@dataclass
class _Snapshot:
    """Everything verify reads from the log, the checkpoints and the database, read at once."""

    log: bytes | None
    log_error: str | None
    checkpoint_data: bytes | None
    checkpoint_error: str | None
    events: list[CustodyEvent]
    checkpoint_rows: list[Checkpoint]
    info: CaseInfo | None
    items: list[Item]
    origins: list[Origin]
    derivations: list[Derivation]
    runs: list[ExtractionRun]
    mentions: list[IncidentMention]
    claims: list[Claim]
    decisions: list[AnalystDecision]
    intake_failures: list[IntakeFailure]
    log_state: LogState | None
    seal: bytes | None = None
    seal_error: str | None = None
    extraction_failures: list[ExtractionFailure] = field(default_factory=list)
    #: rows of imported datasets (extraction/datasets/), checked against their run's entry
    dataset_rows: list[DatasetRow] = field(default_factory=list)
    lock_note: str | None = None
    #: who restricted which item, or lifted it (restriction.py), each against its entry
    restrictions: list[ItemRestriction] = field(default_factory=list)
    #: files recovery moved aside (name -> contents, or the error reading them)
    aside: dict[str, tuple[bytes | None, str | None]] = field(default_factory=dict)
    #: another command held the running lock when this was read (custody.RunningLock)
    command_running: bool = False
    #: set by the seal check: the committed seal, verified, signs the whole committed log
    head_sealed: bool = False
    #: the store's objects and what tmp/ holds, listed under the lock with the rows
    stored_objects: list[str] = field(default_factory=list)
    staging: Survey = field(default_factory=Survey)


# -- reading, under the case lock ---------------------------------------------------------


def _read_bytes(path: Path) -> tuple[bytes | None, str | None]:
    try:
        return path.read_bytes(), None
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, str(exc)


def _snapshot(case: Case) -> _Snapshot:
    """Read the log, the checkpoints and every row verify compares, holding the case lock."""
    with ExitStack() as stack:
        lock_note: str | None = None
        try:
            stack.enter_context(case_lock(case.paths.lock))
        except CaseHomeError as exc:  # a read-only copy of a case home, say
            lock_note = (
                f"the case lock could not be taken ({exc}); the case was read without it, so "
                "a command running at the same time could show as a difference"
            )
        log, log_error = _read_bytes(case.paths.log)
        if log is None and log_error is None:
            log_error = "the file is missing"
        checkpoint_data, checkpoint_error = _read_bytes(case.paths.checkpoints)
        seal, seal_error = _read_bytes(case.paths.seal)
        aside = {path.name: _read_bytes(path) for path in _aside_files(case.paths.custody)}
        running = command_running(running_lock_path(case.paths), case.running)
        # Objects first, then tmp/: a writer marks an object before renaming it in, and its
        # marker goes only under the case lock, so every object listed that no row names
        # has its marker in the listing after it, or was left by a command that is gone.
        stored_objects = case.objects.iter_object_names()
        with case.objects.staging.survey(legacy_stale=not running) as staging:
            pass  # looked at only: nothing is removed here
        with case.session() as session:

            def rows(entity: Any, *order: Any) -> list[Any]:
                return list(session.execute(select(entity).order_by(*order)).scalars())

            snapshot = _Snapshot(
                log=log,
                log_error=log_error,
                checkpoint_data=checkpoint_data,
                checkpoint_error=checkpoint_error,
                events=rows(CustodyEvent, CustodyEvent.seq),
                checkpoint_rows=rows(Checkpoint, Checkpoint.id),
                info=session.get(CaseInfo, case.case_id),
                items=rows(Item, Item.id),
                origins=rows(Origin, Origin.id),
                derivations=rows(Derivation, Derivation.id),
                runs=rows(ExtractionRun, ExtractionRun.id),
                mentions=rows(IncidentMention, IncidentMention.id),
                claims=rows(Claim, Claim.id),
                decisions=rows(AnalystDecision, AnalystDecision.id),
                intake_failures=rows(IntakeFailure, IntakeFailure.id),
                log_state=session.get(LogState, 1),
                seal=seal,
                seal_error=seal_error,
                extraction_failures=rows(ExtractionFailure, ExtractionFailure.id),
                dataset_rows=rows(DatasetRow, DatasetRow.id),
                restrictions=rows(ItemRestriction, ItemRestriction.id),
                lock_note=lock_note,
                aside=aside,
                command_running=running,
                stored_objects=stored_objects,
                staging=staging,
            )
            session.expunge_all()
        return snapshot


def _aside_files(custody: Path) -> list[Path]:
    """Files recovery moves entries or checkpoint lines to (see custody.py and case.py)."""
    if not custody.is_dir():
        return []
    return sorted(
        path
        for pattern in ("interrupted-*", "checkpoints-interrupted-*")
        for path in custody.glob(pattern)
    )


def _command_in_progress(snap: _Snapshot) -> bool:
    """Entries committed through casebuilder (file and database agree) that no checkpoint
    covers yet: what a command looks like between its unit of work and its checkpoint."""
    if snap.log is None or not snap.checkpoint_rows:
        return False
    lines = snap.log.split(b"\n")
    if lines[-1] != b"":
        return False
    lines.pop()
    covered = snap.checkpoint_rows[-1].tree_size
    if not 0 <= covered < len(lines) == len(snap.events):
        return False
    if snap.checkpoint_data is None or len(
        [x for x in snap.checkpoint_data.split(b"\n") if x]
    ) != len(snap.checkpoint_rows):
        return False
    return all(
        snap.events[i].seq == i
        and snap.events[i].entry.encode("utf-8", "surrogatepass") == lines[i]
        for i in range(covered, len(lines))
    )


# -- small helpers for entries of unknown shape ----------------------------------------------


def _is_id(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _action(entry: dict[str, Any]) -> str | None:
    action = entry.get("action")
    return action if isinstance(action, str) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _details(entry: dict[str, Any]) -> dict[str, Any]:
    return _dict(entry.get("details"))


def _refs(entry: dict[str, Any]) -> list[dict[str, Any]]:
    items = entry.get("items")
    if not isinstance(items, list):
        return []
    return [ref for ref in items if isinstance(ref, dict)]


def _ref_with_role(entry: dict[str, Any], role: str) -> dict[str, Any]:
    return next((ref for ref in _refs(entry) if ref.get("role") == role), {})


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same JSON type (so 1 is not True, and 20 is not 20.0)."""
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return _digest(a) is not None and _digest(a) == _digest(b)
    return type(a) is type(b) and a == b


def _digest(value: Any) -> str | None:
    try:
        return json_digest(value)
    except (TypeError, ValueError, RecursionError):
        return None


def _shown(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _differs(
    report: VerificationReport,
    subject: str,
    what: str,
    stored: Any,
    recorded: Any,
    seq: int,
) -> None:
    if not _same(stored, recorded):
        report.fail(
            subject,
            f"its {what} {_shown(stored)} differs from {_shown(recorded)} recorded in log "
            f"entry {seq}",
        )


# -- 1 and 2: the log file and its database copy ----------------------------------------------


def _read_log(snap: _Snapshot, report: VerificationReport) -> list[_LogLine]:
    if snap.log is None:
        report.fail("custody log", f"cannot be read: {snap.log_error}")
        return []
    data = snap.log
    if data and not data.endswith(b"\n"):
        report.fail("custody log", "the last line is cut off (the file was truncated)")
    lines: list[_LogLine] = []
    for index, raw in enumerate(data.split(b"\n")[:-1] if data else []):
        entry: dict[str, Any] | None = None
        try:
            value = parse_canonical(raw)
            if isinstance(value, dict):
                entry = value
            else:
                report.fail(f"log entry {index}", "is not a JSON object")
        except CustodyLogError as exc:
            report.fail(f"log entry {index}", str(exc))
        lines.append(_LogLine(index, raw, entry))
    if data and not data.endswith(b"\n"):
        tail = data.rsplit(b"\n", 1)[-1]
        lines.append(_LogLine(len(lines), tail, None))
    return lines


def _check_entries(case: Case, lines: list[_LogLine], report: VerificationReport) -> None:
    previous_time = ""
    for line in lines:
        entry = line.entry
        if entry is None:
            continue
        subject = f"log entry {line.index}"
        if not _same(entry.get("seq"), line.index):
            report.fail(
                subject,
                f"carries sequence number {_shown(entry.get('seq'))}: entries were "
                "removed, reordered or inserted",
            )
        if entry.get("case_id") != case.case_id:
            report.fail(subject, f"belongs to case {_shown(entry.get('case_id'))}, not this one")
        when = entry.get("time")
        if not isinstance(when, str):
            report.fail(subject, "has no time")
        else:
            if previous_time and when < previous_time:
                report.fail(
                    subject,
                    f"is dated {when}, earlier than the entry before it "
                    f"({previous_time}): back-dated or reordered",
                )
            previous_time = max(previous_time, when)
        if not isinstance(entry.get("items", []), list) or not isinstance(
            entry.get("details", {}), dict
        ):
            report.fail(subject, "its items or details are not of the recorded form")


def _check_against_database(
    snap: _Snapshot, lines: list[_LogLine], report: VerificationReport
) -> None:
    by_seq = {row.seq: row for row in snap.events}
    for line in lines:
        row = by_seq.get(line.index)
        subject = f"log entry {line.index}"
        if row is None:
            report.fail(
                subject,
                "is in the log file but not in the database (added outside "
                "casebuilder, or left by an interrupted command)",
            )
            continue
        if row.entry.encode("utf-8", "surrogatepass") != line.raw:
            report.fail(subject, "differs from the database copy of the same entry")
        if row.leaf_hash != leaf_hash(line.raw).hex():
            report.fail(subject, "its leaf hash differs from the one the database recorded")
        if line.entry is not None:
            # the row's own columns are what queries (and the next writer) read: each must say
            # what the entry says, or an edit of a column alone would go unseen
            for column in ("seq", "action", "actor", "time"):
                if not _same(getattr(row, column), line.entry.get(column)):
                    report.fail(
                        subject,
                        f"the database's {column} column holds {_shown(getattr(row, column))} "
                        f"but the entry says {_shown(line.entry.get(column))}",
                    )
    for seq in sorted(set(by_seq) - {line.index for line in lines}):
        report.fail(
            f"log entry {seq}",
            "is in the database but missing from the log file (removed or truncated)",
        )
    state = snap.log_state
    if state is None:
        report.fail("custody log", "the database holds no log state")
    elif (state.tree_size, state.byte_length) != (len(by_seq), len(snap.log or b"")):
        report.fail(
            "custody log",
            f"the database records {state.tree_size} entries in {state.byte_length} bytes, "
            f"but holds {len(by_seq)} entries and the file has {len(snap.log or b'')} bytes",
        )
    report.counts["log entries"] = len(lines)


# -- the seal of the last unit of work (seal.py) ------------------------------------------------


def _parse_seal(text: str | None, what: str, report: VerificationReport) -> Seal | None:
    if text is None:
        return None
    try:
        return Seal.from_line(text.strip())
    except CustodyLogError as exc:
        report.fail("custody seal", f"{what}: {exc}")
        return None


def _sealed_tail(case: Case, snap: _Snapshot, lines: list[_LogLine],
                 report: VerificationReport) -> list[_LogLine]:
    """The committed lines of the log. Lines after the database's recorded end that the seal
    on disk covers from the committed head were written by a command of this case that died
    before its commit: a note (the next command moves them aside), not a difference."""
    state = snap.log_state
    if state is None or len(lines) <= state.tree_size or snap.seal is None or snap.log is None:
        return lines
    committed, tail = lines[: state.tree_size], lines[state.tree_size:]
    if any(line.entry is None for line in tail) or sum(
        len(line.raw) + 1 for line in committed
    ) != state.byte_length or not snap.log.endswith(b"\n"):
        return lines
    try:
        seal = Seal.from_line(snap.seal.decode("utf-8").strip())
        held = None if state.seal is None else Seal.from_line(state.seal)
    except (CustodyLogError, UnicodeDecodeError):
        return lines
    if held is not None and held.tree_size != state.tree_size:
        return lines  # the database's own seal is ahead of its rows: rows were deleted
    signed = [row.tree_size for row in snap.checkpoint_rows] + [
        _line_count(raw) for raw in (snap.checkpoint_data or b"").split(b"\n") if raw.strip()]
    if any(size is None or size > state.tree_size for size in signed):
        return lines  # a checkpoint signed them: they were committed once, then removed
    frontier = Frontier.of([leaf_hash(line.raw) for line in committed])
    grown = frontier.extended([leaf_hash(line.raw) for line in tail])
    if not _sealed_by_the_case(seal, case, committed) or (
        seal.base_size, seal.base_root, seal.tree_size, seal.root
    ) != (frontier.size, frontier.root().hex(), grown.size, grown.root().hex()):
        return lines
    report.notes.append(
        f"log entries {state.tree_size}..{len(lines) - 1} were written by a command that "
        "stopped before its database commit (the case key sealed them); they are not part of "
        "the case, and the next command moves them aside with a note"
    )
    snap.log = snap.log[: state.byte_length]
    return committed


def _sealed_by_the_case(seal: Seal, case: Case, lines: list[_LogLine]) -> bool:
    """Signed by the case's key, or by a key the log handed the case from or to in a key
    rotation (the unit of work that logs a rotation is sealed with the old key)."""
    if seal.verifies(case.public_key, case.case_id):
        return True
    schedule = KeySchedule.from_entries(
        case.case_id, [(line.index, line.entry) for line in lines if line.entry is not None],
        raw_public_key(case.public_key))
    return any(seal.verifies(_key(raw), case.case_id) for raw in schedule.keys)


def _line_count(raw: bytes) -> int | None:
    """The tree size a checkpoint line states, or None when it cannot be read."""
    try:
        size = json.loads(raw).get("tree_size")
    except (ValueError, AttributeError):
        return None
    return size if _is_id(size) else None


def _check_seal(case: Case, snap: _Snapshot, lines: list[_LogLine],
                report: VerificationReport) -> None:
    """custody/seal.json against the seal the database committed and the log it signs."""
    state = snap.log_state
    if state is None:
        return
    if snap.seal_error is not None:
        report.fail("custody seal", f"custody/seal.json cannot be read: {snap.seal_error}")
        return
    on_disk = None if snap.seal is None else snap.seal.decode("utf-8", "replace").strip()
    if on_disk is None:
        if state.seal is not None:
            report.fail("custody seal", "custody/seal.json is missing, but the database "
                        "records the seal of the last unit of work")
        elif lines:
            report.notes.append("the case has no unit-of-work seal yet (its last write was "
                                "made by a version of casebuilder without seals)")
        return
    disk = _parse_seal(on_disk, "custody/seal.json", report)
    if disk is None:
        return
    if not _sealed_by_the_case(disk, case, lines):
        report.fail("custody seal", "custody/seal.json is not signed by the case key for "
                    "this case")
        return
    if state.seal is None:
        report.fail("custody seal", "the database records no seal, but custody/seal.json "
                    "holds one: the database's seal was removed")
        return
    committed = disk if state.seal == on_disk else _parse_seal(
        state.seal, "the seal the database records", report)
    if committed is None:
        return
    if not _sealed_by_the_case(committed, case, lines):
        report.fail("custody seal", "the seal the database records is not signed by the "
                    "case key for this case")
        return
    tree = MerkleTree([leaf_hash(line.raw) for line in lines])
    if disk is not committed:
        ahead = (disk.base_size, disk.base_root) == (tree.size, tree.root().hex())
        if not ahead:
            report.fail("custody seal", "custody/seal.json differs from the seal the "
                        "database records and does not continue the committed log: it was "
                        "replaced, or the database was put back to an earlier state")
        else:
            report.notes.append("custody/seal.json seals a unit of work that was not "
                                "committed (a command stopped before its commit)")
    if committed.tree_size > tree.size:
        report.fail("custody seal", f"the seal of the last unit of work signs "
                    f"{committed.tree_size} entries but the log has {tree.size}: entries "
                    "were removed")
    elif tree.root(committed.tree_size).hex() != committed.root:
        report.fail("custody seal", f"the seal of the last unit of work does not match the "
                    f"first {committed.tree_size} log entries: an entry was altered")
    elif committed.tree_size < tree.size:
        report.fail("custody log", f"entries {committed.tree_size}..{tree.size - 1} come "
                    "after the seal of the last unit of work: they were added outside "
                    "casebuilder")
    else:
        snap.head_sealed = True


# -- 3: checkpoints -----------------------------------------------------------------------------


def _checkpoint_lines(snap: _Snapshot, report: VerificationReport) -> list[str]:
    if snap.checkpoint_error is not None:
        report.fail("checkpoints", f"checkpoints.jsonl cannot be read: {snap.checkpoint_error}")
        return []
    if snap.checkpoint_data is None:
        return []
    try:
        text = snap.checkpoint_data.decode("utf-8")
    except UnicodeDecodeError as exc:
        report.fail("checkpoints", f"checkpoints.jsonl is not UTF-8: {exc}")
        text = snap.checkpoint_data.decode("utf-8", "replace")
    return [line for line in text.split("\n") if line]


def _unrecorded_last_line(file_lines: list[str], db_rows: list[Checkpoint]) -> bool:
    """The file holds one checkpoint more than the database, after the ones it recorded and
    later than the last of them: what the next command adopts (Case._reconcile_checkpoints).
    Its signature and root are checked with every other line."""
    if len(file_lines) != len(db_rows) + 1 or any(
            row.record != line for row, line in zip(db_rows, file_lines, strict=False)):
        return False
    try:
        extra = SignedCheckpoint.from_line(file_lines[-1])
    except (CustodyLogError, ValueError, RecursionError):
        return False
    return not db_rows or later_than(extra, db_rows[-1].tree_size, db_rows[-1].time)


def _check_checkpoints(
    case: Case,
    snap: _Snapshot,
    lines: list[_LogLine],
    report: VerificationReport,
    timestamp_window: timedelta,
) -> None:
    file_lines = _checkpoint_lines(snap, report)
    db_rows = snap.checkpoint_rows
    info = snap.info
    try:
        public_key = load_public_key(case.paths.public_key.read_bytes())
    except (OSError, CasebuilderError, ValueError) as exc:
        report.fail("case public key", f"cannot be loaded: {exc}")
        return
    key_id = public_key_digest(public_key)
    if key_id != case.key_id:
        report.fail("case public key", "does not match the key the case was opened with")
    schedule = _key_schedule(case, lines, public_key, info, report)
    if _unrecorded_last_line(file_lines, db_rows):
        # A command killed between writing its checkpoint to the file and committing the row:
        # the line is checked below like every other; the next command records it.
        report.notes.append(
            f"the last checkpoint in checkpoints.jsonl ({len(file_lines)}) is not yet in the "
            "database: the command that signed it stopped before recording it there; it is "
            "checked from the file, and the next command records it")
    elif len(file_lines) != len(db_rows):
        report.fail(
            "checkpoints",
            f"{len(file_lines)} in checkpoints.jsonl but {len(db_rows)} in the database",
        )
    for i, row in enumerate(db_rows):
        _check_checkpoint_row(
            i, row, file_lines[i] if i < len(file_lines) else None, case.case_id,
            _key(schedule.key_for(row.tree_size)), report,
        )
    tree = MerkleTree([leaf_hash(line.raw) for line in lines])
    previous: SignedCheckpoint | None = None
    for i, text in enumerate(file_lines):
        subject = f"checkpoint {i}"
        try:
            cp = SignedCheckpoint.from_line(text)
        except (CustodyLogError, ValueError, RecursionError) as exc:
            report.fail(subject, str(exc) or type(exc).__name__)
            continue
        if cp.case_id != case.case_id:
            report.fail(subject, "names another case")
        in_force = schedule.key_for(cp.tree_size)
        if cp.public_key_sha256 != digest_of(in_force):
            report.fail(
                subject,
                f"was signed by key {_shown(cp.public_key_sha256[:16])}, but the key in force "
                f"for its {cp.tree_size} entries is {digest_of(in_force)[:16]}…",
            )
        try:
            signature = base64.b64decode(cp.signature, validate=True)
        except ValueError:
            signature = b""
        try:
            message = cp.signed_message()
        except CustodyLogError:
            message = b""
        if not message or not verify_signature(_key(in_force), signature, message):
            report.fail(subject, "its signature does not verify with the case key")
        if cp.tree_size < 0:
            report.fail(subject, f"covers a negative number of entries ({cp.tree_size})")
            continue
        if cp.tree_size > tree.size:
            report.fail(
                subject,
                f"covers {cp.tree_size} entries but the log has only "
                f"{tree.size}: entries were removed",
            )
        elif tree.root(cp.tree_size).hex() != cp.root:
            report.fail(
                subject,
                f"its root does not match the first {cp.tree_size} log "
                "entries: an entry it covers was altered, removed or reordered",
            )
        _check_entries_not_after(cp, subject, previous, lines, report)
        if previous is not None:
            if cp.tree_size < previous.tree_size or cp.time < previous.time:
                report.fail(subject, "goes backwards in size or time from the one before it")
            elif cp.tree_size <= tree.size:
                try:
                    consistent = verify_consistency(
                        previous.tree_size,
                        cp.tree_size,
                        bytes.fromhex(previous.root),
                        bytes.fromhex(cp.root),
                        tree.consistency_proof(previous.tree_size, cp.tree_size),
                    )
                except ValueError:
                    consistent = False
                if not consistent:
                    report.fail(subject, "is not consistent with the checkpoint before it")
        if cp.timestamp_token is not None:
            _check_timestamp(case, cp, subject, report, timestamp_window)
        previous = cp
    report.counts["checkpoints"] = len(file_lines)
    # Before the first checkpoint the log's whole length is unsigned: init killed after its
    # entry and before its checkpoint is a command stopped before its checkpoint like any other.
    signed = 0 if previous is None else previous.tree_size
    if previous is None and tree.size == 0:
        report.fail("checkpoints", "there is no signed checkpoint and the log is empty")
    elif signed < tree.size:
        first, last = signed, tree.size - 1
        if snap.command_running:
            # A command holds the running lock: it signs its entries when it ends. Whatever
            # else is wrong with them (not in the database, altered) is reported above.
            report.notes.append(
                f"a command is running; entries {first}..{last} not yet signed (its "
                "checkpoint at the end will sign them)"
            )
        elif snap.head_sealed:
            report.notes.append(
                f"entries {first}..{last} were committed by a command that stopped before its "
                "checkpoint; the case key's seal of its last unit of work covers them, and the "
                "next command's checkpoint signs them"
            )
        else:
            report.fail(
                "custody log",
                f"entries {first}..{last} are not covered by any signed checkpoint nor by the "
                "seal of a unit of work (added outside casebuilder)",
            )


def _key_schedule(
    case: Case,
    lines: list[_LogLine],
    public_key: Ed25519PublicKey,
    info: CaseInfo | None,
    report: VerificationReport,
) -> KeySchedule:
    """The keys that sign the log, from its key-rotation entries (rotation.py): the first must
    be the key the case was created with, each rotation approved by the key before it, and the
    last the case's public key now."""
    schedule = KeySchedule.from_entries(
        case.case_id,
        [(line.index, line.entry) for line in lines if line.entry is not None],
        raw_public_key(public_key),
    )
    for seq, problem in schedule.problems:
        report.fail(f"log entry {seq}", f"key rotation: {problem}")
    first = digest_of(schedule.first)
    if info is not None and info.public_key_sha256 != first:
        report.fail(
            "case public key",
            f"{'the first key of the log' if schedule.rotations else 'it'} is not the key this "
            f"case was created with (database records {info.public_key_sha256[:16]}…)",
        )
    last = digest_of(schedule.key_for(len(lines)))
    if schedule.rotations and last != public_key_digest(public_key):
        report.fail(
            "case public key",
            f"is not the key {last[:16]}… that the log's last key rotation (log entry "
            f"{schedule.rotations[-1].seq}) hands the case to",
        )
    return schedule


def _key(raw: bytes) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(raw)


#: The columns of a ``checkpoints`` row and the checkpoint field each must equal.
CHECKPOINT_COLUMNS = (
    ("tree_size", "tree_size"),
    ("root", "root"),
    ("time", "time"),
    ("public_key_sha256", "public_key_sha256"),
    ("signature", "signature"),
    ("timestamp_token", "timestamp_token"),
)


def _check_checkpoint_row(
    index: int,
    row: Checkpoint,
    file_line: str | None,
    case_id: str,
    public_key: Ed25519PublicKey,
    report: VerificationReport,
) -> None:
    """A database checkpoint row against its line in checkpoints.jsonl, column by column, and
    against its own signature.

    Commands read the columns, not the ``record`` text (the time and size of the last
    checkpoint decide what the next one signs), so an edited column must show even when the
    ``record`` column was left alone."""
    subject = f"checkpoint {index}"
    if file_line is not None and file_line != row.record:
        report.fail(subject, "differs between checkpoints.jsonl and the database")
    reference = file_line if file_line is not None else row.record
    try:
        recorded: SignedCheckpoint | None = SignedCheckpoint.from_line(reference)
    except (CustodyLogError, ValueError, RecursionError):
        recorded = None  # the file line's own check reports it
    source = "checkpoints.jsonl" if file_line is not None else "its record column"
    if recorded is not None:
        for column, name in CHECKPOINT_COLUMNS:
            stored, expected = getattr(row, column), getattr(recorded, name)
            if stored != expected:
                report.fail(
                    subject,
                    f"the database's checkpoints.{column} is {_shown_column(column, stored)}, "
                    f"but {source} has {_shown_column(column, expected)}",
                )
    try:
        message = checkpoint_message(case_id, row.tree_size, row.root, row.time)
        signature = base64.b64decode(row.signature, validate=True)
    except (CustodyLogError, ValueError, TypeError):
        message, signature = b"", b""
    if not message or not verify_signature(public_key, signature, message):
        report.fail(
            subject,
            "the database row's signature does not verify with the case key over the row's "
            "own tree_size, root and time",
        )


def _shown_column(column: str, value: Any) -> str:
    if column == "timestamp_token":  # DER bytes: their length says enough
        return "none" if value is None else f"a token of {len(value)} bytes"
    return _shown(value)


def _check_entries_not_after(
    cp: SignedCheckpoint,
    subject: str,
    previous: SignedCheckpoint | None,
    lines: list[_LogLine],
    report: VerificationReport,
) -> None:
    """No entry is dated after the first checkpoint that signs it: a command signs what it
    has written, so an entry dated later was moved forward, or the checkpoint back-dated."""
    start = max(previous.tree_size, 0) if previous is not None else 0
    late = [
        line
        for line in lines[start : max(cp.tree_size, 0)]
        if line.entry is not None
        and isinstance(line.entry.get("time"), str)
        and line.entry["time"] > cp.time
    ]
    for line in late[:LATE_ENTRIES_SHOWN]:
        assert line.entry is not None
        report.fail(
            f"log entry {line.index}",
            f"is dated {line.entry['time']}, after {subject} ({cp.time}), the first "
            "checkpoint that signs it: the entry's time was moved forward or the checkpoint "
            "was back-dated",
        )
    if len(late) > LATE_ENTRIES_SHOWN:
        report.fail(
            subject,
            f"{len(late) - LATE_ENTRIES_SHOWN} more entries it first signs are dated after it",
        )


def _duration(span: timedelta) -> str:
    """A time span to the second (tokens state whole seconds): '2 days, 23:59:59'."""
    return str(timedelta(seconds=round(span.total_seconds())))


def timestamp_delay_problem(
    gen_time: datetime, checkpoint_time: datetime, window: timedelta
) -> str | None:
    """Why a token's genTime does not fit the checkpoint it stamps, or None when it does.

    A command asks for the token as it signs the checkpoint, so genTime falls just after the
    checkpoint's time. Before it (beyond the clock-skew allowance) means the case clock ran
    ahead of the authority's; long after it (beyond ``window``) is what a checkpoint back-dated
    and stamped later looks like."""
    delay = gen_time - checkpoint_time
    if delay < -TIMESTAMP_CLOCK_SKEW:
        return (
            f"its time-stamp token's genTime {gen_time.isoformat()} is {_duration(-delay)} "
            f"before the checkpoint's own time {checkpoint_time.isoformat()} (more than the "
            f"{TIMESTAMP_CLOCK_SKEW} allowed for clock skew): the checkpoint's time is later "
            "than when the authority saw it"
        )
    if delay > window:
        return (
            f"its time-stamp token's genTime {gen_time.isoformat()} is {_duration(delay)} "
            f"after the checkpoint's own time {checkpoint_time.isoformat()} (more than the "
            f"{window} allowed): a checkpoint is stamped as it is signed, so this one was "
            "stamped long after the time it states, as a back-dated checkpoint would be"
        )
    return None


def _check_timestamp(
    case: Case,
    cp: SignedCheckpoint,
    subject: str,
    report: VerificationReport,
    window: timedelta,
) -> None:
    import hashlib

    from casebuilder.preservation.timestamp import verify_token

    ca_pem: bytes | None = None
    if case.config.tsa_ca_file:
        try:
            with open(case.config.tsa_ca_file, "rb") as fh:
                ca_pem = fh.read()
        except OSError as exc:
            report.notes.append(
                f"{subject}: time-stamp CA file unreadable ({exc}); token checked without its chain"
            )
    assert cp.timestamp_token is not None
    try:
        token = verify_token(
            cp.timestamp_token, hashlib.sha256(cp.signed_message()).digest(), ca_certs_pem=ca_pem
        )
    except CasebuilderError as exc:
        report.fail(subject, f"its time-stamp token is not valid: {exc}")
        return
    report.counts["time-stamped checkpoints"] = report.counts.get("time-stamped checkpoints", 0) + 1
    try:
        stated = parse_utc(cp.time)
    except ValueError:
        report.fail(subject, f"its time {_shown(cp.time)} is not a UTC time")
        return
    problem = timestamp_delay_problem(token.gen_time, stated, window)
    if problem is not None:
        report.fail(subject, problem)
    if ca_pem is None:
        report.notes.append(
            f"{subject}: time-stamped {token.gen_time.isoformat()} (no CA "
            "configured, so the authority's certificate chain was not checked)"
        )


def _check_set_aside(snap: _Snapshot, lines: list[_LogLine], report: VerificationReport) -> None:
    """Every file recovery moved entries or checkpoint lines to is named by the custody note
    that logged the move, and still holds exactly what the note says (its SHA-256); every such
    note's file is still there."""
    import hashlib

    notes: dict[str, tuple[int, dict[str, Any]]] = {}
    for line in lines:
        if line.entry is None or _action(line.entry) not in {"checkpoint-note", "recover"}:
            continue
        details = _details(line.entry)
        name = details.get("moved_to")
        if isinstance(name, str):
            if name in notes:
                report.fail(
                    f"log entry {line.index}",
                    f"says entries were moved to {name}, as log entry {notes[name][0]} did",
                )
            notes.setdefault(name, (line.index, details))
    for name, (data, error) in sorted(snap.aside.items()):
        subject = f"custody/{name}"
        if name not in notes:
            report.fail(
                subject,
                "holds log entries or checkpoint lines set aside, but no custody note records "
                "moving them there (moved aside without a trace, or placed there by hand)",
            )
            continue
        seq, details = notes[name]
        if data is None:
            report.fail(subject, f"cannot be read: {error}")
            continue
        if hashlib.sha256(data).hexdigest() != details.get("sha256"):
            report.fail(
                subject,
                f"differs from what log entry {seq} recorded when it moved them there "
                "(SHA-256): the set-aside entries were altered",
            )
            continue
        what = (
            f"{_shown(details.get('lines'))} checkpoint line(s)"
            if name.startswith("checkpoints-")
            else f"{_shown(details.get('entries'))} log entry(ies)"
        )
        reasons = details.get("reasons")
        why = f" ({_shown(reasons[0], 200)})" if isinstance(reasons, list) and reasons else ""
        report.notes.append(f"{subject}: {what} moved aside, as log entry {seq} records{why}")
    for name in sorted(set(notes) - set(snap.aside)):
        report.fail(
            f"custody/{name}",
            f"log entry {notes[name][0]} moved entries to this file, but it is missing",
        )


# -- 4 and 5: items, and every row against the entry that recorded it --------------------------


def _entries_by_item(lines: list[_LogLine]) -> dict[int, list[tuple[int, dict[str, Any]]]]:
    mentions: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for line in lines:
        if line.entry is None:
            continue
        for ref in _refs(line.entry):
            if _is_id(ref.get("id")):
                named = mentions.setdefault(ref["id"], [])
                if not named or named[-1][0] != line.index:
                    named.append((line.index, line.entry))
    return mentions


def _item_names(snap: _Snapshot) -> dict[int, str]:
    names: dict[int, str] = {}
    for origin in snap.origins:
        names.setdefault(origin.item_id, origin.name)
    return {
        item.id: f"item {item.id} ({names.get(item.id) or item.format or item.kind})"
        for item in snap.items
    }


def _check_records(
    snap: _Snapshot, lines: list[_LogLine], report: VerificationReport
) -> None:
    """Every database row against the custody entries that recorded it (no file access)."""
    mentions = _entries_by_item(lines)
    entries = {line.index: line.entry for line in lines if line.entry is not None}
    names = _item_names(snap)
    known_ids = {item.id for item in snap.items}
    for item in snap.items:
        _check_item_entries(item, names[item.id], mentions.get(item.id, []), report)
    _check_origins(snap.origins, entries, report)
    _check_derivations(snap.derivations, entries, report)
    _check_extraction(snap, entries, report)
    _check_decisions(snap.decisions, entries, report)
    _check_intake_failures(snap.intake_failures, entries, report)
    _check_restrictions(snap.restrictions, entries, report)
    _check_extraction_failures(snap.extraction_failures, entries, report)
    _check_case_info(snap.info, entries, report)
    for item_id in sorted(set(mentions) - known_ids):
        first = mentions[item_id][0][0]
        report.fail(
            f"item {item_id}",
            f"is named in log entry {first} but missing from the database (a row was deleted)",
        )
    report.counts["items"] = len(snap.items)


def _check_item_file(case: Case, item: Item, subject: str, report: VerificationReport) -> None:
    try:
        path = case.objects.path_for(item.sha256)
    except CasebuilderError as exc:
        report.fail(subject, f"its recorded SHA-256 is malformed: {exc}")
        return
    if not path.is_file():
        report.fail(subject, f"its stored file {path.relative_to(case.paths.root)} is missing")
        return
    try:
        digests = case.objects.rehash(item.sha256)
    except (OSError, CasebuilderError) as exc:
        report.fail(subject, f"its stored file cannot be read: {exc}")
        return
    if digests.sha256 != item.sha256:
        report.fail(
            subject,
            f"stored file's SHA-256 is {digests.sha256}, but the item "
            f"records {item.sha256}: the file was altered or swapped",
        )
    if item.sha512 is None:  # its second digest is pending: nothing to compare yet
        sound = digests.sha256 == item.sha256 and digests.size == item.size
        report.pending[item.id] = digests if sound else None
    elif digests.sha512 != item.sha512:
        report.fail(subject, "stored file's SHA-512 differs from the one recorded")
    if digests.size != item.size:
        report.fail(subject, f"stored file is {digests.size} bytes, recorded as {item.size}")
    if path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        report.fail(subject, "its stored file has been made writable")


def _expected_kind(item: Item, entry: dict[str, Any]) -> str | None:
    """The kind the entry that created the item gives it: received, or made from another."""
    action = _action(entry)
    if action == "ingest":
        return "original"
    if action == "derive" and _ref_with_role(entry, "derived").get("id") == item.id:
        return "derived"
    return None


def _check_item_entries(
    item: Item,
    subject: str,
    mentions: list[tuple[int, dict[str, Any]]],
    report: VerificationReport,
) -> None:
    if not mentions:
        report.fail(subject, "is in the database but no custody entry records it")
        return
    stated_sha512 = False
    for seq, entry in mentions:
        for ref in _refs(entry):
            if not _same(ref.get("id"), item.id):
                continue
            # An entry written while the SHA-512 was pending names the item without it;
            # where an entry states it, it must be the item's.
            stated_sha512 = stated_sha512 or "sha512" in ref
            for key in ("sha256", "sha512", "size"):
                if key == "sha512" and key not in ref:
                    continue
                if not _same(ref.get(key), getattr(item, key)):
                    report.fail(
                        subject,
                        f"database {key} {getattr(item, key)} differs from "
                        f"{_shown(ref.get(key))} recorded in log entry {seq}",
                    )
            role = ref.get("role")
            action = _action(entry)
            if (
                action not in {"ingest", "derive", "extract"}
                and role in ("original", "derived")
                and role != item.kind
            ):
                report.fail(
                    subject,
                    f"its kind {item.kind!r} differs from the role {role!r} that log entry "
                    f"{seq} ({action}) gives it",
                )
    if item.sha512 is not None and not stated_sha512:
        report.fail(subject, f"database sha512 {item.sha512[:16]}… is stated by no custody "
                             "entry (no receipt, derivation or digest entry records it)")
    first_seq, first = mentions[0]
    if item.entry_seq not in {seq for seq, _ in mentions}:
        report.fail(
            subject,
            f"database says log entry {item.entry_seq} recorded it, but that "
            "entry does not name it",
        )
    elif item.entry_seq != first_seq:
        report.fail(
            subject,
            f"database says log entry {item.entry_seq} first recorded it, but log entry "
            f"{first_seq} named it before",
        )
    _differs(report, subject, "creation time", item.created_at, first.get("time"), first_seq)
    kind = _expected_kind(item, first)
    if kind is None:
        report.fail(
            subject,
            f"the first entry naming it, log entry {first_seq} "
            f"({_shown(first.get('action'))}), neither received nor derived it",
        )
    elif item.kind != kind:
        report.fail(
            subject,
            f"its kind {item.kind!r} differs from {kind!r}: log entry {first_seq} "
            f"{'received' if kind == 'original' else 'derived'} it",
        )
    parses = [(seq, entry) for seq, entry in mentions if _action(entry) == "parse"]
    created_by = _details(first) if _action(first) == "derive" else {}
    if parses:
        seq, entry = parses[-1]
        details = _details(entry)
        if details.get("metadata_sha256") != _digest(item.item_metadata):
            report.fail(
                subject,
                "its extracted metadata in the database differs from what the parse entry "
                f"(log entry {seq}) recorded",
            )
        _differs(report, subject, "parse status", item.parse_status, details.get("status"), seq)
        _differs(report, subject, "format", item.format, details.get("format"), seq)
        _differs(report, subject, "parse tool", item.parse_tool, details.get("tool"), seq)
        _differs(report, subject, "parse error", item.parse_error, details.get("error"), seq)
        _differs(report, subject, "text item", item.text_item_id, details.get("text_item"), seq)
        if "media_type" in details:
            _differs(report, subject, "media type", item.media_type, details["media_type"], seq)
        return
    # Never parsed: the item is as the entry that created it left it.
    derived = kind == "derived"
    _differs(report, subject, "format", item.format,
             created_by.get("kind") if derived else None, first_seq)
    _differs(report, subject, "parse status", item.parse_status,
             "derived" if derived else "pending", first_seq)
    _differs(report, subject, "media type", item.media_type,
             created_by.get("media_type") if derived else None, first_seq)
    _differs(report, subject, "parse tool", item.parse_tool, None, first_seq)
    _differs(report, subject, "parse error", item.parse_error, None, first_seq)
    if item.item_metadata is not None or item.text_item_id is not None:
        report.fail(subject, "has parse results (metadata or a text item) but no parse entry")


def _group(rows: Iterable[Any], key: Callable[[Any], int]) -> dict[int, list[Any]]:
    grouped: dict[int, list[Any]] = {}
    for row in rows:
        grouped.setdefault(key(row), []).append(row)
    return grouped


def _check_one_row_per_entry(
    entries: dict[int, dict[str, Any]],
    rows_by_seq: dict[int, list[Any]],
    wanted: Callable[[dict[str, Any]], bool],
    what: str,
    table: str,
    report: VerificationReport,
) -> None:
    for seq, entry in sorted(entries.items()):
        if not wanted(entry):
            continue
        count = len(rows_by_seq.get(seq, []))
        if count == 0:
            report.fail(
                f"log entry {seq}",
                f"records {what}, but the database has no {table} row for it (deleted)",
            )
        elif count > 1:
            report.fail(f"log entry {seq}", f"records one {what}, but {count} {table} rows name it")


def _check_origins(
    origins: list[Origin], entries: dict[int, dict[str, Any]], report: VerificationReport
) -> None:
    for origin in origins:
        _check_origin(origin, entries.get(origin.entry_seq), report)
    _check_one_row_per_entry(
        entries,
        _group(origins, lambda o: o.entry_seq),
        lambda e: _action(e) == "ingest",
        "a receipt (ingest)",
        "origins",
        report,
    )


def _check_origin(origin: Origin, entry: dict[str, Any] | None, report: VerificationReport) -> None:
    subject = f"origin {origin.id} of item {origin.item_id}"
    seq = origin.entry_seq
    if entry is None:
        report.fail(subject, f"names log entry {seq}, which does not exist")
        return
    if _action(entry) != "ingest":
        report.fail(subject, f"names log entry {seq}, which is not a receipt (ingest) entry")
        return
    recorded = _dict(_details(entry).get("origin"))
    ref = next((r for r in _refs(entry) if r.get("id") == origin.item_id), None)
    if ref is None:
        report.fail(subject, f"log entry {seq} is about another item")
    else:
        _differs(report, subject, "relation", origin.relation, ref.get("role"), seq)
    for what, stored, key in (
        ("relation", origin.relation, "relation"),
        ("source path", origin.source_path, "source_path"),
        ("name", origin.name, "name"),
        ("parent item", origin.parent_item_id, "parent_item"),
        ("sidecar item", origin.sidecar_item_id, "sidecar_item"),
        ("source mtime", origin.source_mtime, "source_mtime"),
    ):
        _differs(report, subject, what, stored, recorded.get(key), seq)
    collection = None if origin.collection is None else _digest(origin.collection)
    if collection != recorded.get("collection_sha256"):
        report.fail(subject, f"its collection metadata differs from log entry {seq}")
    _differs(report, subject, "receipt time", origin.received_at, entry.get("time"), seq)
    _differs(report, subject, "actor", origin.actor, entry.get("actor"), seq)


def _check_derivations(
    derivations: list[Derivation], entries: dict[int, dict[str, Any]], report: VerificationReport
) -> None:
    for derivation in derivations:
        _check_derivation(derivation, entries.get(derivation.entry_seq), report)
    _check_one_row_per_entry(
        entries,
        _group(derivations, lambda d: d.entry_seq),
        lambda e: _action(e) == "derive",
        "a derived file (derive)",
        "derivations",
        report,
    )


def _check_derivation(
    derivation: Derivation, entry: dict[str, Any] | None, report: VerificationReport
) -> None:
    subject = f"derivation of item {derivation.derived_item_id}"
    seq = derivation.entry_seq
    if entry is None:
        report.fail(subject, f"names log entry {seq}, which does not exist")
        return
    if _action(entry) != "derive":
        report.fail(subject, f"names log entry {seq}, which is not a derive entry")
        return
    details = _details(entry)
    if not _same(_ref_with_role(entry, "source").get("id"), derivation.source_item_id) or not (
        _same(_ref_with_role(entry, "derived").get("id"), derivation.derived_item_id)
    ):
        report.fail(subject, f"log entry {seq} records another source or result")
    if not _same(details.get("tool"), derivation.tool) or not _same(
        details.get("kind"), derivation.kind
    ):
        report.fail(subject, f"its tool or kind differs from log entry {seq}")
    _differs(report, subject, "tool version", derivation.tool_version,
             details.get("tool_version"), seq)
    _differs(report, subject, "creation time", derivation.created_at, entry.get("time"), seq)


# -- extraction runs ------------------------------------------------------------------------------


def mention_record(mention: IncidentMention) -> dict[str, Any]:
    """A stored mention as the row extraction built for it (extraction/run.py _mention_row)."""
    return {name: getattr(mention, name) for name in MENTION_FIELDS}


def claim_record(claim: Claim, fields: dict[str, str] = CLAIM_FIELDS) -> dict[str, Any]:
    """A stored claim as Claim.as_json() gave it to the results digest."""
    return {key: getattr(claim, column) for key, column in fields.items()}


def results_digest(
    mentions: list[IncidentMention],
    claims: dict[int, list[Claim]],
    fields: dict[str, str] = CLAIM_FIELDS,
) -> str | None:
    """The digest extraction recorded, recomputed from the stored rows, in their stored order."""
    return _digest(
        [
            {
                "mention": mention_record(m),
                "claims": [claim_record(c, fields) for c in claims.get(m.id, [])],
            }
            for m in mentions
        ]
    )


def digest_forms(details: dict[str, Any]) -> list[dict[str, str]]:
    """The claim fields the run logged with ``details`` may have digested, by extractor age."""
    recorded = details.get("results_format")
    if recorded is not None:
        # an unknown format checks against nothing, so the run is reported, never passed
        return [RESULTS_FORMATS[recorded]] if recorded in RESULTS_FORMATS else []
    if "source_sha256" not in details:  # logged before 5f7a9fa: never digested also_attributed
        return [LEGACY_CLAIM_FIELDS]
    return [CLAIM_FIELDS, LEGACY_CLAIM_FIELDS]


def _check_extraction(
    snap: _Snapshot, entries: dict[int, dict[str, Any]], report: VerificationReport
) -> None:
    runs = {run.id: run for run in snap.runs}
    mentions_by_run = _group(snap.mentions, lambda m: m.run_id)
    claims_by_mention = _group(snap.claims, lambda c: c.mention_id)
    mention_ids = {m.id for m in snap.mentions}
    for run_id in sorted(set(mentions_by_run) - set(runs)):
        report.fail(
            f"extraction run {run_id}",
            f"is missing from the database, but {len(mentions_by_run[run_id])} incident "
            "mention(s) still name it (the run row was deleted)",
        )
    orphans = sorted({c.mention_id for c in snap.claims} - mention_ids)
    if orphans:
        report.fail(
            "claims",
            f"{sum(len(claims_by_mention[i]) for i in orphans)} claim(s) name incident "
            f"mention(s) {', '.join(map(str, orphans[:10]))} that are not in the database",
        )
    legacy = [
        run.id
        for run in snap.runs
        if _check_run(run, entries.get(run.entry_seq), mentions_by_run.get(run.id, []),
                      claims_by_mention, report)
    ]
    if legacy:
        report.notes.append(
            f"{len(legacy)} extraction run(s) ({', '.join(map(str, legacy[:10]))}"
            f"{', …' if len(legacy) > 10 else ''}) were logged by an older extractor whose "
            "results digest left out each claim's also_attributed; those values are not "
            "covered by the custody log"
        )
    _check_one_row_per_entry(
        entries,
        _group(snap.runs, lambda r: r.entry_seq),
        lambda e: _action(e) == "extract",
        "an extraction run (extract)",
        "extraction_runs",
        report,
    )
    _check_current_runs(snap.runs, entries, report)
    _check_dataset_rows(snap, runs, entries, report)
    report.counts["extraction runs"] = len(snap.runs)


def dataset_rows_digest(rows: list[dict[str, Any]]) -> str | None:
    """The digest an import records of its dataset rows (each a dict of DATASET_ROW_FIELDS)."""
    return _digest([{name: row[name] for name in DATASET_ROW_FIELDS} for row in rows])


def _check_dataset_rows(snap: _Snapshot, runs: dict[int, ExtractionRun],
                        entries: dict[int, dict[str, Any]], report: VerificationReport) -> None:
    """Each import's dataset rows are those its extract entry counted and digested."""
    by_run = _group(snap.dataset_rows, lambda r: r.run_id)
    for run_id in sorted(set(by_run) - set(runs)):
        report.fail(f"extraction run {run_id}", f"is missing from the database, but "
                                                f"{len(by_run[run_id])} dataset row(s) name it")
    for run in runs.values():
        entry = entries.get(run.entry_seq)
        details = _details(entry) if entry is not None else {}
        if "rows_sha256" not in details and not by_run.get(run.id):
            continue
        subject = f"extraction run {run.id} of item {run.item_id}"
        rows = by_run.get(run.id, [])
        if len(rows) != details.get("rows"):
            report.fail(subject, f"{len(rows)} dataset row(s) in the database, log entry "
                                 f"{run.entry_seq} recorded {_shown(details.get('rows'))}: rows "
                                 "were deleted or added")
        recorded = [{name: getattr(r, name) for name in DATASET_ROW_FIELDS} for r in rows]
        if dataset_rows_digest(recorded) != details.get("rows_sha256"):
            report.fail(subject, "its dataset rows in the database differ from the digest "
                                 f"recorded in log entry {run.entry_seq}: a row's status, rule, "
                                 "reason, line or span was edited")
    if snap.dataset_rows:
        report.counts["dataset rows"] = len(snap.dataset_rows)


def _check_run(
    run: ExtractionRun,
    entry: dict[str, Any] | None,
    mentions: list[IncidentMention],
    claims_by_mention: dict[int, list[Claim]],
    report: VerificationReport,
) -> bool:
    """Checks one run; returns whether its digest is of the older form (see digest_forms)."""
    subject = f"extraction run {run.id} of item {run.item_id}"
    seq = run.entry_seq
    if entry is None:
        report.fail(subject, f"names log entry {seq}, which does not exist")
        return False
    if _action(entry) != "extract":
        report.fail(subject, f"names log entry {seq}, which is not an extract entry")
        return False
    details = _details(entry)
    _differs(report, subject, "item", run.item_id, _ref_with_role(entry, "source").get("id"), seq)
    _differs(report, subject, "text item", run.text_item_id,
             _ref_with_role(entry, "text").get("id"), seq)
    for what, stored, key in (
        ("extractor", run.extractor, "extractor"),
        ("vocabulary digest", run.vocabulary_sha256, "vocabulary_sha256"),
        ("gazetteer", run.gazetteer, "gazetteer"),
        ("mention count", run.mention_count, "mentions"),
        ("claim count", run.claim_count, "claims"),
        ("results digest", run.results_sha256, "results_sha256"),
    ):
        _differs(report, subject, what, stored, details.get(key), seq)
    source = getattr(run, "source_sha256", None)
    if source is not None or "source_sha256" in details:
        _differs(report, subject, "source digest", source, details.get("source_sha256"), seq)
    _differs(report, subject, "creation time", run.created_at, entry.get("time"), seq)
    claims = [c for m in mentions for c in claims_by_mention.get(m.id, [])]
    if len(mentions) != details.get("mentions"):
        report.fail(
            subject,
            f"{len(mentions)} incident mention(s) in the database, log entry {seq} recorded "
            f"{_shown(details.get('mentions'))}: mentions were deleted or added",
        )
    if len(claims) != details.get("claims"):
        report.fail(
            subject,
            f"{len(claims)} claim(s) in the database, log entry {seq} recorded "
            f"{_shown(details.get('claims'))}: claims were deleted or added",
        )
    wrong_item = [m.id for m in mentions if m.item_id != run.item_id] + [
        c.id for c in claims if c.item_id != run.item_id
    ]
    if wrong_item:
        report.fail(subject, f"{len(wrong_item)} of its mentions or claims name another item")
    results_format = details.get("results_format")
    if results_format is not None and results_format not in RESULTS_FORMATS:
        report.fail(subject, f"log entry {seq} records results format "
                             f"{_shown(results_format)}, which this version of casebuilder does "
                             "not know: its results cannot be checked")
        return False
    recorded = details.get("results_sha256")
    form = next(
        (
            fields
            for fields in digest_forms(details)
            if results_digest(mentions, claims_by_mention, fields) == recorded
        ),
        None,
    )
    if form is None:
        report.fail(
            subject,
            "its incident mentions and claims in the database differ from the results "
            f"digest recorded in log entry {seq}: a mention or claim was edited, added, "
            "removed or reordered",
        )
    return form is LEGACY_CLAIM_FIELDS and bool(claims)


def _check_current_runs(
    runs: list[ExtractionRun], entries: dict[int, dict[str, Any]], report: VerificationReport
) -> None:
    latest: dict[int, int] = {}  # item -> seq of the latest extract entry for it
    for seq, entry in sorted(entries.items()):
        if _action(entry) == "extract":
            item_id = _ref_with_role(entry, "source").get("id")
            if _is_id(item_id):
                latest[item_id] = seq
    for run in runs:
        should = latest.get(run.item_id) == run.entry_seq
        if bool(run.current) != should:
            subject = f"extraction run {run.id} of item {run.item_id}"
            if should:
                report.fail(
                    subject,
                    f"is the latest logged run of the item (log entry {run.entry_seq}) but "
                    "is not marked current",
                )
            else:
                report.fail(
                    subject,
                    "is marked current, but log entry "
                    f"{latest.get(run.item_id)} records a later run of the item",
                )


# -- analysts' decisions ---------------------------------------------------------------------------


def _as_recorded(report: VerificationReport, subject: str, seq: int, entry: dict[str, Any],
                 actor: str, at: str, fields: Iterable[tuple[str, Any, Any]]) -> None:
    """A row against the entry that recorded it: each (what, stored, recorded) field, then who
    and when."""
    for what, stored, recorded in (*fields, ("actor", actor, entry.get("actor")),
                                   ("time", at, entry.get("time"))):
        _differs(report, subject, what, stored, recorded, seq)


def _records_decision(entry: dict[str, Any]) -> bool:
    return _action(entry) in {"edit", "annotate"} and "decision" in _details(entry)


def _check_decisions(
    decisions: list[AnalystDecision],
    entries: dict[int, dict[str, Any]],
    report: VerificationReport,
) -> None:
    for row in decisions:
        subject = f"analyst decision {row.id} ({row.action} of {row.incident_id})"
        seq = row.entry_seq
        entry = entries.get(seq)
        if entry is None:
            report.fail(subject, f"names log entry {seq}, which does not exist")
            continue
        if not _records_decision(entry):
            report.fail(subject, f"names log entry {seq}, which records no decision")
            continue
        details = _details(entry)
        _as_recorded(report, subject, seq, entry, row.actor, row.at, (
            ("decision", row.action, details.get("decision")),
            ("incident", row.incident_id, details.get("incident")),
            ("payload", row.payload, details.get("payload")),
            ("reason", row.reason, details.get("reason"))))
    _check_one_row_per_entry(
        entries,
        _group(decisions, lambda d: d.entry_seq),
        _records_decision,
        "an analyst's decision",
        "analyst_decisions",
        report,
    )
    report.counts["analyst decisions"] = len(decisions)


# -- intake failures and the case itself ---------------------------------------------------------


def _entry_recording(entries: dict[int, dict[str, Any]], seq: int, action: str, subject: str,
                     what: str, report: VerificationReport) -> dict[str, Any] | None:
    """The log entry a row names, if it records ``action``; else the failure is reported."""
    entry = entries.get(seq)
    if entry is None or _action(entry) != action:
        report.fail(subject, f"names log entry {seq}, which records no {what}")
        return None
    return entry


def _check_intake_failures(
    failures: list[IntakeFailure],
    entries: dict[int, dict[str, Any]],
    report: VerificationReport,
) -> None:
    for row in failures:
        subject = f"intake failure {row.id}"
        seq = row.entry_seq
        entry = _entry_recording(entries, seq, "intake-failed", subject, "intake failure",
                                 report)
        if entry is None:
            continue
        details = _details(entry)
        _differs(report, subject, "reason", row.reason, details.get("reason"), seq)
        _differs(report, subject, "time", row.at, entry.get("time"), seq)
        if "parent_item" not in details:  # a member's row shows the path through its parent
            _differs(report, subject, "source path", row.source_path,
                     details.get("source_path"), seq)
    _check_one_row_per_entry(
        entries,
        _group(failures, lambda f: f.entry_seq),
        lambda e: _action(e) == "intake-failed",
        "a path that could not be taken in",
        "intake_failures",
        report,
    )


def _check_restrictions(
    restrictions: list[ItemRestriction],
    entries: dict[int, dict[str, Any]],
    report: VerificationReport,
) -> None:
    # A restriction lifted in the database alone would show a witness's statement to everyone:
    # each row must say what its entry says, and no entry may lose its row.
    for row in restrictions:
        subject = f"restriction {row.id} of item {row.item_id}"
        seq = row.entry_seq
        entry = _entry_recording(entries, seq, "restrict", subject, "restriction", report)
        if entry is None:
            continue
        details = _details(entry)
        named = [i.get("id") for i in entry.get("items") or [] if isinstance(i, dict)]
        _as_recorded(report, subject, seq, entry, row.actor, row.at, (
            ("item", [row.item_id], named),
            ("restricted", row.restricted, details.get("restricted")),
            ("kind", row.kind, details.get("kind")),
            ("reason", row.reason, details.get("reason"))))
    _check_one_row_per_entry(
        entries,
        _group(restrictions, lambda r: r.entry_seq),
        lambda e: _action(e) == "restrict",
        "a restriction of an item",
        "item_restrictions",
        report,
    )
    if restrictions:
        report.counts["restrictions"] = len(restrictions)


def _check_extraction_failures(
    failures: list[ExtractionFailure],
    entries: dict[int, dict[str, Any]],
    report: VerificationReport,
) -> None:
    for row in failures:
        subject = f"extraction failure {row.id} of item {row.item_id}"
        seq = row.entry_seq
        entry = _entry_recording(entries, seq, "extract-failed", subject,
                                 "extraction failure", report)
        if entry is None:
            continue
        details = _details(entry)
        _differs(report, subject, "item", row.item_id,
                 _ref_with_role(entry, "source").get("id"), seq)
        _differs(report, subject, "text item", row.text_item_id,
                 _ref_with_role(entry, "text").get("id"), seq)
        for what, stored, key in (
            ("extractor", row.extractor, "extractor"),
            ("vocabulary digest", row.vocabulary_sha256, "vocabulary_sha256"),
            ("gazetteer", row.gazetteer, "gazetteer"),
            ("source digest", row.source_sha256, "source_sha256"),
            ("reason", row.reason, "reason"),
        ):
            _differs(report, subject, what, stored, details.get(key), seq)
        _differs(report, subject, "time", row.at, entry.get("time"), seq)
    _check_one_row_per_entry(
        entries,
        _group(failures, lambda f: f.entry_seq),
        lambda e: _action(e) == "extract-failed",
        "a text the extractor failed on",
        "extraction_failures",
        report,
    )


def _check_case_info(
    info: CaseInfo | None, entries: dict[int, dict[str, Any]], report: VerificationReport
) -> None:
    if info is None:
        report.fail("case", "the database holds no row describing this case")
        return
    first = entries.get(0)
    if first is not None and _action(first) == "init":
        _differs(report, "case", "name", info.name, _details(first).get("case_name"), 0)
        _differs(report, "case", "first key", info.public_key_sha256,
                 _details(first).get("public_key_sha256"), 0)


# -- putting it together ------------------------------------------------------------------------


def _guarded(report: VerificationReport, stage: str, check: Callable[[], None]) -> None:
    """A check that stops on input nobody foresaw is a failure to report, not a crash."""
    try:
        check()
    except Exception as exc:  # noqa: BLE001 - verify must always end in a report
        report.fail(stage, f"the check stopped on unexpected data: {type(exc).__name__}: {exc}")


def verify_case(
    case: Case,
    *,
    on_item: Callable[[int], None] | None = None,
    settle_seconds: float = SETTLE_SECONDS,
    trusted_key: bytes | None = None,
    timestamp_window: timedelta | None = None,
) -> VerificationReport:
    """Run every check; the report lists every failure found.

    ``trusted_key`` is a public key (PEM) the auditor obtained independently of the case home
    (from a bundle, a filing, the investigator): every signature is then checked with it, and a
    case whose own public key differs fails. Without it, the key in the case home is used and
    checked against the one the case was created with.

    ``timestamp_window`` is how long after a checkpoint's time its token's genTime may be
    (default: the case's ``[timestamping] window_hours``, 24 unless configured)."""
    window = timestamp_window or timedelta(hours=case.config.tsa_window_hours)
    report = VerificationReport()
    if trusted_key is not None:
        try:
            key = load_public_key(trusted_key)
        except CasebuilderError as exc:
            raise SigningError(f"the public key given is not usable: {exc}") from exc
        if public_key_digest(key) != case.key_id:
            report.fail("case public key", "the case home's public key is not the key given "
                        f"(key id {public_key_digest(key)[:16]}…): the case was re-keyed, or "
                        "this is not the case the key belongs to")
        case.public_key = key
    deadline = time.monotonic() + settle_seconds
    snap = _snapshot(case)
    while _command_in_progress(snap) and time.monotonic() < deadline:
        time.sleep(0.05)
        snap = _snapshot(case)
    if snap.lock_note:
        report.notes.append(snap.lock_note)
    lines = _sealed_tail(case, snap, _read_log(snap, report), report)
    _guarded(report, "custody log", lambda: _check_entries(case, lines, report))
    _guarded(report, "custody log", lambda: _check_against_database(snap, lines, report))
    _guarded(report, "custody seal", lambda: _check_seal(case, snap, lines, report))
    _guarded(
        report, "checkpoints", lambda: _check_checkpoints(case, snap, lines, report, window)
    )
    _guarded(report, "set-aside files", lambda: _check_set_aside(snap, lines, report))
    report.log_intact = not report.failures
    _guarded(report, "database rows", lambda: _check_records(snap, lines, report))
    # The stored files never change once written, so they are re-hashed without the lock.
    names = _item_names(snap)
    for item in snap.items:
        subject = names[item.id]
        _guarded(report, subject, partial(_check_item_file, case, item, subject, report))
        if on_item is not None:
            on_item(item.size)
    _guarded(report, "object store", lambda: _check_unnamed_objects(snap, lines, report))
    if report.pending:
        report.notes.append(pending_note(report.pending))
    return report


def pending_note(pending: dict[int, Digests | None]) -> str:
    shown = ", ".join(map(str, sorted(pending)[:20])) + (", …" if len(pending) > 20 else "")
    return (f"{len(pending)} item(s) have no recorded SHA-512 yet (second digest pending): "
            f"{shown}; their SHA-256 was checked")


def _logged_leftovers(lines: list[_LogLine]) -> dict[str, int]:
    """Objects ``store-note`` entries record as left without an item, and the entry that
    says so (leftovers.py)."""
    logged: dict[str, int] = {}
    for line in lines:
        if line.entry is None or _action(line.entry) != "store-note":
            continue
        objects = _details(line.entry).get("objects_without_item")
        for record in objects if isinstance(objects, list) else []:
            sha256 = _dict(record).get("sha256")
            if isinstance(sha256, str):
                logged.setdefault(sha256, line.index)
    return logged


def _check_unnamed_objects(snap: _Snapshot, lines: list[_LogLine],
                           report: VerificationReport) -> None:
    """Every object in the store is named by an item, or accounted for: by a ``store-note``
    (an interrupted command left it: a note), by a running command's marker (not committed
    yet: a note), or by a gone command's marker (the next command logs it: a note). One that
    nothing accounts for is a failure: it is what putting back an older copy of the database
    looks like (its items gone, their files still here), or a file placed there by hand."""
    held = {item.sha256 for item in snap.items}
    logged = _logged_leftovers(lines)
    staging = snap.staging
    for name in sorted(set(snap.stored_objects) - held):
        if name in logged:
            report.notes.append(f"object {name}: left without an item by a command that "
                                f"stopped or failed (log entry {logged[name]} records it)")
        elif name in staging.live_markers:
            report.notes.append(f"object {name}: not yet committed, a command is running")
        elif name in staging.settled_markers:
            report.notes.append(f"object {name}: stored by a command that stopped before "
                                "committing its item; the next command logs it")
        else:
            report.fail(f"object {name}",
                        "is in the store, but no item names it and no custody entry accounts "
                        "for it (the database put back from an older copy, or a file placed "
                        "there by hand)")
    for left in staging.stale_temporaries:
        report.notes.append(f"tmp/{left.name} ({left.size} bytes): a partial copy left by an "
                            "interrupted command, not evidence; the next command removes it "
                            "and logs it")
    report.counts["stored objects"] = len(snap.stored_objects)


def _seal_pending(case: Case, report: VerificationReport) -> None:
    """Record the SHA-512 verify read from the stored copy of each pending item whose SHA-256
    and size held (sealing.py), and say so in the report."""
    from casebuilder.preservation.sealing import pending_items, record_digests

    sound = {item_id: d for item_id, d in report.pending.items() if d is not None}
    if not sound:
        return
    sealed = record_digests(case, sound, by="verify")
    if (old := pending_note(report.pending)) in report.notes:
        report.notes.remove(old)
    # what is still pending now (a sealer running beside verify may have sealed some)
    still = {item_id for item_id, _, _ in pending_items(case, list(report.pending))}
    report.pending = {i: d for i, d in report.pending.items() if i in still}
    if sealed:
        report.notes.append(f"{len(sealed)} item(s) waited for their SHA-512: read from their "
                            "stored copies (SHA-256 re-checked) and recorded now (digest "
                            "entries)")
    if report.pending:
        report.notes.append(pending_note(report.pending))


def record_verification(case: Case, report: VerificationReport) -> bool:
    """Log the verification, but only into a log that is itself intact, and only where the
    case's private key is at hand (an auditor may verify with the public key alone).

    Appending to a log that failed its checks would bury the evidence of tampering under a new
    signed checkpoint, so then nothing is written; ``report.not_logged`` says why.
    """
    if not report.log_intact:
        report.not_logged = ("the custody log failed its checks, so this verification was not "
                             "appended to it")
        return False
    if not case.paths.signing_key.exists():
        report.not_logged = ("the case's private key is not in this case home, so this "
                             "verification (done with the public key alone) was not logged")
        return False
    if report.ok:  # never copy rows that failed their checks into new entries
        _seal_pending(case, report)
    details = {
        "ok": report.ok,
        "failures": [str(f) for f in report.failures][:200],
        "failure_count": len(report.failures),
        "counts": dict(report.counts),
    }
    try:
        with case.transaction() as tx:
            tx.record("verify", details=json.loads(json.dumps(details)))
    except (CustodyLogError, IntegrityError, SigningError) as exc:
        report.not_logged = f"this verification could not be logged: {exc}"
        return False
    case.checkpoint()
    return True
