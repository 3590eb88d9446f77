"""Court bundles validate with bagit.py and with their own verify_bundle.py, and both catch a
flipped payload byte."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from casebuilder.intake.ingest import ingest
from casebuilder.reporting.bundle import write_bundle
from conftest import run_cli, venv_script


def bagit_validate(bag: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, venv_script("bagit.py"), "--validate", str(bag)],
        capture_output=True,
        text=True,
        check=False,
    )


def verify_script(bag: Path) -> subprocess.CompletedProcess[str]:
    # Run it the way a court expert would: a plain python3, inside the bundle, no casebuilder.
    return subprocess.run(
        ["python3", "verify_bundle.py"],
        cwd=bag,
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin"},
    )


@pytest.fixture
def bundled(case, dev_reports, tmp_path) -> Path:
    ingest(case, [dev_reports])
    out = tmp_path / "bundle"
    write_bundle(case, out)
    return out


def test_bundle_validates_with_both_tools(bundled):
    assert bagit_validate(bundled).returncode == 0, bagit_validate(bundled).stderr
    result = verify_script(bundled)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in (
        "VERIFY.md",
        "verify_bundle.py",
        "bagit.txt",
        "manifest-sha256.txt",
        "manifest-sha512.txt",
        "tagmanifest-sha256.txt",
        "bag-info.txt",
    ):
        assert (bundled / name).is_file()
    checkpoint = json.loads((bundled / "data/custody/checkpoint.json").read_text())
    log = (bundled / "data/custody/log.jsonl").read_text().splitlines()
    assert checkpoint["tree_size"] == len(log)
    assert json.loads(log[-1])["action"] == "bundle", "the bundle's own entry is covered"
    proofs = list((bundled / "data/proofs").glob("*.json"))
    items = list((bundled / "data/items").iterdir())
    assert len(proofs) == len(items) > 0


def test_flipped_payload_byte_fails_both(bundled):
    target = next(
        p for p in (bundled / "data/items").rglob("*") if p.is_file() and p.name != "item.json"
    )
    data = bytearray(target.read_bytes())
    data[0] ^= 0x20
    target.write_bytes(bytes(data))
    assert bagit_validate(bundled).returncode != 0
    result = verify_script(bundled)
    assert result.returncode != 0
    assert target.name in result.stdout + result.stderr


def test_zip_bundle_and_the_cli(case, dev_reports, tmp_path):
    ingest(case, [dev_reports])
    case.close()
    out = tmp_path / "court.zip"
    result = run_cli("bundle", "-o", out, home=case.paths.root)
    assert result.returncode == 0, result.stderr
    with zipfile.ZipFile(out) as zf:
        zf.extractall(tmp_path / "unzipped")
    bag = tmp_path / "unzipped" / "court"
    assert bagit_validate(bag).returncode == 0
    assert verify_script(bag).returncode == 0
    again = run_cli("bundle", "-o", out, home=case.paths.root)
    assert again.returncode == 2 and "already exists" in again.stderr


def test_selected_items_only(case, dev_reports, tmp_path):
    ingest(case, [dev_reports])
    out = tmp_path / "two"
    summary = write_bundle(case, out, item_ids=[2, 3])
    assert summary.items == 2
    assert sorted(p.name for p in (out / "data/items").iterdir()) == ["2", "3"]
    assert verify_script(out).returncode == 0
