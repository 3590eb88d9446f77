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
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from casebuilder.errors import CasebuilderError, IntakeError, UnreadableContent
from casebuilder.intake.handlers import choose_handler, default_handlers, describe_mismatch
from casebuilder.intake.handlers.base import (
    Child,
    Derivative,
    FormatHandler,
    ParseResult,
    ParseSource,
    Sniff,
)
from casebuilder.intake.isolation import parse_isolated
from casebuilder.intake.sidecar import parse_sidecar
from casebuilder.intake.walk import IntakeCandidate, path_text, plan_intake, printable
from casebuilder.model.clock import format_utc
from casebuilder.preservation.canonical import json_digest
from casebuilder.preservation.case import Case, CheckpointOutcome
from casebuilder.preservation.items import OriginFacts, item_ref, record_derived, record_received
from casebuilder.preservation.objects import StoredObject
from casebuilder.store.schema import IntakeFailure, Item

SNIFF_BYTES = 64 * 1024
#: Handlers whose libraries a crafted file can stall or bloat: run in a child process.
ISOLATED = frozenset({"pdf", "image", "media", "html"})
PARSE_TIMEOUT_S = 300.0
PARSE_MEMORY_BYTES = 4 * 1024**3
TEXT_MEDIA_TYPE = "text/plain; charset=utf-8"


class IngestProgress(Protocol):
    """What a front end may show while files are taken in."""

    def planned(self, files: int, total_bytes: int) -> None: ...

    def advance(self, nbytes: int) -> None: ...

    def file_done(self, outcome: IngestOutcome) -> None: ...


@dataclass
class IngestOutcome:
    path: str  # printable path (or container path for members)
    status: str  # "new" | "duplicate" | "failed"
    item_id: int | None = None
    sha256: str | None = None
    format: str | None = None
    parse_status: str | None = None
    reason: str | None = None  # why it failed, or why it could not be parsed
    relation: str = "file"
    warnings: list[str] = field(default_factory=list)


@dataclass
class IngestReport:
    outcomes: list[IngestOutcome] = field(default_factory=list)
    checkpoint: CheckpointOutcome | None = None

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
            if o.status == "failed" or o.parse_status in {"failed", "unsupported"}
        ]

    @property
    def new_item_ids(self) -> list[int]:
        return [o.item_id for o in self.new if o.item_id is not None]


@dataclass
class Ingester:
    case: Case
    handlers: Sequence[FormatHandler]
    progress: IngestProgress | None = None
    report: IngestReport = field(default_factory=IngestReport)
    parse_timeout: float = PARSE_TIMEOUT_S
    parse_memory: int = PARSE_MEMORY_BYTES

    def run(self, paths: Sequence[Path]) -> IngestReport:
        plan, skipped = plan_intake(list(paths), exclude=[self.case.paths.root])
        for skip in skipped:
            self._intake_failed(skip.path, skip.reason)
        if self.progress is not None:
            self.progress.planned(len(plan), sum(_size(c.path) for c in plan))
        for candidate in plan:
            try:
                self._take_candidate(candidate)
            except CasebuilderError as exc:
                self._intake_failed(candidate.path, str(exc))
            except (OSError, ValueError, RecursionError) as exc:
                # One file's unforeseen failure must not stop the batch; what was committed
                # for it stays, and the failure is itself recorded.
                self._intake_failed(candidate.path,
                                    f"could not be taken in: {type(exc).__name__}: {exc}")
        self.report.checkpoint = self.case.checkpoint()
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
        # A duplicate still "pending" was stored by a run that stopped before reading it.
        if outcome.status == "new" or outcome.parse_status == "pending":
            self._parse(outcome, name=path.name, depth=0)

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
            item_id, status = item.id, item.parse_status
        outcome = IngestOutcome(
            path=shown,
            status="new" if is_new else "duplicate",
            item_id=item_id,
            sha256=stored.sha256,
            parse_status=None if is_new else status,
            relation=facts.relation,
        )
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
    def _parse(self, outcome: IngestOutcome, *, name: str, depth: int) -> None:
        assert outcome.item_id is not None and outcome.sha256 is not None
        stored_path = self.case.objects.path_for(outcome.sha256)
        with stored_path.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
        size = stored_path.stat().st_size
        sniff = Sniff(name=name, head=head, size=size)
        handler = choose_handler(sniff, self.handlers)
        if handler is None:
            reason = describe_mismatch(sniff) or "format not recognised"
            status = "failed" if size == 0 or describe_mismatch(sniff) else "unsupported"
            self._finish_parse(outcome.item_id, None, None, error=reason, status=status)
            outcome.parse_status, outcome.reason = status, reason
            return
        outcome.format = handler.name
        source = ParseSource(path=stored_path, name=name, size=size, depth=depth)
        try:
            if handler.name in ISOLATED:
                result = parse_isolated(
                    handler, source, timeout=self.parse_timeout, memory=self.parse_memory
                )
            else:
                result = handler.parse(source)
        except UnreadableContent as exc:
            self._finish_parse(outcome.item_id, None, handler.name, error=str(exc))
            outcome.parse_status, outcome.reason = "failed", str(exc)
            return
        except Exception as exc:  # noqa: BLE001 - a parser bug must not stop the batch
            reason = f"the {handler.name} reader failed: {type(exc).__name__}: {exc}"
            self._finish_parse(outcome.item_id, None, handler.name, error=reason)
            outcome.parse_status, outcome.reason = "failed", reason
            return
        self._finish_parse(outcome.item_id, result, handler.name, original_name=name)
        outcome.parse_status = "partial" if result.warnings else "ok"
        outcome.warnings.extend(result.warnings)
        for child in result.children:
            self._take_child(
                child, parent_id=outcome.item_id, parent_shown=outcome.path, depth=depth + 1
            )

    def _take_child(self, child: Child, *, parent_id: int, parent_shown: str, depth: int) -> None:
        shown = f"{parent_shown} -> {printable(child.name)}"
        try:
            with child.open() as stream:
                stored = self.case.objects.store_stream(
                    stream, label=shown, max_size=self.case.config.max_file_size
                )
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
        outcome = self._record(stored, facts, shown)
        if outcome.status == "new":
            self._parse(outcome, name=facts.name, depth=depth)

    def _finish_parse(
        self,
        item_id: int,
        result: ParseResult | None,
        fmt: str | None,
        *,
        error: str | None = None,
        status: str | None = None,
        original_name: str = "",
    ) -> None:
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
            tx.record("parse", [item_ref(item)], details)


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
