"""Comparing signed histories: a case against a bundle issued earlier, or two bundles of a case.

An insider who holds the case key can rewrite a whole case: shift every time, recompute every
root, re-sign every checkpoint, even with a new key pair. Each rewritten copy checks out on its
own. What it cannot change is a bundle already handed to someone outside: that one still holds
the old log, root and key. So a later history (the case as it is now, or a later bundle) must
extend the earlier one:

- the same case id;
- the earlier log's lines are, byte for byte, the first lines of the later log, and the RFC
  9162 consistency proof from the earlier checkpoint (size, root) to the later one, computed
  from the later log, verifies: the later signed root extends the earlier signed root;
- the earlier checkpoints are the first checkpoints of the later history, line for line;
- the earlier checkpoint was signed by the later one's key, or the later log's key rotations,
  each approved by the key before it (rotation.py), lead from the one key to the other;
- every item the earlier bundle holds is held on the later side with the same hashes (a later
  bundle may hold a selection: an item it leaves out is a note, not a difference).

Each history is also checked on its own as far as the comparison needs it (its checkpoint's
signature, and its root over its log); the full check of a bundle is verify_bundle.py's.
"""

from __future__ import annotations

import base64
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sqlalchemy import select

from casebuilder.errors import BundleError, CasebuilderError
from casebuilder.preservation.case import Case
from casebuilder.preservation.checkpoint import SignedCheckpoint, read_checkpoint_lines
from casebuilder.preservation.custody import case_lock
from casebuilder.preservation.keys import load_public_key, raw_public_key, verify_signature
from casebuilder.preservation.merkle import MerkleTree, leaf_hash, verify_consistency
from casebuilder.preservation.rotation import KeySchedule, digest_of, parsed_entries
from casebuilder.preservation.verify import VerificationReport
from casebuilder.store.schema import Item


@dataclass(frozen=True)
class HeldItem:
    sha256: str
    sha512: str | None  # None: the case has not recorded it yet (sealing.py)
    size: int

    def agrees_with(self, other: HeldItem) -> bool:
        """Same content by every digest both sides have recorded."""
        return (self.sha256, self.size) == (other.sha256, other.size) and (
            self.sha512 is None or other.sha512 is None or self.sha512 == other.sha512)


@dataclass(frozen=True)
class SignedHistory:
    """One side of a comparison: a log, its checkpoints and what it holds."""

    label: str  # how the report names it: "bundle exhibit-7", "the case"
    log_lines: list[bytes]  # every line it holds, without newlines
    checkpoint_lines: list[str]  # every checkpoint line, oldest first
    checkpoint: SignedCheckpoint  # its latest checkpoint
    public_key: bytes  # the 32 raw bytes of the key it presents as signing that checkpoint
    items: dict[int, HeldItem]
    holds_every_item: bool  # a case does; a bundle may hold a selection

    @property
    def case_id(self) -> str:
        return self.checkpoint.case_id

    @property
    def size(self) -> int:
        return self.checkpoint.tree_size


@dataclass
class Comparison:
    earlier: str
    later: str
    differences: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences


# -- reading the two sides --------------------------------------------------------------------


class BundleFiles:
    """The files of a bundle folder, or of a zipped bundle (one folder inside the zip)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._zip: zipfile.ZipFile | None = None
        self._prefix = ""
        if path.is_dir():
            return
        try:
            self._zip = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise BundleError(
                f"{path} is neither a bundle folder nor a readable zip: {exc}"
            ) from exc
        tops = {PurePosixPath(name).parts[0] for name in self._zip.namelist() if name.strip("/")}
        if len(tops) != 1:
            raise BundleError(f"{path} should hold one bundle folder, holds {len(tops)} entries")
        self._prefix = f"{tops.pop()}/"

    def read(self, relative: str) -> bytes:
        try:
            if self._zip is None:
                return (self.path / relative).read_bytes()
            return self._zip.read(self._prefix + relative)
        except (OSError, KeyError) as exc:
            raise BundleError(f"{self.path}: cannot read {relative} ({exc})") from exc

    def item_records(self) -> list[str]:
        """The bundle-relative paths of every data/items/<id>/item.json."""
        if self._zip is None:
            return sorted(
                p.relative_to(self.path).as_posix()
                for p in (self.path / "data" / "items").glob("*/item.json")
            )
        names = [name[len(self._prefix):] for name in self._zip.namelist()]
        return sorted(
            name for name in names
            if name.startswith("data/items/") and name.endswith("/item.json")
            and name.count("/") == 3
        )

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


def read_bundle(path: Path) -> SignedHistory:
    """A bundle's signed history (folder or .zip); BundleError if it cannot be read."""
    files = BundleFiles(path)
    try:
        return _bundle_history(files, f"bundle {path.name}")
    except (CasebuilderError, ValueError, KeyError, TypeError) as exc:
        if isinstance(exc, BundleError):
            raise
        raise BundleError(f"{path}: not a readable court bundle ({exc})") from exc
    finally:
        files.close()


