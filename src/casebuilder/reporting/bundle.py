"""Court bundles: a BagIt bag (RFC 8493) an outside expert can check without casebuilder.

The bag holds the stored files of the chosen items, a JSON record of each item, the custody log
up to the first signed checkpoint covering the bundle's own entry, every checkpoint up to that
one, the public key, an inclusion proof per item, a guide (VERIFY.md) and ``verify_bundle.py``,
a standard-library-only checker. The layout is specified in docs/specs/bundle-format.md.

Writing the bundle is itself a custody action, logged and signed before the bag is written. Its
``bundle`` entry (bundle format 2) lists every file that can be known before the bundle's own
checkpoint exists: each item's stored file and ``item.json`` (path, SHA-256, size), the tag
files, the bag-info.txt fields that describe the case, and how many checkpoints came before it.
What the entry cannot list, because it depends on the checkpoint that signs the entry (the log,
the checkpoints, the key, the time-stamp token, the inclusion proofs), the checker verifies
cryptographically; so every file of the payload is vouched for by a signature.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from casebuilder.errors import BundleError, NotFound
from casebuilder.preservation.case import Case
from casebuilder.preservation.checkpoint import SignedCheckpoint, read_checkpoint_lines
from casebuilder.preservation.custody import case_lock
from casebuilder.preservation.items import item_ref, origin_record
from casebuilder.preservation.keys import load_public_key, raw_public_key
from casebuilder.preservation.merkle import MerkleTree, leaf_hash
from casebuilder.preservation.rotation import (
    KeySchedule,
    digest_of,
    parsed_entries,
    public_key_pem_of,
)
from casebuilder.store.schema import Checkpoint, CustodyEvent, Derivation, Item, Origin

#: The bundle format this module writes; the bundle entry records it (``bundle_format``).
BUNDLE_FORMAT = 2
ALGORITHMS = ("sha256", "sha512")
BAGIT_TXT = b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
DESCRIPTION = (
    "casebuilder court bundle: preserved items, custody log, signed checkpoint and inclusion "
    "proofs. See VERIFY.md."
)
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\%]+")


@dataclass(frozen=True)
class BundleSummary:
    path: Path
    items: int
    payload_files: int
    payload_bytes: int
    tree_size: int
    root: str


def safe_file_name(name: str, fallback: str = "content") -> str:
    """A file name safe in a bag on any system, keeping the original's letters.

    ``%`` is replaced as well: RFC 8493 encodes it in manifests as ``%25``, which bagit-python
    1.9 does not decode, so a name holding it would fail ``bagit.py --validate``.
    """
    cleaned = _UNSAFE.sub("_", name).strip().lstrip(".")
    if cleaned in {"", "item.json"}:
        cleaned = fallback if cleaned == "" else "item.json.original"
    if len(cleaned.encode("utf-8")) > 150:
        _stem, dot, ext = cleaned.rpartition(".")
        ext = ext if dot and len(ext) <= 10 else ""
        cleaned = cleaned.encode("utf-8")[:140].decode("utf-8", "ignore") + (
            f".{ext}" if ext else ""
        )
    return cleaned


def _encode_manifest_path(path: str) -> str:
    return path.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


class _Hasher:
    def __init__(self) -> None:
        self.files: dict[str, dict[str, str]] = {}

    def write(self, root: Path, relative: str, data: bytes) -> None:
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.files[relative] = {alg: hashlib.new(alg, data).hexdigest() for alg in ALGORITHMS}

    def copy(self, root: Path, relative: str, source: Path) -> dict[str, str]:
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        hashes = {alg: hashlib.new(alg) for alg in ALGORITHMS}
        with open(source, "rb") as src, open(target, "wb") as dst:
            while chunk := src.read(8 * 1024 * 1024):
                for h in hashes.values():
                    h.update(chunk)
                dst.write(chunk)
        digests = {alg: h.hexdigest() for alg, h in hashes.items()}
        self.files[relative] = digests
        return digests

    def manifest(self, alg: str) -> str:
        return "".join(
            f"{d[alg]}  {_encode_manifest_path(p)}\n" for p, d in sorted(self.files.items())
        )


def _item_record(
    item: Item,
    file_name: str,
    origins: list[Origin],
    derivation: Derivation | None,
    source: Item | None,
    children: list[Origin],
    entries: list[int],
) -> dict[str, Any]:
    collection = next((o.collection for o in origins if o.collection), None)
    parent = next((o for o in origins if o.parent_item_id is not None), None)
    return {
        "id": item.id,
        "sha256": item.sha256,
        "sha512": item.sha512,
        "size": item.size,
        "file": file_name,
        "media_type": item.media_type,
        "format": item.format,
        "role": item.kind,
        "origins": [origin_record(o) for o in origins],
        "collection": collection,
        "metadata": item.item_metadata,
        "parse": {"status": item.parse_status, "error": item.parse_error, "tool": item.parse_tool},
        "text_item": item.text_item_id,
        "derived_from": None
        if derivation is None or source is None
        else {
            "item": source.id,
            "sha256": source.sha256,
            "kind": derivation.kind,
            "tool": derivation.tool,
            "tool_version": derivation.tool_version,
            "entry": derivation.entry_seq,
        },
        "parent": None
        if parent is None
        else {
            "item": parent.parent_item_id,
            "relation": parent.relation,
            "member": parent.source_path,
        },
        "children": [
            {"item": c.item_id, "relation": c.relation, "member": c.source_path} for c in children
        ],
        "entries": entries,
    }


@dataclass(frozen=True)
class PlannedItem:
    """One item as the bundle entry lists it: its stored file and its item.json, made before
    the entry is recorded so that the entry can state their digests."""

    item_id: int
    file_name: str
    sha256: str
    sha512: str
    size: int
    first_entry: int  # the entry that first recorded its hashes: its proof's leaf
    record: bytes  # item.json, byte for byte as it is written

    @property
    def folder(self) -> str:
        return f"data/items/{self.item_id}"

    def listed_files(self) -> list[dict[str, Any]]:
        return [
            {"path": f"{self.folder}/{self.file_name}", "sha256": self.sha256, "size": self.size},
            {
                "path": f"{self.folder}/item.json",
                "sha256": hashlib.sha256(self.record).hexdigest(),
                "size": len(self.record),
            },
        ]


@dataclass(frozen=True)
class BundlePlan:
    """What a recorded ``bundle`` entry promised: the bag must be written exactly so."""

    out: Path
    as_zip: bool
    entry: int  # the bundle's own custody entry
    checkpoints_before: int  # checkpoints signed before that entry
    items: tuple[PlannedItem, ...]
    bag_info: tuple[tuple[str, str], ...]  # the bag-info.txt fields the entry signs
    tag_files: tuple[tuple[str, bytes], ...]  # bagit.txt, VERIFY.md, verify_bundle.py


def _select_items(case: Case, item_ids: Sequence[int] | None) -> list[int]:
    with case.session() as session:
        all_ids = list(session.execute(select(Item.id).order_by(Item.id)).scalars())
    if item_ids is None:
        return all_ids
    missing = sorted(set(item_ids) - set(all_ids))
    if missing:
        raise NotFound(f"no item {', '.join(map(str, missing))} in this case")
    return sorted(set(item_ids))


def write_bundle(case: Case, out: Path, *, item_ids: Sequence[int] | None = None) -> BundleSummary:
    """Write a bundle to directory ``out`` (or a .zip file) and log that it was made."""
    plan = record_bundle_entry(case, out, item_ids=item_ids)
    case.checkpoint()
    with case_lock(case.paths.lock):
        # Under the lock no command can sign a checkpoint while the bag reads checkpoints.jsonl.
        return write_planned_bundle(case, plan)


def record_bundle_entry(
    case: Case, out: Path, *, item_ids: Sequence[int] | None = None
) -> BundlePlan:
    """Log the ``bundle`` entry that lists everything the bag will hold, and return the plan
    the bag must then be written to. The entry is not signed until the next checkpoint."""
    as_zip = out.suffix.lower() == ".zip"
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BundleError(f"{out} already exists; choose a new path for the bundle")
    chosen = _select_items(case, item_ids)
    _seal_first(case, chosen)
    tag_files = _tag_files()
    with case.transaction() as tx:
        session = tx.session
        entry = tx.next_seq
        rows = list(
            session.execute(select(Item).where(Item.id.in_(chosen)).order_by(Item.id)).scalars()
        )
        mentions = _entries_naming(session, set(chosen), before=entry)
        items = tuple(
            _plan_item(session, item, entry, [*mentions.get(item.id, []), entry]) for item in rows
        )
        checkpoints_before = len(list(session.execute(select(Checkpoint.id)).scalars()))
        bag_info = _signed_bag_info(case)
        recorded = tx.record(
            "bundle",
            [item_ref(item) for item in rows],
            {
                "bundle_format": BUNDLE_FORMAT,
                "output": out.name,
                "format": "zip" if as_zip else "bagit",
                "item_count": len(rows),
                "checkpoints_before": checkpoints_before,
                "bag_info": dict(bag_info),
                "files": [listed for item in items for listed in item.listed_files()],
                "tag_files": [
                    {"path": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
                    for name, data in tag_files
                ],
            },
        )
        assert recorded == entry
    return BundlePlan(out, as_zip, entry, checkpoints_before, items, bag_info, tag_files)


def _seal_first(case: Case, chosen: list[int]) -> None:
    """A bundle holds only items with both digests: record the SHA-512 of those still
    waiting for it, read from their stored copies (sealing.py)."""
    from casebuilder.preservation.sealing import pending_items, seal_pending

    report = seal_pending(case, chosen, by="bundle")
    if report.problems:
        item_id, problem = report.problems[0]
        raise BundleError(f"item {item_id}: {problem}; run 'casebuilder verify'")
    left = pending_items(case, chosen)
    if left:
        raise BundleError(f"item {left[0][0]} still has no recorded SHA-512; run "
                          "'casebuilder seal'")


def _tag_files() -> tuple[tuple[str, bytes], ...]:
    here = resources.files("casebuilder.reporting")
    return (
        ("bagit.txt", BAGIT_TXT),
        ("VERIFY.md", here.joinpath("VERIFY.md").read_bytes()),
        ("verify_bundle.py", here.joinpath("verify_bundle.py").read_bytes()),
    )


def _signed_bag_info(case: Case) -> tuple[tuple[str, str], ...]:
    """The bag-info.txt fields known before the bundle's checkpoint; the entry signs them."""
    return (
        ("Bag-Software-Agent", case.tool),
        ("Bagging-Date", case.clock().astimezone(UTC).strftime("%Y-%m-%d")),
        ("External-Description", DESCRIPTION),
        ("Casebuilder-Case-Id", case.case_id),
        ("Casebuilder-Case-Name", " ".join(case.config.name.split())),
    )


