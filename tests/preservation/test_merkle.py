"""The RFC 9162 Merkle tree of the custody log, checked three ways.

1. Against published test vectors of transparency-dev/merkle, the Go reference implementation of
   RFC 6962/9162 Merkle trees (https://github.com/transparency-dev/merkle): the leaf inputs, node
   hashes and roots of ``testonly/constants.go``, the proof tables and fixed cases of
   ``proof/verify_test.go``, and the JSON probes of ``testdata/inclusion`` and
   ``testdata/consistency`` (happy paths that must verify and be exactly the proofs we generate,
   and mutated proofs that must be refused).
2. Property-based, with hypothesis: random trees of up to a few hundred leaves, against a plain
   recursive implementation of the RFC's MTH, PATH and PROOF written below.
3. Edge cases: the empty tree, out-of-range sizes and indices.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casebuilder.preservation.merkle import (
    EMPTY_ROOT,
    MerkleTree,
    leaf_hash,
    node_hash,
    verify_consistency,
    verify_inclusion,
)


def h(hex_string: str) -> bytes:
    return bytes.fromhex(hex_string)


# ------------------------------------------------------------------------------------------------
# Published vectors
# ------------------------------------------------------------------------------------------------

# From transparency-dev/merkle, testonly/constants.go, as read at commit
# 582a6ad190b6848f1d26f8bf08ddef29955d9db1 (LeafInputs, NodeHashes, RootHashes, EmptyRootHash).
LEAF_INPUTS = [
    h(""),
    h("00"),
    h("10"),
    h("2021"),
    h("3031"),
    h("40414243"),
    h("5051525354555657"),
    h("606162636465666768696a6b6c6d6e6f"),
]

# NODE_HASHES[level][i] is the hash of the complete subtree over leaves [i * 2**level,
# (i + 1) * 2**level) of the tree built from LEAF_INPUTS.
NODE_HASHES = [
    [
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
        "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
        "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
        "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1",
    ],
    [
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
    ],
    [
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
    [
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ],
]

# ROOTS[n] is the root of the tree over LEAF_INPUTS[:n]; ROOTS[0] is EmptyRootHash().
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]

# From transparency-dev/merkle, proof/verify_test.go, as read at commit
# 02194e9afb6c1d95b5381350007963aa70fff472 (sha256SomeHash, sha256EmptyTreeHash).
SOME_HASH = h("abacaba000000000000000000000000000000000000000000060061e00123456")
EMPTY_TREE_HASH = h("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")


# The JSON probes of transparency-dev/merkle testdata/. The search tool's index of that repository
# holds the files at several commits (the union of its crawled history; some files were renamed
# between them, e.g. "leafIdx-+-1.json", "leafIndex-+-1.json" and "leafIdx-sub-@1.json" are the same
# mutation). Each vector below names the file and the commit the tool reported for the version that
# was read. The hashes are the files' base64 values, re-encoded as hex; nothing else was changed.
# Folders 0-4 are the proof tables of proof/verify_test.go (inclusion: leaf 0 of 1, leaf 0 and 5 of
# 8, leaf 2 of 3, leaf 1 of 5; consistency: 1->1, 1->8, 6->8, 2->5, 6->7) over LEAF_INPUTS.
C_65362AC5 = "65362ac5a212fd079e82284b91b5f87aac41b56a"
C_73A0DB1C = "73a0db1c2a2bd17afd311403643abea0266cbf87"
C_BCBA819E = "bcba819ef46f73fd3aaa964f46778beab2e20d59"
C_CD8C8F80 = "cd8c8f80f54ec37e8bb7a997e74f7f8f68efc2d8"
C_EB6F9B75 = "eb6f9b756ec5f89a43e60adfd3ef151073e92198"


@dataclass(frozen=True)
class InclusionVector:
    path: str
    commit: str
    desc: str
    index: int
    size: int
    leaf: str
    root: str
    proof: tuple[str, ...]

    @property
    def id(self) -> str:
        return self.path.removeprefix("testdata/")


@dataclass(frozen=True)
class ConsistencyVector:
    path: str
    commit: str
    desc: str
    size1: int
    size2: int
    root1: str
    root2: str
    proof: tuple[str, ...]

    @property
    def id(self) -> str:
        return self.path.removeprefix("testdata/")


# The vector tables keep one compact block per vector, as transcribed; the formatter is off.
# fmt: off
PUBLISHED_INCLUSION_HAPPY = [
    InclusionVector(
        "testdata/inclusion/0/happy-path.json", C_65362AC5,
        "happy path", 0, 1,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        proof=(),
    ),
    InclusionVector(
        "testdata/inclusion/1/happy-path.json", C_73A0DB1C,
        "happy path", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/2/happy-path.json", C_65362AC5,
        "happy path", 5, 8,
        leaf="4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
               "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    InclusionVector(
        "testdata/inclusion/3/happy-path.json", C_73A0DB1C,
        "happy path", 2, 3,
        leaf="0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
        root="aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        proof=("fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",),
    ),
    InclusionVector(
        "testdata/inclusion/4/happy-path.json", C_73A0DB1C,
        "happy path", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
]

PUBLISHED_CONSISTENCY_HAPPY = [
    ConsistencyVector(
        "testdata/consistency/0/happy-path.json", C_BCBA819E,
        "happy path", 1, 1,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        proof=(),
    ),
    ConsistencyVector(
        "testdata/consistency/1/happy-path.json", C_BCBA819E,
        "happy path", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/2/happy-path.json", C_BCBA819E,
        "happy path", 6, 8,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/3/happy-path.json", C_65362AC5,
        "happy path", 2, 5,
        root1="fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        root2="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/happy-path.json", C_65362AC5,
        "happy path", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
]

PUBLISHED_INCLUSION_MUST_FAIL = [
    InclusionVector(
        "testdata/inclusion/1/empty-root.json", C_73A0DB1C,
        "empty root", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/inserted-component.json", C_73A0DB1C,
        "inserted component", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "abacaba000000000000000000000000000000000000000000060061e00123456",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/leafIdx-+-1.json", C_65362AC5,
        "leafIdx + 1", 1, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/leafIdx---1.json", C_65362AC5,
        "leafIdx - 1", 18446744073709551615, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/leafIdx-^-2.json", C_65362AC5,
        "leafIdx ^ 2", 2, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/leafIdx-sub-@1.json", C_BCBA819E,
        "leafIdx sub @1", 18446744073709551615, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/leafIndex-+-1.json", C_CD8C8F80,
        "leafIndex + 1", 1, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/leafIndex---1.json", C_CD8C8F80,
        "leafIndex - 1", 18446744073709551615, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/leafIndex-^-2.json", C_CD8C8F80,
        "leafIndex ^ 2", 2, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/modified-proof[0]-bit-3.json", C_65362AC5,
        "modified proof[0] bit 3", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("9ea296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/modified-proof[0]-bit-@3.json", C_EB6F9B75,
        "modified proof[0] bit @3", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("9ea296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/modified-proof[1]-bit-3.json", C_65362AC5,
        "modified proof[1] bit 3", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "57083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/modified-proof[2]-bit-3.json", C_65362AC5,
        "modified proof[2] bit 3", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6347aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/preceding-garbage.json", C_73A0DB1C,
        "preceding garbage", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("",
               "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/preceding-root.json", C_65362AC5,
        "preceding root", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
               "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/random-root.json", C_65362AC5,
        "random root", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="abacaba000000000000000000000000000000000000000000060061e00123456",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/removed-component.json", C_73A0DB1C,
        "removed component", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e"),
    ),
    InclusionVector(
        "testdata/inclusion/1/trailing-garbage.json", C_65362AC5,
        "trailing garbage", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
               ""),
    ),
    InclusionVector(
        "testdata/inclusion/1/trailing-root.json", C_73A0DB1C,
        "trailing root", 0, 8,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
               "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"),
    ),
    InclusionVector(
        "testdata/inclusion/1/treeSize-*-2.json", C_65362AC5,
        "treeSize * 2", 0, 16,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/treeSize-div-2.json", C_65362AC5,
        "treeSize div 2", 0, 4,
        leaf="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/1/wrong-leaf.json", C_73A0DB1C,
        "wrong leaf", 0, 8,
        leaf="57726f6e674c656166",
        root="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    InclusionVector(
        "testdata/inclusion/4/empty-root.json", C_73A0DB1C,
        "empty root", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/inserted-component.json", C_65362AC5,
        "inserted component", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "abacaba000000000000000000000000000000000000000000060061e00123456",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/leafIdx-+-1.json", C_65362AC5,
        "leafIdx + 1", 2, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/leafIdx---1.json", C_65362AC5,
        "leafIdx - 1", 0, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/leafIdx-^-2.json", C_65362AC5,
        "leafIdx ^ 2", 3, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/leafIdx-sub-@1.json", C_BCBA819E,
        "leafIdx sub @1", 0, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/leafIndex-+-1.json", C_CD8C8F80,
        "leafIndex + 1", 2, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/leafIndex---1.json", C_CD8C8F80,
        "leafIndex - 1", 0, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/leafIndex-^-2.json", C_CD8C8F80,
        "leafIndex ^ 2", 3, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/modified-proof[0]-bit-3.json", C_65362AC5,
        "modified proof[0] bit 3", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("66340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/modified-proof[1]-bit-3.json", C_65362AC5,
        "modified proof[1] bit 3", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "57083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/modified-proof[1]-bit-@3.json", C_EB6F9B75,
        "modified proof[1] bit @3", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "57083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/modified-proof[2]-bit-3.json", C_65362AC5,
        "modified proof[2] bit 3", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "b41a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/preceding-garbage.json", C_73A0DB1C,
        "preceding garbage", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("",
               "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/preceding-root.json", C_73A0DB1C,
        "preceding root", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
               "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/random-root.json", C_73A0DB1C,
        "random root", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="abacaba000000000000000000000000000000000000000000060061e00123456",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/removed-component.json", C_65362AC5,
        "removed component", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e"),
    ),
    InclusionVector(
        "testdata/inclusion/4/trailing-garbage.json", C_73A0DB1C,
        "trailing garbage", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
               ""),
    ),
    InclusionVector(
        "testdata/inclusion/4/trailing-root.json", C_73A0DB1C,
        "trailing root", 1, 5,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
               "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4"),
    ),
    InclusionVector(
        "testdata/inclusion/4/treeSize-*-2.json", C_65362AC5,
        "treeSize * 2", 1, 10,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/treeSize-div-2.json", C_65362AC5,
        "treeSize div 2", 1, 2,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/treeSize-div-@2.json", C_EB6F9B75,
        "treeSize div @2", 1, 2,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/treeSize-mul-@2.json", C_EB6F9B75,
        "treeSize mul @2", 1, 10,
        leaf="96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
    InclusionVector(
        "testdata/inclusion/4/wrong-leaf.json", C_73A0DB1C,
        "wrong leaf", 1, 5,
        leaf="57726f6e674c656166",
        root="4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
    ),
]

PUBLISHED_CONSISTENCY_MUST_FAIL = [
    ConsistencyVector(
        "testdata/consistency/1/empty-proof.json", C_BCBA819E,
        "empty proof", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=(),
    ),
    ConsistencyVector(
        "testdata/consistency/1/modified-proof@0-bit-@4.json", C_BCBA819E,
        "modified proof@0 bit @4", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("86a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/modified-proof@1-bit-@4.json", C_BCBA819E,
        "modified proof@1 bit @4", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "4f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/modified-proof@2-bit-@4.json", C_BCBA819E,
        "modified proof@2 bit @4", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "7b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/modified-proof[0]-bit-4.json", C_65362AC5,
        "modified proof[0] bit 4", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("86a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/modified-proof[1]-bit-4.json", C_65362AC5,
        "modified proof[1] bit 4", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "4f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/modified-proof[2]-bit-4.json", C_65362AC5,
        "modified proof[2] bit 4", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "7b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/preceding-garbage.json", C_65362AC5,
        "preceding garbage", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("",
               "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/preceding-proof-@0.json", C_BCBA819E,
        "preceding proof @0", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/preceding-proof[0].json", C_65362AC5,
        "preceding proof[0]", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/preceding-root1.json", C_BCBA819E,
        "preceding root1", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
               "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/preceding-root2.json", C_BCBA819E,
        "preceding root2", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
               "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/size1-+-1.json", C_65362AC5,
        "size1 + 1", 2, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/size1---1.json", C_65362AC5,
        "size1 - 1", 0, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/size1-XOR-@2.json", C_EB6F9B75,
        "size1 XOR @2", 3, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/size1-^-2.json", C_65362AC5,
        "size1 ^ 2", 3, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/size1-plus-@1.json", C_EB6F9B75,
        "size1 plus @1", 2, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/size1-sub-@1.json", C_EB6F9B75,
        "size1 sub @1", 0, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/size2-*-2.json", C_65362AC5,
        "size2 * 2", 1, 16,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/size2-div-2.json", C_65362AC5,
        "size2 div 2", 1, 4,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/size2-div-@2.json", C_BCBA819E,
        "size2 div @2", 1, 4,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/size2-mul-@2.json", C_EB6F9B75,
        "size2 mul @2", 1, 16,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/swapped-roots.json", C_BCBA819E,
        "swapped roots", 1, 8,
        root1="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        root2="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/trailing-garbage.json", C_65362AC5,
        "trailing garbage", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
               ""),
    ),
    ConsistencyVector(
        "testdata/consistency/1/trailing-root1.json", C_BCBA819E,
        "trailing root1", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
               "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/trailing-root2.json", C_65362AC5,
        "trailing root2", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
               "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/truncated-proof.json", C_BCBA819E,
        "truncated proof", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/wrong-root1.json", C_BCBA819E,
        "wrong root1", 1, 8,
        root1="57726f6e67526f6f74",
        root2="5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/1/wrong-root2.json", C_BCBA819E,
        "wrong root2", 1, 8,
        root1="6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        root2="57726f6e67526f6f74",
        proof=("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
               "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
               "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/empty-proof.json", C_BCBA819E,
        "empty proof", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=(),
    ),
    ConsistencyVector(
        "testdata/consistency/4/modified-proof@0-bit-@4.json", C_BCBA819E,
        "modified proof@0 bit @4", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("1ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/modified-proof@1-bit-@4.json", C_BCBA819E,
        "modified proof@1 bit @4", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "a08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/modified-proof@2-bit-@4.json", C_EB6F9B75,
        "modified proof@2 bit @4", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "c37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/modified-proof[0]-bit-4.json", C_65362AC5,
        "modified proof[0] bit 4", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("1ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/modified-proof[1]-bit-4.json", C_65362AC5,
        "modified proof[1] bit 4", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "a08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/modified-proof[2]-bit-4.json", C_65362AC5,
        "modified proof[2] bit 4", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "c37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/preceding-garbage.json", C_65362AC5,
        "preceding garbage", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("",
               "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/preceding-proof-@0.json", C_BCBA819E,
        "preceding proof @0", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/preceding-proof[0].json", C_65362AC5,
        "preceding proof[0]", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/preceding-root1.json", C_BCBA819E,
        "preceding root1", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
               "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/preceding-root2.json", C_BCBA819E,
        "preceding root2", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
               "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/size1-+-1.json", C_65362AC5,
        "size1 + 1", 7, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/size1---1.json", C_65362AC5,
        "size1 - 1", 5, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/size1-XOR-@2.json", C_BCBA819E,
        "size1 XOR @2", 4, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/size1-^-2.json", C_65362AC5,
        "size1 ^ 2", 4, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/size1-plus-@1.json", C_BCBA819E,
        "size1 plus @1", 7, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/size1-sub-@1.json", C_BCBA819E,
        "size1 sub @1", 5, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/size2-*-2.json", C_65362AC5,
        "size2 * 2", 6, 14,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/size2-div-2.json", C_65362AC5,
        "size2 div 2", 6, 3,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/size2-div-@2.json", C_EB6F9B75,
        "size2 div @2", 6, 3,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/size2-mul-@2.json", C_EB6F9B75,
        "size2 mul @2", 6, 14,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/swapped-roots.json", C_65362AC5,
        "swapped roots", 6, 7,
        root1="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        root2="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/trailing-garbage.json", C_BCBA819E,
        "trailing garbage", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
               ""),
    ),
    ConsistencyVector(
        "testdata/consistency/4/trailing-root1.json", C_BCBA819E,
        "trailing root1", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
               "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/trailing-root2.json", C_BCBA819E,
        "trailing root2", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
               "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/truncated-proof.json", C_65362AC5,
        "truncated proof", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/wrong-root1.json", C_BCBA819E,
        "wrong root1", 6, 7,
        root1="57726f6e67526f6f74",
        root2="ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
    ConsistencyVector(
        "testdata/consistency/4/wrong-root2.json", C_BCBA819E,
        "wrong root2", 6, 7,
        root1="76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        root2="57726f6e67526f6f74",
        proof=("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    ),
]
# fmt: on


# Further happy paths for the sizes and indices the published proof tables do not cover. They are
# not published as proofs: each is written by hand from RFC 9162's PATH / PROOF definitions as a
# list of published complete-subtree hashes, (level, i) meaning NODE_HASHES[level][i], so the
# expected values still come from testonly/constants.go and not from the code under test.
DERIVED_INCLUSION = [
    # (leaf index, tree size, proof)
    (0, 2, ((0, 1),)),
    (1, 2, ((0, 0),)),
    (0, 3, ((0, 1), (0, 2))),
    (2, 4, ((0, 3), (1, 0))),
    (3, 4, ((0, 2), (1, 0))),
    (4, 5, ((2, 0),)),
    (0, 6, ((0, 1), (1, 1), (1, 2))),
    (4, 6, ((0, 5), (2, 0))),
    (5, 6, ((0, 4), (2, 0))),
    (4, 7, ((0, 5), (0, 6), (2, 0))),
    (6, 7, ((1, 2), (2, 0))),
    (3, 8, ((0, 2), (1, 0), (2, 1))),
    (7, 8, ((0, 6), (1, 2), (2, 0))),
]

DERIVED_CONSISTENCY = [
    # (old size, new size, proof)
    (1, 2, ((0, 1),)),
    (1, 3, ((0, 1), (0, 2))),
    (2, 3, ((0, 2),)),
    (2, 4, ((1, 1),)),
    (3, 4, ((0, 2), (0, 3), (1, 0))),
    (4, 5, ((0, 4),)),
    (4, 6, ((1, 2),)),
    (5, 6, ((0, 4), (0, 5), (2, 0))),
    (5, 7, ((0, 4), (0, 5), (0, 6), (2, 0))),
    (3, 8, ((0, 2), (0, 3), (1, 0), (2, 1))),
    (4, 8, ((2, 1),)),
    (7, 8, ((0, 6), (0, 7), (1, 2), (2, 0))),
]


def _nodes(refs: tuple[tuple[int, int], ...]) -> list[bytes]:
    return [h(NODE_HASHES[level][i]) for level, i in refs]


@pytest.fixture(scope="module")
def reference_tree() -> MerkleTree:
    return MerkleTree([leaf_hash(entry) for entry in LEAF_INPUTS])


def test_leaf_hashes_match_published_level_zero() -> None:
    assert [leaf_hash(entry).hex() for entry in LEAF_INPUTS] == NODE_HASHES[0]


@pytest.mark.parametrize("size", range(len(ROOTS)))
def test_roots_match_published(reference_tree: MerkleTree, size: int) -> None:
    assert reference_tree.root(size) == h(ROOTS[size])
    assert MerkleTree([leaf_hash(e) for e in LEAF_INPUTS[:size]]).root() == h(ROOTS[size])
    assert rfc_mth(LEAF_INPUTS[:size]) == h(ROOTS[size])  # the reference below agrees too


def test_node_hashes_match_published(reference_tree: MerkleTree) -> None:
    hashes = [leaf_hash(entry) for entry in LEAF_INPUTS]
    for level, row in enumerate(NODE_HASHES):
        width = 1 << level
        for i, expected in enumerate(row):
            assert MerkleTree(hashes[i * width : (i + 1) * width]).root() == h(expected)
    assert [[node.hex() for node in row] for row in reference_tree.levels] == NODE_HASHES


def test_published_vector_counts() -> None:
    # Guards against an accidental deletion in the tables above.
    assert len(PUBLISHED_INCLUSION_HAPPY) + len(DERIVED_INCLUSION) >= 8
    assert len(PUBLISHED_CONSISTENCY_HAPPY) + len(DERIVED_CONSISTENCY) >= 8
    inclusion_sizes = {v.size for v in PUBLISHED_INCLUSION_HAPPY}
    inclusion_sizes |= {n for _, n, _ in DERIVED_INCLUSION}
    assert inclusion_sizes == set(range(1, 9))
    consistency_sizes = {v.size2 for v in PUBLISHED_CONSISTENCY_HAPPY}
    consistency_sizes |= {n for _, n, _ in DERIVED_CONSISTENCY}
    assert consistency_sizes == set(range(1, 9))
    assert len(PUBLISHED_INCLUSION_MUST_FAIL) == 46
    assert len(PUBLISHED_CONSISTENCY_MUST_FAIL) == 58


@pytest.mark.parametrize("v", PUBLISHED_INCLUSION_HAPPY, ids=lambda v: v.id)
def test_published_inclusion_happy_path(reference_tree: MerkleTree, v: InclusionVector) -> None:
    proof = [h(p) for p in v.proof]
    assert verify_inclusion(h(v.leaf), v.index, v.size, proof, h(v.root))
    # ... and it is exactly what we generate for the same leaves.
    assert leaf_hash(LEAF_INPUTS[v.index]) == h(v.leaf)
    assert reference_tree.root(v.size) == h(v.root)
    assert reference_tree.inclusion_proof(v.index, v.size) == proof
    small = MerkleTree([leaf_hash(e) for e in LEAF_INPUTS[: v.size]])
    assert small.inclusion_proof(v.index) == proof


@pytest.mark.parametrize("v", PUBLISHED_CONSISTENCY_HAPPY, ids=lambda v: v.id)
def test_published_consistency_happy_path(reference_tree: MerkleTree, v: ConsistencyVector) -> None:
    proof = [h(p) for p in v.proof]
    assert verify_consistency(v.size1, v.size2, h(v.root1), h(v.root2), proof)
    assert reference_tree.root(v.size1) == h(v.root1)
    assert reference_tree.root(v.size2) == h(v.root2)
    assert reference_tree.consistency_proof(v.size1, v.size2) == proof
    small = MerkleTree([leaf_hash(e) for e in LEAF_INPUTS[: v.size2]])
    assert small.consistency_proof(v.size1) == proof


@pytest.mark.parametrize("v", PUBLISHED_INCLUSION_MUST_FAIL, ids=lambda v: v.id)
def test_published_inclusion_mutations_are_refused(v: InclusionVector) -> None:
    proof = [h(p) for p in v.proof]
    assert not verify_inclusion(h(v.leaf), v.index, v.size, proof, h(v.root))


@pytest.mark.parametrize("v", PUBLISHED_CONSISTENCY_MUST_FAIL, ids=lambda v: v.id)
def test_published_consistency_mutations_are_refused(v: ConsistencyVector) -> None:
    proof = [h(p) for p in v.proof]
    assert not verify_consistency(v.size1, v.size2, h(v.root1), h(v.root2), proof)


@pytest.mark.parametrize(("index", "size", "refs"), DERIVED_INCLUSION)
def test_derived_inclusion_vectors(
    reference_tree: MerkleTree, index: int, size: int, refs: tuple[tuple[int, int], ...]
) -> None:
    proof = _nodes(refs)
    assert reference_tree.inclusion_proof(index, size) == proof
    assert verify_inclusion(h(NODE_HASHES[0][index]), index, size, proof, h(ROOTS[size]))


@pytest.mark.parametrize(("old", "new", "refs"), DERIVED_CONSISTENCY)
def test_derived_consistency_vectors(
    reference_tree: MerkleTree, old: int, new: int, refs: tuple[tuple[int, int], ...]
) -> None:
    proof = _nodes(refs)
    assert reference_tree.consistency_proof(old, new) == proof
    assert verify_consistency(old, new, h(ROOTS[old]), h(ROOTS[new]), proof)


# The fixed cases of proof/verify_test.go (commit 02194e9afb6c1d95b5381350007963aa70fff472).


def test_go_single_entry_cases() -> None:
    # TestVerifyInclusionSingleEntry: in a one-leaf tree the root is the leaf hash; the last case
    # is refused by the Go verifier because the hashes have the wrong size.
    leaf = leaf_hash(b"data")
    assert verify_inclusion(leaf, 0, 1, [], leaf)
    assert not verify_inclusion(b"", 0, 1, [], leaf)
    assert not verify_inclusion(leaf, 0, 1, [], b"")
    assert not verify_inclusion(b"", 0, 1, [], b"")


@pytest.mark.parametrize(("index", "size"), [(0, 0), (0, 1), (1, 0), (2, 1)])
def test_go_inclusion_probes(index: int, size: int) -> None:
    # TestVerifyInclusion: empty proofs with a wrong leaf or root never verify.
    assert not verify_inclusion(SOME_HASH, index, size, [], b"")
    assert not verify_inclusion(b"", index, size, [], EMPTY_TREE_HASH)
    assert not verify_inclusion(SOME_HASH, index, size, [], EMPTY_TREE_HASH)


_R1, _R2 = b"don't care 1", b"don't care 2"


@pytest.mark.parametrize(
    ("size1", "size2", "root1", "root2", "proof", "ok"),
    [
        (0, 0, _R1, _R2, [], False),
        (1, 1, _R1, _R2, [], False),
        # Sizes that are always consistent.
        (0, 0, _R1, _R1, [], True),
        (0, 1, _R1, _R2, [], True),
        (1, 1, _R2, _R2, [], True),
        # Time travel to the past.
        (1, 0, _R1, _R2, [], False),
        (2, 1, _R1, _R2, [], False),
        # Empty proof.
        (1, 2, _R1, _R2, [], False),
        # Roots don't match.
        (0, 0, EMPTY_TREE_HASH, _R2, [], False),
        (1, 1, EMPTY_TREE_HASH, _R2, [], False),
        # Roots match but the proof is not empty.
        (0, 0, EMPTY_TREE_HASH, EMPTY_TREE_HASH, [EMPTY_TREE_HASH], False),
        (0, 1, EMPTY_TREE_HASH, EMPTY_TREE_HASH, [EMPTY_TREE_HASH], False),
        (1, 1, EMPTY_TREE_HASH, EMPTY_TREE_HASH, [EMPTY_TREE_HASH], False),
    ],
)
def test_go_consistency_cases(
    size1: int, size2: int, root1: bytes, root2: bytes, proof: list[bytes], ok: bool
) -> None:
    # TestVerifyConsistency.
    assert verify_consistency(size1, size2, root1, root2, proof) is ok


# ------------------------------------------------------------------------------------------------
# A plain reference implementation of RFC 9162 section 2.1, written from the text of the RFC
# ------------------------------------------------------------------------------------------------


def _largest_power_of_two_below(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def rfc_mth(entries: list[bytes]) -> bytes:
    """MTH(D[n]) of RFC 9162 section 2.1.1."""
    n = len(entries)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return hashlib.sha256(b"\x00" + entries[0]).digest()
    k = _largest_power_of_two_below(n)
    return hashlib.sha256(b"\x01" + rfc_mth(entries[:k]) + rfc_mth(entries[k:])).digest()


def rfc_path(m: int, entries: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]) of RFC 9162 section 2.1.3.1."""
    n = len(entries)
    if n == 1:
        return []
    k = _largest_power_of_two_below(n)
    if m < k:
        return [*rfc_path(m, entries[:k]), rfc_mth(entries[k:])]
    return [*rfc_path(m - k, entries[k:]), rfc_mth(entries[:k])]


