"""Verifying a case: is everything still exactly as the custody log says it was?

Checks, each reporting every failure it finds rather than stopping at the first:

1. the log file: every line canonical JSON, sequence numbers in order, one case id, times
   never running backwards, nothing cut off mid-line;
2. the log against the database copy of every entry (an edited, removed, reordered or added
   line shows here even before the signatures are looked at);
3. checkpoints: each signature verifies with the case key, each root is the root of that prefix
   of the log, each later checkpoint is consistent with the earlier one, the latest covers the
   whole log, time-stamp tokens (when present) match their checkpoints;
4. stored files: every item's file is present and re-hashes (SHA-256 and SHA-512) to the values
   recorded in the database and in the custody entry that first stated them;
5. the database rows for items, origins, derivations and parse results agree with the entries
   that recorded them.
"""

from __future__ import annotations

import base64
import json
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from casebuilder.errors import CasebuilderError, CustodyLogError
from casebuilder.preservation.canonical import json_digest, parse_canonical
from casebuilder.preservation.case import Case
from casebuilder.preservation.checkpoint import SignedCheckpoint, read_checkpoint_lines
from casebuilder.preservation.keys import load_public_key, public_key_digest, verify_signature
from casebuilder.preservation.merkle import MerkleTree, leaf_hash, verify_consistency
from casebuilder.store.schema import (
    CaseInfo,
    Checkpoint,
    CustodyEvent,
    Derivation,
    Item,
    Origin,
)


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


def _read_log(case: Case, report: VerificationReport) -> list[_LogLine]:
    try:
        data = case.paths.log.read_bytes()
    except OSError as exc:
        report.fail("custody log", f"cannot be read: {exc}")
        return []
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
        if entry.get("seq") != line.index:
            report.fail(
                subject,
                f"carries sequence number {entry.get('seq')!r}: entries were "
                "removed, reordered or inserted",
            )
        if entry.get("case_id") != case.case_id:
            report.fail(subject, f"belongs to case {entry.get('case_id')!r}, not this one")
        time = entry.get("time")
        if not isinstance(time, str):
            report.fail(subject, "has no time")
        else:
            if previous_time and time < previous_time:
                report.fail(
                    subject,
                    f"is dated {time}, earlier than the entry before it "
                    f"({previous_time}): back-dated or reordered",
                )
            previous_time = max(previous_time, time)


def _check_against_database(case: Case, lines: list[_LogLine], report: VerificationReport) -> None:
    with case.session() as session:
        rows = list(session.execute(select(CustodyEvent).order_by(CustodyEvent.seq)).scalars())
    by_seq = {row.seq: row for row in rows}
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
        if row.entry.encode("utf-8") != line.raw:
            report.fail(subject, "differs from the database copy of the same entry")
        if row.leaf_hash != leaf_hash(line.raw).hex():
            report.fail(subject, "its leaf hash differs from the one the database recorded")
    for seq in sorted(set(by_seq) - {line.index for line in lines}):
        report.fail(
            f"log entry {seq}",
            "is in the database but missing from the log file (removed or truncated)",
        )
    report.counts["log entries"] = len(lines)


