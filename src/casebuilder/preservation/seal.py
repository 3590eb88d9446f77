"""The unit-of-work seal: the case key's signature over the log's new head, written before the
entries it covers are appended.

Checkpoints sign the log when a command ends; a long ingest commits many units of work before
then, and a command can die between appending its entries and committing them. To tell what a
crash left from what someone added by hand, every unit of work first writes
``custody/seal.json``: the head the log had (``base_size``, ``base_root``) and the head it is
about to have (``tree_size``, ``root``), signed with the case key. Only then are the entries
appended and the database committed, with a copy of the seal.

So, for whatever the next command or ``verify`` finds:

- entries after the recorded end of the log that the seal covers, from the recorded head, were
  written by a command of this case that died before its commit: they are set aside and noted;
- entries the seal does not cover were not written by casebuilder holding the key: nothing is
  written until an investigator runs ``casebuilder recover`` (logged, with a reason);
- committed entries that no checkpoint signs yet but the committed seal covers were left by a
  command that died before its checkpoint: the next checkpoint signs them, with a note.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from casebuilder.errors import CustodyLogError
from casebuilder.preservation.canonical import canonical_bytes
from casebuilder.preservation.keys import CaseSigner, verify_signature

SEAL_TYPE = "casebuilder-seal/v1"


@dataclass(frozen=True)
class Seal:
    case_id: str
    base_size: int
    base_root: str
    tree_size: int
    root: str
    time: str
    public_key_sha256: str
    signature: str = ""

    def unsigned_record(self) -> dict[str, Any]:
        return {
            "base_root": self.base_root,
            "base_size": self.base_size,
            "case_id": self.case_id,
            "public_key_sha256": self.public_key_sha256,
            "root": self.root,
            "time": self.time,
            "tree_size": self.tree_size,
            "type": SEAL_TYPE,
        }

    def signed_message(self) -> bytes:
        return canonical_bytes(self.unsigned_record())

    def as_line(self) -> str:
        return canonical_bytes({**self.unsigned_record(), "signature": self.signature}).decode()

    def verifies(self, public_key: Ed25519PublicKey, case_id: str) -> bool:
        try:
            signature = base64.b64decode(self.signature, validate=True)
        except ValueError:
            return False
        return self.case_id == case_id and verify_signature(
            public_key, signature, self.signed_message()
        )

    @classmethod
    def from_line(cls, line: str) -> Seal:
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or record.get("type") != SEAL_TYPE:
                raise CustodyLogError("not a custody seal")
            seal = cls(
                case_id=_text(record, "case_id"),
                base_size=_count(record, "base_size"),
                base_root=_text(record, "base_root"),
                tree_size=_count(record, "tree_size"),
                root=_text(record, "root"),
                time=_text(record, "time"),
                public_key_sha256=_text(record, "public_key_sha256"),
                signature=_text(record, "signature"),
            )
        except (ValueError, TypeError) as exc:
            raise CustodyLogError(f"malformed custody seal: {exc}") from exc
        if seal.base_size > seal.tree_size:
            raise CustodyLogError("malformed custody seal: its base is after its head")
        return seal


def _text(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise CustodyLogError(f"malformed custody seal: no {key}")
    return value


def _count(record: dict[str, Any], key: str) -> int:
    value = record.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise CustodyLogError(f"malformed custody seal: no {key}")
    return value


def sign_seal(
    signer: CaseSigner,
    *,
    case_id: str,
    base: tuple[int, bytes],
    head: tuple[int, bytes],
    time: str,
) -> Seal:
    unsigned = Seal(
        case_id=case_id,
        base_size=base[0],
        base_root=base[1].hex(),
        tree_size=head[0],
        root=head[1].hex(),
        time=time,
        public_key_sha256=signer.key_id,
    )
    signature = base64.b64encode(signer.sign(unsigned.signed_message())).decode("ascii")
    return Seal(**{**unsigned.__dict__, "signature": signature})


def write_seal(path: Path, seal: Seal) -> None:
    """Replace the seal file whole and durably before the entries it covers are appended:
    temporary file, fsync, rename, directory fsync. A crash leaves the old seal or the new."""
    data = (seal.as_line() + "\n").encode("utf-8")
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, 0o644)
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


def read_seal(path: Path) -> Seal | None:
    """The seal on disk, None when there is none (a case made before seals)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise CustodyLogError(f"cannot read the custody seal {path}: {exc}") from exc
    return Seal.from_line(text.strip())