def rfc_subproof(m: int, entries: list[bytes], b: bool) -> list[bytes]:
    """SUBPROOF(m, D[n], b) of RFC 9162 section 2.1.4.1."""
    n = len(entries)
    if m == n:
        return [] if b else [rfc_mth(entries)]
    k = _largest_power_of_two_below(n)
    if m <= k:
        return [*rfc_subproof(m, entries[:k], b), rfc_mth(entries[k:])]
    return [*rfc_subproof(m - k, entries[k:], False), rfc_mth(entries[:k])]


def rfc_proof(m: int, entries: list[bytes]) -> list[bytes]:
    """PROOF(m, D[n]) of RFC 9162 section 2.1.4.1 (defined for 0 < m < n)."""
    return rfc_subproof(m, entries, True)


def ceil_log2(n: int) -> int:
    return (n - 1).bit_length()  # for n >= 1


def flip(data: bytes, bit: int) -> bytes:
    bit %= 8 * len(data)
    out = bytearray(data)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


# ------------------------------------------------------------------------------------------------
# Property-based tests
# ------------------------------------------------------------------------------------------------

MAX_LEAVES = 300
PROPERTY_SETTINGS = settings(max_examples=200, deadline=None)


@st.composite
def entries(draw: st.DrawFn, min_size: int = 1) -> list[bytes]:
    """Leaf data for a tree of ``min_size``..MAX_LEAVES leaves.

    The first leaves carry arbitrary bytes; the rest a drawn filler (drawing hundreds of binaries
    would overrun hypothesis' buffer). Every entry starts with its index so no two are equal:
    duplicate leaves would make, e.g., a proof for the wrong index legitimately verify.
    """
    n = draw(st.integers(min_size, MAX_LEAVES))
    head = draw(st.lists(st.binary(max_size=40), max_size=min(n, 24)))
    filler = draw(st.binary(max_size=16))
    return [i.to_bytes(2, "big") + (head[i] if i < len(head) else filler) for i in range(n)]


