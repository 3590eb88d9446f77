"""Key rotation: a new signing key for a case, vouched for by the old one, in the custody log.

A case may need a new key (the old one was exposed, or a policy says so). Anyone holding a key
could also make a new one and re-sign a rewritten history with it, so a rotation counts only
when the *old* key approves the new one: a ``key-rotation`` entry carries both public keys and
the old key's Ed25519 signature over a rotation statement, the canonical JSON of

    {"case_id": ..., "new_public_key": <base64 of the 32 raw bytes>,
     "new_public_key_sha256": ..., "old_public_key_sha256": ...,
     "type": "casebuilder-key-rotation/v1"}

Reading the log from the first key (the one the ``init`` entry names), each rotation entry must
name the key in force as its old key and carry a signature that key makes; from then on the new
key is in force. A checkpoint over ``n`` entries is signed by the key in force after entries
0..n-1, so the first checkpoint that covers a rotation is signed by the new key. A court bundle,
or the case itself, signed by a key that no such chain of rotations leads to from a key seen
before is a re-keyed, rewritten history.

The key files change in three steps that survive a crash at any point: the new key is written
beside the old one (``case-signing-key.next.pem``), the rotation entry is committed, then,
under the case lock, before any checkpoint is signed, the key the log's last rotation names
replaces the old one (:func:`finish_interrupted_rotation`); a staged key no committed entry
names is dropped. So every process signs with the key the log says is in force.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sqlalchemy import select
from sqlalchemy.orm import Session

from casebuilder.errors import CustodyLogError, SigningError
from casebuilder.preservation.canonical import canonical_bytes
from casebuilder.preservation.keys import (
    CaseSigner,
    create_signing_key,
    load_signing_key,
    public_key_pem,
    raw_public_key,
    verify_signature,
)
from casebuilder.store.home import CasePaths
from casebuilder.store.schema import CustodyEvent

if TYPE_CHECKING:
    from casebuilder.preservation.case import Case

ROTATION_ACTION = "key-rotation"
ROTATION_TYPE = "casebuilder-key-rotation/v1"


def next_key_path(paths: CasePaths) -> Path:
    """Where a new key waits until its rotation entry is committed."""
    return paths.keys / "case-signing-key.next.pem"


def retired_key_path(paths: CasePaths, digest: str) -> Path:
    """Where the public half of a replaced key is kept (its private half is not kept)."""
    return paths.keys / "retired" / f"{digest}.pem"


def rotation_statement(case_id: str, old_digest: str, new_key: bytes) -> bytes:
    """The bytes the old key signs to approve ``new_key`` (32 raw bytes) as its successor."""
    return canonical_bytes(
        {
            "case_id": case_id,
            "new_public_key": base64.b64encode(new_key).decode("ascii"),
            "new_public_key_sha256": hashlib.sha256(new_key).hexdigest(),
            "old_public_key_sha256": old_digest,
            "type": ROTATION_TYPE,
        }
    )


def rotation_details(
    case_id: str, old: CaseSigner, new: CaseSigner, reason: str
) -> dict[str, Any]:
    """The ``details`` of a key-rotation entry: both keys and the old key's approval."""
    old_raw, new_raw = raw_public_key(old.public_key), raw_public_key(new.public_key)
    statement = rotation_statement(case_id, old.key_id, new_raw)
    return {
        "type": ROTATION_TYPE,
        "old_public_key": base64.b64encode(old_raw).decode("ascii"),
        "old_public_key_sha256": old.key_id,
        "new_public_key": base64.b64encode(new_raw).decode("ascii"),
        "new_public_key_sha256": new.key_id,
        "reason": reason,
        "signature": base64.b64encode(old.sign(statement)).decode("ascii"),
    }


@dataclass(frozen=True)
class Rotation:
    """One key-rotation entry of a log, as read (not yet checked)."""

    seq: int
    old_key: bytes
    old_digest: str
    new_key: bytes
    new_digest: str
    signature: bytes
    reason: str

    @classmethod
    def from_entry(cls, seq: int, entry: dict[str, Any]) -> Rotation:
        details = entry.get("details")
        if not isinstance(details, dict):
            raise CustodyLogError(f"log entry {seq}: a key rotation without details")
        try:
            return cls(
                seq=seq,
                old_key=base64.b64decode(str(details["old_public_key"]), validate=True),
                old_digest=str(details["old_public_key_sha256"]),
                new_key=base64.b64decode(str(details["new_public_key"]), validate=True),
                new_digest=str(details["new_public_key_sha256"]),
                signature=base64.b64decode(str(details["signature"]), validate=True),
                reason=str(details.get("reason", "")),
            )
        except (KeyError, ValueError) as exc:
            raise CustodyLogError(f"log entry {seq}: a malformed key rotation ({exc})") from exc

    def __post_init__(self) -> None:
        if len(self.old_key) != 32 or len(self.new_key) != 32:
            raise CustodyLogError(
                f"log entry {self.seq}: a key rotation whose keys are not 32-byte Ed25519 keys"
            )

    def problems(self, case_id: str, in_force: bytes) -> list[str]:
        """Why this rotation does not hand the case on from the key ``in_force``."""
        found = []
        if self.old_key != in_force:
            found.append(
                f"rotates from key {self.old_digest[:16]}…, but the key in force is "
                f"{hashlib.sha256(in_force).hexdigest()[:16]}…"
            )
        if hashlib.sha256(self.old_key).hexdigest() != self.old_digest or (
            hashlib.sha256(self.new_key).hexdigest() != self.new_digest
        ):
            found.append("a key's SHA-256 is not the digest the entry gives")
        if not _approved(self, case_id):
            found.append("the old key's signature over the rotation statement does not verify")
        return found


