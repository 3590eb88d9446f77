"""Signed checkpoints of the custody log: "at this time the log had N entries and this root".

A checkpoint's signed message is the canonical JSON of five fields (type, case id, tree size,
root, time); the signature is Ed25519 with the case key. When a time-stamping authority is
configured, the SHA-256 of the same message is time-stamped (RFC 3161), which binds the root to
a time that the case's own clock and key could not forge. Checkpoints are appended to
``custody/checkpoints.jsonl`` and to the database; every command that changes the case ends
with one, so an entry outside any checkpoint is a sign of tampering or of an interrupted command.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casebuilder.errors import CustodyLogError, TimestampError
from casebuilder.preservation.canonical import canonical_bytes
from casebuilder.preservation.keys import CaseSigner

CHECKPOINT_TYPE = "casebuilder-checkpoint/v1"
SIGNED_FIELDS = ("case_id", "root", "time", "tree_size", "type")

#: Takes the SHA-256 digest of a checkpoint message, returns a DER RFC 3161 TimeStampToken.
Timestamper = Callable[[bytes], bytes]


@dataclass(frozen=True)
class SignedCheckpoint:
    case_id: str
    tree_size: int
    root: str
    time: str
    public_key_sha256: str
    signature: str
    timestamp_token: bytes | None = None

    def signed_message(self) -> bytes:
        return checkpoint_message(self.case_id, self.tree_size, self.root, self.time)

    def as_record(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "case_id": self.case_id,
            "public_key_sha256": self.public_key_sha256,
            "root": self.root,
            "signature": self.signature,
            "time": self.time,
            "tree_size": self.tree_size,
            "type": CHECKPOINT_TYPE,
        }
        if self.timestamp_token is not None:
            record["timestamp_token"] = base64.b64encode(self.timestamp_token).decode("ascii")
        return record

    def as_line(self) -> str:
        return canonical_bytes(self.as_record()).decode("utf-8")

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> SignedCheckpoint:
        try:
            if record["type"] != CHECKPOINT_TYPE:
                raise CustodyLogError(f"unknown checkpoint type {record['type']!r}")
            token = record.get("timestamp_token")
            return cls(
                case_id=str(record["case_id"]),
                tree_size=int(record["tree_size"]),
                root=str(record["root"]),
                time=str(record["time"]),
                public_key_sha256=str(record["public_key_sha256"]),
                signature=str(record["signature"]),
                timestamp_token=base64.b64decode(token, validate=True) if token else None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CustodyLogError(f"malformed checkpoint: {exc}") from exc

    @classmethod
    def from_line(cls, line: str) -> SignedCheckpoint:
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CustodyLogError(f"checkpoint is not JSON: {exc}") from exc
        if not isinstance(record, dict):
            raise CustodyLogError("checkpoint is not a JSON object")
        return cls.from_record(record)


def later_than(cp: SignedCheckpoint, tree_size: int, time: str) -> bool:
    """Whether ``cp`` could have been signed after a checkpoint over ``tree_size`` entries at
    ``time`` (a copy of an earlier one could not): what a checkpoint left unrecorded by a
    killed command must be to be adopted, and for verify to let it wait for that."""
    return cp.tree_size > tree_size and cp.time >= time


def checkpoint_message(case_id: str, tree_size: int, root: str, time: str) -> bytes:
    return canonical_bytes(
        {
            "case_id": case_id,
            "root": root,
            "time": time,
            "tree_size": tree_size,
            "type": CHECKPOINT_TYPE,
        }
    )


def sign_checkpoint(
    signer: CaseSigner,
    *,
    case_id: str,
    tree_size: int,
    root: bytes,
    time: str,
    timestamper: Timestamper | None = None,
) -> tuple[SignedCheckpoint, str | None]:
    """Sign (and, if configured, time-stamp) a checkpoint; returns it and any time-stamp problem.

    A failed time-stamp does not stop the checkpoint: the signature alone is still evidence, and
    refusing to checkpoint would leave the log unsigned. The problem is returned for the caller to
    report and to record in the custody log.
    """
    message = checkpoint_message(case_id, tree_size, root.hex(), time)
    signature = base64.b64encode(signer.sign(message)).decode("ascii")
    token: bytes | None = None
    problem: str | None = None
    if timestamper is not None:
        try:
            token = timestamper(hashlib.sha256(message).digest())
        except TimestampError as exc:
            problem = str(exc)
    checkpoint = SignedCheckpoint(
        case_id=case_id,
        tree_size=tree_size,
        root=root.hex(),
        time=time,
        public_key_sha256=signer.key_id,
        signature=signature,
        timestamp_token=token,
    )
    return checkpoint, problem


def append_checkpoint_line(path: Path, line: str) -> int:
    """Append and fsync; returns the file length before the append (to undo it). A write that
    fails part-way (a full disk) is cut back, so no partial line is ever left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        before = os.fstat(fd).st_size
        data = (line + "\n").encode("utf-8")
        try:
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(errno.ENOSPC, f"short write ({written} of {len(data)} bytes)")
            os.fsync(fd)
        except OSError:
            os.ftruncate(fd, before)
            raise
        return before
    finally:
        os.close(fd)


def rewrite_checkpoint_lines(path: Path, lines: list[str]) -> None:
    """Replace the file's lines atomically: a temporary file in the same directory, fsynced,
    renamed over the file, then the directory fsynced. A crash leaves the old file or the new
    one, never a cut one."""
    import tempfile

    data = "".join(line + "\n" for line in lines).encode("utf-8")
    try:
        mode = os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def read_checkpoint_lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [line for line in path.read_text(encoding="utf-8").split("\n") if line]
