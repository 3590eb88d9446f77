"""The case's Ed25519 signing key, which signs checkpoints of the custody log.

The private key lives in the case home with mode 0600 and is created once, with O_EXCL, so two
processes can never each create a different key. Its public half is written beside it and its
SHA-256 (over the 32 raw bytes) identifies it in every checkpoint.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from casebuilder.errors import SigningError


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    """The 32 bytes of the key, as its digest and rotation entries use them."""
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_key_digest(key: Ed25519PublicKey) -> str:
    return hashlib.sha256(raw_public_key(key)).hexdigest()


def public_key_pem(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def load_public_key(pem: bytes) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(pem)
    except ValueError as exc:
        raise SigningError(f"not a PEM public key: {exc}") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise SigningError("the case public key is not an Ed25519 key")
    return key


def verify_signature(key: Ed25519PublicKey, signature: bytes, message: bytes) -> bool:
    try:
        key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


@dataclass(frozen=True)
class CaseSigner:
    private_key: Ed25519PrivateKey

    @property
    def public_key(self) -> Ed25519PublicKey:
        return self.private_key.public_key()

    @property
    def key_id(self) -> str:
        return public_key_digest(self.public_key)

    def sign(self, message: bytes) -> bytes:
        return self.private_key.sign(message)


def create_signing_key(private_path: Path, public_path: Path) -> CaseSigner:
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    private_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError as exc:
        raise SigningError(
            f"{private_path} already exists; refusing to replace a case key"
        ) from exc
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
        fh.flush()
        os.fsync(fh.fileno())
    public_path.write_bytes(public_key_pem(key.public_key()))
    return CaseSigner(key)


def load_signing_key(private_path: Path) -> CaseSigner:
    try:
        pem = private_path.read_bytes()
    except OSError as exc:
        raise SigningError(f"cannot read the case signing key {private_path}: {exc}") from exc
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise SigningError(f"{private_path} is not a usable private key: {exc}") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(f"{private_path} is not an Ed25519 key")
    return CaseSigner(key)