def _tree(data: list[bytes]) -> MerkleTree:
    return MerkleTree([leaf_hash(entry) for entry in data])


@PROPERTY_SETTINGS
@given(data=entries(min_size=0))
def test_root_equals_rfc_mth(data: list[bytes]) -> None:
    tree = _tree(data)
    assert tree.root() == rfc_mth(data)


@PROPERTY_SETTINGS
@given(data=entries(), st_data=st.data())
def test_prefix_roots_equal_rfc_mth(data: list[bytes], st_data: st.DataObject) -> None:
    size = st_data.draw(st.integers(0, len(data)), label="size")
    assert _tree(data).root(size) == rfc_mth(data[:size])


@PROPERTY_SETTINGS
@given(data=entries(), st_data=st.data())
def test_every_inclusion_proof_verifies(data: list[bytes], st_data: st.DataObject) -> None:
    tree = _tree(data)
    size = st_data.draw(st.integers(1, len(data)), label="size")
    root = tree.root(size)
    bound = ceil_log2(size)
    for index in range(size):
        proof = tree.inclusion_proof(index, size)
        assert len(proof) <= bound
        assert verify_inclusion(leaf_hash(data[index]), index, size, proof, root)


@PROPERTY_SETTINGS
@given(data=entries(), st_data=st.data())
def test_inclusion_proof_equals_rfc_path(data: list[bytes], st_data: st.DataObject) -> None:
    size = st_data.draw(st.integers(1, len(data)), label="size")
    index = st_data.draw(st.integers(0, size - 1), label="index")
    assert _tree(data).inclusion_proof(index, size) == rfc_path(index, data[:size])


