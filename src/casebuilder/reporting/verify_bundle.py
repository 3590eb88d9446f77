#!/usr/bin/env python3
"""Check a casebuilder court bundle using nothing but the Python standard library.

A casebuilder bundle is a BagIt bag (RFC 8493) that holds the evidence files of a case, the
custody log that records every action taken on them, a signed checkpoint of that log, and one
inclusion proof per item. This script is a second, independent implementation of every check in
the bundle format (format 2, and format 1 for bundles written before it): it imports neither
casebuilder nor any third-party package, and it computes the Merkle tree (RFC 9162) and
verifies the Ed25519 signatures (RFC 8032) itself, so that an expert can read and audit
everything it relies on.

How to run it (Python 3.8 or later, no installation needed):

    python3 verify_bundle.py               # check the bundle this file is in
    python3 verify_bundle.py BUNDLE_DIR    # check the bundle in BUNDLE_DIR
    python3 verify_bundle.py BUNDLE_DIR --against OTHER_BUNDLE_DIR
                                           # ... and compare it with another bundle of the case
    --timestamp-window HOURS               # how late a time-stamp may be (default 24)

It reports every failure it finds, not just the first, then a summary of what passed.
Exit status: 0 if every check holds, 1 if any check fails, 2 if the command line is wrong.

What it checks:
  1. BagIt: bagit.txt is well formed; every line of every manifest and tag manifest matches its
     file (SHA-256 and SHA-512, plus any other algorithm Python's hashlib knows); no payload file
     is missing from, or extra to, any payload manifest; Payload-Oxum in bag-info.txt is right.
  2. Custody log: every line of data/custody/log.jsonl is canonical JSON, its "seq" equals its
     line index, the case id is the same everywhere, and times never go backwards.
  3. Latest checkpoint: the Merkle root of all log lines equals the root in checkpoint.json and
     its tree size equals the number of lines; its Ed25519 signature verifies with the key in
     force (public_key.pem, which must be that key: the log's "key-rotation" entries, each
     approved by the key before it, say which key signs which checkpoints); it holds no field a
     checkpoint does not have; public_key.pem holds the key's PEM block and nothing else.
  4. Earlier checkpoints (checkpoints.jsonl): one canonical checkpoint per line, each signed by
     the key in force for it, each root the root of that prefix of the log, sizes growing and
     times never going backwards, the last line being checkpoint.json. No log entry is dated
     after the first checkpoint that signs it; an RFC 3161 token's genTime is not before its
     checkpoint's time (5 minutes are allowed for clock skew) nor more than the window after it.
  5. Items: item.json's sha256, sha512 and size match the stored file; the inclusion proof's
     leaf hash is the hash of log line entry_index; that entry lists the item with the same
     sha256; the proof leads to the checkpoint's root and holds nothing else.
  6. Contents: the log entry that made this bundle, named by Casebuilder-Bundle-Entry in
     bag-info.txt, is a "bundle" entry covered by the checkpoint, and it lists exactly the items
     in data/items/, each with the same sha256, sha512, size and role: an item removed from the
     bundle, or added to it afterwards, is found even when the manifests and Payload-Oxum were
     rewritten to match. (Another bundle may have been made while this one was being written,
     so its entry is not necessarily the last "bundle" entry of the log.) The folder's name is
     not checked: an exhibit may be renamed.
     Files (format 2): the entry also lists every item's stored file and item.json and the tag
     files, with SHA-256 and size. Every file under data/ must be one of those, with the listed
     hash, or one of the files the other checks verify in full (the custody log, checkpoints,
     key and time-stamp token, one inclusion proof per listed item): anything else is named as
     added. The entry signs the bag-info.txt fields that describe the case (its name among
     them); bag-info.txt must hold those, with those values, and besides them only
     Payload-Oxum, Casebuilder-Bundle-Entry and the checkpoint's size, root and key digest,
     which must be checkpoint.json's. The entry states how many checkpoints came before it: a
     bundle carries the log up to the first checkpoint that signs its entry, so
     checkpoints.jsonl holds exactly that many earlier lines, then that checkpoint.
     Files (format 1): each file must have its place in the bundle's layout.
  7. History: every origin in item.json is the receipt ("ingest" entry) it names: same item
     and sha256, received_at is the entry's time, the same actor, name, source path, relation,
     parent, sidecar, file time and collection digest; every receipt of the item in the log is
     among its origins; derived_from is the "derive" entry it names; role is what the item's
     first entry made it; format, parse results and the metadata digest are those of the
     item's last "parse" entry (format 2: of those before the bundle's own entry, when the
     item.json was written).
  8. With --against: the bundle with the shorter signed log is the earlier; the later one
     must extend it: the same case, the earlier log's lines byte for byte at the start of the
     later log, an RFC 9162 consistency proof from the earlier signed root to the later one,
     the earlier checkpoints at the start of the later ones, the same key or rotations the
     earlier key approved, and the same hashes for every item both hold. This is what exposes
     an insider who rewrote, re-dated and re-signed a whole case after an earlier bundle left.
  9. Second digests: the sha512 of every item is stated by an entry of the log that lists the
     item with the same sha256 and size: its receipt, or a "digest" entry recorded when its
     stored copy was read back after receipt (casebuilder may record SHA-512 after SHA-256).

What it cannot check: the CMS signature of an RFC 3161 time-stamp token. It checks the token's
message imprint, its genTime against the checkpoint's time and that checkpoint.tsr is the same
token, and prints the openssl command that verifies the token against the time-stamp
authority's certificate.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import datetime
import hashlib
import json
import posixpath
import re
import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    Point = tuple[int, int, int, int]

T = TypeVar("T")

FORMAT_NAME = "casebuilder bundle format 2, or 1"
CHECKPOINT_TYPE = "casebuilder-checkpoint/v1"
SIGNED_FIELDS = ("case_id", "root", "time", "tree_size", "type")
REQUIRED_ALGORITHMS = ("sha256", "sha512")
REQUIRED_TAG_FILES = ("bagit.txt", "bag-info.txt", "VERIFY.md", "verify_bundle.py")
CUSTODY = "data/custody"
READ_BLOCK = 1 << 20


# ---------------------------------------------------------------------------------------------
# Collecting results
# ---------------------------------------------------------------------------------------------


class Failure(NamedTuple):
    """One check that did not hold: which group of checks, where, and what differs."""

    check: str
    where: str
    problem: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.where}: {self.problem}"


class Report:
    """Everything found while checking a bundle: failures, notes and counts of what passed."""

    def __init__(self) -> None:
        self.failures: list[Failure] = []
        self.notes: list[str] = []
        self.counts: dict[str, tuple[int, int, str]] = {}

    def fail(self, check: str, where: str, problem: str) -> None:
        self.failures.append(Failure(check, shown(where), shown(problem)))

    def note(self, text: str, *more_lines: str) -> None:
        self.notes.append("\n    ".join(shown(line) for line in (text, *more_lines)))

    def count(self, what: str, passed: int, total: int, meaning: str) -> None:
        self.counts[what] = (passed, total, meaning)

    @property
    def ok(self) -> bool:
        return not self.failures


def shown(text: str) -> str:
    """Text safe to print: control characters (e.g. a newline in a file name) become escapes."""
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)


# ---------------------------------------------------------------------------------------------
# Canonical JSON
# ---------------------------------------------------------------------------------------------


class NotCanonical(ValueError):
    """The bytes are not the one canonical JSON form the format requires."""


def canonical_json(value: object) -> bytes:
    """Sorted keys, no white space, UTF-8, non-ASCII written as itself (the format's rule)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def _refuse_float(text: str) -> object:
    raise NotCanonical(f"holds the floating-point number {text}, which canonical JSON forbids")


def _refuse_constant(name: str) -> object:
    raise NotCanonical(f"holds {name}, which is not JSON")


def _refuse_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    obj: dict[str, object] = {}
    for key, value in pairs:
        if key in obj:
            raise NotCanonical(f"has the key {key!r} twice, so its meaning is ambiguous")
        obj[key] = value
    return obj


def parse_json(raw: bytes, allow_floats: bool = True) -> object:
    """Parse UTF-8 JSON strictly: no NaN/Infinity, no repeated keys (floats only if allowed)."""
    text = raw.decode("utf-8")
    try:
        return json.loads(
            text,
            parse_float=None if allow_floats else _refuse_float,
            parse_constant=_refuse_constant,
            object_pairs_hook=_refuse_duplicate_keys,
        )
    except RecursionError:
        raise NotCanonical("is nested too deeply to be read") from None


def parse_canonical(raw: bytes) -> object:
    """Parse one log line and insist it already is in canonical form, byte for byte."""
    value = parse_json(raw, allow_floats=False)
    try:
        again = canonical_json(value)
    except UnicodeEncodeError as exc:
        raise NotCanonical("holds a lone surrogate escape, which has no UTF-8 form") from exc
    if again != raw:
        at = next(
            (i for i in range(min(len(raw), len(again))) if raw[i] != again[i]),
            min(len(raw), len(again)),
        )
        raise NotCanonical(
            f"is valid JSON but not canonical: it first differs from its canonical form at "
            f"byte {at} (line is {len(raw)} bytes, canonical form {len(again)})"
        )
    return value


# ---------------------------------------------------------------------------------------------
# Ed25519 signature verification (RFC 8032 section 5.1), in plain Python integers
#
# Points are kept in extended homogeneous coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z and
# x*y = T/Z, which lets one formula add any two points (including a point to itself) without a
# modular inversion. Only public data is handled here, so nothing needs to run in constant time.
# ---------------------------------------------------------------------------------------------

FIELD_PRIME = 2**255 - 19
GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493  # L, the order of the base point
CURVE_D = -121665 * pow(121666, FIELD_PRIME - 2, FIELD_PRIME) % FIELD_PRIME
SQRT_OF_MINUS_ONE = pow(2, (FIELD_PRIME - 1) // 4, FIELD_PRIME)
NEUTRAL_POINT = (0, 1, 1, 0)


def _point_add(first: Point, second: Point) -> Point:
    """Sum of two curve points (RFC 8032 section 5.1.4, the unified formula for a = -1)."""
    p = FIELD_PRIME
    x1, y1, z1, t1 = first
    x2, y2, z2, t2 = second
    a = (y1 - x1) * (y2 - x2) % p
    b = (y1 + x1) * (y2 + x2) % p
    c = 2 * t1 * t2 * CURVE_D % p
    d = 2 * z1 * z2 % p
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % p, g * h % p, f * g % p, e * h % p)


def _scalar_multiply(scalar: int, point: Point) -> Point:
    """[scalar]point by double-and-add, lowest bit first."""
    result = NEUTRAL_POINT
    addend = point
    while scalar:
        if scalar & 1:
            result = _point_add(result, addend)
        addend = _point_add(addend, addend)
        scalar >>= 1
    return result


def _same_point(first: Point, second: Point) -> bool:
    """Projective equality: X1/Z1 == X2/Z2 and Y1/Z1 == Y2/Z2."""
    x1, y1, z1, _ = first
    x2, y2, z2, _ = second
    p = FIELD_PRIME
    return (x1 * z2 - x2 * z1) % p == 0 and (y1 * z2 - y2 * z1) % p == 0


def _recover_x(y: int, sign: int) -> int | None:
    """The x with x^2 = (y^2 - 1) / (d y^2 + 1) whose lowest bit is ``sign``, if there is one.

    RFC 8032 section 5.1.3, steps 2 to 4: a candidate square root is (u/v)^((p+3)/8), computed
    as u v^3 (u v^7)^((p-5)/8); if it squares to -u/v instead of u/v it is multiplied by
    sqrt(-1); if neither, y is not the y-coordinate of any point on the curve.
    """
    p = FIELD_PRIME
    u = (y * y - 1) % p
    v = (CURVE_D * y * y + 1) % p
    x = u * pow(v, 3, p) * pow(u * pow(v, 7, p), (p - 5) // 8, p) % p
    v_x_squared = v * x * x % p
    if v_x_squared == u:
        pass
    elif v_x_squared == (-u) % p:
        x = x * SQRT_OF_MINUS_ONE % p
    else:
        return None
    if x == 0 and sign == 1:
        return None  # "negative zero" is not a canonical encoding
    if (x & 1) != sign:
        x = p - x
    return x


def decode_point(encoded: bytes) -> Point | None:
    """The curve point a 32-byte encoding stands for, or None if it is not a canonical one."""
    if len(encoded) != 32:
        return None
    number = int.from_bytes(encoded, "little")
    sign = number >> 255
    y = number & ((1 << 255) - 1)
    if y >= FIELD_PRIME:
        return None  # y must be reduced modulo p
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % FIELD_PRIME)


def _base_point() -> Point:
    """B: the point with y = 4/5 and even x."""
    y = 4 * pow(5, FIELD_PRIME - 2, FIELD_PRIME) % FIELD_PRIME
    x = _recover_x(y, 0)
    assert x is not None  # a constant of the curve: cannot fail
    return (x, y, 1, x * y % FIELD_PRIME)


BASE_POINT = _base_point()


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Does ``signature`` verify for ``message`` under the 32-byte ``public_key``? (RFC 8032 5.1.7)

    The signature is R (an encoded point) followed by S (an integer). It holds when
    [S]B = R + [k]A, where A is the public key and k = SHA-512(R || A || message) mod L.
    S must be below L, and R and A must be canonical encodings of curve points.
    """
    if len(public_key) != 32 or len(signature) != 64:
        return False
    r_bytes, s_bytes = signature[:32], signature[32:]
    key_point = decode_point(public_key)
    r_point = decode_point(r_bytes)
    if key_point is None or r_point is None:
        return False
    s = int.from_bytes(s_bytes, "little")
    if s >= GROUP_ORDER:
        return False
    k = int.from_bytes(hashlib.sha512(r_bytes + public_key + message).digest(), "little")
    k %= GROUP_ORDER
    left = _scalar_multiply(s, BASE_POINT)
    right = _point_add(r_point, _scalar_multiply(k, key_point))
    return _same_point(left, right)


ED25519_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")


def public_key_from_pem(pem_text: str) -> bytes:
    """The 32 raw bytes of an Ed25519 key in a PEM "PUBLIC KEY" (SubjectPublicKeyInfo) block.

    The DER of such a key is always the same 12 bytes (SEQUENCE, algorithm id 1.3.101.112,
    BIT STRING header) followed by the key, so no general ASN.1 parser is needed.
    """
    lines = [line.strip() for line in pem_text.splitlines()]
    try:
        begin = lines.index("-----BEGIN PUBLIC KEY-----")
        end = lines.index("-----END PUBLIC KEY-----", begin)
    except ValueError as exc:
        raise ValueError("no '-----BEGIN PUBLIC KEY-----' ... 'END' block") from exc
    try:
        der = base64.b64decode("".join(lines[begin + 1 : end]), validate=True)
    except binascii.Error as exc:
        raise ValueError(f"the PEM body is not valid base64 ({exc})") from exc
    if len(der) != 44 or not der.startswith(ED25519_SPKI_PREFIX):
        raise ValueError("the key is not an Ed25519 SubjectPublicKeyInfo")
    return der[len(ED25519_SPKI_PREFIX) :]


# ---------------------------------------------------------------------------------------------
# The Merkle tree of the custody log (RFC 9162 section 2.1)
# ---------------------------------------------------------------------------------------------

EMPTY_TREE_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(entry: bytes) -> bytes:
    """SHA-256(0x00 || entry): the hash of one log line (without its newline)."""
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 || left || right): the hash of an inner node."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def largest_power_of_two_below(n: int) -> int:
    """The k the RFC splits a tree of n >= 2 leaves at: the largest power of two with k < n."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """MTH of RFC 9162 section 2.1.1 over a list of leaf hashes."""
    if not leaves:
        return EMPTY_TREE_ROOT
    return _subtree_root(leaves, 0, len(leaves))


def _subtree_root(leaves: Sequence[bytes], start: int, end: int) -> bytes:
    if end - start == 1:
        return leaves[start]
    k = largest_power_of_two_below(end - start)
    return node_hash(_subtree_root(leaves, start, start + k), _subtree_root(leaves, start + k, end))


def prefix_roots(leaves: Sequence[bytes], sizes: Iterable[int]) -> dict[int, bytes]:
    """The root of the first n leaves for each n in ``sizes`` (those within range), in one pass.

    Leaves are added one at a time to a list of complete subtrees whose sizes are the binary
    digits of the count so far, largest first; hashing that list together from the right gives
    exactly the RFC 9162 root of the leaves so far, because the RFC also splits off the largest
    complete subtree on the left first.
    """
    wanted = set(sizes)
    roots: dict[int, bytes] = {}
    if 0 in wanted:
        roots[0] = EMPTY_TREE_ROOT
    subtrees: list[tuple[int, bytes]] = []  # (number of leaves, hash), largest first
    for count, leaf in enumerate(leaves, start=1):
        subtrees.append((1, leaf))
        while len(subtrees) >= 2 and subtrees[-1][0] == subtrees[-2][0]:
            right_size, right = subtrees.pop()
            left_size, left = subtrees.pop()
            subtrees.append((left_size + right_size, node_hash(left, right)))
        if count in wanted:
            root = subtrees[-1][1]
            for _, left in reversed(subtrees[:-1]):
                root = node_hash(left, root)
            roots[count] = root
    return roots


def consistency_proof(leaves: Sequence[bytes], old_size: int) -> list[bytes]:
    """PROOF(m, D[n]) of RFC 9162 section 2.1.4.1: the hashes that show the tree of the first
    ``old_size`` leaves is a prefix of the tree of all ``leaves``."""
    if old_size in (0, len(leaves)):
        return []
    return _subproof(leaves, 0, len(leaves), old_size, True)


def _subproof(leaves: Sequence[bytes], start: int, end: int, m: int,
              whole: bool) -> list[bytes]:
    """SUBPROOF(m, D[start:end], whole) of the RFC; ``whole`` is its flag b: the m leaves
    are the whole of the old tree, so their own hash need not be given."""
    n = end - start
    if m == n:
        return [] if whole else [_subtree_root(leaves, start, end)]
    k = largest_power_of_two_below(n)
    if m <= k:  # the old tree lies in the left subtree; the right one is new
        return [*_subproof(leaves, start, start + k, m, whole),
                _subtree_root(leaves, start + k, end)]
    return [*_subproof(leaves, start + k, end, m - k, False),
            _subtree_root(leaves, start, start + k)]


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes,
                       proof: Sequence[bytes]) -> bool:
    """RFC 9162 section 2.1.4.2: does ``proof`` show that the tree with ``new_root`` over
    ``new_size`` leaves extends the tree with ``old_root`` over its first ``old_size``?

    Walk both trees up at once from the last old leaf: a proof hash on the left enters both
    roots, one on the right only the new root (it covers leaves the old tree lacks)."""
    if not 0 <= old_size <= new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is a node of the new tree
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    old_hash = new_hash = path[0]
    for sibling in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            old_hash = node_hash(sibling, old_hash)
            new_hash = node_hash(sibling, new_hash)
            while fn and not fn & 1:
                fn >>= 1
                sn >>= 1
        else:
            new_hash = node_hash(new_hash, sibling)
        fn >>= 1
        sn >>= 1
    return sn == 0 and old_hash == old_root and new_hash == new_root


def verify_inclusion(
    leaf: bytes, index: int, tree_size: int, proof: Sequence[bytes], root: bytes
) -> bool:
    """Does the audit path ``proof`` put ``leaf`` at ``index`` in the tree with ``root``?

    RFC 9162 section 2.1.3.2: walk up from the leaf, hashing each proof element in on the left
    or the right according to the bits of the index, skipping the levels where the leaf's
    subtree is the last, unpaired one; the path must be used up exactly at the root.
    """
    if not 0 <= index < tree_size:
        return False
    fn, sn = index, tree_size - 1
    result = leaf
    for sibling in proof:
        if sn == 0:
            return False  # the proof is longer than the path to the root
        if fn & 1 or fn == sn:
            result = node_hash(sibling, result)
            while fn != 0 and (fn & 1) == 0:
                fn >>= 1
                sn >>= 1
        else:
            result = node_hash(result, sibling)
        fn >>= 1
        sn >>= 1
    return sn == 0 and result == root


# ---------------------------------------------------------------------------------------------
# Small helpers for the format's values
# ---------------------------------------------------------------------------------------------

TIME_PATTERN = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$")


def utc_time_key(text: object) -> tuple[int, ...] | None:
    """A sortable key for a UTC time like 2026-11-29T23:25:06.123456Z, or None if malformed."""
    if not isinstance(text, str):
        return None
    match = TIME_PATTERN.match(text)
    if not match:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    nanoseconds = int((match.group(7) or "").ljust(9, "0"))
    return (year, month, day, hour, minute, second, nanoseconds)


def is_count(value: object) -> bool:
    """A non-negative integer (JSON true/false do not count, though Python calls them ints)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def hex_digest_or_none(value: object, length: int = 64) -> str | None:
    """``value`` in lower case if it is a hex string of ``length`` digits, else None."""
    if isinstance(value, str) and len(value) == length and re.match(r"^[0-9a-fA-F]*$", value):
        return value.lower()
    return None


def decode_base64(value: object) -> bytes | None:
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def as_object(value: object) -> dict[str, object] | None:
    return value if isinstance(value, dict) else None


def as_count(value: object) -> int | None:
    return value if isinstance(value, int) and is_count(value) else None


# ---------------------------------------------------------------------------------------------
# The bag on disk
# ---------------------------------------------------------------------------------------------


def hash_algorithm_available(name: str) -> bool:
    """Can hashlib compute this BagIt algorithm (with a fixed-length digest)?"""
    if name.startswith("shake"):
        return False
    try:
        hashlib.new(name)
    except ValueError:
        return False
    return True


class Bag:
    """A bundle directory, with each file's digests computed at most once (one read per file)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.algorithms: set[str] = set(REQUIRED_ALGORITHMS)
        self._digests: dict[str, dict[str, str]] = {}

    def path(self, relative: str) -> Path:
        return self.root.joinpath(*relative.split("/"))

    def digest(self, relative: str, algorithm: str) -> str:
        known = self._digests.get(relative, {})
        if algorithm not in known:
            wanted = self.algorithms | {algorithm}
            hashers = {name: hashlib.new(name) for name in wanted}
            with open(self.path(relative), "rb") as stream:
                for block in iter(lambda: stream.read(READ_BLOCK), b""):
                    for hasher in hashers.values():
                        hasher.update(block)
            known = {name: hasher.hexdigest() for name, hasher in hashers.items()}
            self._digests[relative] = known
        return known[algorithm]


# ---------------------------------------------------------------------------------------------
# 1. BagIt
# ---------------------------------------------------------------------------------------------

MANIFEST_NAME = re.compile(r"^(tag)?manifest-([A-Za-z0-9_-]+)\.txt$")
MANIFEST_LINE = re.compile(r"^([0-9A-Fa-f]+)[ \t]+(.+)$")
PERCENT_ESCAPE = re.compile(r"%(0[DdAa]|25)")


def split_tag_file_lines(text: str) -> list[str]:
    """Lines of a tag file; RFC 8493 allows LF, CR LF or CR as the line ending."""
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def decode_manifest_path(text: str) -> str:
    """Undo RFC 8493's percent-encoding of CR (%0D), LF (%0A) and % (%25) in manifest paths."""
    return PERCENT_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def escape_reason(path: str) -> str | None:
    """Why ``path`` would point outside the bag, or None if it stays inside."""
    if path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path):
        return "is an absolute path"
    if ".." in re.split(r"[/\\]", path):
        return "climbs out of its directory with '..'"
    return None