def _check_checkpoints(case: Case, lines: list[_LogLine], report: VerificationReport) -> None:
    file_lines = read_checkpoint_lines(case.paths.checkpoints)
    with case.session() as session:
        db_rows = list(session.execute(select(Checkpoint).order_by(Checkpoint.id)).scalars())
        info = session.get(CaseInfo, case.case_id)
    try:
        public_key = load_public_key(case.paths.public_key.read_bytes())
    except (OSError, CasebuilderError) as exc:
        report.fail("case public key", f"cannot be loaded: {exc}")
        return
    key_id = public_key_digest(public_key)
    if key_id != case.signer.key_id:
        report.fail("case public key", "does not match the case's signing key")
    if info is not None and info.public_key_sha256 != key_id:
        report.fail(
            "case public key",
            "is not the key this case was created with "
            f"(database records {info.public_key_sha256[:16]}…)",
        )
    if len(file_lines) != len(db_rows):
        report.fail(
            "checkpoints",
            f"{len(file_lines)} in checkpoints.jsonl but {len(db_rows)} in the database",
        )
    for i, (text, row) in enumerate(zip(file_lines, db_rows, strict=False)):
        if text != row.record:
            report.fail(f"checkpoint {i}", "differs between checkpoints.jsonl and the database")
    tree = MerkleTree([leaf_hash(line.raw) for line in lines])
    previous: SignedCheckpoint | None = None
    for i, text in enumerate(file_lines):
        subject = f"checkpoint {i}"
        try:
            cp = SignedCheckpoint.from_line(text)
        except CustodyLogError as exc:
            report.fail(subject, str(exc))
            continue
        if cp.case_id != case.case_id:
            report.fail(subject, "names another case")
        if cp.public_key_sha256 != key_id:
            report.fail(subject, "was signed by another key")
        try:
            signature = base64.b64decode(cp.signature, validate=True)
        except ValueError:
            signature = b""
        if not verify_signature(public_key, signature, cp.signed_message()):
            report.fail(subject, "its signature does not verify with the case key")
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
        if previous is not None:
            if cp.tree_size < previous.tree_size or cp.time < previous.time:
                report.fail(subject, "goes backwards in size or time from the one before it")
            elif cp.tree_size <= tree.size:
                proof = tree.consistency_proof(previous.tree_size, cp.tree_size)
                if not verify_consistency(
                    previous.tree_size,
                    cp.tree_size,
                    bytes.fromhex(previous.root),
                    bytes.fromhex(cp.root),
                    proof,
                ):
                    report.fail(subject, "is not consistent with the checkpoint before it")
        if cp.timestamp_token is not None:
            _check_timestamp(case, cp, subject, report)
        previous = cp
    report.counts["checkpoints"] = len(file_lines)
    if previous is None:
        report.fail("checkpoints", "there is no signed checkpoint")
    elif previous.tree_size < tree.size:
        report.fail(
            "custody log",
            f"entries {previous.tree_size}..{tree.size - 1} are not "
            "covered by any signed checkpoint (added outside casebuilder, or left by "
            "an interrupted command)",
        )