def _bundle_history(files: BundleFiles, label: str) -> SignedHistory:
    log = files.read("data/custody/log.jsonl")
    checkpoint = SignedCheckpoint.from_line(files.read("data/custody/checkpoint.json").decode())
    lines = [line for line in files.read("data/custody/checkpoints.jsonl").decode().split("\n")
             if line]
    key = raw_public_key(load_public_key(files.read("data/custody/public_key.pem")))
    items: dict[int, HeldItem] = {}
    for name in files.item_records():
        record = json.loads(files.read(name))
        items[int(record["id"])] = HeldItem(
            str(record["sha256"]), str(record["sha512"]), int(record["size"])
        )
    return SignedHistory(label, _lines(log), lines, checkpoint, key, items, False)


def _lines(log: bytes) -> list[bytes]:
    return log.split(b"\n")[:-1] if log else []


def case_history(case: Case) -> SignedHistory:
    """The case's signed history as it is now, read under the case lock."""
    with case_lock(case.paths.lock):
        log = case.paths.log.read_bytes()
        lines = read_checkpoint_lines(case.paths.checkpoints)
        key = raw_public_key(load_public_key(case.paths.public_key.read_bytes()))
        with case.session() as session:
            items = {
                item.id: HeldItem(item.sha256, item.sha512, item.size)
                for item in session.execute(select(Item)).scalars()
            }
    if not lines:
        raise BundleError("the case has no signed checkpoint to compare")
    return SignedHistory(
        "the case", _lines(log), lines, SignedCheckpoint.from_line(lines[-1]), key, items, True
    )


# -- comparing --------------------------------------------------------------------------------


def compare_bundles(first: SignedHistory, second: SignedHistory) -> Comparison:
    """Two bundles of one case, in whichever order: the one with the shorter signed log is the
    earlier one."""
    earlier, later = sorted((first, second), key=lambda h: h.size)
    return compare_histories(earlier, later)


def compare_histories(earlier: SignedHistory, later: SignedHistory) -> Comparison:
    """Every way in which ``later`` is not a faithful extension of ``earlier``."""
    comparison = Comparison(earlier.label, later.label)
    for side in (earlier, later):
        _check_own_checkpoint(side, comparison)
    if earlier.case_id != later.case_id:
        comparison.differences.append(
            f"{earlier.label} is of case {earlier.case_id}, {later.label} of case "
            f"{later.case_id}: they are not the same case"
        )
        return comparison
    if earlier.size > later.size:
        comparison.differences.append(
            f"{earlier.label} carries {earlier.size} signed entries, {later.label} only "
            f"{later.size}: signed entries were removed, or the log was rewritten shorter"
        )
    _compare_logs(earlier, later, comparison)
    _compare_consistency(earlier, later, comparison)
    _compare_checkpoints(earlier, later, comparison)
    _compare_keys(earlier, later, comparison)
    _compare_items(earlier, later, comparison)
    comparison.notes.append(
        f"{earlier.label}: {earlier.size} entries, root {earlier.checkpoint.root}, signed "
        f"{earlier.checkpoint.time} by key {digest_of(earlier.public_key)}"
    )
    comparison.notes.append(
        f"{later.label}: {later.size} entries, root {later.checkpoint.root}, signed "
        f"{later.checkpoint.time} by key {digest_of(later.public_key)}"
    )
    return comparison


def _check_own_checkpoint(side: SignedHistory, comparison: Comparison) -> None:
    """The side's latest checkpoint is signed by the key it presents, over its own log."""
    cp = side.checkpoint
    key = Ed25519PublicKey.from_public_bytes(side.public_key)
    try:
        signature = base64.b64decode(cp.signature, validate=True)
    except ValueError:
        signature = b""
    if cp.public_key_sha256 != digest_of(side.public_key) or not verify_signature(
        key, signature, cp.signed_message()
    ):
        comparison.differences.append(
            f"{side.label}: its checkpoint is not signed by the public key it carries; check it "
            "on its own first (verify_bundle.py, or casebuilder verify)"
        )
    if len(side.log_lines) < cp.tree_size or (
        MerkleTree([leaf_hash(line) for line in side.log_lines[: cp.tree_size]])
        .root(cp.tree_size).hex() != cp.root
    ):
        comparison.differences.append(
            f"{side.label}: its log does not have the root its checkpoint signs; check it on "
            "its own first"
        )


def _compare_logs(earlier: SignedHistory, later: SignedHistory, comparison: Comparison) -> None:
    """The earlier log, line for line and byte for byte, begins the later one."""
    shared = min(earlier.size, len(later.log_lines))
    differing = [i for i in range(shared) if earlier.log_lines[i] != later.log_lines[i]]
    if differing:
        first = differing[0]
        comparison.differences.append(
            f"log entry {first} (and {len(differing) - 1} more of the first {shared}) differs: "
            f"{earlier.label} has {_excerpt(earlier.log_lines[first])}, {later.label} has "
            f"{_excerpt(later.log_lines[first])}"
        )