def matching_key(path: str) -> str:
    """Paths are compared in Unicode NFC, so a file system that stores names decomposed (NFD)
    does not make a file look missing."""
    return unicodedata.normalize("NFC", path)


def read_tag_text(bag: Bag, name: str, report: Report) -> str | None:
    path = bag.path(name)
    if not path.is_file():
        report.fail("bagit", name, "is missing")
        return None
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        report.fail("bagit", name, f"is not UTF-8 ({exc})")
        return None


def check_bagit_txt(bag: Bag, report: Report) -> None:
    """bagit.txt must be exactly the two declaration lines (RFC 8493 section 2.1.1)."""
    raw = bag.path("bagit.txt").read_bytes() if bag.path("bagit.txt").is_file() else None
    if raw is not None and raw.startswith(b"\xef\xbb\xbf"):
        report.fail("bagit", "bagit.txt", "starts with a byte-order mark, which RFC 8493 forbids")
    text = read_tag_text(bag, "bagit.txt", report)
    if text is None:
        return
    lines = split_tag_file_lines(text.lstrip("\ufeff"))
    fields = [line.partition(":") for line in lines]
    labels = [label for label, _, _ in fields]
    if labels != ["BagIt-Version", "Tag-File-Character-Encoding"]:
        report.fail(
            "bagit", "bagit.txt",
            f"must hold exactly 'BagIt-Version' then 'Tag-File-Character-Encoding', has {labels}",
        )
        return
    version, encoding = fields[0][2].strip(), fields[1][2].strip()
    if version != "1.0":
        report.fail("bagit", "bagit.txt", f"BagIt-Version is {version!r}, this format uses 1.0")
    if encoding.upper() != "UTF-8":
        report.fail("bagit", "bagit.txt", f"Tag-File-Character-Encoding is {encoding!r}, not UTF-8")


def read_bag_info(bag: Bag, report: Report) -> dict[str, list[str]]:
    """Labels and values of bag-info.txt; a line starting with white space continues a value."""
    text = read_tag_text(bag, "bag-info.txt", report)
    info: dict[str, list[str]] = {}
    if text is None:
        return info
    last_label = None
    for number, line in enumerate(split_tag_file_lines(text), start=1):
        if line[:1] in (" ", "\t") and last_label is not None:
            info[last_label][-1] += " " + line.strip()
            continue
        label, colon, value = line.partition(":")
        if not colon or not label.strip():
            report.fail("bagit", f"bag-info.txt line {number}", "is not a 'Label: value' line")
            continue
        last_label = label.strip()
        info.setdefault(last_label, []).append(value.strip())
    return info


def list_payload_files(bag: Bag, report: Report) -> dict[str, int]:
    """Every regular file under data/, as its bag-relative path -> its size in bytes."""
    files: dict[str, int] = {}
    data = bag.path("data")
    if data.is_symlink():
        report.fail("bagit", "data/", "is a symbolic link; a bundle holds only real files")
        return files
    if not data.is_dir():
        report.fail("bagit", "data/", "the payload directory is missing")
        return files
    folders = [data]
    while folders:
        folder = folders.pop()
        for child in sorted(folder.iterdir()):
            relative = child.relative_to(bag.root).as_posix()
            if child.is_symlink():
                report.fail("bagit", relative, "is a symbolic link; a bundle holds only real files")
            elif child.is_dir():
                folders.append(child)
            elif child.is_file():
                files[relative] = child.stat().st_size
            else:
                report.fail("bagit", relative, "is not a regular file")
    return files


def find_manifests(bag: Bag, report: Report) -> tuple[list[str], list[str]]:
    """Names of the payload manifests and tag manifests whose algorithm hashlib can compute."""
    payload: list[str] = []
    tags: list[str] = []
    for child in sorted(bag.root.iterdir()):
        match = MANIFEST_NAME.match(child.name)
        if not match or not child.is_file():
            continue
        algorithm = match.group(2).lower()
        if not hash_algorithm_available(algorithm):
            report.note(f"{child.name}: this Python cannot compute {algorithm}; not checked")
            continue
        bag.algorithms.add(algorithm)
        (tags if match.group(1) else payload).append(child.name)
    for algorithm in REQUIRED_ALGORITHMS:
        for name in (f"manifest-{algorithm}.txt", f"tagmanifest-{algorithm}.txt"):
            if not bag.path(name).is_file():
                report.fail("bagit", name, "is missing (the format requires SHA-256 and SHA-512)")
    return payload, tags


def manifest_algorithm(name: str) -> str:
    """'sha256' for manifest-sha256.txt or tagmanifest-sha256.txt."""
    return name[: -len(".txt")].split("-", 1)[1].lower()


