"""The Merkle tree of the custody log, as RFC 9162 (Certificate Transparency 2.0) defines it.

Leaves are custody entries; ``leaf_hash = SHA-256(0x00 || entry)`` and
``node_hash = SHA-256(0x01 || left || right)``. A tree of n leaves splits at the largest power of
two smaller than n, so the root of every prefix of the log is well defined: a signed checkpoint of
size n commits to exactly the first n entries, inclusion proofs show an entry is among them, and
consistency proofs show a later checkpoint extends an earlier one without rewriting it.

The verifier functions follow the algorithms of RFC 9162 sections 2.1.3.2 and 2.1.4.2 so that a
proof produced here can be checked by any other implementation of the RFC.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(entry: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """Largest power of two strictly smaller than n (n >= 2)."""
    return 1 << ((n - 1).bit_length() - 1)


class MerkleTree:
    """A tree over a fixed list of leaf hashes, answering roots and proofs for any prefix.

    Every aligned, complete subtree is hashed once when the tree is built (the ``levels``), so a
    root or proof for any prefix costs O(log^2 n) hash operations rather than O(n).
    """

    def __init__(self, leaf_hashes: Sequence[bytes]) -> None:
        self.levels: list[list[bytes]] = [list(leaf_hashes)]
        while len(self.levels[-1]) > 1:
            below = self.levels[-1]
            self.levels.append(
                [node_hash(below[i], below[i + 1]) for i in range(0, len(below) - 1, 2)]
            )

    @property
    def size(self) -> int:
        return len(self.levels[0])

    def _subtree(self, start: int, end: int) -> bytes:
        """MTH(D[start:end]) for 0 <= start < end <= size."""
        n = end - start
        if n & (n - 1) == 0 and start % n == 0:
            level = n.bit_length() - 1
            return self.levels[level][start >> level]
        k = _split(n)
        return node_hash(self._subtree(start, start + k), self._subtree(start + k, end))

    def root(self, size: int | None = None) -> bytes:
        size = self.size if size is None else size
        self._check_size(size)
        return EMPTY_ROOT if size == 0 else self._subtree(0, size)

    def inclusion_proof(self, index: int, size: int | None = None) -> list[bytes]:
        """PATH(index, D[0:size]) of RFC 9162 section 2.1.3.1."""
        size = self.size if size is None else size
        self._check_size(size)
        if not 0 <= index < size:
            raise ValueError(f"leaf {index} is not in a tree of size {size}")
        proof: list[bytes] = []
        start, end = 0, size
        while end - start > 1:
            k = _split(end - start)
            if index < start + k:
                proof.append(self._subtree(start + k, end))
                end = start + k
            else:
                proof.append(self._subtree(start, start + k))
                start += k
        proof.reverse()
        return proof

    def consistency_proof(self, old_size: int, new_size: int | None = None) -> list[bytes]:
        """PROOF(old_size, D[0:new_size]) of RFC 9162 section 2.1.4.1."""
        new_size = self.size if new_size is None else new_size
        self._check_size(new_size)
        if not 0 <= old_size <= new_size:
            raise ValueError(f"no consistency proof from size {old_size} to {new_size}")
        if old_size in (0, new_size):
            return []
        proof: list[bytes] = []
        start, end, complete = 0, new_size, True
        m = old_size
        while True:
            n = end - start
            if m == n:
                if not complete:
                    proof.append(self._subtree(start, end))
                break
            k = _split(n)
            if m <= k:
                proof.append(self._subtree(start + k, end))
                end = start + k
            else:
                proof.append(self._subtree(start, start + k))
                start += k
                m -= k
                complete = False
        proof.reverse()
        return proof

    def _check_size(self, size: int) -> None:
        if not 0 <= size <= self.size:
            raise ValueError(f"tree has {self.size} leaves, not {size}")


def root_of(leaf_hashes: Sequence[bytes]) -> bytes:
    return MerkleTree(leaf_hashes).root()


def verify_inclusion(
    leaf: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> bool:
    """RFC 9162 section 2.1.3.2: does ``proof`` place ``leaf`` at ``index`` under ``root``?"""
    if index >= size or index < 0:
        return False
    if len(leaf) != HASH_SIZE:
        return False  # not a leaf hash: a longer value could absorb bytes of the first sibling
    fn, sn = index, size - 1
    r = leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """RFC 9162 section 2.1.4.2: does ``proof`` show the new tree extends the old one?"""
    if old_size < 0 or old_size > new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof  # an empty tree is a prefix of every tree
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: old root is itself a node of the path
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


class Frontier:
    """The right edge of a growing tree: the roots of its complete subtrees, largest first.

    A log of n entries splits into complete subtrees whose sizes are the powers of two of n's
    binary digits; their roots folded from the right give the RFC 9162 root. Appending a leaf
    merges equal-sized subtrees, so the head of a log of any length is known after O(log n)
    hashes per entry: what each unit of work needs to seal the log without re-reading it.
    """

    def __init__(self, subtrees: Sequence[tuple[int, bytes]] = ()) -> None:
        self.subtrees: list[tuple[int, bytes]] = list(subtrees)
        sizes = [size for size, _ in self.subtrees]
        if any(s <= 0 or s & (s - 1) for s in sizes) or sizes != sorted(set(sizes), reverse=True):
            raise ValueError("a frontier holds distinct powers of two, largest first")

    @classmethod
    def of(cls, leaf_hashes: Sequence[bytes]) -> Frontier:
        frontier = cls()
        for leaf in leaf_hashes:
            frontier.append(leaf)
        return frontier

    @property
    def size(self) -> int:
        return sum(size for size, _ in self.subtrees)

    def append(self, leaf: bytes) -> None:
        size, value = 1, leaf
        while self.subtrees and self.subtrees[-1][0] == size:
            left_size, left = self.subtrees.pop()
            size, value = left_size + size, node_hash(left, value)
        self.subtrees.append((size, value))

    def extended(self, leaf_hashes: Sequence[bytes]) -> Frontier:
        grown = Frontier(self.subtrees)
        for leaf in leaf_hashes:
            grown.append(leaf)
        return grown

    def root(self) -> bytes:
        if not self.subtrees:
            return EMPTY_ROOT
        value = self.subtrees[-1][1]
        for _, left in reversed(self.subtrees[:-1]):
            value = node_hash(left, value)
        return value

    def as_json(self) -> list[list[int | str]]:
        return [[size, value.hex()] for size, value in self.subtrees]

    @classmethod
    def from_json(cls, value: object) -> Frontier:
        if not isinstance(value, list):
            raise ValueError("a frontier is a list of [size, hash] pairs")
        subtrees: list[tuple[int, bytes]] = []
        for pair in value:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], int)
                    and isinstance(pair[1], str)):
                raise ValueError("a frontier is a list of [size, hash] pairs")
            digest = bytes.fromhex(pair[1])
            if len(digest) != HASH_SIZE:
                raise ValueError("a frontier hash is 32 bytes")
            subtrees.append((pair[0], digest))
        return cls(subtrees)
