"""The ingest run: preserve every file named, then read what can be read from it.

For each file, in this order and each step in its own unit of work:

1. its sidecar (if any) is preserved and parsed, so the file's origin can carry the collection
   metadata;
2. the file is preserved (hashed and stored once) and its receipt logged: a file already held
   gets only a new origin and a custody entry;
3. a new item is parsed by the handler that bids highest; its metadata, its text and its derived
   files are recorded, each derived file as an item of its own with a derivation record; a
   parse failure is recorded on the item and the batch goes on;
4. files inside it (archive members, e-mail attachments) go through steps 2-4 themselves.

Nothing is written for a file until its original is safely stored, and an error in one file
never touches the items already recorded.

A run that stops part-way (killed, power cut) is resumed by ingesting the same files again: an
item stored but never read (parse status "pending") is read when it arrives again, as is one
whose reader's process was stopped on its time limit or died (parse status "stopped", with
``stopped`` = "timeout" or "crash" in its parse entry: nothing is known about the file), and so are
the members of a container that arrives again: a member left unread is read, and when fewer
members were received than the container's parse entry counted (the run stopped between two
members), the container is listed again and the missing members are taken in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from casebuilder.errors import CasebuilderError, CaseWriteError, IntakeError, UnreadableContent
from casebuilder.intake.handlers import choose_handler, default_handlers, describe_mismatch
from casebuilder.intake.handlers.base import (
    Child,
    Derivative,
    FormatHandler,
    ParseResult,
    ParseSource,
    Sniff,
    active_content_alert,
)
from casebuilder.intake.isolation import ParserStopped, ParseServer, parse_isolated
from casebuilder.intake.sidecar import parse_sidecar
from casebuilder.intake.walk import IntakeCandidate, path_text, plan_intake, printable
from casebuilder.model.clock import format_utc
from casebuilder.preservation.canonical import json_digest
from casebuilder.preservation.case import Case, CheckpointOutcome
from casebuilder.preservation.items import (
    OriginFacts,
    find_by_sha256,
    item_ref,
    record_derived,
    record_received,
)
from casebuilder.preservation.objects import StoredObject
from casebuilder.store.schema import CustodyEvent, IntakeFailure, Item, Origin

SNIFF_BYTES = 64 * 1024
#: Handlers whose libraries a crafted file can stall or bloat: run in the parse server.
ISOLATED = frozenset({"pdf", "image", "media", "html"})
PARSE_TIMEOUT_S = 300.0
PARSE_MEMORY_BYTES = 4 * 1024**3
TEXT_MEDIA_TYPE = "text/plain; charset=utf-8"
#: Parse statuses a later ingest reads again: no reader finished with the item.
RETRY_PARSE = frozenset({"pending", "stopped"})
#: Formats whose parse hands on children (archive members, attachments).
CONTAINERS = frozenset({"zip", "email"})


class IngestProgress(Protocol):
    """What a front end may show while files are taken in."""

    def planned(self, files: int, total_bytes: int) -> None: ...

    def advance(self, nbytes: int) -> None: ...

    def file_done(self, outcome: IngestOutcome) -> None: ...


@dataclass
class IngestOutcome:
    path: str  # printable path (or container path for members)
    # "new" | "duplicate" | "failed", or "resumed": a member received by an earlier run that
    # stopped before reading it (or before reading its own members), read now.
    status: str
    item_id: int | None = None
    sha256: str | None = None
    format: str | None = None
    parse_status: str | None = None
    reason: str | None = None  # why it failed, or why it could not be parsed
    relation: str = "file"
    warnings: list[str] = field(default_factory=list)
    parsed: bool = False  # a reader ran on it in this run (new, or left unread before)
    alerts: list[str] = field(default_factory=list)  # e.g. active content in a PDF

    @property
    def problem(self) -> str | None:
        """Why this file is among the problems of the run (None: taken in and read)."""
        if self.status == "failed" or self.parse_status in {"failed", "unsupported", "stopped"}:
            return self.reason or "not read"
        if self.parse_status == "partial":
            return "read in part: " + "; ".join(self.warnings or [self.reason or "see its record"])
        return None


@dataclass(frozen=True)
class StoppedRun:
    """Why a run stopped before its last file: the case home could not be written."""

    path: str  # printable path of the file it stopped at
    reason: str


@dataclass
class IngestReport:
    outcomes: list[IngestOutcome] = field(default_factory=list)
    checkpoint: CheckpointOutcome | None = None
    #: Set when the case home could not be written (a full disk): the files after it were not
    #: looked at; everything listed in ``outcomes`` as stored is committed.
    stopped: StoppedRun | None = None
    #: Why the closing checkpoint could not be signed, if it could not (a full disk).
    checkpoint_problem: str | None = None

    @property
    def new(self) -> list[IngestOutcome]:
        return [o for o in self.outcomes if o.status == "new"]

    @property
    def duplicates(self) -> list[IngestOutcome]:
        return [o for o in self.outcomes if o.status == "duplicate"]

    @property
    def failures(self) -> list[IngestOutcome]:
        """Files not taken in, and files taken in but not readable."""
        return [
            o
            for o in self.outcomes
            if o.status == "failed" or o.parse_status in {"failed", "unsupported", "stopped"}
        ]

    @property
    def partly_read(self) -> list[IngestOutcome]:
        """Files taken in whose reader could read them only in part (status "partial")."""
        return [o for o in self.outcomes if o.parse_status == "partial"]

    @property
    def problems(self) -> list[IngestOutcome]:
        """Every file not taken in, not readable or only partly readable, in run order."""
        return [o for o in self.outcomes if o.problem is not None]

    @property
    def alerted(self) -> list[IngestOutcome]:
        return [o for o in self.outcomes if o.alerts]

    @property
    def resumed(self) -> list[IngestOutcome]:
        return [o for o in self.outcomes if o.status == "resumed"]

    @property
    def new_item_ids(self) -> list[int]:
        return [o.item_id for o in self.new if o.item_id is not None]

    @property
    def parsed_item_ids(self) -> list[int]:
        """Items read in this run: the new ones, and those an earlier run left unread."""
        ids = [o.item_id for o in self.outcomes if o.parsed and o.item_id is not None]
        return list(dict.fromkeys(ids))


@dataclass
class Ingester:
    case: Case
    handlers: Sequence[FormatHandler]
    progress: IngestProgress | None = None
    report: IngestReport = field(default_factory=IngestReport)
    parse_timeout: float = PARSE_TIMEOUT_S
    parse_memory: int = PARSE_MEMORY_BYTES
    #: Containers whose members were checked in this run (each is checked once).
    _members_checked: set[int] = field(default_factory=set)
    #: The isolated readers' parse server while :meth:`run` runs.
    _parse_server: ParseServer | None = field(default=None, init=False, repr=False)

    @property
    def second_digest_inline(self) -> bool:
        """SHA-512 while storing ([intake] second_digest = "inline"), or later (sealing.py)."""
        return self.case.config.second_digest == "inline"

    def run(self, paths: Sequence[Path]) -> IngestReport:
        # One parse server for the run, stopped however the run ends (errors, Ctrl-C).
        with ParseServer() as server:
            self._parse_server = server
            try:
                return self._run(paths)
            finally:
                self._parse_server = None

    def _run(self, paths: Sequence[Path]) -> IngestReport:
        plan, skipped = plan_intake(list(paths), exclude=[self.case.paths.root])
        for skip in skipped:
            self._intake_failed(skip.path, skip.reason)
        if self.progress is not None:
            self.progress.planned(len(plan), sum(_size(c.path) for c in plan))
        for candidate in plan:
            try:
                self._take_candidate(candidate)
            except CaseWriteError as exc:
                # The case home cannot be written (a full disk): every later file would fail
                # the same way, and recording a failure needs a write too. What was committed
                # stays; this file's unit of work was rolled back.
                self.report.stopped = StoppedRun(printable(candidate.path), str(exc))
                break
            except CasebuilderError as exc:
                self._intake_failed(candidate.path, str(exc))
            except (OSError, ValueError, RecursionError) as exc:
                # One file's unforeseen failure must not stop the batch; what was committed
                # for it stays, and the failure is itself recorded.
                self._intake_failed(candidate.path,
                                    f"could not be taken in: {type(exc).__name__}: {exc}")
        try:
            self.report.checkpoint = self.case.checkpoint()
        except CaseWriteError as exc:
            self.report.checkpoint_problem = str(exc)
        return self.report

    # -- one file and its sidecar -------------------------------------------------------
    def _take_candidate(self, candidate: IntakeCandidate) -> None:
        collection: dict[str, Any] | None = None
        sidecar_id: int | None = None
        if candidate.sidecar is not None:
            sidecar_id, collection = self._take_sidecar(candidate.sidecar)
        self._take_file(candidate.path, collection=collection, sidecar_id=sidecar_id)

    def _take_sidecar(self, path: Path) -> tuple[int | None, dict[str, Any] | None]:
        outcome = self._preserve(path, relation="sidecar")
        if outcome is None or outcome.item_id is None:
            return None, None
        item_id = outcome.item_id
        outcome.format = "collection-metadata"
        with self.case.session() as session:
            item = session.get(Item, item_id)
            assert item is not None
            already_parsed = item.parse_status != "pending"
            metadata = dict(item.item_metadata or {})
            status = item.parse_status
        if already_parsed:
            return item_id, (metadata if status == "ok" else None)
        try:
            with self.case.objects.open(outcome.sha256 or "") as fh:
                parsed = parse_sidecar(fh.read(1024 * 1024 + 1))
        except UnreadableContent as exc:
            self._finish_parse(item_id, None, "collection-metadata", error=str(exc))
            outcome.parse_status, outcome.reason = "failed", str(exc)
            return item_id, None
        result = ParseResult(
            format="collection-metadata",
            media_type="application/json",
            tool="casebuilder sidecar reader",
            metadata=parsed.as_json(),
            warnings=parsed.warnings,
        )
        self._finish_parse(item_id, result, "collection-metadata")
        outcome.parse_status = "ok"
        return item_id, parsed.as_json()

    def _take_file(
        self,
        path: Path,
        *,
        collection: dict[str, Any] | None = None,
        sidecar_id: int | None = None,
    ) -> None:
        outcome = self._preserve(
            path, relation="file", collection=collection, sidecar_id=sidecar_id
        )
        if outcome is None or outcome.item_id is None:
            return
        self._read_or_resume(outcome, name=path.name, depth=0)

    def _read_or_resume(self, outcome: IngestOutcome, *, name: str, depth: int) -> None:
        """Read a new item, or one an earlier run stored and left unread; of an item already
        read, finish what an earlier run left undone among its members."""
        if outcome.status == "new" or outcome.parse_status in RETRY_PARSE:
            self._parse(outcome, name=name, depth=depth)
        else:
            assert outcome.item_id is not None and outcome.sha256 is not None
            self._resume_members(outcome.item_id, outcome.sha256, name=name,
                                 shown=outcome.path, depth=depth)

    def _preserve(
        self,
        path: Path,
        *,
        relation: str,
        collection: dict[str, Any] | None = None,
        sidecar_id: int | None = None,
    ) -> IngestOutcome | None:
        shown = printable(path)
        try:
            stored = self.case.objects.store_file(
                path,
                max_size=self.case.config.max_file_size,
                progress=self.progress.advance if self.progress else None,
                second_digest=self.second_digest_inline,
            )
            mtime = _mtime(path)
        except IntakeError as exc:
            self._intake_failed(path, exc.reason)
            return None
        source_path, raw = path_text(path.absolute())
        facts = OriginFacts(
            relation=relation,
            source_path=source_path,
            name=path_text(path.name)[0],
            source_mtime=mtime,
            collection=collection,
            sidecar_item_id=sidecar_id,
            source_path_bytes=raw,
        )
        return self._record(stored, facts, shown)

    def _record(self, stored: StoredObject, facts: OriginFacts, shown: str) -> IngestOutcome:
        replaced = stored.sha256 in self.case.objects.replaced
        notes = {"stored_file_replaced": True} if replaced else None
        with self.case.transaction() as tx:
            item, is_new = record_received(tx, stored, facts, notes=notes)
            item_id, status, error = item.id, item.parse_status, item.parse_error
            metadata = item.item_metadata or {}
        outcome = IngestOutcome(
            path=shown,
            status="new" if is_new else "duplicate",
            item_id=item_id,
            sha256=stored.sha256,
            parse_status=None if is_new else status,
            relation=facts.relation,
        )
        if not is_new:  # held already: what its reading found then still holds
            outcome.reason = error
            if status == "partial" and error:
                outcome.warnings.append(error)
            outcome.alerts.extend(_alerts_of(metadata))
        if replaced:
            outcome.warnings.append("the file stored under this hash did not hold these bytes "
                                    "and was replaced by the verified copy")
        self.report.outcomes.append(outcome)
        if self.progress is not None:
            self.progress.file_done(outcome)
        return outcome

    def _intake_failed(self, path: Path, reason: str) -> None:
        shown = printable(path)
        with self.case.transaction() as tx:
            seq = tx.record(
                "intake-failed", details={"source_path": os.fsdecode(path), "reason": reason}
            )
            tx.session.add(
                IntakeFailure(
                    source_path=os.fsdecode(path), reason=reason, at=tx.last_time, entry_seq=seq
                )
            )
        outcome = IngestOutcome(path=shown, status="failed", reason=reason)
        self.report.outcomes.append(outcome)
        if self.progress is not None:
            self.progress.file_done(outcome)

    # -- reading what was stored ----------------------------------------------------------
    def _read(self, sha256: str, *, name: str, depth: int) -> _Reading:
        """Run the reader that bids highest on a stored file; records nothing."""
        stored_path = self.case.objects.path_for(sha256)
        with stored_path.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
        size = stored_path.stat().st_size
        sniff = Sniff(name=name, head=head, size=size)
        handler = choose_handler(sniff, self.handlers)
        if handler is None:
            reason = describe_mismatch(sniff) or "format not recognised"
            status = "failed" if size == 0 or describe_mismatch(sniff) else "unsupported"
            return _Reading(None, None, reason, status)
        source = ParseSource(path=stored_path, name=name, size=size, depth=depth)
        try:
            if handler.name in ISOLATED and self._parse_server is not None:
                result = self._parse_server.parse(
                    handler, source, timeout=self.parse_timeout, memory=self.parse_memory
                )
            elif handler.name in ISOLATED:
                result = parse_isolated(
                    handler, source, timeout=self.parse_timeout, memory=self.parse_memory
                )
            else:
                result = handler.parse(source)
        except ParserStopped as exc:
            return _Reading(handler.name, None, str(exc), "stopped", stopped=exc.kind)
        except UnreadableContent as exc:
            return _Reading(handler.name, None, str(exc), "failed")
        except Exception as exc:  # noqa: BLE001 - a parser bug must not stop the batch
            reason = f"the {handler.name} reader failed: {type(exc).__name__}: {exc}"
            return _Reading(handler.name, None, reason, "failed")
        return _Reading(handler.name, result, None, None)

    def _parse(self, outcome: IngestOutcome, *, name: str, depth: int) -> None:
        assert outcome.item_id is not None and outcome.sha256 is not None
        reading = self._read(outcome.sha256, name=name, depth=depth)
        outcome.format = reading.format
        outcome.parsed = True
        result = reading.result
        if result is None:
            self._finish_parse(outcome.item_id, None, reading.format, error=reading.error,
                               status=reading.status, stopped=reading.stopped)
            outcome.parse_status, outcome.reason = reading.status, reading.error
            return
        self._finish_parse(outcome.item_id, result, reading.format, original_name=name)
        outcome.parse_status = "partial" if result.warnings else "ok"
        outcome.warnings.extend(result.warnings)
        outcome.alerts[:] = result.alerts
        outcome.reason = None
        self._members_checked.add(outcome.item_id)
        for child in result.children:
            self._take_child(
                child, parent_id=outcome.item_id, parent_shown=outcome.path, depth=depth + 1
            )

    # -- finishing what a stopped run left undone -------------------------------------------
    def _resume_members(self, item_id: int, sha256: str, *, name: str, shown: str,
                        depth: int) -> None:
        """Of a container read by an earlier run: read the members it left unread, and take in
        those it never received (it stopped between two members)."""
        if item_id in self._members_checked:
            return
        self._members_checked.add(item_id)
        with self.case.session() as session:
            item = session.get(Item, item_id)
            if item is None or item.format not in CONTAINERS:
                return
            rows = session.execute(
                select(Origin, Item)
                .join(Item, Item.id == Origin.item_id)
                .where(Origin.parent_item_id == item_id)
                .order_by(Origin.id)
            ).all()
            members = [(o.source_path, o.name, o.relation, i.id, i.sha256, i.parse_status)
                       for o, i in rows]
            expected = _member_count(session, sha256)
        received = {(source_path, member_sha) for source_path, _, _, _, member_sha, _ in members}
        if expected is not None and len(members) < expected:
            reading = self._read(sha256, name=name, depth=depth)
            if reading.result is not None:
                for child in reading.result.children:
                    self._take_child(child, parent_id=item_id, parent_shown=shown,
                                     depth=depth + 1, received=received)
                return
        for source_path, member_name, relation, member_id, member_sha, status in members:
            outcome = IngestOutcome(
                path=f"{shown} -> {printable(source_path)}", status="resumed",
                item_id=member_id, sha256=member_sha, parse_status=status, relation=relation,
            )
            self._resume(outcome, name=member_name, depth=depth + 1)

    def _resume(self, outcome: IngestOutcome, *, name: str, depth: int) -> None:
        """A member received by an earlier run: read it if that run did not, else look at its
        own members; reported only when something was done for it."""
        if outcome.parse_status in RETRY_PARSE:
            self.report.outcomes.append(outcome)
            self._parse(outcome, name=name, depth=depth)
            if self.progress is not None:
                self.progress.file_done(outcome)
            return
        assert outcome.item_id is not None and outcome.sha256 is not None
        self._resume_members(outcome.item_id, outcome.sha256, name=name, shown=outcome.path,
                             depth=depth)

    def _take_child(self, child: Child, *, parent_id: int, parent_shown: str, depth: int,
                    received: set[tuple[str, str]] | None = None) -> None:
        """Store and read one member; ``received``: (member path, sha256) of the members an
        earlier run already received from this container, which get no second origin."""
        shown = f"{parent_shown} -> {printable(child.name)}"
        try:
            with child.open() as stream:
                stored = self.case.objects.store_stream(
                    stream, label=shown, max_size=self.case.config.max_file_size,
                    second_digest=self.second_digest_inline,
                )
        except CaseWriteError:
            raise  # the case home, not the member, is at fault: the run stops
        except (CasebuilderError, OSError) as exc:
            reason = exc.reason if isinstance(exc, IntakeError) else str(exc)
            with self.case.transaction() as tx:
                seq = tx.record(
                    "intake-failed",
                    details={
                        "source_path": child.name,
                        "parent_item": parent_id,
                        "relation": child.relation,
                        "reason": reason,
                    },
                )
                tx.session.add(
                    IntakeFailure(source_path=shown, reason=reason, at=tx.last_time, entry_seq=seq)
                )
            self.report.outcomes.append(
                IngestOutcome(path=shown, status="failed", reason=reason, relation=child.relation)
            )
            return
        facts = OriginFacts(
            relation=child.relation,
            source_path=child.name,
            name=os.path.basename(child.name) or child.name,
            parent_item_id=parent_id,
        )
        if received is not None and (child.name, stored.sha256) in received:
            with self.case.session() as session:
                item = find_by_sha256(session, stored.sha256)
                assert item is not None
                outcome = IngestOutcome(
                    path=shown, status="resumed", item_id=item.id, sha256=item.sha256,
                    parse_status=item.parse_status, relation=child.relation,
                )
            self._resume(outcome, name=facts.name, depth=depth)
            return
        outcome = self._record(stored, facts, shown)
        self._read_or_resume(outcome, name=facts.name, depth=depth)

    def _finish_parse(
        self,
        item_id: int,
        result: ParseResult | None,
        fmt: str | None,
        *,
        error: str | None = None,
        status: str | None = None,
        original_name: str = "",
        stopped: str | None = None,
    ) -> None:
        """Record a parse; the entry counts the members handed on, so a later run can tell
        whether a run that stopped part-way received them all, and says why a reader's process
        was stopped (``stopped``: "timeout" or "crash"), the failures read again later."""
        derived: list[tuple[Derivative, StoredObject]] = []
        if result is not None:
            for derivative in _with_text(result, item_id, self.case, original_name):
                stored = self.case.objects.store_bytes(
                    derivative.data, label=f"{derivative.kind} of item {item_id}"
                )
                derived.append((derivative, stored))
        with self.case.transaction() as tx:
            item = tx.session.get(Item, item_id)
            assert item is not None
            text_item_id: int | None = None
            for derivative, stored in derived:
                made = record_derived(
                    tx,
                    item,
                    stored,
                    kind=derivative.kind,
                    media_type=derivative.media_type,
                    tool=derivative.tool,
                    tool_version=derivative.tool_version,
                    name=derivative.name,
                )
                if derivative.kind == "text":
                    text_item_id = made.id
            if result is not None and result.text is not None and text_item_id is None:
                text_item_id = item.id  # the original is itself the UTF-8 text
            item.format = fmt
            item.parse_tool = result.tool if result is not None else None
            item.item_metadata = result.metadata if result is not None else None
            item.media_type = result.media_type if result is not None else item.media_type
            item.text_item_id = text_item_id
            if result is None:
                item.parse_status = status or "failed"
                item.parse_error = error
            else:
                item.parse_status = "partial" if result.warnings else "ok"
                item.parse_error = "; ".join(result.warnings) or None
            details: dict[str, Any] = {
                "status": item.parse_status,
                "format": fmt,
                "tool": item.parse_tool,
                "error": item.parse_error,
                "metadata_sha256": json_digest(item.item_metadata),
                "media_type": item.media_type,
                "text_item": text_item_id,
            }
            if result is not None and result.children:
                details["members"] = len(result.children)
            if stopped is not None:
                details["stopped"] = stopped
            tx.record("parse", [item_ref(item)], details)


@dataclass(frozen=True)
class _Reading:
    """What a reader made of a stored file: a result, or why there is none."""

    format: str | None
    result: ParseResult | None
    error: str | None
    status: str | None  # the parse status when there is no result
    stopped: str | None = None  # "timeout" | "crash": the reader's process did not answer


def _alerts_of(metadata: dict[str, Any]) -> list[str]:
    """The alerts a reader raised for an item held already, from its recorded metadata."""
    active = metadata.get("active_content")
    if isinstance(active, list) and active:
        return [active_content_alert([str(a) for a in active])]
    return []


def _member_count(session: Session, sha256: str) -> int | None:
    """How many members the item's last parse entry handed on (None: not recorded)."""
    row = session.execute(
        select(CustodyEvent.entry)
        .where(CustodyEvent.action == "parse",
               CustodyEvent.entry.contains(f'"sha256":"{sha256}"'))
        .order_by(CustodyEvent.seq.desc())
        .limit(1)
    ).scalar_one_or_none()
    if row is None:
        return None
    count = json.loads(row).get("details", {}).get("members")
    return count if isinstance(count, int) else None