def _entries_naming(session: Session, wanted: set[int], *, before: int) -> dict[int, list[int]]:
    """For each wanted item, the entries before ``before`` that name it, in log order."""
    naming: dict[int, list[int]] = {}
    events = session.execute(
        select(CustodyEvent.seq, CustodyEvent.entry)
        .where(CustodyEvent.seq < before)
        .order_by(CustodyEvent.seq)
    )
    for seq, text in events:
        for ref in json.loads(text).get("items") or []:
            named = naming.setdefault(ref["id"], []) if ref["id"] in wanted else None
            if named is not None and (not named or named[-1] != seq):
                named.append(seq)
    return naming


def _plan_item(session: Session, item: Item, entry: int, entries: list[int]) -> PlannedItem:
    """The item's record as the log stands at the bundle's entry (all it can list)."""
    origins = list(
        session.execute(
            select(Origin)
            .where(Origin.item_id == item.id, Origin.entry_seq < entry)
            .order_by(Origin.id)
        ).scalars()
    )
    children = list(
        session.execute(
            select(Origin)
            .where(Origin.parent_item_id == item.id, Origin.entry_seq < entry)
            .order_by(Origin.id)
        ).scalars()
    )
    derivation = session.execute(
        select(Derivation)
        .where(Derivation.derived_item_id == item.id)
        .order_by(Derivation.id)
        .limit(1)
    ).scalar_one_or_none()
    source = session.get(Item, derivation.source_item_id) if derivation else None
    file_name = safe_file_name(
        origins[0].name if origins else _derived_name(session, item, derivation)
    )
    if item.sha512 is None:  # _seal_first records it before any item is planned
        raise BundleError(f"item {item.id} has no recorded SHA-512; run 'casebuilder seal'")
    record = _item_record(item, file_name, origins, derivation, source, children, entries)
    data = (json.dumps(record, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()
    return PlannedItem(
        item.id, file_name, item.sha256, item.sha512, item.size, item.entry_seq, data
    )


def write_planned_bundle(case: Case, plan: BundlePlan) -> BundleSummary:
    """Write the bag a recorded bundle entry lists; the caller holds the case lock.

    The bag carries the log up to the first checkpoint that signs the entry, and every
    checkpoint up to that one: the entry says how many came before it, so a checker can tell
    that none was left out."""
    checkpoint_lines = read_checkpoint_lines(case.paths.checkpoints)
    signing = _first_checkpoint_covering(checkpoint_lines, plan.entry)
    if signing is None:
        raise BundleError("the bundle's own entry is not covered by a signed checkpoint")
    position, checkpoint = signing
    if position != plan.checkpoints_before:
        raise BundleError(
            f"the bundle entry counted {plan.checkpoints_before} checkpoints before it, but "
            f"checkpoints.jsonl holds {position}; run 'casebuilder verify'"
        )
    out = plan.out
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BundleError(f"cannot create {out.parent}: {exc}") from exc
    # Staged beside the destination so the final rename stays on one file system.
    staging = Path(tempfile.mkdtemp(prefix=".bundle-", dir=out.parent))
    try:
        bag = staging / (out.stem if plan.as_zip else "bag")
        bag.mkdir()
        summary = _write_bag(case, bag, plan, checkpoint, checkpoint_lines[: position + 1])
        if plan.as_zip:
            _zip_directory(bag, out)
        else:
            if out.exists():
                out.rmdir()
            os.replace(bag, out)
        return BundleSummary(
            out, summary[0], summary[1], summary[2], checkpoint.tree_size, checkpoint.root
        )
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _first_checkpoint_covering(
    lines: list[str], entry: int
) -> tuple[int, SignedCheckpoint] | None:
    for position, line in enumerate(lines):
        checkpoint = SignedCheckpoint.from_line(line)
        if checkpoint.tree_size > entry:
            return position, checkpoint
    return None


def _write_bag(
    case: Case,
    bag: Path,
    plan: BundlePlan,
    checkpoint: SignedCheckpoint,
    checkpoint_lines: list[str],
) -> tuple[int, int, int]:
    payload = _Hasher()
    log_bytes = case.paths.log.read_bytes()
    lines = log_bytes.split(b"\n")[: checkpoint.tree_size]
    if len(lines) < checkpoint.tree_size:
        raise BundleError("the custody log is shorter than its latest checkpoint; run verify")
    tree = MerkleTree([leaf_hash(line) for line in lines])
    if tree.root(checkpoint.tree_size).hex() != checkpoint.root:
        raise BundleError("the custody log does not match its latest checkpoint; run verify")
    payload.write(bag, "data/custody/log.jsonl", b"".join(line + b"\n" for line in lines))
    payload.write(
        bag,
        "data/custody/checkpoint.json",
        (json.dumps(checkpoint.as_record(), indent=2, sort_keys=True) + "\n").encode(),
    )
    payload.write(
        bag,
        "data/custody/checkpoints.jsonl",
        "".join(line + "\n" for line in checkpoint_lines).encode("utf-8"),
    )
    payload.write(
        bag, "data/custody/public_key.pem", _signing_key_pem(case, log_bytes, checkpoint)
    )
    if checkpoint.timestamp_token is not None:
        payload.write(bag, "data/custody/checkpoint.tsr", checkpoint.timestamp_token)
    for item in plan.items:
        digests = payload.copy(
            bag, f"{item.folder}/{item.file_name}", case.objects.path_for(item.sha256)
        )
        if digests["sha256"] != item.sha256 or digests["sha512"] != item.sha512:
            raise BundleError(
                f"item {item.item_id}: the stored file no longer matches its "
                "recorded hashes; run 'casebuilder verify'"
            )
        payload.write(bag, f"{item.folder}/item.json", item.record)
        proof = {
            "item": item.item_id,
            "sha256": item.sha256,
            "entry_index": item.first_entry,
            "leaf_hash": tree.levels[0][item.first_entry].hex(),
            "tree_size": checkpoint.tree_size,
            "root": checkpoint.root,
            "proof": [
                p.hex() for p in tree.inclusion_proof(item.first_entry, checkpoint.tree_size)
            ],
        }
        payload.write(
            bag,
            f"data/proofs/{item.item_id}.json",
            (json.dumps(proof, indent=2) + "\n").encode("utf-8"),
        )
    _write_tag_files(bag, payload, plan, checkpoint)
    payload_bytes = sum((bag / p).stat().st_size for p in payload.files)
    return len(plan.items), len(payload.files), payload_bytes


def _signing_key_pem(case: Case, log: bytes, checkpoint: SignedCheckpoint) -> bytes:
    """The public key that signed the bundle's checkpoint: the case key, unless the key was
    rotated after that checkpoint, when the log's rotations name the one then in force."""
    current = case.paths.public_key.read_bytes()
    schedule = KeySchedule.from_entries(
        case.case_id, parsed_entries(log.split(b"\n")), raw_public_key(load_public_key(current))
    )
    key = schedule.key_for(checkpoint.tree_size)
    if digest_of(key) != checkpoint.public_key_sha256:
        raise BundleError("the bundle's checkpoint is not signed by the key the log has in force")
    pem = public_key_pem_of(key)
    return current if pem == current else pem


def _derived_name(session: Session, item: Item, derivation: Derivation | None) -> str:
    if derivation is None:
        return item.format or "content"
    row = session.get(CustodyEvent, derivation.entry_seq)
    if row is not None:
        name = json.loads(row.entry).get("details", {}).get("name")
        if isinstance(name, str) and name:
            return name
    return f"{derivation.kind}-of-{derivation.source_item_id}"


def _write_tag_files(
    bag: Path, payload: _Hasher, plan: BundlePlan, checkpoint: SignedCheckpoint
) -> None:
    tags = _Hasher()
    octets = sum((bag / p).stat().st_size for p in payload.files)
    info = [
        *plan.bag_info[:2],
        ("Payload-Oxum", f"{octets}.{len(payload.files)}"),
        *plan.bag_info[2:],
        ("Casebuilder-Checkpoint-Size", str(checkpoint.tree_size)),
        ("Casebuilder-Bundle-Entry", str(plan.entry)),
        ("Casebuilder-Checkpoint-Root", checkpoint.root),
        ("Casebuilder-Public-Key-SHA256", checkpoint.public_key_sha256),
    ]
    tags.write(bag, "bag-info.txt", "".join(f"{k}: {v}\n" for k, v in info).encode("utf-8"))
    for alg in ALGORITHMS:
        tags.write(bag, f"manifest-{alg}.txt", payload.manifest(alg).encode("utf-8"))
    for name, data in plan.tag_files:
        tags.write(bag, name, data)
    os.chmod(bag / "verify_bundle.py", 0o755)  # noqa: S103 - an expert runs it directly
    for alg in ALGORITHMS:
        (bag / f"tagmanifest-{alg}.txt").write_text(tags.manifest(alg), encoding="utf-8")


def _zip_directory(directory: Path, out: Path) -> None:
    tmp = out.with_name(f".{out.name}.partial")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                zf.write(path, f"{directory.name}/{path.relative_to(directory).as_posix()}")
    os.replace(tmp, out)