@PROPERTY_SETTINGS
@given(data=entries(), st_data=st.data())
def test_flipped_bit_breaks_inclusion(data: list[bytes], st_data: st.DataObject) -> None:
    tree = _tree(data)
    size = len(data)
    index = st_data.draw(st.integers(0, size - 1), label="index")
    bit = st_data.draw(st.integers(0, 255), label="bit")
    leaf, root = leaf_hash(data[index]), tree.root()
    proof = tree.inclusion_proof(index)
    assert verify_inclusion(leaf, index, size, proof, root)
    for i in range(len(proof)):
        bad = [*proof[:i], flip(proof[i], bit), *proof[i + 1 :]]
        assert not verify_inclusion(leaf, index, size, bad, root)
    assert not verify_inclusion(flip(leaf, bit), index, size, proof, root)
    assert not verify_inclusion(leaf, index, size, proof, flip(root, bit))


@PROPERTY_SETTINGS
@given(data=entries(min_size=2), st_data=st.data())
def test_proof_for_wrong_index_fails(data: list[bytes], st_data: st.DataObject) -> None:
    tree = _tree(data)
    size = len(data)
    index = st_data.draw(st.integers(0, size - 1), label="index")
    other = st_data.draw(st.integers(0, size - 1).filter(lambda j: j != index), label="other")
    leaf, root = leaf_hash(data[index]), tree.root()
    proof = tree.inclusion_proof(index)
    assert not verify_inclusion(leaf, other, size, proof, root)
    # The right proof of the other leaf does not carry this leaf either.
    assert not verify_inclusion(leaf, other, size, tree.inclusion_proof(other), root)
    assert not verify_inclusion(leaf, index + size, size, proof, root)