def _with_text(result: ParseResult, item_id: int, case: Case, name: str) -> list[Derivative]:
    """The handler's derived files, plus a text file when its text is not the original itself."""
    derivatives = list(result.derivatives)
    if result.text is None or any(d.kind == "text" for d in derivatives):
        return derivatives
    data = result.text.encode("utf-8")
    with case.session() as session:
        item = session.get(Item, item_id)
        assert item is not None
        original_sha = item.sha256
    import hashlib

    if hashlib.sha256(data).hexdigest() == original_sha:
        return derivatives
    derivatives.append(
        Derivative(
            kind="text",
            name=f"{name or 'item'}.txt",
            media_type=TEXT_MEDIA_TYPE,
            data=data,
            tool=result.tool.split(" ")[0],
            tool_version=" ".join(result.tool.split(" ")[1:]) or "unknown",
        )
    )
    return derivatives


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _mtime(path: Path) -> str | None:
    try:
        return format_utc(datetime.fromtimestamp(path.stat().st_mtime, UTC))
    except (OSError, ValueError, OverflowError):
        return None


def ingest(
    case: Case,
    paths: Sequence[Path],
    *,
    handlers: Sequence[FormatHandler] | None = None,
    progress: IngestProgress | None = None,
) -> IngestReport:
    """Take files and folders into the case; see the module docstring for the steps."""
    return Ingester(
        case, list(handlers) if handlers is not None else default_handlers(), progress
    ).run(paths)