def _excerpt(line: bytes, limit: int = 160) -> str:
    text = line.decode("utf-8", "replace")
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _compare_consistency(
    earlier: SignedHistory, later: SignedHistory, comparison: Comparison
) -> None:
    """RFC 9162: a consistency proof from the earlier signed root to the later signed root,
    computed from the later log, verifies."""
    n, m = earlier.size, later.size
    if n > m or len(later.log_lines) < m:
        return  # reported above, or by the later side's own check
    tree = MerkleTree([leaf_hash(line) for line in later.log_lines[:m]])
    try:
        consistent = verify_consistency(
            n, m, bytes.fromhex(earlier.checkpoint.root), bytes.fromhex(later.checkpoint.root),
            tree.consistency_proof(n, m),
        )
    except ValueError:
        consistent = False
    if not consistent:
        comparison.differences.append(
            f"{later.label}'s signed root over {m} entries is not consistent with "
            f"{earlier.label}'s signed root over {n} (RFC 9162 consistency proof): the first "
            f"{n} entries were rewritten"
        )


def _compare_checkpoints(
    earlier: SignedHistory, later: SignedHistory, comparison: Comparison
) -> None:
    """The earlier checkpoints are the first checkpoints of the later side, line for line."""
    for position, line in enumerate(earlier.checkpoint_lines):
        theirs = later.checkpoint_lines[position] if position < len(later.checkpoint_lines) \
            else None
        if theirs == line:
            continue
        ours = f"checkpoint {position} of {earlier.label} ({_checkpoint_summary(line)})"
        if theirs is None:
            comparison.differences.append(f"{ours} is missing from {later.label}")
        else:
            comparison.differences.append(
                f"{ours} is not the same line in {later.label} "
                f"({_checkpoint_summary(theirs)}): the checkpoints were signed again"
            )
        return


def _checkpoint_summary(line: str) -> str:
    try:
        cp = SignedCheckpoint.from_line(line)
    except CasebuilderError:
        return "unreadable"
    return f"{cp.tree_size} entries, {cp.time}"


def _compare_keys(earlier: SignedHistory, later: SignedHistory, comparison: Comparison) -> None:
    """The earlier checkpoint's key is the one the later log has in force at that size; any
    rotation between them is approved by the key before it."""
    schedule = KeySchedule.from_entries(
        later.case_id, parsed_entries(later.log_lines), later.public_key
    )
    for seq, problem in schedule.problems:
        comparison.differences.append(f"{later.label}: log entry {seq} (key rotation): {problem}")
    then = schedule.key_for(earlier.size)
    if then != earlier.public_key:
        comparison.differences.append(
            f"{earlier.label}'s checkpoint is signed by key {digest_of(earlier.public_key)}, "
            f"but {later.label}'s log has key {digest_of(then)} in force at that point, and "
            f"no key rotation approved by the earlier key leads to it: {later.label} was "
            "re-keyed and its history signed again"
        )
    now = schedule.key_for(later.size)
    if now != later.public_key:
        comparison.differences.append(
            f"{later.label} presents key {digest_of(later.public_key)}, but its log's key "
            f"rotations hand the case to key {digest_of(now)}"
        )
    for rotation in schedule.rotations:
        if earlier.size <= rotation.seq < later.size:
            comparison.notes.append(
                f"log entry {rotation.seq}: the key was rotated from {rotation.old_digest} to "
                f"{rotation.new_digest}, approved by the old key ({rotation.reason!r})"
            )


def _compare_items(earlier: SignedHistory, later: SignedHistory, comparison: Comparison) -> None:
    for item_id, held in sorted(earlier.items.items()):
        theirs = later.items.get(item_id)
        if theirs is None:
            if later.holds_every_item:
                comparison.differences.append(
                    f"item {item_id} (sha256 {held.sha256}), held by {earlier.label}, is not "
                    f"held by {later.label}"
                )
            else:
                comparison.notes.append(
                    f"item {item_id} is in {earlier.label} but not in {later.label} (a bundle "
                    "may hold a selection of the items)"
                )
        elif not theirs.agrees_with(held):
            comparison.differences.append(
                f"item {item_id}: {earlier.label} holds it with sha256 {held.sha256} "
                f"({held.size} bytes), {later.label} with sha256 {theirs.sha256} "
                f"({theirs.size} bytes)"
            )


# -- the case's verification report -----------------------------------------------------------


def add_comparison(report: VerificationReport, comparison: Comparison) -> None:
    """Put a comparison's differences into a case's verification report. A case that does not
    extend a bundle issued earlier was rewritten: nothing must be appended to its log then."""
    subject = f"against {comparison.earlier}"
    for difference in comparison.differences:
        report.fail(subject, difference)
    report.notes.extend(f"{subject}: {note}" for note in comparison.notes)
    if comparison.differences:
        report.log_intact = False
    report.counts["bundles compared"] = report.counts.get("bundles compared", 0) + 1


def compare_case_with_bundle(case: Case, bundle: SignedHistory) -> Comparison:
    """Does the case as it is now extend the bundle issued earlier?"""
    return compare_histories(bundle, case_history(case))