@PROPERTY_SETTINGS
@given(data=entries(min_size=0))
def test_every_consistency_proof_verifies(data: list[bytes]) -> None:
    tree = _tree(data)
    n = len(data)
    new_root = tree.root()
    bound = ceil_log2(n) + 1 if n else 0
    for m in range(n + 1):
        proof = tree.consistency_proof(m)
        assert len(proof) <= bound
        assert verify_consistency(m, n, tree.root(m), new_root, proof)


@PROPERTY_SETTINGS
@given(data=entries(min_size=2), st_data=st.data())
def test_consistency_proof_equals_rfc_proof(data: list[bytes], st_data: st.DataObject) -> None:
    n = st_data.draw(st.integers(2, len(data)), label="new size")
    m = st_data.draw(st.integers(1, n - 1), label="old size")
    assert _tree(data).consistency_proof(m, n) == rfc_proof(m, data[:n])


@PROPERTY_SETTINGS
@given(data=entries(), st_data=st.data())
def test_rewritten_prefix_breaks_consistency(data: list[bytes], st_data: st.DataObject) -> None:
    n = len(data)
    m = st_data.draw(st.integers(1, n), label="old size")
    j = st_data.draw(st.integers(0, m - 1), label="changed leaf")
    tree = _tree(data)
    forged = _tree([*data[:j], data[j] + b"!", *data[j + 1 :]])
    # An old checkpoint of a tree whose prefix differs is not extended by the real tree ...
    assert not verify_consistency(m, n, forged.root(m), tree.root(), tree.consistency_proof(m))
    # ... nor does the other tree's own proof link it to the real tree's root.
    assert not verify_consistency(m, n, forged.root(m), tree.root(), forged.consistency_proof(m))
    assert not verify_consistency(m, n, tree.root(m), forged.root(), forged.consistency_proof(m))


