"""The object store keeps a wrong file found under a hash as evidence, and says so once."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from casebuilder.intake.ingest import ingest
from casebuilder.preservation.verify import verify_case


def entries(case) -> list[dict]:
    return [json.loads(line) for line in case.paths.log.read_text().splitlines()]


def plant(case, sha256: str, data: bytes) -> Path:
    path = case.objects.path_for(sha256)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        os.chmod(path, 0o644)
    path.write_bytes(data)
    return path


def test_a_planted_file_is_set_aside_as_evidence_not_overwritten(case, tmp_path):
    genuine = tmp_path / "statement.txt"
    genuine.write_bytes(b"the real statement\n")
    sha = hashlib.sha256(genuine.read_bytes()).hexdigest()
    stored = plant(case, sha, b"a decoy\n")
    report = ingest(case, [genuine])
    assert stored.read_bytes() == genuine.read_bytes()
    kept = case.objects.root / "set-aside" / f"{sha}.1"
    assert kept.read_bytes() == b"a decoy\n"
    entry = next(e for e in entries(case) if e["action"] == "ingest")
    assert entry["details"]["stored_file_replaced"] is True
    assert entry["details"]["stored_file_set_aside"] == {
        "path": f"objects/set-aside/{sha}.1",
        "sha256": hashlib.sha256(b"a decoy\n").hexdigest(),
        "size": 8,
    }
    assert any("replaced" in w for w in report.outcomes[0].warnings)
    assert verify_case(case).ok


def test_a_second_planted_file_does_not_overwrite_the_first(case, tmp_path):
    genuine = tmp_path / "statement.txt"
    genuine.write_bytes(b"the real statement\n")
    sha = hashlib.sha256(genuine.read_bytes()).hexdigest()
    plant(case, sha, b"decoy one\n")
    case.objects.store_file(genuine, max_size=1 << 20)
    plant(case, sha, b"decoy two\n")
    again = case.objects.store_file(genuine, max_size=1 << 20)
    kept = case.objects.root / "set-aside"
    assert (kept / f"{sha}.1").read_bytes() == b"decoy one\n"
    assert (kept / f"{sha}.2").read_bytes() == b"decoy two\n"
    assert again.set_aside is not None and again.set_aside.path == kept / f"{sha}.2"


def test_only_the_store_that_replaced_a_file_reports_it(case, tmp_path):
    genuine = tmp_path / "a" / "statement.txt"
    copy = tmp_path / "b" / "statement.txt"  # the same bytes, received again in the same run
    other = tmp_path / "c" / "other.txt"
    for path, data in ((genuine, b"the real statement\n"), (copy, b"the real statement\n"),
                       (other, b"another statement\n")):
        path.parent.mkdir()
        path.write_bytes(data)
    plant(case, hashlib.sha256(genuine.read_bytes()).hexdigest(), b"a decoy\n")
    report = ingest(case, [tmp_path / "a", tmp_path / "b", tmp_path / "c"])
    flagged = [o.path for o in report.outcomes if any("replaced" in w for w in o.warnings)]
    assert len(flagged) == 1 and flagged[0].endswith(os.path.join("a", "statement.txt"))
    replaced = [e for e in entries(case)
                if e["action"] == "ingest" and e["details"].get("stored_file_replaced")]
    assert len(replaced) == 1
    assert case.objects.replaced == []  # the last store replaced nothing
    assert verify_case(case).ok
