"""Golden digests of the claims as serialised: every claim the extractor finds in each
development report, as ``Claim.as_json()`` gives it, key order included.

The results digest an ``extract`` entry records sorts keys, so it cannot tell whether a change
to how claim values are built or serialised kept their stored form. This file can: it holds,
per report, the number of claims and the SHA-256 of their JSON in the order written (not the
texts themselves). A change meant to alter the stored form regenerates it with
``CASEBUILDER_UPDATE_GOLDEN=1`` and says so in its commit message.
"""

from __future__ import annotations

import hashlib
import json
import os

import pytest
from test_golden_extraction import DOCUMENTS, source_for

from conftest import REPO

GOLDEN = REPO / "tests" / "golden" / "claims" / "serialised.json"


def serialised(mentions: list) -> list[str]:
    return [json.dumps(c.as_json(), ensure_ascii=False) for m in mentions for c in m.claims]


def test_serialised_claims_match_golden_digests(extraction_tools, dev_reports):
    found = {}
    for name in DOCUMENTS:
        lines = serialised(extraction_tools.extractor.extract(source_for(dev_reports / name)))
        found[name] = {"claims": len(lines),
                       "sha256": hashlib.sha256("\n".join(lines).encode()).hexdigest()}
    if os.environ.get("CASEBUILDER_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(found, indent=2) + "\n")
    if not GOLDEN.exists():
        pytest.fail(f"no golden file {GOLDEN}; run with CASEBUILDER_UPDATE_GOLDEN=1")
    assert found == json.loads(GOLDEN.read_text())