@PROPERTY_SETTINGS
@given(data=entries(min_size=2), st_data=st.data())
def test_flipped_bit_breaks_consistency(data: list[bytes], st_data: st.DataObject) -> None:
    tree = _tree(data)
    n = len(data)
    m = st_data.draw(st.integers(1, n - 1), label="old size")
    bit = st_data.draw(st.integers(0, 255), label="bit")
    old_root, new_root = tree.root(m), tree.root()
    proof = tree.consistency_proof(m)
    assert verify_consistency(m, n, old_root, new_root, proof)
    for i in range(len(proof)):
        bad = [*proof[:i], flip(proof[i], bit), *proof[i + 1 :]]
        assert not verify_consistency(m, n, old_root, new_root, bad)
    assert not verify_consistency(m, n, flip(old_root, bit), new_root, proof)
    assert not verify_consistency(m, n, old_root, flip(new_root, bit), proof)


# ------------------------------------------------------------------------------------------------
# Edge cases
# ------------------------------------------------------------------------------------------------


def test_empty_tree_root_is_sha256_of_nothing() -> None:
    assert hashlib.sha256(b"").digest() == EMPTY_ROOT == EMPTY_TREE_HASH == h(ROOTS[0])
    assert MerkleTree([]).root() == EMPTY_ROOT
    assert MerkleTree([]).size == 0
    assert MerkleTree([leaf_hash(b"x")]).root(0) == EMPTY_ROOT


