"""Court bundles: a BagIt bag (RFC 8493) an outside expert can check without casebuilder.

The bag holds the stored files of the chosen items, a JSON record of each item, the custody log
up to a signed checkpoint written for the bundle itself, every checkpoint, the public key, an
inclusion proof per item, a guide (VERIFY.md) and ``verify_bundle.py``, a standard-library-only
checker. The layout is specified in docs/specs/bundle-format.md.

Writing the bundle is itself a custody action: it is logged and checkpointed first, so the
bundle's own checkpoint covers the entry that says it was made.
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

from casebuilder import tool_id
from casebuilder.errors import BundleError, NotFound
from casebuilder.preservation.case import Case
from casebuilder.preservation.checkpoint import SignedCheckpoint, read_checkpoint_lines
from casebuilder.preservation.custody import case_lock
from casebuilder.preservation.items import item_ref, origin_record
from casebuilder.preservation.merkle import MerkleTree, leaf_hash
from casebuilder.store.schema import Derivation, Item, Origin

ALGORITHMS = ("sha256", "sha512")
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
    as_zip = out.suffix.lower() == ".zip"
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BundleError(f"{out} already exists; choose a new path for the bundle")
    chosen = _select_items(case, item_ids)
    _seal_first(case, chosen)
    with case.session() as session:
        refs = [
            item_ref(i)
            for i in session.execute(
                select(Item).where(Item.id.in_(chosen)).order_by(Item.id)
            ).scalars()
        ]
    with case.transaction() as tx:
        bundle_entry = tx.record(
            "bundle",
            refs,
            {"output": out.name, "format": "zip" if as_zip else "bagit", "item_count": len(refs)},
        )
    case.checkpoint()
    with case_lock(case.paths.lock):
        # Under the lock no command can add rows while the bag is read; rows a command
        # committed before its own checkpoint are left out by entry number below.
        return _write_bundle_locked(case, out, chosen, as_zip, bundle_entry)


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


def _write_bundle_locked(
    case: Case, out: Path, chosen: list[int], as_zip: bool, bundle_entry: int
) -> BundleSummary:
    checkpoint_lines = read_checkpoint_lines(case.paths.checkpoints)
    if not checkpoint_lines:
        raise BundleError("the case has no signed checkpoint")
    checkpoint = SignedCheckpoint.from_line(checkpoint_lines[-1])
    if checkpoint.tree_size <= bundle_entry:
        raise BundleError("the bundle's own entry is not covered by the latest checkpoint")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BundleError(f"cannot create {out.parent}: {exc}") from exc
    # Staged beside the destination so the final rename stays on one file system.
    staging = Path(tempfile.mkdtemp(prefix=".bundle-", dir=out.parent))
    try:
        bag = staging / (out.stem if as_zip else "bag")
        bag.mkdir()
        summary = _write_bag(case, bag, chosen, checkpoint, checkpoint_lines, bundle_entry)
        if as_zip:
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


def _write_bag(
    case: Case,
    bag: Path,
    chosen: list[int],
    checkpoint: SignedCheckpoint,
    checkpoint_lines: list[str],
    bundle_entry: int,
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
    payload.write(bag, "data/custody/public_key.pem", case.paths.public_key.read_bytes())
    if checkpoint.timestamp_token is not None:
        payload.write(bag, "data/custody/checkpoint.tsr", checkpoint.timestamp_token)
    mentions: dict[int, list[int]] = {}
    for index, line in enumerate(lines):
        entry = json.loads(line)
        for ref in entry.get("items") or []:
            mentions.setdefault(ref["id"], []).append(index)
    with case.session() as session:
        for item_id in chosen:
            item = session.get(Item, item_id)
            assert item is not None
            covered = checkpoint.tree_size
            origins = list(
                session.execute(
                    select(Origin)
                    .where(Origin.item_id == item_id, Origin.entry_seq < covered)
                    .order_by(Origin.id)
                ).scalars()
            )
            children = list(
                session.execute(
                    select(Origin)
                    .where(Origin.parent_item_id == item_id, Origin.entry_seq < covered)
                    .order_by(Origin.id)
                ).scalars()
            )
            derivation = session.execute(
                select(Derivation)
                .where(Derivation.derived_item_id == item_id)
                .order_by(Derivation.id)
                .limit(1)
            ).scalar_one_or_none()
            source = session.get(Item, derivation.source_item_id) if derivation else None
            file_name = safe_file_name(
                origins[0].name if origins else _derived_name(case, item, derivation)
            )
            digests = payload.copy(
                bag, f"data/items/{item_id}/{file_name}", case.objects.path_for(item.sha256)
            )
            if digests["sha256"] != item.sha256 or digests["sha512"] != item.sha512:
                raise BundleError(
                    f"item {item_id}: the stored file no longer matches its "
                    "recorded hashes; run 'casebuilder verify'"
                )
            record = _item_record(
                item, file_name, origins, derivation, source, children, mentions.get(item_id, [])
            )
            payload.write(
                bag,
                f"data/items/{item_id}/item.json",
                (json.dumps(record, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode(
                    "utf-8"
                ),
            )
            if item.entry_seq >= checkpoint.tree_size:
                raise BundleError(f"item {item_id} was recorded after the bundle's checkpoint")
            proof = {
                "item": item_id,
                "sha256": item.sha256,
                "entry_index": item.entry_seq,
                "leaf_hash": tree.levels[0][item.entry_seq].hex(),
                "tree_size": checkpoint.tree_size,
                "root": checkpoint.root,
                "proof": [
                    p.hex() for p in tree.inclusion_proof(item.entry_seq, checkpoint.tree_size)
                ],
            }
            payload.write(
                bag,
                f"data/proofs/{item_id}.json",
                (json.dumps(proof, indent=2) + "\n").encode("utf-8"),
            )
    _write_tag_files(case, bag, payload, checkpoint, bundle_entry)
    payload_bytes = sum((bag / p).stat().st_size for p in payload.files)
    return len(chosen), len(payload.files), payload_bytes


def _derived_name(case: Case, item: Item, derivation: Derivation | None) -> str:
    if derivation is None:
        return item.format or "content"
    with case.session() as session:
        from casebuilder.store.schema import CustodyEvent

        row = session.get(CustodyEvent, derivation.entry_seq)
    if row is not None:
        name = json.loads(row.entry).get("details", {}).get("name")
        if isinstance(name, str) and name:
            return name
    return f"{derivation.kind}-of-{derivation.source_item_id}"


def _write_tag_files(
    case: Case, bag: Path, payload: _Hasher, checkpoint: SignedCheckpoint, bundle_entry: int
) -> None:
    tags = _Hasher()
    octets = sum((bag / p).stat().st_size for p in payload.files)
    tags.write(bag, "bagit.txt", b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")
    info = [
        ("Bag-Software-Agent", tool_id()),
        ("Bagging-Date", case.clock().astimezone(UTC).strftime("%Y-%m-%d")),
        ("Payload-Oxum", f"{octets}.{len(payload.files)}"),
        (
            "External-Description",
            "casebuilder court bundle: preserved items, custody log, "
            "signed checkpoint and inclusion proofs. See VERIFY.md.",
        ),
        ("Casebuilder-Case-Id", case.case_id),
        ("Casebuilder-Case-Name", " ".join(case.config.name.split())),
        ("Casebuilder-Checkpoint-Size", str(checkpoint.tree_size)),
        ("Casebuilder-Bundle-Entry", str(bundle_entry)),
        ("Casebuilder-Checkpoint-Root", checkpoint.root),
        ("Casebuilder-Public-Key-SHA256", checkpoint.public_key_sha256),
    ]
    tags.write(bag, "bag-info.txt", "".join(f"{k}: {v}\n" for k, v in info).encode("utf-8"))
    for alg in ALGORITHMS:
        tags.write(bag, f"manifest-{alg}.txt", payload.manifest(alg).encode("utf-8"))
    here = resources.files("casebuilder.reporting")
    tags.write(bag, "VERIFY.md", here.joinpath("VERIFY.md").read_bytes())
    tags.write(bag, "verify_bundle.py", here.joinpath("verify_bundle.py").read_bytes())
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