def _approved(rotation: Rotation, case_id: str) -> bool:
    try:
        old = Ed25519PublicKey.from_public_bytes(rotation.old_key)
    except ValueError:
        return False
    statement = rotation_statement(case_id, rotation.old_digest, rotation.new_key)
    return verify_signature(old, rotation.signature, statement)


@dataclass
class KeySchedule:
    """Which key signs checkpoints at each size of a log, read from its rotation entries."""

    first: bytes  # 32 raw bytes of the key the case started with
    rotations: list[Rotation] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)  # (entry, what is wrong)

    @classmethod
    def from_entries(
        cls, case_id: str, entries: Iterable[tuple[int, dict[str, Any]]], current: bytes
    ) -> KeySchedule:
        """The schedule of a log's entries; ``current`` is the key the case holds now, the
        first key when the log records no rotation."""
        rotations: list[Rotation] = []
        problems: list[tuple[int, str]] = []
        for seq, entry in entries:
            if entry.get("action") != ROTATION_ACTION:
                continue
            try:
                rotations.append(Rotation.from_entry(seq, entry))
            except CustodyLogError as exc:
                problems.append((seq, str(exc)))
        schedule = cls(rotations[0].old_key if rotations else current, [], problems)
        in_force = schedule.first
        for rotation in rotations:
            for problem in rotation.problems(case_id, in_force):
                schedule.problems.append((rotation.seq, problem))
            schedule.rotations.append(rotation)
            in_force = rotation.new_key
        return schedule

    def key_for(self, tree_size: int) -> bytes:
        """The key that must sign a checkpoint over the first ``tree_size`` entries."""
        key = self.first
        for rotation in self.rotations:
            if rotation.seq < tree_size:
                key = rotation.new_key
        return key

    @property
    def keys(self) -> list[bytes]:
        return [self.first, *(rotation.new_key for rotation in self.rotations)]


def digest_of(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()


def parsed_entries(lines: Sequence[bytes]) -> list[tuple[int, dict[str, Any]]]:
    """The entries of log lines that parse as JSON objects (others are skipped: the log's own
    checks report them)."""
    entries = []
    for seq, line in enumerate(lines):
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            entries.append((seq, value))
    return entries


# -- rotating the key of a case ---------------------------------------------------------------


@dataclass(frozen=True)
class RotationOutcome:
    seq: int
    old_digest: str
    new_digest: str


def rotate_key(case: Case, reason: str) -> RotationOutcome:
    """Give the case a new signing key, approved by the old one, and sign the log with it.

    The new key is staged beside the old one and the rotation entry committed, under the case
    lock; the checkpoint that follows (like any checkpoint, see Case._sign) puts the key the
    log names in place before it signs. So a crash between any two steps leaves either no
    rotation or one that the next checkpoint completes."""
    if not reason.strip():
        raise SigningError("a key rotation needs a reason (it is logged)")
    staged = next_key_path(case.paths)
    with case.transaction() as tx:
        # Under the case lock no other rotation is half-way, so a staged key found now was
        # left by one that stopped: finished if its entry was committed, else dropped.
        finish_interrupted_rotation(case.paths, last_rotation_digest(tx.session))
        old = case.signer = load_signing_key(case.paths.signing_key)
        new = create_signing_key(staged, staged.with_suffix(".public.pem"))
        seq = tx.record(ROTATION_ACTION, details=rotation_details(case.case_id, old, new, reason))
    case.checkpoint()
    if case.signer.key_id != new.key_id:
        raise SigningError("the rotation was logged but the new key was not put in place")
    return RotationOutcome(seq, old.key_id, new.key_id)


def last_rotation_digest(session: Session) -> str | None:
    """The key the log's last rotation hands the case to (None: the log records none)."""
    text = session.execute(
        select(CustodyEvent.entry)
        .where(CustodyEvent.action == ROTATION_ACTION)
        .order_by(CustodyEvent.seq.desc())
        .limit(1)
    ).scalar_one_or_none()
    if text is None:
        return None
    digest = json.loads(text).get("details", {}).get("new_public_key_sha256")
    return digest if isinstance(digest, str) else None


def finish_interrupted_rotation(paths: CasePaths, named: str | None) -> None:
    """Settle a staged key (the caller holds the case lock): promoted to the case key if the
    log's last rotation names it (``named``: its entry was committed), dropped otherwise (the
    rotation never happened)."""
    staged = next_key_path(paths)
    if not staged.exists():
        return
    if load_signing_key(staged).key_id == named:
        _promote_staged(paths)
    else:
        staged.unlink()
        staged.with_suffix(".public.pem").unlink(missing_ok=True)


def _promote_staged(paths: CasePaths) -> None:
    """The staged key replaces the case key; the old public key is kept among the retired
    (its private half is not: it signs nothing any more)."""
    old = load_signing_key(paths.signing_key)
    retired = retired_key_path(paths, old.key_id)
    retired.parent.mkdir(parents=True, exist_ok=True)
    retired.write_bytes(public_key_pem(old.public_key))
    staged = next_key_path(paths)
    new = load_signing_key(staged)
    os.replace(staged, paths.signing_key)
    paths.public_key.write_bytes(public_key_pem(new.public_key))
    staged.with_suffix(".public.pem").unlink(missing_ok=True)
    directory = os.open(paths.keys, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def public_key_pem_of(raw: bytes) -> bytes:
    """The PEM (SubjectPublicKeyInfo) form of 32 raw Ed25519 public key bytes."""
    return Ed25519PublicKey.from_public_bytes(raw).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