def test_hash_domain_separation() -> None:
    assert leaf_hash(b"abc") == hashlib.sha256(b"\x00abc").digest()
    left, right = b"L" * 32, b"R" * 32
    assert node_hash(left, right) == hashlib.sha256(b"\x01" + left + right).digest()


def test_out_of_range_sizes_and_indices_raise(reference_tree: MerkleTree) -> None:
    n = reference_tree.size
    assert n == 8
    for size in (-1, n + 1):
        with pytest.raises(ValueError):
            reference_tree.root(size)
        with pytest.raises(ValueError):
            reference_tree.inclusion_proof(0, size)
        with pytest.raises(ValueError):
            reference_tree.consistency_proof(0, size)
    for index, size in ((-1, n), (n, n), (n + 5, n), (3, 3), (0, 0)):
        with pytest.raises(ValueError):
            reference_tree.inclusion_proof(index, size)
    for old, new in ((-1, n), (n + 1, n), (5, 4), (1, 0)):
        with pytest.raises(ValueError):
            reference_tree.consistency_proof(old, new)
    empty = MerkleTree([])
    with pytest.raises(ValueError):
        empty.inclusion_proof(0)
    assert empty.consistency_proof(0) == []


def test_verify_inclusion_index_not_below_size_is_false(reference_tree: MerkleTree) -> None:
    leaf = h(NODE_HASHES[0][0])
    for index, size in ((8, 8), (9, 8), (2**64 - 1, 8), (0, 0), (1, 1), (5, 3)):
        proof = reference_tree.inclusion_proof(0, size) if 0 < size <= 8 else []
        assert not verify_inclusion(leaf, index, size, proof, reference_tree.root(size))
    assert not verify_inclusion(leaf, -1, 8, reference_tree.inclusion_proof(0), h(ROOTS[8]))
    assert not verify_inclusion(leaf, 0, 0, [], EMPTY_ROOT)


def test_leaf_that_is_not_a_hash_is_refused() -> None:
    # Without a length check, node_hash(a + b[:16], b[16:]) == node_hash(a, b) let a 48-byte
    # "leaf" verify at index 0 of a two-leaf tree although it is no leaf of it.
    a, b = leaf_hash(b"A"), leaf_hash(b"B")
    tree = MerkleTree([a, b])
    assert verify_inclusion(a, 0, 2, [b], tree.root())
    assert not verify_inclusion(a + b[:16], 0, 2, [b[16:]], tree.root())
    assert not verify_inclusion(a[:31], 0, 1, [], a[:31])
    assert not verify_inclusion(a + a, 0, 1, [], a + a)


def test_trivial_consistency_proofs() -> None:
    tree = _tree([b"a", b"b", b"c"])
    assert tree.consistency_proof(0) == []
    assert tree.consistency_proof(3) == []
    assert tree.consistency_proof(2, 2) == []
    assert verify_consistency(3, 3, tree.root(), tree.root(), [])
    assert not verify_consistency(3, 3, tree.root(), tree.root(2), [])
    assert not verify_consistency(-1, 3, EMPTY_ROOT, tree.root(), [])