def _check_timestamp(
    case: Case, cp: SignedCheckpoint, subject: str, report: VerificationReport
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
    if ca_pem is None:
        report.notes.append(
            f"{subject}: time-stamped {token.gen_time.isoformat()} (no CA "
            "configured, so the authority's certificate chain was not checked)"
        )


def _entries_by_item(lines: list[_LogLine]) -> dict[int, list[tuple[int, dict[str, Any]]]]:
    mentions: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for line in lines:
        if line.entry is None:
            continue
        for ref in line.entry.get("items") or []:
            if isinstance(ref, dict) and isinstance(ref.get("id"), int):
                mentions.setdefault(ref["id"], []).append((line.index, line.entry))
    return mentions


def _item_name(item: Item) -> str:
    name = item.origins[0].name if item.origins else (item.format or item.kind)
    return f"item {item.id} ({name})"


def _check_items(
    case: Case,
    lines: list[_LogLine],
    report: VerificationReport,
    on_item: Callable[[int], None] | None,
) -> None:
    mentions = _entries_by_item(lines)
    entries = {line.index: line.entry for line in lines if line.entry is not None}
    with case.session() as session:
        items = list(session.execute(select(Item).order_by(Item.id)).scalars())
        origins = list(session.execute(select(Origin).order_by(Origin.id)).scalars())
        derivations = list(session.execute(select(Derivation)).scalars())
        known_ids = {item.id for item in items}
        for item in items:
            subject = _item_name(item)
            _check_item_file(case, item, subject, report)
            _check_item_entries(item, subject, mentions.get(item.id, []), report)
            if on_item is not None:
                on_item(item.size)
        for origin in origins:
            _check_origin(origin, entries.get(origin.entry_seq), report)
        for derivation in derivations:
            _check_derivation(derivation, entries.get(derivation.entry_seq), report)
    for item_id in sorted(set(mentions) - known_ids):
        first = mentions[item_id][0][0]
        report.fail(
            f"item {item_id}",
            f"is named in log entry {first} but missing from the database (a row was deleted)",
        )
    stored = set(case.objects.iter_object_names())
    held = {item.sha256 for item in items}
    for name in sorted(stored - held):
        report.notes.append(
            f"object {name} is in the store but no item names it (an "
            "interrupted ingest, or a file placed there by hand)"
        )
    report.counts["items"] = len(items)


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
    if digests.sha512 != item.sha512:
        report.fail(subject, "stored file's SHA-512 differs from the one recorded")
    if digests.size != item.size:
        report.fail(subject, f"stored file is {digests.size} bytes, recorded as {item.size}")
    if path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        report.fail(subject, "its stored file has been made writable")


def _check_item_entries(
    item: Item,
    subject: str,
    mentions: list[tuple[int, dict[str, Any]]],
    report: VerificationReport,
) -> None:
    if not mentions:
        report.fail(subject, "is in the database but no custody entry records it")
        return
    for seq, entry in mentions:
        for ref in entry.get("items") or []:
            if not isinstance(ref, dict) or ref.get("id") != item.id:
                continue
            for key in ("sha256", "sha512", "size"):
                if ref.get(key) != getattr(item, key):
                    report.fail(
                        subject,
                        f"database {key} {getattr(item, key)} differs from "
                        f"{ref.get(key)} recorded in log entry {seq}",
                    )
    if item.entry_seq not in {seq for seq, _ in mentions}:
        report.fail(
            subject,
            f"database says log entry {item.entry_seq} recorded it, but that "
            "entry does not name it",
        )
    parses = [entry for _, entry in mentions if entry.get("action") == "parse"]
    if parses:
        details = parses[-1].get("details") or {}
        if details.get("metadata_sha256") != json_digest(item.item_metadata):
            report.fail(
                subject,
                "its extracted metadata in the database differs from what the parse entry recorded",
            )
        if details.get("status") != item.parse_status:
            report.fail(
                subject,
                f"parse status {item.parse_status!r} differs from the "
                f"recorded {details.get('status')!r}",
            )
        if details.get("text_item") != item.text_item_id:
            report.fail(subject, "its text item differs from the one recorded")


def _check_origin(origin: Origin, entry: dict[str, Any] | None, report: VerificationReport) -> None:
    subject = f"origin {origin.id} of item {origin.item_id}"
    if entry is None:
        report.fail(subject, f"names log entry {origin.entry_seq}, which does not exist")
        return
    recorded = (entry.get("details") or {}).get("origin") or {}
    ids = [ref.get("id") for ref in entry.get("items") or [] if isinstance(ref, dict)]
    if origin.item_id not in ids:
        report.fail(subject, f"log entry {origin.entry_seq} is about another item")
    for key, value in (
        ("source_path", origin.source_path),
        ("name", origin.name),
        ("relation", origin.relation),
    ):
        if recorded.get(key) != value:
            report.fail(subject, f"its {key} differs from log entry {origin.entry_seq}")
    if origin.collection is not None and recorded.get("collection_sha256") != json_digest(
        origin.collection
    ):
        report.fail(subject, f"its collection metadata differs from log entry {origin.entry_seq}")


def _check_derivation(
    derivation: Derivation, entry: dict[str, Any] | None, report: VerificationReport
) -> None:
    subject = f"derivation of item {derivation.derived_item_id}"
    if entry is None:
        report.fail(subject, f"names log entry {derivation.entry_seq}, which does not exist")
        return
    roles = {
        ref.get("role"): ref.get("id") for ref in entry.get("items") or [] if isinstance(ref, dict)
    }
    details = entry.get("details") or {}
    if (
        roles.get("source") != derivation.source_item_id
        or roles.get("derived") != derivation.derived_item_id
    ):
        report.fail(subject, f"log entry {derivation.entry_seq} records another source or result")
    if details.get("tool") != derivation.tool or details.get("kind") != derivation.kind:
        report.fail(subject, f"its tool or kind differs from log entry {derivation.entry_seq}")


def verify_case(case: Case, *, on_item: Callable[[int], None] | None = None) -> VerificationReport:
    """Run every check; the report lists every failure found."""
    report = VerificationReport()
    lines = _read_log(case, report)
    _check_entries(case, lines, report)
    _check_against_database(case, lines, report)
    _check_checkpoints(case, lines, report)
    report.log_intact = not report.failures
    _check_items(case, lines, report, on_item)
    return report


def record_verification(case: Case, report: VerificationReport) -> bool:
    """Log the verification, but only into a log that is itself intact.

    Appending to a log that failed its checks would bury the evidence of tampering under a new
    signed checkpoint, so then nothing is written.
    """
    if not report.log_intact:
        return False
    details = {
        "ok": report.ok,
        "failures": [str(f) for f in report.failures][:200],
        "failure_count": len(report.failures),
        "counts": dict(report.counts),
    }
    try:
        with case.transaction() as tx:
            tx.record("verify", details=json.loads(json.dumps(details)))
    except CustodyLogError:
        return False
    case.checkpoint()
    return True