def read_manifest(bag: Bag, name: str, report: Report) -> dict[str, tuple[str, str]]:
    """A manifest's entries: matching key -> (path as written, decoded; expected hex digest)."""
    algorithm = manifest_algorithm(name)
    digest_length = hashlib.new(algorithm).digest_size * 2
    entries: dict[str, tuple[str, str]] = {}
    text = read_tag_text(bag, name, report)
    if text is None:
        return entries
    for number, line in enumerate(split_tag_file_lines(text), start=1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        match = MANIFEST_LINE.match(line)
        if not match:
            report.fail("bagit", where, "is not '<checksum> <path>'")
            continue
        digest, path = match.group(1).lower(), decode_manifest_path(match.group(2))
        if len(digest) != digest_length:
            report.fail("bagit", where, f"a {algorithm} checksum has {digest_length} hex digits")
            continue
        reason = escape_reason(path)
        if reason:
            report.fail("bagit", where, f"the path {path!r} {reason}; refused")
            continue
        path = posixpath.normpath(path)
        key = matching_key(path)
        if key in entries and entries[key][1] != digest:
            report.fail("bagit", where, f"{path} is listed twice with different checksums")
        entries[key] = (path, digest)
    return entries


def compare_with_manifest(
    bag: Bag, name: str, entries: dict[str, tuple[str, str]], on_disk: dict[str, str],
    report: Report,
) -> set[str]:
    """Check each listed file's digest; return the matching keys of the files that failed."""
    algorithm = manifest_algorithm(name)
    failed: set[str] = set()
    for key, (path, expected) in sorted(entries.items()):
        actual_path = on_disk.get(key)
        if actual_path is None:
            report.fail("bagit", path, f"is listed in {name} but is not in the bundle")
            failed.add(key)
            continue
        actual = bag.digest(actual_path, algorithm)
        if actual != expected:
            report.fail(
                "bagit", path,
                f"{algorithm} in {name} is {expected}, but the file's {algorithm} is {actual}",
            )
            failed.add(key)
    return failed


def check_payload_manifests(
    bag: Bag, names: list[str], payload: dict[str, int], report: Report
) -> None:
    on_disk = {matching_key(path): path for path in payload}
    failed: set[str] = set()
    listed: set[str] = set()
    for name in names:
        entries = read_manifest(bag, name, report)
        for key, (path, _) in sorted(entries.items()):
            if not path.startswith("data/"):
                report.fail("bagit", path, f"is in payload manifest {name}, but not under data/")
                failed.add(key)
        entries = {k: v for k, v in entries.items() if v[0].startswith("data/")}
        failed |= compare_with_manifest(bag, name, entries, on_disk, report)
        for key in sorted(set(on_disk) - set(entries)):
            report.fail("bagit", on_disk[key], f"is in data/ but not listed in {name}")
            failed.add(key)
        listed |= set(entries)
    everything = set(on_disk) | listed
    report.count(
        "payload files", len(everything - failed), len(everything),
        "present and matching " + ", ".join(names) if names else "no payload manifest to check",
    )


def check_tag_manifests(bag: Bag, names: list[str], report: Report) -> None:
    """Tag files must match every tag manifest, and each tag manifest must list the format's
    tag files and every payload manifest (RFC 8493 requires the latter)."""
    required = list(REQUIRED_TAG_FILES) + [
        child.name for child in sorted(bag.root.iterdir())
        if MANIFEST_NAME.match(child.name) and not child.name.startswith("tag")
    ]
    failed: set[str] = set()
    listed: set[str] = set()
    for name in names:
        entries = read_manifest(bag, name, report)
        for key, (path, _) in sorted(entries.items()):
            if path == "data" or path.startswith("data/"):
                report.fail("bagit", path, f"is a payload file, but is in tag manifest {name}")
                failed.add(key)
        entries = {k: v for k, v in entries.items() if not v[0].startswith("data/")}
        existing = {key: path for key, (path, _) in entries.items() if bag.path(path).is_file()}
        failed |= compare_with_manifest(bag, name, entries, existing, report)
        for required_name in required:
            if matching_key(required_name) not in entries:
                report.fail("bagit", required_name, f"is not listed in {name}")
                failed.add(matching_key(required_name))
        listed |= set(entries)
    for required_name in ("VERIFY.md", "verify_bundle.py"):  # the others are reported above
        if not bag.path(required_name).is_file():
            report.fail("bagit", required_name, "is missing from the bundle")
    for child in sorted(bag.root.iterdir()):
        if child.name != "data" and not child.name.startswith("tagmanifest-") and \
                matching_key(child.name) not in listed:
            report.note(f"{child.name} is outside data/ and in no tag manifest, so nothing "
                        "here vouches for it")
    report.count(
        "tag files", len(listed - failed), len(listed | failed),
        "matching " + ", ".join(names) if names else "no tag manifest to check",
    )


def check_payload_oxum(info: dict[str, list[str]], payload: dict[str, int], report: Report) -> None:
    """Payload-Oxum is "<total bytes>.<number of files>" of everything under data/."""
    values = info.get("Payload-Oxum", [])
    if len(values) != 1:
        report.fail("bagit", "bag-info.txt", f"must have one Payload-Oxum, has {len(values)}")
        return
    match = re.match(r"^(\d+)\.(\d+)$", values[0])
    if not match:
        report.fail("bagit", "bag-info.txt", f"Payload-Oxum {values[0]!r} is not 'octets.files'")
        return
    octets, count = int(match.group(1)), int(match.group(2))
    actual_octets, actual_count = sum(payload.values()), len(payload)
    if (octets, count) != (actual_octets, actual_count):
        report.fail(
            "bagit", "bag-info.txt",
            f"Payload-Oxum says {octets} bytes in {count} files, data/ holds "
            f"{actual_octets} bytes in {actual_count} files",
        )


def check_bag(bag: Bag, report: Report) -> tuple[dict[str, list[str]], dict[str, int]]:
    """Step 1: the BagIt bag itself. Returns bag-info.txt's fields and the files under data/
    (with their sizes) for later steps."""
    check_bagit_txt(bag, report)
    info = read_bag_info(bag, report)
    payload = list_payload_files(bag, report)
    payload_manifests, tag_manifests = find_manifests(bag, report)
    check_payload_manifests(bag, payload_manifests, payload, report)
    check_tag_manifests(bag, tag_manifests, report)
    check_payload_oxum(info, payload, report)
    return info, payload


# ---------------------------------------------------------------------------------------------
# 2. The custody log
# ---------------------------------------------------------------------------------------------


class CustodyLog(NamedTuple):
    lines: list[bytes]  # each line's bytes, without its newline
    entries: list[dict[str, object] | None]  # the parsed entry, or None if it did not parse
    leaves: list[bytes]  # leaf hash of each line
    case_id: str | None  # the case id of entry 0
    first_records: dict[tuple[int, str], int]  # (item id, sha256) -> first entry listing it


def first_records(entries: list[dict[str, object] | None]) -> dict[tuple[int, str], int]:
    """For each (item id, sha256) recorded in the log, the first entry that records it."""
    first: dict[tuple[int, str], int] = {}
    for index, entry in enumerate(entries):
        records = entry.get("items") if entry is not None else None
        for record in records if isinstance(records, list) else []:
            item_id = as_count(record.get("id")) if isinstance(record, dict) else None
            sha256 = hex_digest_or_none(record.get("sha256")) if isinstance(record, dict) else None
            if item_id is not None and sha256 is not None:
                first.setdefault((item_id, sha256), index)
    return first


def read_log_lines(bag: Bag, report: Report) -> list[bytes] | None:
    where = f"{CUSTODY}/log.jsonl"
    path = bag.path(where)
    if not path.is_file():
        report.fail("log", where, "is missing")
        return None
    data = path.read_bytes()
    if not data:
        return []
    if not data.endswith(b"\n"):
        report.fail("log", where, "the last line does not end with a newline")
        data += b"\n"
    return data[:-1].split(b"\n")


def entry_place(index: int) -> str:
    return f"log.jsonl line {index + 1} (entry {index})"


def check_entry_items(entry: dict[str, object], where: str, report: Report) -> None:
    items = entry.get("items")
    if not isinstance(items, list):
        report.fail("log", where, "'items' is missing or not a list")
        return
    for position, item in enumerate(items):
        record = as_object(item)
        if record is None or not is_count(record.get("id")) or \
                hex_digest_or_none(record.get("sha256")) is None:
            report.fail("log", where, f"items[{position}] lacks an integer id and a sha256")


def check_log(bag: Bag, report: Report) -> CustodyLog | None:
    """Step 2: each line canonical, seq = index, one case id, times never going backwards."""
    lines = read_log_lines(bag, report)
    if lines is None:
        return None
    entries: list[dict[str, object] | None] = []
    case_id: str | None = None
    previous_time: tuple[tuple[int, ...], int] | None = None
    passed = 0
    for index, line in enumerate(lines):
        where = entry_place(index)
        before = len(report.failures)
        try:
            entry = as_object(parse_canonical(line))
            if entry is None:
                report.fail("log", where, "is not a JSON object")
        except ValueError as exc:  # includes NotCanonical, bad JSON and bad UTF-8
            report.fail("log", where, f"{exc}")
            entry = None
        entries.append(entry)
        if entry is not None:
            seq = entry.get("seq")
            if not is_count(seq) or seq != index:
                report.fail("log", where, f"seq is {seq!r}, expected {index}")
            entry_case = entry.get("case_id")
            if index == 0 and isinstance(entry_case, str):
                case_id = entry_case
            if not isinstance(entry_case, str) or entry_case != case_id:
                report.fail("log", where, f"case_id is {entry_case!r}, entry 0 has {case_id!r}")
            time_key = utc_time_key(entry.get("time"))
            if time_key is None:
                report.fail("log", where, f"time {entry.get('time')!r} is not a UTC time "
                                          "like 2026-11-29T23:25:06.123456Z")
            elif previous_time is not None and time_key < previous_time[0]:
                report.fail("log", where, f"time {entry.get('time')} is earlier than the time "
                                          f"of entry {previous_time[1]}")
            if time_key is not None:
                previous_time = (time_key, index)
            check_entry_items(entry, where, report)
        if len(report.failures) == before:
            passed += 1
    report.count("log entries", passed, len(lines),
                 "canonical JSON, seq = line index, one case id, times in order")
    leaves = [leaf_hash(line) for line in lines]
    return CustodyLog(lines, entries, leaves, case_id, first_records(entries))


# ---------------------------------------------------------------------------------------------
# 3 and 4. Checkpoints
# ---------------------------------------------------------------------------------------------


class Checkpoint(NamedTuple):
    where: str
    raw: bytes  # as read from the file
    fields: dict[str, object]
    root: bytes | None  # the root it signs, if well formed
    tree_size: int | None
    time_key: tuple[int, ...] | None
    signature_ok: bool


def signed_message(checkpoint: dict[str, object]) -> bytes:
    """The bytes the case key signs: canonical JSON of the five signed fields only."""
    return canonical_json({name: checkpoint[name] for name in SIGNED_FIELDS})


def load_public_key(bag: Bag, report: Report) -> bytes | None:
    where = f"{CUSTODY}/public_key.pem"
    path = bag.path(where)
    if not path.is_file():
        report.fail("checkpoint", where, "is missing")
        return None
    try:
        key = public_key_from_pem(path.read_text(encoding="ascii"))
    except (ValueError, UnicodeDecodeError) as exc:
        report.fail("checkpoint", where, f"cannot be read: {exc}")
        return None
    if path.read_bytes() != standard_pem(key):
        report.fail("checkpoint", where, "holds more than the key's one PEM block in its "
                                         "standard form: nothing vouches for the other bytes")
    return key


def standard_pem(key: bytes) -> bytes:
    """The one way casebuilder (and OpenSSL) writes an Ed25519 public key as PEM."""
    body = base64.b64encode(ED25519_SPKI_PREFIX + key).decode("ascii")
    return f"-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----\n".encode("ascii")


ROTATION_ACTION = "key-rotation"
ROTATION_TYPE = "casebuilder-key-rotation/v1"


class KeySchedule(NamedTuple):
    """Which key signs the checkpoints over each prefix of the log.

    A case may be given a new key: a "key-rotation" entry carries the old and the new public
    key and the old key's signature approving the new one. A checkpoint over n entries is
    signed by the key in force after entries 0..n-1: the first key (the old key of the first
    rotation, or public_key.pem when the log has none), then each rotation's new key."""

    pem: bytes | None  # public_key.pem's key
    first: bytes | None
    rotations: list[tuple[int, bytes]]  # (entry index, the new key from then on)

    def key_for(self, tree_size: int) -> bytes | None:
        key = self.first
        for index, new_key in self.rotations:
            if index < tree_size:
                key = new_key
        return key


def rotation_statement(case_id: object, old_digest: object, new_key: bytes) -> bytes:
    """What the old key signs to approve the new one: canonical JSON of five fields."""
    return canonical_json({
        "case_id": case_id,
        "new_public_key": base64.b64encode(new_key).decode("ascii"),
        "new_public_key_sha256": hashlib.sha256(new_key).hexdigest(),
        "old_public_key_sha256": old_digest,
        "type": ROTATION_TYPE,
    })


def read_key_schedule(log: CustodyLog | None, pem: bytes | None,
                      report: Report) -> KeySchedule:
    """The key schedule of the log: each rotation must hand on the key in force, approved by
    its signature; the first key must be the one the log's first ("init") entry names."""
    rotations = [(index, entry) for index, entry in enumerate(log.entries if log else [])
                 if entry is not None and entry.get("action") == ROTATION_ACTION]
    if not rotations:
        return KeySchedule(pem, pem, [])
    first = decode_base64(entry_details(rotations[0][1]).get("old_public_key"))
    in_force, schedule = first, []
    for index, entry in rotations:
        new_key = check_rotation(index, entry, in_force, log, report)
        if new_key is None:
            break  # which key signs what after a broken rotation is unknown: later ones fail
        schedule.append((index, new_key))
        in_force = new_key
    init = log.entries[0] if log and log.entries else None
    named = entry_details(init).get("public_key_sha256") if init is not None else None
    if first is not None and named != hashlib.sha256(first).hexdigest():
        report.fail("keys", entry_place(0), f"names the case's first key {named!r}, but the "
                                            "first key rotation starts from another key")
    return KeySchedule(pem, first, schedule)


def check_rotation(index: int, entry: dict[str, object], in_force: bytes | None,
                   log: CustodyLog | None, report: Report) -> bytes | None:
    """One rotation entry: its new key if it hands on the key in force with that key's
    approval, else None (reported)."""
    where = entry_place(index)
    details = entry_details(entry)
    old, new = decode_base64(details.get("old_public_key")), \
        decode_base64(details.get("new_public_key"))
    signature = decode_base64(details.get("signature"))
    if old is None or new is None or len(old) != 32 or len(new) != 32 or signature is None:
        report.fail("keys", where, "a key rotation without two 32-byte keys and a signature")
        return None
    problems = []
    if old != in_force:
        problems.append("it rotates from a key that is not the key in force")
    if details.get("old_public_key_sha256") != hashlib.sha256(old).hexdigest() or \
            details.get("new_public_key_sha256") != hashlib.sha256(new).hexdigest():
        problems.append("a key's SHA-256 is not the digest the entry gives")
    statement = rotation_statement(log.case_id if log else None,
                                   details.get("old_public_key_sha256"), new)
    if not ed25519_verify(old, statement, signature):
        problems.append("the old key's signature over the rotation statement does not verify")
    for problem in problems:
        report.fail("keys", where, f"key rotation: {problem}")
    if problems:
        return None
    report.note(f"{where}: the case key was rotated from {hashlib.sha256(old).hexdigest()} to "
                f"{hashlib.sha256(new).hexdigest()}, approved by the old key "
                f"(reason: {details.get('reason')!r})")
    return new


def check_pem_is_key_in_force(keys: KeySchedule, latest: Checkpoint | None,
                              report: Report) -> None:
    """With rotations in the log, public_key.pem must be the key that signed checkpoint.json."""
    if not keys.rotations or latest is None or latest.tree_size is None:
        return
    in_force = keys.key_for(latest.tree_size)
    if in_force != keys.pem:
        report.fail("checkpoint", f"{CUSTODY}/public_key.pem",
                    "is not the key the log's key rotations put in force for checkpoint.json "
                    f"({hashlib.sha256(in_force or b'').hexdigest()})")


def check_checkpoint_fields(fields: dict[str, object], where: str, report: Report) -> bool:
    """Are the fields present and of the right kind, so the signed message can be formed?"""
    ok = True
    missing = [name for name in (*SIGNED_FIELDS, "public_key_sha256", "signature")
               if name not in fields]
    if missing:
        report.fail("checkpoint", where, f"lacks the field(s) {', '.join(missing)}")
        ok = False
    if "case_id" in fields and not isinstance(fields["case_id"], str):
        report.fail("checkpoint", where, f"case_id {fields['case_id']!r} is not a string")
        ok = False
    if fields.get("type", CHECKPOINT_TYPE) != CHECKPOINT_TYPE:
        report.fail("checkpoint", where, f"type is {fields.get('type')!r}, not {CHECKPOINT_TYPE}")
    if "root" in fields and hex_digest_or_none(fields["root"]) is None:
        report.fail("checkpoint", where, f"root {fields['root']!r} is not a hex SHA-256")
        ok = False
    if "tree_size" in fields and not is_count(fields["tree_size"]):
        report.fail("checkpoint", where, f"tree_size {fields['tree_size']!r} is not a count")
        ok = False
    if "time" in fields and utc_time_key(fields["time"]) is None:
        report.fail("checkpoint", where, f"time {fields['time']!r} is not a UTC ...Z time")
    return ok


def check_checkpoint_signature(
    fields: dict[str, object], where: str, keys: KeySchedule, report: Report
) -> bool:
    """Is the key digest right and does the Ed25519 signature verify over the signed fields,
    with the key in force for the checkpoint's size?"""
    size = as_count(fields.get("tree_size")) or 0
    public_key = keys.key_for(size)
    if public_key is None:
        report.fail("checkpoint", where, "signature cannot be checked: no usable public key")
        return False
    from_pem = public_key == keys.pem
    named = "public_key.pem's key" if from_pem else \
        f"the key the log's rotations put in force for {size} entries"
    key_digest = hashlib.sha256(public_key).hexdigest()
    claimed = hex_digest_or_none(fields.get("public_key_sha256"))
    if claimed != key_digest:
        report.fail("checkpoint", where, f"public_key_sha256 is {fields.get('public_key_sha256')}"
                                         f", but {named} has SHA-256 {key_digest}")
    signature = decode_base64(fields.get("signature"))
    if signature is None or len(signature) != 64:
        report.fail("checkpoint", where, "signature is not 64 bytes of base64")
        return False
    if not ed25519_verify(public_key, signed_message(fields), signature):
        report.fail("checkpoint", where,
                    f"Ed25519 signature does not verify with "
                    f"{'public_key.pem' if from_pem else named} over {', '.join(SIGNED_FIELDS)}")
        return False
    return claimed == key_digest


CHECKPOINT_FIELDS = (*SIGNED_FIELDS, "public_key_sha256", "signature", "timestamp_token")


def read_checkpoint(raw: bytes, where: str, keys: KeySchedule,
                    report: Report, canonical: bool = False) -> Checkpoint | None:
    """Parse one checkpoint, check its fields, key digest and signature. A line of
    checkpoints.jsonl must also be canonical JSON, as casebuilder writes it (``canonical``)."""
    try:
        fields = as_object(parse_canonical(raw) if canonical else parse_json(raw))
    except ValueError as exc:
        report.fail("checkpoint", where, f"is not valid JSON: {exc}" if not canonical else
                    f"is not a checkpoint in canonical JSON: {exc}")
        return None
    if fields is None:
        report.fail("checkpoint", where, "is not a JSON object")
        return None
    unknown = sorted(set(fields) - set(CHECKPOINT_FIELDS))
    if unknown:
        report.fail("checkpoint", where, f"holds the field(s) {', '.join(unknown)}, which no "
                                         "checkpoint has: nothing signs them")
    if not check_checkpoint_fields(fields, where, report):
        return Checkpoint(where, raw, fields, None, None, None, False)
    signature_ok = check_checkpoint_signature(fields, where, keys, report)
    root = hex_digest_or_none(fields["root"]) or ""
    return Checkpoint(where, raw, fields, bytes.fromhex(root), as_count(fields["tree_size"]),
                      utc_time_key(fields["time"]), signature_ok)


def check_case_id(checkpoint: Checkpoint, log: CustodyLog | None, report: Report) -> None:
    if log is None or log.case_id is None:
        return
    case_id = checkpoint.fields.get("case_id")
    if case_id != log.case_id:
        report.fail("checkpoint", checkpoint.where,
                    f"case_id is {case_id!r}, the log's is {log.case_id!r}")


def check_latest_checkpoint(bag: Bag, log: CustodyLog | None, keys: KeySchedule,
                            report: Report, window: float) -> Checkpoint | None:
    """Step 3: checkpoint.json signs the root of exactly the lines in log.jsonl."""
    where = f"{CUSTODY}/checkpoint.json"
    if not bag.path(where).is_file():
        report.fail("checkpoint", where, "is missing")
        return None
    checkpoint = read_checkpoint(bag.path(where).read_bytes(), where, keys, report)
    if checkpoint is None:
        return None
    check_case_id(checkpoint, log, report)
    if log is not None and checkpoint.root is not None and checkpoint.tree_size is not None:
        compare_with_log(checkpoint.where, checkpoint.root, checkpoint.tree_size, log, report)
    check_timestamp(bag, checkpoint, report, token_file=TOKEN_FILE, window=window)
    return checkpoint


def compare_with_log(where: str, root: bytes, size: int, log: CustodyLog,
                     report: Report) -> None:
    """The signed root and size must be those of every line of log.jsonl."""
    lines = len(log.lines)
    if size != lines:
        report.fail("checkpoint", where, f"tree_size is {size}, but log.jsonl has {lines} lines")
    actual = merkle_root(log.leaves)
    if actual != root:
        report.fail("checkpoint", where, f"root is {root.hex()}, but the Merkle root of the "
                                         f"{lines} log lines is {actual.hex()}")
    if size < lines and merkle_root(log.leaves[:size]) == root:
        extra = f"line {lines} is" if lines == size + 1 else f"lines {size + 1} to {lines} are"
        report.note(f"the first {size} log lines do match the signed root; {extra} not "
                    "covered by it")


def read_checkpoint_lines(bag: Bag, report: Report) -> list[bytes] | None:
    """The lines of checkpoints.jsonl: each a checkpoint ending in a newline, nothing else."""
    where_file = f"{CUSTODY}/checkpoints.jsonl"
    path = bag.path(where_file)
    if not path.is_file():
        report.fail("checkpoints", where_file, "is missing")
        return None
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        report.fail("checkpoints", where_file, "the last line does not end with a newline")
        data += b"\n"
    lines = data[:-1].split(b"\n") if data else []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            report.fail("checkpoints", f"checkpoints.jsonl line {number}",
                        "is blank: the file holds one checkpoint per line and nothing else")
    return lines


def check_earlier_checkpoints(bag: Bag, log: CustodyLog | None, keys: KeySchedule,
                              latest: Checkpoint | None, report: Report,
                              window: float) -> list[Checkpoint]:
    """Step 4: every checkpoint so far, same key, roots of log prefixes, never going back,
    the last one being checkpoint.json. Returns them in order (the lines that could be read)."""
    history: list[Checkpoint] = []
    for number, raw in enumerate(read_checkpoint_lines(bag, report) or [], start=1):
        if not raw.strip():
            continue
        checkpoint = read_checkpoint(raw, f"checkpoints.jsonl line {number}", keys,
                                     report, canonical=True)
        if checkpoint is not None:
            check_case_id(checkpoint, log, report)
            check_timestamp(bag, checkpoint, report, token_file=None, window=window)
            history.append(checkpoint)
    if log is not None:
        check_prefix_roots(history, log, report)
    if latest is not None and not repeats_last(history, latest):
        report.fail("checkpoints", f"{CUSTODY}/checkpoints.jsonl",
                    "its last line is not the checkpoint of checkpoint.json: the bundle "
                    "carries every checkpoint up to its own, its own being the last")
    sequence = history + ([latest] if latest is not None and not repeats_last(history, latest)
                          and not (history and history[-1].tree_size == latest.tree_size)
                          else [])
    check_never_backwards(sequence, report)
    if log is not None:
        check_entries_not_after_checkpoints(log, sequence, report)
    verified = sum(1 for c in sequence if c.signature_ok)
    report.count("checkpoints", verified, len(sequence),
                 "signed by the case key; checkpoint.json and every line of checkpoints.jsonl")
    return history


def check_checkpoint_count(history: list[Checkpoint], own: OwnEntry | None,
                           report: Report) -> None:
    """Format 2: the bundle carries the log up to the first checkpoint that signs its own
    entry, and the entry (signed) states how many checkpoints came before it. So
    checkpoints.jsonl holds exactly that many lines not covering the entry, then one line, the
    last, that does: a line removed, or the entry of another bundle named, shows here."""
    if own is None or own.version < 2:
        return
    where = f"{CUSTODY}/checkpoints.jsonl"
    stated = as_count(own.details.get("checkpoints_before"))
    if stated is None:
        report.fail("checkpoints", own.place, "a format 2 bundle entry must state "
                                              "checkpoints_before; this one does not")
        return
    sizes = [c.tree_size for c in history if c.tree_size is not None]
    before = [size for size in sizes if size <= own.seq]
    signing = [size for size in sizes if size > own.seq]
    if len(before) != stated:
        report.fail("checkpoints", where,
                    f"holds {len(before)} checkpoint(s) signed before the bundle's own entry, "
                    f"but {own.place}, which is signed, counted {stated}: "
                    + ("a checkpoint line was removed" if len(before) < stated else
                       "lines were added, or bag-info.txt names another bundle's entry"))
    if len(signing) != 1:
        report.fail("checkpoints", where,
                    f"holds {len(signing)} checkpoint(s) that sign the bundle's own entry "
                    f"({own.place}); a bundle carries the log up to the first one only, so "
                    "there must be exactly one, its last line: "
                    + ("bag-info.txt names another (earlier) bundle's entry" if signing else
                       "the bundle's own checkpoint is missing"))


def repeats_last(history: list[Checkpoint], latest: Checkpoint) -> bool:
    """Is checkpoint.json the same checkpoint as the last line of checkpoints.jsonl?"""
    if not history:
        return False
    last = history[-1].fields
    return all(last.get(name) == latest.fields.get(name) for name in CHECKPOINT_FIELDS)


def check_prefix_roots(history: list[Checkpoint], log: CustodyLog, report: Report) -> None:
    sizes = [c.tree_size for c in history if c.tree_size is not None]
    roots = prefix_roots(log.leaves, sizes)
    for checkpoint in history:
        if checkpoint.tree_size is None or checkpoint.root is None:
            continue
        actual = roots.get(checkpoint.tree_size)
        if actual is None:
            report.fail("checkpoints", checkpoint.where,
                        f"covers {checkpoint.tree_size} entries, but the log has only "
                        f"{len(log.lines)}")
        elif actual != checkpoint.root:
            report.fail("checkpoints", checkpoint.where,
                        f"root is {checkpoint.root.hex()}, but the root of the first "
                        f"{checkpoint.tree_size} log lines is {actual.hex()}")


def check_never_backwards(sequence: list[Checkpoint], report: Report) -> None:
    for position in range(1, len(sequence)):
        earlier, later = sequence[position - 1], sequence[position]
        if earlier.tree_size is not None and later.tree_size is not None and \
                later.tree_size < earlier.tree_size:
            report.fail("checkpoints", later.where,
                        f"tree_size {later.tree_size} is smaller than {earlier.tree_size} "
                        f"in {earlier.where}")
        elif earlier.tree_size is not None and later.tree_size == earlier.tree_size:
            report.fail("checkpoints", later.where,
                        f"tree_size {later.tree_size} repeats that of {earlier.where}: a "
                        "checkpoint is signed only when the log has grown, so a line was copied")
        if earlier.time_key is not None and later.time_key is not None and \
                later.time_key < earlier.time_key:
            report.fail("checkpoints", later.where,
                        f"time {later.fields.get('time')} is earlier than "
                        f"{earlier.fields.get('time')} in {earlier.where}")


# ---------------------------------------------------------------------------------------------
# RFC 3161 time-stamp tokens: what the standard library can and cannot check
# ---------------------------------------------------------------------------------------------

OID_SIGNED_DATA = bytes.fromhex("2a864886f70d010702")  # 1.2.840.113549.1.7.2
OID_TST_INFO = bytes.fromhex("2a864886f70d0109100104")  # 1.2.840.113549.1.9.16.1.4
OID_SHA256 = bytes.fromhex("608648016503040201")  # 2.16.840.1.101.3.4.2.1


def der_children(data: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    """The (tag, content start, content end) of each DER element between start and end."""
    elements = []
    position = start
    while position < end:
        tag = data[position]
        if tag & 0x1F == 0x1F or position + 2 > end:
            raise ValueError("unexpected DER tag or truncated element")
        length = data[position + 1]
        position += 2
        if length & 0x80:
            octets = length & 0x7F
            if octets == 0 or octets > 4 or position + octets > end:
                raise ValueError("indefinite or impossible DER length")
            length = int.from_bytes(data[position : position + octets], "big")
            position += octets
        if position + length > end:
            raise ValueError("truncated DER element")
        elements.append((tag, position, position + length))
        position += length
    return elements


def _children_of(
    data: bytes, element: tuple[int, int, int], tag: int
) -> list[tuple[int, int, int]]:
    """The elements inside ``element``, which must have the DER tag ``tag``."""
    if element[0] != tag:
        raise ValueError(f"expected DER tag {tag:#04x}, found {element[0]:#04x}")
    return der_children(data, element[1], element[2])


def read_timestamp_token(token: bytes) -> tuple[bytes, bytes, str]:
    """(hash algorithm OID, hashed message, genTime) from a TimeStampToken's TSTInfo.

    This only reads the structure (ContentInfo -> SignedData -> encapContentInfo -> TSTInfo);
    it does NOT check the authority's signature, which needs a CMS implementation.
    """
    top = der_children(token, 0, len(token))
    if len(top) != 1:
        raise ValueError("not a single DER element")
    content_info = _children_of(token, top[0], 0x30)
    if token[content_info[0][1] : content_info[0][2]] != OID_SIGNED_DATA:
        raise ValueError("not a CMS SignedData")
    signed_data = _children_of(token, _children_of(token, content_info[1], 0xA0)[0], 0x30)
    encapsulated = _children_of(token, signed_data[2], 0x30)
    if token[encapsulated[0][1] : encapsulated[0][2]] != OID_TST_INFO:
        raise ValueError("does not encapsulate a TSTInfo")
    octets = _children_of(token, encapsulated[1], 0xA0)[0]
    if octets[0] != 0x04:
        raise ValueError("TSTInfo is not in an OCTET STRING")
    tst_info = _children_of(token, der_children(token, octets[1], octets[2])[0], 0x30)
    imprint = _children_of(token, tst_info[2], 0x30)
    algorithm = _children_of(token, imprint[0], 0x30)[0]
    hashed = imprint[1]
    gen_time = tst_info[4]
    if algorithm[0] != 0x06 or hashed[0] != 0x04 or gen_time[0] != 0x18:
        raise ValueError("TSTInfo fields are not where RFC 3161 puts them")
    return (
        token[algorithm[1] : algorithm[2]],
        token[hashed[1] : hashed[2]],
        token[gen_time[1] : gen_time[2]].decode("ascii", "replace"),
    )


def check_timestamp(bag: Bag, checkpoint: Checkpoint, report: Report,
                    token_file: str | None, window: float) -> None:
    """If the checkpoint carries an RFC 3161 token: check what the stdlib can, explain the rest.
    ``window`` is how many seconds after the checkpoint's time the token's genTime may be."""
    encoded = checkpoint.fields.get("timestamp_token")
    if encoded is None:
        if token_file is not None and bag.path(token_file).exists():
            report.fail("timestamp", token_file,
                        "exists, but checkpoint.json has no timestamp_token it could belong to")
        return
    token = decode_base64(encoded)
    if not token:
        report.fail("timestamp", checkpoint.where, "timestamp_token is not valid base64")
        return
    try:
        message = signed_message(checkpoint.fields)
    except KeyError:
        return  # already reported as a missing field
    digest = hashlib.sha256(message).digest()
    try:
        algorithm, hashed, gen_time = read_timestamp_token(token)
    except (ValueError, IndexError) as exc:
        report.fail("timestamp", checkpoint.where,
                    f"timestamp_token is not a well-formed RFC 3161 token ({exc})")
        return
    if algorithm != OID_SHA256 or hashed != digest:
        report.fail("timestamp", checkpoint.where,
                    f"timestamp_token time-stamps {hashed.hex()}, not the SHA-256 of the "
                    f"signed checkpoint fields, {digest.hex()}")
    check_gen_time(checkpoint, gen_time, window, report)
    if token_file is None:
        return
    if not bag.path(token_file).is_file():
        report.fail("timestamp", token_file, "is missing, though checkpoint.json has a token")
    elif bag.path(token_file).read_bytes() != token:
        report.fail("timestamp", token_file, "is not the same token as checkpoint.json's "
                                             "timestamp_token")
    report.note(
        f"checkpoint.json carries an RFC 3161 time-stamp token; the token states genTime "
        f"{gen_time}.",
        "Its message imprint was checked, but this script cannot verify the time-stamp",
        "authority's CMS signature. Get the authority's CA certificate from the authority",
        "(not from this bundle), save it as TSA_CA.pem and run in the bundle directory:",
        f"  openssl ts -verify -digest {digest.hex()} -in {token_file} -token_in "
        "-CAfile TSA_CA.pem",
    )


#: A token may state a genTime this many seconds before its checkpoint's time: the case's
#: clock and the authority's are never quite the same.
CLOCK_SKEW_SECONDS = 300
#: The default for how long after its checkpoint's time a token's genTime may be
#: (--timestamp-window). casebuilder asks for the token as it signs the checkpoint, so the
#: genTime is seconds later; one that is days later is what a checkpoint back-dated and
#: time-stamped afterwards looks like.
DEFAULT_WINDOW_HOURS = 24.0
GEN_TIME_PATTERN = re.compile(r"^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d+))?Z$")


def moment(key: tuple[int, ...]) -> datetime.datetime:
    """The UTC moment of a time key (nanoseconds cut to microseconds)."""
    year, month, day, hour, minute, second, nanoseconds = key
    return datetime.datetime(year, month, day, hour, minute, min(second, 59),
                             nanoseconds // 1000, tzinfo=datetime.timezone.utc)  # noqa: UP017 (3.8)


def gen_time_key(text: str) -> tuple[int, ...] | None:
    """A time key for an RFC 3161 genTime (GeneralizedTime, UTC: YYYYMMDDHHMMSS[.f]Z)."""
    match = GEN_TIME_PATTERN.match(text)
    if not match:
        return None
    fraction = (match.group(7) or "")[:9].ljust(9, "0")
    return (*(int(g) for g in match.groups()[:6]), int(fraction))


def span(seconds: float) -> str:
    """A number of seconds as days, hours, minutes and seconds."""
    return str(datetime.timedelta(seconds=round(seconds)))


def check_gen_time(checkpoint: Checkpoint, gen_time: str, window: float,
                   report: Report) -> None:
    """genTime must not be before the checkpoint's time (beyond the clock-skew allowance) nor
    more than ``window`` seconds after it."""
    stated, stamped = checkpoint.time_key, gen_time_key(gen_time)
    if stated is None:
        return  # the malformed time is already reported
    if stamped is None:
        report.fail("timestamp", checkpoint.where, f"the token's genTime {gen_time!r} is not a "
                                                   "UTC GeneralizedTime")
        return
    delay = (moment(stamped) - moment(stated)).total_seconds()
    if delay < -CLOCK_SKEW_SECONDS:
        report.fail("timestamp", checkpoint.where,
                    f"the token's genTime {gen_time} is {span(-delay)} before the checkpoint's "
                    f"time {checkpoint.fields.get('time')} (more than the "
                    f"{span(CLOCK_SKEW_SECONDS)} allowed for clock skew): the checkpoint states "
                    "a time later than when the authority saw it")
    elif delay > window:
        report.fail("timestamp", checkpoint.where,
                    f"the token's genTime {gen_time} is {span(delay)} after the checkpoint's "
                    f"time {checkpoint.fields.get('time')} (more than the {span(window)} "
                    "allowed): casebuilder stamps a checkpoint as it signs it, so this one was "
                    "stamped long after the time it states, as a back-dated checkpoint would be")


def check_entries_not_after_checkpoints(log: CustodyLog, sequence: list[Checkpoint],
                                        report: Report) -> None:
    """No entry is dated after the first checkpoint that signs it: casebuilder signs what it
    has written, so a later entry time was moved forward, or the checkpoint back-dated."""
    start = 0
    for checkpoint in sequence:
        size, stated = checkpoint.tree_size, checkpoint.time_key
        if size is None or stated is None or size <= start:
            continue
        late = [index for index in range(start, min(size, len(log.entries)))
                if (utc_time_key((log.entries[index] or {}).get("time")) or ()) > stated]
        for index in late[:LATE_ENTRIES_SHOWN]:
            report.fail("log", entry_place(index),
                        f"time {(log.entries[index] or {}).get('time')} is after the time of "
                        f"{checkpoint.where} ({checkpoint.fields.get('time')}), the first "
                        "checkpoint that signs it: the entry's time was moved forward or the "
                        "checkpoint was back-dated")
        if len(late) > LATE_ENTRIES_SHOWN:
            report.fail("log", checkpoint.where, f"{len(late) - LATE_ENTRIES_SHOWN} more "
                                                 "entries it first signs are dated after it")
        start = size


LATE_ENTRIES_SHOWN = 10


# ---------------------------------------------------------------------------------------------
# 5. Items and their inclusion proofs
# ---------------------------------------------------------------------------------------------


def item_order(path: Path) -> tuple[int, int, str]:
    """Item directories in numeric order (2 before 10), anything else after them."""
    if re.match(r"^[0-9]+$", path.name):
        return (0, int(path.name), "")
    return (1, 0, path.name)


def read_json_file(path: Path, where: str, check: str, report: Report) -> dict[str, object] | None:
    if not path.is_file():
        report.fail(check, where, "is missing")
        return None
    try:
        value = as_object(parse_json(path.read_bytes()))
    except ValueError as exc:
        report.fail(check, where, f"is not valid JSON: {exc}")
        return None
    if value is None:
        report.fail(check, where, "is not a JSON object")
    return value


def check_item_file(bag: Bag, item_dir: str, item: dict[str, object], report: Report) -> None:
    """item.json's sha256, sha512 and size must be those of the stored file."""
    where = f"{item_dir}/item.json"
    name = item.get("file")
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or \
            name in (".", "..", "item.json"):
        report.fail("item", where, f"'file' {name!r} is not a file name in {item_dir}/")
        return
    stored = f"{item_dir}/{name}"
    if not bag.path(stored).is_file():
        report.fail("item", stored, "the item's stored file is missing")
        return
    for algorithm in REQUIRED_ALGORITHMS:
        expected = item.get(algorithm)
        actual = bag.digest(stored, algorithm)
        if not isinstance(expected, str) or expected.lower() != actual:
            report.fail("item", stored, f"{algorithm} in item.json is {expected}, "
                                        f"the file's is {actual}")
    size = bag.path(stored).stat().st_size
    if item.get("size") != size:
        report.fail("item", stored, f"size in item.json is {item.get('size')!r}, "
                                    f"the file has {size} bytes")


def lists_item(
    entry: dict[str, object] | None, item_id: object, sha256: str
) -> dict[str, object] | None:
    """The record in ``entry['items']`` for this item with this sha256, if there is one."""
    records = entry.get("items") if entry is not None else None
    if not isinstance(records, list):
        return None
    for record in records:
        if isinstance(record, dict) and record.get("id") == item_id and \
                isinstance(record.get("sha256"), str) and record["sha256"].lower() == sha256:
            return record
    return None


PROOF_FIELDS = ("item", "sha256", "entry_index", "leaf_hash", "tree_size", "root", "proof")


def check_proof(proof: dict[str, object], where: str, item: dict[str, object],
                log: CustodyLog | None, checkpoint: Checkpoint | None, report: Report) -> None:
    """The proof's entry records the item, and its audit path leads to the checkpoint's root."""
    item_id, sha256 = item.get("id"), hex_digest_or_none(item.get("sha256"))
    unknown = sorted(set(proof) - set(PROOF_FIELDS))
    if unknown:
        report.fail("proof", where, f"holds the field(s) {', '.join(unknown)}, which no proof "
                                    "has: nothing vouches for them")
    if proof.get("item") != item_id:
        report.fail("proof", where, f"item is {proof.get('item')!r}, expected {item_id!r}")
    if sha256 is None or hex_digest_or_none(proof.get("sha256")) != sha256:
        report.fail("proof", where, f"sha256 is {proof.get('sha256')}, item.json has "
                                    f"{item.get('sha256')}")
    if log is None:
        report.fail("proof", where, "cannot be checked: the custody log is unreadable")
        return
    index = as_count(proof.get("entry_index"))
    if index is None or index >= len(log.lines):
        report.fail("proof", where, f"entry_index {proof.get('entry_index')!r} is not a line "
                                    f"of log.jsonl (0 to {len(log.lines) - 1})")
        return
    check_entry_records_item(proof, where, item, index, log, report)
    leaf = log.leaves[index]
    if hex_digest_or_none(proof.get("leaf_hash")) != leaf.hex():
        report.fail("proof", where, f"leaf_hash is {proof.get('leaf_hash')}, but log line "
                                    f"{index + 1} (entry {index}) hashes to {leaf.hex()}")
    check_audit_path(proof, where, leaf, index, checkpoint, report)


def check_entry_records_item(proof: dict[str, object], where: str, item: dict[str, object],
                             index: int, log: CustodyLog, report: Report) -> None:
    item_id, sha256 = item.get("id"), hex_digest_or_none(item.get("sha256")) or ""
    record = lists_item(log.entries[index], item_id, sha256)
    if record is None:
        report.fail("proof", where, f"log entry {index} does not list item {item_id!r} "
                                    f"with sha256 {sha256}")
        return
    for field in ("sha512", "size"):
        if field in record and field in item and \
                str(record[field]).lower() != str(item[field]).lower():
            report.fail("proof", where, f"log entry {index} gives {field} {record[field]}, "
                                        f"item.json has {item[field]}")
    count_id = as_count(item_id)
    first = index if count_id is None else log.first_records.get((count_id, sha256), index)
    if first < index:
        report.fail("proof", where, f"entry_index is {index}, but entry {first} already "
                                    "recorded this item with this sha256")


def check_audit_path(proof: dict[str, object], where: str, leaf: bytes, index: int,
                     checkpoint: Checkpoint | None, report: Report) -> None:
    if checkpoint is None or checkpoint.root is None or checkpoint.tree_size is None:
        report.fail("proof", where, "cannot be checked: no usable checkpoint.json")
        return
    if proof.get("tree_size") != checkpoint.tree_size:
        report.fail("proof", where, f"tree_size is {proof.get('tree_size')!r}, "
                                    f"checkpoint.json's is {checkpoint.tree_size}")
    if hex_digest_or_none(proof.get("root")) != checkpoint.root.hex():
        report.fail("proof", where, f"root is {proof.get('root')}, checkpoint.json's is "
                                    f"{checkpoint.root.hex()}")
    path = proof.get("proof")
    if not isinstance(path, list) or any(hex_digest_or_none(h) is None for h in path):
        report.fail("proof", where, "'proof' is not a list of hex SHA-256 hashes")
        return
    siblings = [bytes.fromhex(h) for h in path]
    if not verify_inclusion(leaf, index, checkpoint.tree_size, siblings, checkpoint.root):
        report.fail("proof", where, f"the audit path does not lead from entry {index} to "
                                    f"checkpoint.json's root {checkpoint.root.hex()} "
                                    f"(tree size {checkpoint.tree_size})")


def check_items(bag: Bag, log: CustodyLog | None, checkpoint: Checkpoint | None,
                report: Report) -> dict[str, dict[str, object] | None]:
    """Step 5: every item's file, metadata and proof. Returns each item directory's name and
    its item.json (None if unreadable), for steps 6 and 7."""
    items_dir, proofs_dir = bag.path("data/items"), bag.path("data/proofs")
    item_dirs = sorted((p for p in items_dir.iterdir() if p.is_dir()), key=item_order) \
        if items_dir.is_dir() else []
    held: dict[str, dict[str, object] | None] = {}
    items_passed = proofs_passed = 0
    for item_path in item_dirs:
        item_dir = f"data/items/{item_path.name}"
        before = len(report.failures)
        item = read_json_file(item_path / "item.json", f"{item_dir}/item.json", "item", report)
        held[item_path.name] = item
        if item is not None:
            if not is_count(item.get("id")) or str(item.get("id")) != item_path.name:
                report.fail("item", f"{item_dir}/item.json",
                            f"id is {item.get('id')!r}, but the directory is {item_path.name}")
            check_item_file(bag, item_dir, item, report)
        items_passed += len(report.failures) == before
        before = len(report.failures)
        proof_where = f"data/proofs/{item_path.name}.json"
        proof = read_json_file(proofs_dir / f"{item_path.name}.json", proof_where, "proof",
                               report)
        if proof is not None and item is not None:
            check_proof(proof, proof_where, item, log, checkpoint, report)
        proofs_passed += len(report.failures) == before
    check_orphan_proofs(proofs_dir, {p.name for p in item_dirs}, report)
    report.count("items", items_passed, len(item_dirs),
                 "item.json sha256, sha512 and size match the stored file")
    report.count("proofs", proofs_passed, len(item_dirs),
                 "entry records the item; audit path leads to checkpoint.json's root")
    return held


def check_orphan_proofs(proofs_dir: Path, item_names: set[str], report: Report) -> None:
    if not proofs_dir.is_dir():
        return
    for proof in sorted(proofs_dir.iterdir()):
        if proof.suffix != ".json" or proof.stem not in item_names:
            report.fail("proof", f"data/proofs/{proof.name}",
                        "does not belong to any item in data/items/")


# ---------------------------------------------------------------------------------------------
# 6. What the bundle holds: exactly the items its own log entry lists
# ---------------------------------------------------------------------------------------------


def same_value(first: object, second: object) -> bool:
    """Equal JSON values of the same type: 1 is not true, and 20 is not 20.0."""
    if isinstance(first, (dict, list)) or isinstance(second, (dict, list)):
        return json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    return type(first) is type(second) and first == second


def json_digest(value: object) -> str | None:
    """SHA-256 of a JSON value written with sorted keys, no white space and UTF-8 (floats
    allowed): how casebuilder digests metadata and collection records into log entries."""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    except (TypeError, ValueError):  # includes a lone surrogate that has no UTF-8 form
        return None


def entry_details(entry: dict[str, object]) -> dict[str, object]:
    return as_object(entry.get("details")) or {}


def name_order(name: str) -> tuple[int, int, str]:
    return (0, int(name), "") if re.match(r"^[0-9]+$", name) else (1, 0, name)


BUNDLE_ENTRY_FIELD = "Casebuilder-Bundle-Entry"
KNOWN_BUNDLE_FORMATS = (1, 2)


class OwnEntry(NamedTuple):
    """The log entry that made this bundle, and the bundle format it was written in.

    Format 1 entries list the items; format 2 entries (``details.bundle_format`` 2) also list
    every file that was known before the bundle's checkpoint, the bag-info.txt fields that
    describe the case, and how many checkpoints came before the entry."""

    seq: int  # its index in log.jsonl
    entry: dict[str, object]
    version: int

    @property
    def place(self) -> str:
        return entry_place(self.seq)

    @property
    def details(self) -> dict[str, object]:
        return entry_details(self.entry)


def find_own_entry(info: dict[str, list[str]], log: CustodyLog | None,
                   checkpoint: Checkpoint | None, report: Report) -> OwnEntry | None:
    """The log entry that made this bundle: the one bag-info.txt's Casebuilder-Bundle-Entry
    names, which must be a "bundle" entry covered by the checkpoint. Returns None when no
    usable entry is named (reported here).

    The bundle's folder name is not compared with the entry's recorded output: a clerk may
    rename an exhibit. What that comparison used to guard against, bag-info.txt naming the
    entry of another bundle of the same case, is caught by signed values instead: the other
    entry lists other files (format 2) or other items, and a format 2 bundle carries the log
    up to the first checkpoint that signs its own entry (see check_checkpoint_count)."""
    if log is None:
        return None  # already reported: without the log nothing says what the bundle holds
    where = f"bag-info.txt {BUNDLE_ENTRY_FIELD}"
    values = info.get(BUNDLE_ENTRY_FIELD, [])
    if len(values) != 1:
        report.fail("contents", "bag-info.txt",
                    f"must have one {BUNDLE_ENTRY_FIELD} (the log entry that made this bundle), "
                    f"has {len(values)}, so which items this bundle must hold is unknown")
        return None
    if not re.match(r"^[0-9]+$", values[0]):
        report.fail("contents", where, f"is {values[0]!r}, not a log entry number")
        return None
    index = int(values[0])
    covered = len(log.lines)
    if checkpoint is not None and checkpoint.tree_size is not None:
        covered = min(covered, checkpoint.tree_size)
    if index >= covered:
        report.fail("contents", where,
                    f"names entry {index}, but the checkpoint covers only entries 0 to "
                    f"{covered - 1}: the entry that made this bundle must be signed")
        return None
    entry = log.entries[index]
    if entry is None:
        return None  # the line is unreadable: already reported in step 2
    if entry.get("action") != "bundle":
        report.fail("contents", where,
                    f"names {entry_place(index)}, whose action is "
                    f"{shown(str(entry.get('action')))!r}: not a 'bundle' entry, so not the "
                    "entry that made this bundle")
        return None
    stated = entry_details(entry).get("bundle_format", 1)
    version = as_count(stated)
    if version is None or version not in KNOWN_BUNDLE_FORMATS:
        report.fail("contents", where,
                    f"names {entry_place(index)}, written in bundle format {stated!r}, which "
                    f"this script does not know (it knows {KNOWN_BUNDLE_FORMATS}): get the "
                    "verify_bundle.py of the casebuilder version that wrote it")
        return None
    own = OwnEntry(index, entry, version)
    output = own.details.get("output")
    if isinstance(output, str):
        report.note(f"this bundle was written as {output!r} ({own.place}, format "
                    f"{own.version}); folder names are not checked, since an exhibit may be "
                    "renamed")
    if own.version == 1:
        report.note(
            "this is a format 1 bundle (written before casebuilder listed the bundle's files "
            "in its entry). Its entry signs which items it holds and their hashes, but not the "
            "other files: item.json is checked only against the log entries it names, bag-info."
            "txt's case name is not signed, files are checked against the bundle's layout only, "
            "and a deleted line of checkpoints.jsonl other than the last cannot be detected.")
    return own


def listed_items(entry: dict[str, object], place: str,
                 report: Report) -> dict[str, dict[str, object]]:
    """The items an entry lists, by id (as the name of their directory)."""
    records = entry.get("items")
    listed: dict[str, dict[str, object]] = {}
    for position, value in enumerate(records if isinstance(records, list) else []):
        record = as_object(value)
        item_id = as_count(record.get("id")) if record is not None else None
        if record is None or item_id is None:
            report.fail("contents", place, f"items[{position}] names no item id")
        elif str(item_id) in listed:
            report.fail("contents", place, f"lists item {item_id} twice")
        else:
            listed[str(item_id)] = record
    count = entry_details(entry).get("item_count")
    if count is not None and not same_value(count, len(listed)):
        report.fail("contents", place, f"item_count is {count!r}, but it lists "
                                       f"{len(listed)} items")
    return listed


def check_contents(own: OwnEntry | None, held: dict[str, dict[str, object] | None],
                   report: Report) -> None:
    """Step 6: the items in data/items/ are exactly those the bundle's own entry lists."""
    if own is None:
        report.count("contents", 0, len(held), "no 'bundle' entry of this bundle to check against")
        return
    place = own.place
    listed = listed_items(own.entry, place, report)
    passed = 0
    names = sorted(set(listed) | set(held), key=name_order)
    for name in names:
        record, where = listed.get(name), f"data/items/{name}/"
        if name not in held:
            sha256 = record.get("sha256") if record is not None else None
            report.fail("contents", where,
                        f"is missing: {place}, the entry that made this bundle, lists item "
                        f"{name} (sha256 {sha256}), but the bundle does not hold it")
            continue
        if record is None:
            report.fail("contents", where,
                        f"item {name} is not listed in {place}, the entry that made this "
                        "bundle: it was added to the bundle afterwards")
            continue
        item = held[name]
        if item is None:
            continue  # item.json is unreadable: already reported
        before = len(report.failures)
        for field in ("sha256", "sha512", "size", "role"):
            if field not in record and field == "role":
                continue
            expected, actual = record.get(field), item.get(field)
            if field in ("sha256", "sha512") and isinstance(expected, str) and \
                    isinstance(actual, str):
                expected, actual = expected.lower(), actual.lower()
            if expected is None or not same_value(actual, expected):
                report.fail("contents", f"{where}item.json",
                            f"{field} is {item.get(field)!r}, but {place}, the entry that "
                            f"made this bundle, lists item {name} with {record.get(field)!r}")
        passed += len(report.failures) == before
    report.count("contents", passed, len(names),
                 f"held and listed in the bundle's own entry ({place}), same hashes")


# ---------------------------------------------------------------------------------------------
# 6b. Every file: signed by the bundle's own entry, or vouched for by a check
# ---------------------------------------------------------------------------------------------

CUSTODY_FILES = ("log.jsonl", "checkpoint.json", "checkpoints.jsonl", "public_key.pem")
TOKEN_FILE = f"{CUSTODY}/checkpoint.tsr"


def vouched_files(own: OwnEntry, latest: Checkpoint | None) -> set[str]:
    """Files under data/ the bundle's entry cannot list, since they depend on the checkpoint
    that signs it, but that the other checks verify in full: the log (every line under the
    signed root), the checkpoints (each signed, their count in the entry), the key (it
    verifies the signatures), the time-stamp token (the checkpoint's own) and one inclusion
    proof per listed item (each value recomputed from the log)."""
    files = {f"{CUSTODY}/{name}" for name in CUSTODY_FILES}
    if latest is not None and latest.fields.get("timestamp_token") is not None:
        files.add(TOKEN_FILE)
    records = own.entry.get("items")
    for record in records if isinstance(records, list) else []:
        item_id = as_count(record.get("id")) if isinstance(record, dict) else None
        if item_id is not None:
            files.add(f"data/proofs/{item_id}.json")
    return files


def signed_file_list(own: OwnEntry, key: str, report: Report
                     ) -> dict[str, tuple[str, str, int]]:
    """The files a format 2 entry lists under ``key`` ('files' or 'tag_files'): matching
    key -> (path, sha256, size)."""
    listed: dict[str, tuple[str, str, int]] = {}
    values = own.details.get(key)
    if not isinstance(values, list):
        report.fail("files", own.place, f"a format 2 bundle entry must list its {key}; "
                                        "this one does not")
        return listed
    for position, value in enumerate(values):
        record = as_object(value) or {}
        path, size = record.get("path"), as_count(record.get("size"))
        sha256 = hex_digest_or_none(record.get("sha256"))
        if not isinstance(path, str) or sha256 is None or size is None or escape_reason(path):
            report.fail("files", own.place, f"{key}[{position}] is not a path with a sha256 "
                                            "and a size inside the bundle")
            continue
        if matching_key(path) in listed:
            report.fail("files", own.place, f"lists {path} twice")
        listed[matching_key(path)] = (path, sha256, size)
    return listed


def check_signed_files(bag: Bag, payload: dict[str, int], own: OwnEntry | None,
                       latest: Checkpoint | None, held: dict[str, dict[str, object] | None],
                       report: Report) -> None:
    """Step 6b: the files under data/ are exactly those the bundle's entry lists, with the
    listed SHA-256 and size, plus the files the other checks vouch for; anything else was
    added afterwards. A format 1 entry lists no files: then the bundle's layout decides."""
    if own is None:
        return  # reported in step 6
    if own.version == 1:
        check_layout(payload, latest, held, report)
        return
    listed = signed_file_list(own, "files", report)
    vouched = {matching_key(path) for path in vouched_files(own, latest)}
    on_disk = {matching_key(path): path for path in payload}
    passed = 0
    for key, path in sorted(on_disk.items()):
        before = len(report.failures)
        if key in listed:
            check_listed_file(bag, path, listed[key], payload[path], own, report)
        elif key not in vouched:
            report.fail("files", path,
                        f"is in data/ but is not listed in {own.place}, the signed entry that "
                        "made this bundle, nor one of the custody files and proofs the other "
                        "checks verify: it was added after the bundle was made")
        passed += len(report.failures) == before
    for key, (path, sha256, _) in sorted(listed.items()):
        if key not in on_disk:
            report.fail("files", path, f"is missing: {own.place}, the entry that made this "
                                       f"bundle, lists it (sha256 {sha256})")
    for path, sha256, size in sorted(signed_file_list(own, "tag_files", report).values()):
        if not bag.path(path).is_file():
            report.fail("files", path, f"is missing: {own.place} lists it (sha256 {sha256})")
        else:
            check_listed_file(bag, path, (path, sha256, size), bag.path(path).stat().st_size,
                              own, report)
    report.count("files", passed, len(on_disk),
                 f"under data/: listed with their hashes in {own.place}, or verified below")


def check_listed_file(bag: Bag, path: str, listed: tuple[str, str, int], size: int,
                      own: OwnEntry, report: Report) -> None:
    _, sha256, listed_size = listed
    actual = bag.digest(path, "sha256")
    if actual != sha256:
        report.fail("files", path, f"sha256 is {actual}, but {own.place}, the signed entry "
                                   f"that made this bundle, lists {sha256}")
    if size != listed_size:
        report.fail("files", path, f"is {size} bytes, but {own.place}, the signed entry that "
                                   f"made this bundle, lists {listed_size}")


def check_layout(payload: dict[str, int], latest: Checkpoint | None,
                 held: dict[str, dict[str, object] | None], report: Report) -> None:
    """Format 1: every file under data/ must have its place in the bundle's layout: an item
    directory holds item.json and the file it names, data/proofs/ one proof per item, and
    data/custody/ the custody files."""
    allowed = {f"{CUSTODY}/{name}" for name in CUSTODY_FILES}
    if latest is not None and latest.fields.get("timestamp_token") is not None:
        allowed.add(TOKEN_FILE)
    for name, item in held.items():
        allowed |= {f"data/items/{name}/item.json", f"data/proofs/{name}.json"}
        if item is not None and isinstance(item.get("file"), str):
            allowed.add(f"data/items/{name}/{item['file']}")
    wanted = {matching_key(path) for path in allowed}
    passed = 0
    for path in sorted(payload):
        if matching_key(path) in wanted:
            passed += 1
        else:
            report.fail("files", path, "is in data/ but has no place in the bundle's layout "
                                       "(an item's item.json and file, its proof, the custody "
                                       "files): it was added after the bundle was made")
    report.count("files", passed, len(payload), "under data/ in their place in the layout "
                                                "(format 1: the entry lists no files)")


# ---------------------------------------------------------------------------------------------
# 6c. bag-info.txt: the fields the bundle's entry signs, and those the checkpoint gives
# ---------------------------------------------------------------------------------------------

CHECKPOINT_FIELDS_IN_BAG_INFO = ("Casebuilder-Checkpoint-Size", "Casebuilder-Checkpoint-Root",
                                 "Casebuilder-Public-Key-SHA256")
UNSIGNED_BAG_INFO = ("Payload-Oxum", BUNDLE_ENTRY_FIELD, *CHECKPOINT_FIELDS_IN_BAG_INFO)


def check_bag_info_field(info: dict[str, list[str]], label: str, value: object, source: str,
                         required: bool, report: Report) -> None:
    """bag-info.txt's ``label`` (one, if ``required``) has the value ``source`` gives."""
    given = info.get(label, [])
    if required and len(given) != 1:
        report.fail("bag-info", "bag-info.txt", f"must have one {label}, has {len(given)}")
    for text in given:
        if text != value:
            report.fail("bag-info", f"bag-info.txt {label}",
                        f"is {text!r}, but {source} {value!r}")


def check_bag_info(info: dict[str, list[str]], own: OwnEntry | None, log: CustodyLog | None,
                   latest: Checkpoint | None, key: bytes | None, report: Report) -> None:
    """bag-info.txt's case id is the log's, and its checkpoint fields are checkpoint.json's.
    In format 2 every other field is signed: the entry lists each with its value (the case
    name among them), and a field it does not list has no place in bag-info.txt."""
    if log is not None and log.case_id is not None:
        for value in info.get("Casebuilder-Case-Id", []):
            if value != log.case_id:
                report.fail("bagit", "bag-info.txt", f"Casebuilder-Case-Id is {value!r}, the "
                                                     f"log's case_id is {log.case_id!r}")
    expected: dict[str, str] = {}
    if latest is not None:
        expected["Casebuilder-Checkpoint-Size"] = str(latest.fields.get("tree_size"))
        expected["Casebuilder-Checkpoint-Root"] = str(latest.fields.get("root"))
    if key is not None:
        expected["Casebuilder-Public-Key-SHA256"] = hashlib.sha256(key).hexdigest()
    version = own.version if own is not None else 1
    for label in sorted(expected):
        check_bag_info_field(info, label, expected[label],
                             "checkpoint.json and public_key.pem give", version >= 2, report)
    if own is None or version < 2:
        return
    signed = as_object(own.details.get("bag_info"))
    if signed is None:
        report.fail("bag-info", own.place, "a format 2 bundle entry must sign the bag-info.txt "
                                           "fields; this one has no bag_info")
        return
    for label in sorted(signed):
        check_bag_info_field(info, label, signed[label], f"{own.place}, the signed entry that "
                                                         "made this bundle, gives", True, report)
    for label in sorted(set(info) - set(signed) - set(UNSIGNED_BAG_INFO)):
        report.fail("bag-info", f"bag-info.txt {label}",
                    f"is not among the fields {own.place}, the signed entry that made this "
                    "bundle, lists: it was added afterwards")


# ---------------------------------------------------------------------------------------------
# 7. Where each item came from: item.json against the entries it names
# ---------------------------------------------------------------------------------------------


def compare_fields(pairs: Sequence[tuple[str, object, object, str]], where: str, place: str,
                   report: Report, check: str = "origin") -> None:
    """Report each (item.json field, its value, the entry's value, the entry's field) pair
    whose two values differ."""
    for field, ours, theirs, entry_field in pairs:
        if not same_value(ours, theirs):
            report.fail(check, where, f"{field} is {ours!r}, but {place} records "
                                      f"{entry_field} {theirs!r}")


def check_origin(value: object, where: str, item_id: int, sha256: str, log: CustodyLog,
                 report: Report) -> int | None:
    """One origin of item.json against the receipt entry it names; returns that entry's index."""
    origin = as_object(value)
    if origin is None:
        report.fail("origin", where, "is not a JSON object")
        return None
    index = as_count(origin.get("entry"))
    if index is None or index >= len(log.entries):
        report.fail("origin", where, f"entry {origin.get('entry')!r} is not an entry of "
                                     f"log.jsonl (0 to {len(log.entries) - 1})")
        return None
    place, entry = entry_place(index), log.entries[index]
    if entry is None:
        report.fail("origin", where, f"cannot be checked: {place} is not a readable entry")
        return index
    if entry.get("action") != "ingest" or lists_item(entry, item_id, sha256) is None:
        report.fail("origin", where, f"names {place}, which is not a receipt ('ingest' entry) "
                                     f"of item {item_id} with sha256 {sha256}")
        return index
    recorded = as_object(entry_details(entry).get("origin")) or {}
    pairs = [
        ("received_at", origin.get("received_at"), entry.get("time"), "time"),
        ("actor", origin.get("actor"), entry.get("actor"), "actor"),
        ("name", origin.get("name"), recorded.get("name"), "origin name"),
        ("path", origin.get("path"), recorded.get("source_path"), "origin source_path"),
    ]
    for field, entry_field in (("relation", "relation"), ("source_mtime", "source_mtime"),
                               ("parent_item", "parent_item"), ("sidecar_item", "sidecar_item")):
        if field in origin:
            pairs.append((field, origin[field], recorded.get(entry_field),
                          f"origin {entry_field}"))
    if "collection" in origin:
        collection = origin["collection"]
        pairs.append(("collection (its digest)",
                      None if collection is None else json_digest(collection),
                      recorded.get("collection_sha256"), "origin collection_sha256"))
    compare_fields(pairs, where, place, report)
    return index


def check_derived_from(value: object, where: str, item_id: int, sha256: str, log: CustodyLog,
                       report: Report) -> None:
    derived = as_object(value)
    if derived is None:
        report.fail("origin", where, "derived_from is neither null nor a JSON object")
        return
    index = as_count(derived.get("entry"))
    if index is None or index >= len(log.entries):
        report.fail("origin", where, f"derived_from.entry {derived.get('entry')!r} is not an "
                                     "entry of log.jsonl")
        return
    place, entry = entry_place(index), log.entries[index]
    if entry is None:
        report.fail("origin", where, f"derived_from cannot be checked: {place} is not readable")
        return
    items = entry.get("items")
    records = [r for r in items if isinstance(r, dict)] if isinstance(items, list) else []
    roles = {str(r.get("role")): r for r in records}
    made, source = roles.get("derived", {}), roles.get("source", {})
    if entry.get("action") != "derive" or made.get("id") != item_id or \
            hex_digest_or_none(made.get("sha256")) != sha256:
        report.fail("origin", where, f"derived_from names {place}, which is not the 'derive' "
                                     f"entry that made item {item_id} with sha256 {sha256}")
        return
    details = entry_details(entry)
    compare_fields([
        ("derived_from.item", derived.get("item"), source.get("id"), "source id"),
        ("derived_from.sha256", derived.get("sha256"), source.get("sha256"), "source sha256"),
        ("derived_from.kind", derived.get("kind"), details.get("kind"), "kind"),
        ("derived_from.tool", derived.get("tool"), details.get("tool"), "tool"),
        ("derived_from.tool_version", derived.get("tool_version"), details.get("tool_version"),
         "tool_version"),
    ], where, place, report)


def check_role_and_parse(item: dict[str, object], where: str, item_id: int, sha256: str,
                         log: CustodyLog, horizon: int, report: Report) -> None:
    """role is what the item's first entry made it; the parse results are those of its last
    parse before ``horizon`` (see check_history)."""
    first = log.first_records.get((item_id, sha256))
    entry = log.entries[first] if first is not None else None
    if first is not None and entry is not None:
        action = entry.get("action")
        expected = "original" if action == "ingest" else "derived" if action == "derive" \
            else None
        if expected is not None and "role" in item and not same_value(item["role"], expected):
            report.fail("origin", where, f"role is {item['role']!r}, but {entry_place(first)}, "
                                         f"the first entry recording the item, {action}s it: "
                                         f"it is {expected!r}")
    parses = [i for i, e in enumerate(log.entries[:horizon]) if e is not None and
              e.get("action") == "parse" and lists_item(e, item_id, sha256) is not None]
    if not parses:
        return
    place = entry_place(parses[-1])
    details = entry_details(log.entries[parses[-1]] or {})
    parse = as_object(item.get("parse")) or {}
    compare_fields([
        ("format", item.get("format"), details.get("format"), "format"),
        ("parse.status", parse.get("status"), details.get("status"), "status"),
        ("parse.tool", parse.get("tool"), details.get("tool"), "tool"),
        ("parse.error", parse.get("error"), details.get("error"), "error"),
        ("text_item", item.get("text_item"), details.get("text_item"), "text_item"),
        ("metadata (its digest)", json_digest(item.get("metadata")),
         details.get("metadata_sha256"), "metadata_sha256"),
    ], where, place, report, check="parse")


def check_history(log: CustodyLog | None, held: dict[str, dict[str, object] | None],
                  own: OwnEntry | None, report: Report) -> None:
    """Step 7: item.json's origins, derivation, role and parse results against the log.

    A format 2 item.json describes the item as the log stood just before the bundle's own
    entry (it was written, and its digest listed, in that entry): receipts and parses after
    it are not in it. A format 1 item.json describes the whole log the bundle carries."""
    if log is None:
        return
    horizon = own.seq if own is not None and own.version >= 2 else len(log.entries)
    receipts: dict[tuple[int, str], list[int]] = {}
    for index, entry in enumerate(log.entries[:horizon]):
        records = entry.get("items") if entry is not None else None
        if entry is None or entry.get("action") != "ingest" or not isinstance(records, list):
            continue
        for record in records:
            item_id = as_count(record.get("id")) if isinstance(record, dict) else None
            sha256 = hex_digest_or_none(record.get("sha256")) if isinstance(record, dict) \
                else None
            if item_id is not None and sha256 is not None:
                receipts.setdefault((item_id, sha256), []).append(index)
    passed = total = 0
    for name in sorted(held, key=name_order):
        item = held[name]
        item_id = as_count(item.get("id")) if item is not None else None
        sha256 = hex_digest_or_none(item.get("sha256")) if item is not None else None
        if item is None or item_id is None or sha256 is None:
            continue  # already reported in step 5
        total += 1
        before = len(report.failures)
        where = f"data/items/{name}/item.json"
        origins = item.get("origins")
        if not isinstance(origins, list):
            report.fail("origin", where, "'origins' is missing or not a list")
            origins = []
        named = set()
        for position, origin in enumerate(origins):
            named.add(check_origin(origin, f"{where} origins[{position}]", item_id, sha256, log,
                                   report))
        for receipt in receipts.get((item_id, sha256), []):
            if receipt not in named:
                report.fail("origin", where, f"{entry_place(receipt)} records a receipt of this "
                                             "item that is missing from its origins")
        if item.get("derived_from") is not None:
            check_derived_from(item["derived_from"], where, item_id, sha256, log, report)
        check_role_and_parse(item, where, item_id, sha256, log, horizon, report)
        passed += len(report.failures) == before
    report.count("histories", passed, total,
                 "origins, derivation, role and parse results match the entries they name")


# ---------------------------------------------------------------------------------------------
# 8. --against: is one bundle a faithful later state of the other?
# ---------------------------------------------------------------------------------------------


class Side(NamedTuple):
    """A checked bundle whose log and checkpoint could be read, for a comparison."""

    name: str
    log: CustodyLog
    keys: KeySchedule
    size: int
    root: bytes
    checkpoint_lines: list[bytes]
    held: dict[str, dict[str, object] | None]


def comparable(checked: Checked, report: Report) -> Side | None:
    latest, log = checked.latest, checked.log
    if log is None or latest is None or latest.tree_size is None or latest.root is None:
        report.fail("against", str(checked.root), "cannot be compared: its log or checkpoint "
                                                  "is unreadable (see its own check)")
        return None
    return Side(str(checked.root), log, checked.keys, latest.tree_size, latest.root,
                checked.checkpoint_lines, checked.held)


def compare_bundles(first: Checked, second: Checked, report: Report) -> None:
    """Two bundles of one case: the one with the shorter signed log is the earlier. The later
    must extend it: same case, the earlier log lines byte for byte at the start of the later
    log, a consistency proof (computed from the later log) from the earlier signed root to the
    later one, the earlier checkpoints at the start of the later ones, the earlier key or a
    chain of rotations each approved by the key before it, and the same hashes for every item
    both hold. An insider holding the key can rewrite a whole case and sign it again; a bundle
    issued before the rewrite is what shows it."""
    sides = [comparable(first, report), comparable(second, report)]
    if sides[0] is None or sides[1] is None:
        return
    earlier, later = sorted((sides[0], sides[1]), key=lambda side: side.size)
    report.note(f"earlier: {earlier.name}, {earlier.size} entries, root {earlier.root.hex()}",
                f"later:   {later.name}, {later.size} entries, root {later.root.hex()}")
    if earlier.log.case_id != later.log.case_id:
        report.fail("against", later.name, f"is of case {later.log.case_id!r}, {earlier.name} "
                                           f"of case {earlier.log.case_id!r}")
        return
    compare_log_lines(earlier, later, report)
    compare_signed_roots(earlier, later, report)
    compare_checkpoint_lines(earlier, later, report)
    compare_keys(earlier, later, report)
    compare_items(earlier, later, report)


def compare_log_lines(earlier: Side, later: Side, report: Report) -> None:
    """The earlier bundle's log lines are the first lines of the later one's, byte for byte."""
    old, new = earlier.log.lines, later.log.lines
    differing = [index for index in range(min(len(old), len(new))) if old[index] != new[index]]
    if differing:
        report.fail("against", entry_place(differing[0]),
                    f"differs between the two bundles ({len(differing)} of the first "
                    f"{min(len(old), len(new))} lines differ): the earlier log was rewritten")
    if len(new) < len(old):
        report.fail("against", later.name, f"has {len(new)} log lines, the earlier bundle "
                                           f"{len(old)}")


def compare_signed_roots(earlier: Side, later: Side, report: Report) -> None:
    """A consistency proof from the earlier signed root to the later one, computed from the
    later log, must verify (RFC 9162 section 2.1.4)."""
    if len(later.log.leaves) < later.size:
        return  # its own check reports the missing lines
    leaves = later.log.leaves[:later.size]
    proof = consistency_proof(leaves, earlier.size)
    if not verify_consistency(earlier.size, later.size, earlier.root, later.root, proof):
        report.fail("against", "checkpoint.json",
                    f"the later signed root ({later.size} entries) is not consistent with the "
                    f"earlier signed root ({earlier.size} entries): the entries both cover "
                    "were rewritten")


def compare_checkpoint_lines(earlier: Side, later: Side, report: Report) -> None:
    """The earlier bundle's checkpoints are the first checkpoints of the later one."""
    for number, line in enumerate(earlier.checkpoint_lines, start=1):
        theirs = later.checkpoint_lines[number - 1] \
            if number <= len(later.checkpoint_lines) else None
        if theirs != line:
            report.fail("against", f"checkpoints.jsonl line {number}",
                        "of the earlier bundle is " + ("missing from the later one" if theirs
                                                       is None else "not the same line in the "
                                                       "later one: the checkpoints were signed "
                                                       "again"))
            return


def compare_keys(earlier: Side, later: Side, report: Report) -> None:
    """The earlier checkpoint's key is the key the later log has in force at that size."""
    then = later.keys.key_for(earlier.size)
    key = earlier.keys.key_for(earlier.size)
    if then != key:
        report.fail("against", "public_key.pem",
                    f"the earlier bundle is signed by key "
                    f"{hashlib.sha256(key or b'').hexdigest()}, but the later bundle's log has "
                    f"key {hashlib.sha256(then or b'').hexdigest()} in force at that point, "
                    "and no key rotation approved by the earlier key leads to it: the later "
                    "bundle's case was re-keyed and its history signed again")


def compare_items(earlier: Side, later: Side, report: Report) -> None:
    """Every item both bundles hold has the same hashes in both (a bundle may hold a
    selection of the items, so one missing from the other is not a difference)."""
    for name in sorted(set(earlier.held) & set(later.held), key=name_order):
        ours, theirs = earlier.held[name] or {}, later.held[name] or {}
        for field in ("sha256", "sha512", "size"):
            if not same_value(ours.get(field), theirs.get(field)):
                report.fail("against", f"data/items/{name}/item.json",
                            f"{field} is {theirs.get(field)!r} in the later bundle, "
                            f"{ours.get(field)!r} in the earlier")


# ---------------------------------------------------------------------------------------------
# 9. Second digests: SHA-512 may be recorded after receipt, by a "digest" entry
# ---------------------------------------------------------------------------------------------


def check_second_digests(log: CustodyLog | None, held: dict[str, dict[str, object] | None],
                         report: Report) -> None:
    """Step 9: each item's sha512 is stated by some entry of the log listing the item with
    the same sha256 and size (its receipt, or a later "digest" entry)."""
    if log is None:
        return
    stated: dict[tuple[int, str], set[tuple[str, object]]] = {}
    for entry in log.entries:
        records = entry.get("items") if entry is not None else None
        for record in records if isinstance(records, list) else []:
            if not isinstance(record, dict) or entry is None or entry.get("action") == "bundle":
                continue  # the bundle's own listing is checked in step 6
            item_id, sha256 = as_count(record.get("id")), hex_digest_or_none(record.get("sha256"))
            sha512 = hex_digest_or_none(record.get("sha512"), 128)
            if item_id is not None and sha256 is not None and sha512 is not None:
                stated.setdefault((item_id, sha256), set()).add((sha512, record.get("size")))
    passed = total = 0
    for name in sorted(held, key=name_order):
        item = held[name]
        item_id = as_count(item.get("id")) if item is not None else None
        sha256 = hex_digest_or_none(item.get("sha256")) if item is not None else None
        sha512 = hex_digest_or_none(item.get("sha512"), 128) if item is not None else None
        if item is None or item_id is None or sha256 is None:
            continue  # already reported in step 5
        total += 1
        if (sha512, item.get("size")) in stated.get((item_id, sha256), set()):
            passed += 1
        else:
            report.fail("digest", f"data/items/{name}/item.json",
                        f"sha512 {item.get('sha512')!r} is stated by no entry of the log that "
                        f"lists item {item_id} with sha256 {sha256} (its receipt or a 'digest' "
                        "entry)")
    report.count("digests", passed, total, "each item's sha512 is recorded in the log")


# ---------------------------------------------------------------------------------------------
# Putting it together
# ---------------------------------------------------------------------------------------------


def _guarded(report: Report, stage: str, check: Callable[[], T]) -> T | None:
    """Run one stage; a crash on malformed input becomes a reported failure, not a traceback."""
    try:
        return check()
    except Exception as exc:  # noqa: BLE001  (any crash must still end in a report)
        report.fail("internal", stage, f"the check stopped on unexpected input: {exc!r}")
        return None


class Checked(NamedTuple):
    """What one bundle's checks read, for comparing it with another bundle (--against)."""

    root: Path
    report: Report
    log: CustodyLog | None
    keys: KeySchedule
    latest: Checkpoint | None
    checkpoint_lines: list[bytes]
    held: dict[str, dict[str, object] | None]


def verify_bundle(bundle: Path, window_hours: float = DEFAULT_WINDOW_HOURS) -> Report:
    """Run every check of the format on the bundle in ``bundle`` and return what was found."""
    return check_bundle(bundle, window_hours).report


def check_bundle(bundle: Path, window_hours: float = DEFAULT_WINDOW_HOURS) -> Checked:
    """Run every check of the format on one bundle; keep what was read for a comparison."""
    report = Report()
    window = window_hours * 3600
    bag = Bag(bundle)
    info, payload = _guarded(report, "BagIt", lambda: check_bag(bag, report)) or ({}, {})
    log = _guarded(report, "custody log", lambda: check_log(bag, report))
    key = _guarded(report, "public key", lambda: load_public_key(bag, report))
    keys = _guarded(report, "key rotations", lambda: read_key_schedule(log, key, report)) or \
        KeySchedule(key, key, [])
    latest = _guarded(report, "checkpoint.json",
                      lambda: check_latest_checkpoint(bag, log, keys, report, window))
    _guarded(report, "public key", lambda: check_pem_is_key_in_force(keys, latest, report))
    history = _guarded(report, "checkpoints.jsonl",
                       lambda: check_earlier_checkpoints(bag, log, keys, latest, report,
                                                         window)) or []
    held = _guarded(report, "items", lambda: check_items(bag, log, latest, report)) or {}
    own = _guarded(report, "contents", lambda: find_own_entry(info, log, latest, report))
    _guarded(report, "contents", lambda: check_contents(own, held, report))
    _guarded(report, "files",
             lambda: check_signed_files(bag, payload, own, latest, held, report))
    _guarded(report, "bag-info", lambda: check_bag_info(info, own, log, latest, key, report))
    _guarded(report, "checkpoints.jsonl", lambda: check_checkpoint_count(history, own, report))
    _guarded(report, "history", lambda: check_history(log, held, own, report))
    _guarded(report, "digests", lambda: check_second_digests(log, held, report))
    if key is not None:
        report.note(f"case public key (raw, SHA-256): {hashlib.sha256(key).hexdigest()} - "
                    "compare it with the key the case holder published or gave the court")
    lines = [c.raw for c in history]
    return Checked(bundle, report, log, keys, latest, lines, held)


def print_report(bundle: Path, report: Report) -> None:
    print(f"Checking {bundle} ({FORMAT_NAME})")
    print()
    print("Counts (passed of checked):")
    for what, (passed, total, meaning) in report.counts.items():
        print(f"  {what:<14} {passed:>6} of {total:<6} {meaning}")
    if report.notes:
        print()
        print("Notes:")
        for note in report.notes:
            print(f"  - {note}")
    print()
    if report.ok:
        print("RESULT: all checks passed.")
        return
    print(f"RESULT: FAILED - {len(report.failures)} problem(s):")
    for number, failure in enumerate(report.failures, start=1):
        print(f"  {number}. FAIL {failure}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="verify_bundle.py",
        description=f"Check a casebuilder court bundle ({FORMAT_NAME}) with the standard "
        "library only. Exit status: 0 all checks hold, 1 a check failed, 2 usage error.",
    )
    parser.add_argument(
        "bundle", nargs="?", metavar="BUNDLE_DIR", default=str(Path(__file__).resolve().parent),
        help="the bundle directory (default: the directory this script is in)",
    )
    parser.add_argument(
        "--timestamp-window", metavar="HOURS", type=float, default=DEFAULT_WINDOW_HOURS,
        help="how many hours after its checkpoint's time a time-stamp token's genTime may be "
        f"(default {DEFAULT_WINDOW_HOURS:g})",
    )
    parser.add_argument(
        "--against", metavar="OTHER_BUNDLE_DIR",
        help="also check that one of the two bundles (the one with the longer signed log) is "
        "a faithful later state of the other: same log lines, a consistent signed root, the "
        "same key or a rotation the old key approved, the same item hashes",
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has already printed the usage message
        return 0 if exc.code == 0 else 2
    bundles = [Path(args.bundle)] + ([Path(args.against)] if args.against else [])
    for bundle in bundles:
        if not bundle.is_dir():
            print(f"verify_bundle.py: error: {bundle} is not a directory (unzip a zipped "
                  "bundle first)", file=sys.stderr)
            return 2
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:  # print odd file names rather than crash on them
        reconfigure(errors="backslashreplace")
    checked = [check_bundle(bundle, args.timestamp_window) for bundle in bundles]
    for number, result in enumerate(checked):
        if number:
            print()
        print_report(result.root, result.report)
    comparison = Report()
    if len(checked) == 2:
        _guarded(comparison, "comparison",
                 lambda: compare_bundles(checked[0], checked[1], comparison))
        print()
        print_comparison(comparison)
    return 0 if comparison.ok and all(result.report.ok for result in checked) else 1


def print_comparison(report: Report) -> None:
    print("Comparing the two bundles (--against)")
    for note in report.notes:
        print(f"  - {note}")
    if report.ok:
        print("RESULT: the later bundle extends the earlier one.")
        return
    print(f"RESULT: FAILED - {len(report.failures)} difference(s):")
    for number, failure in enumerate(report.failures, start=1):
        print(f"  {number}. FAIL {failure}")


if __name__ == "__main__":
    sys.exit(main())
