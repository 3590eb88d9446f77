"""The second digest: ingest records SHA-256 while storing and leaves SHA-512 to sealing, which
reads the stored copy back, re-checks its SHA-256 and records both in a ``digest`` entry; verify
notes what is pending and seals it, bundles hold only items with both digests."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import init_case
from casebuilder.preservation.sealing import seal_pending
from casebuilder.preservation.verify import record_verification, verify_case
from casebuilder.store.schema import Item
from conftest import run_cli

REPORT = "Shelling hit the market at 10:00; three people were killed.\n"


def entries(home: Path, action: str | None = None) -> list[dict]:
    lines = (home / "custody" / "log.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if action is None or e["action"] == action]


def the_item(case, item_id: int = 1) -> Item:
    with case.session() as session:
        item = session.get(Item, item_id)
        assert item is not None
        return item


@pytest.fixture
def report_file(tmp_path: Path) -> Path:
    path = tmp_path / "report.txt"
    path.write_text(REPORT)
    return path


def test_ingest_leaves_sha512_pending_and_verify_seals_it_from_the_stored_copy(
        case, report_file):
    ingest(case, [report_file])
    assert the_item(case).sha512 is None
    (receipt,) = entries(case.paths.root, "ingest")
    assert "sha512" not in receipt["items"][0]  # stated later, by the digest entry

    report = verify_case(case)
    assert report.ok, report.failures
    assert any("have no recorded SHA-512 yet (second digest pending): 1" in n
               for n in report.notes)
    assert record_verification(case, report)
    assert any("waited for their SHA-512" in n for n in report.notes)
    (digest,) = entries(case.paths.root, "digest")
    data = report_file.read_bytes()
    assert digest["items"] == [{"id": 1, "role": "original",
                                "sha256": hashlib.sha256(data).hexdigest(),
                                "sha512": hashlib.sha512(data).hexdigest(), "size": len(data)}]
    assert digest["details"] == {"by": "verify", "read_from": "the stored copy",
                                 "sha256_checked": True}
    assert the_item(case).sha512 == hashlib.sha512(data).hexdigest()
    again = verify_case(case)
    assert again.ok and not any("SHA-512" in n for n in again.notes)


def test_a_stored_copy_that_does_not_hash_as_recorded_is_not_sealed(case, report_file):
    ingest(case, [report_file])
    stored = case.objects.path_for(the_item(case).sha256)
    os.chmod(stored, 0o644)
    stored.write_bytes(REPORT.replace("three", "thirty").encode())
    report = seal_pending(case)
    assert report.sealed == []
    ((item_id, problem),) = report.problems
    assert item_id == 1 and "not the" in problem and "recorded at ingest: not sealed" in problem
    assert the_item(case).sha512 is None and entries(case.paths.root, "digest") == []
    assert not verify_case(case).ok


def test_inline_mode_records_both_digests_at_receipt(tmp_path, report_file):
    case = init_case(tmp_path / "home", environ={"CASEBUILDER_SECOND_DIGEST": "inline"})
    try:
        ingest(case, [report_file])
        data = report_file.read_bytes()
        assert the_item(case).sha512 == hashlib.sha512(data).hexdigest()
        (receipt,) = entries(case.paths.root, "ingest")
        assert receipt["items"][0]["sha512"] == hashlib.sha512(data).hexdigest()
        assert seal_pending(case).sealed == [] and entries(case.paths.root, "digest") == []
    finally:
        case.close()


def test_a_bundle_seals_its_items_first_and_its_checker_finds_each_sha512_in_the_log(
        case, report_file, tmp_path):
    from casebuilder.reporting.bundle import write_bundle

    ingest(case, [report_file])
    write_bundle(case, tmp_path / "bundle")
    record = json.loads((tmp_path / "bundle" / "data" / "items" / "1" / "item.json")
                        .read_text())
    assert record["sha512"] == hashlib.sha512(report_file.read_bytes()).hexdigest()
    assert [e["details"]["by"] for e in entries(case.paths.root, "digest")] == ["bundle"]
    checked = subprocess.run([sys.executable, str(tmp_path / "bundle" / "verify_bundle.py")],
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout
    assert "each item's sha512 is recorded in the log" in checked.stdout


def test_a_command_hands_pending_digests_to_a_background_sealer(tmp_path, report_file):
    home = tmp_path / "home"
    case = init_case(home, environ={})
    try:
        ingest(case, [report_file])  # the library leaves SHA-512 pending, starts nothing
    finally:
        case.close()
    listed = run_cli("items", home=home, env={"CASEBUILDER_SECOND_DIGEST": "background"})
    assert listed.returncode == 0, listed.stderr
    deadline = time.monotonic() + 120
    while not entries(home, "digest"):  # the sealer is a detached process of its own
        assert time.monotonic() < deadline, "no sealer recorded the SHA-512"
        time.sleep(0.1)
    (digest,) = entries(home, "digest")
    assert digest["details"]["by"] == "seal"
    assert run_cli("seal", home=home).returncode == 0  # waits for it: nothing left to do
    assert len(entries(home, "digest")) == 1
    checked = run_cli("verify", home=home)
    assert checked.returncode == 0 and "SHA-512" not in checked.stdout, checked.stdout


def test_short_commands_do_not_load_what_they_do_not_use(tmp_path):
    """casebuilder --help and an ingest of one file import no extraction, parsing or display
    library (spaCy, trafilatura, Pillow, pypdf, rich, Alembic...): their start-up is most of a
    short command's time."""
    heavy = ("spacy", "trafilatura", "PIL", "pypdf", "charset_normalizer", "rich", "alembic",
             "lxml", "hachoir", "importlib.metadata")
    binary = tmp_path / "clip.bin"
    binary.write_bytes(os.urandom(4096))
    home = tmp_path / "home"
    assert run_cli("init", home=home).returncode == 0
    for args in (["--help"], ["--home", str(home), "ingest", "--no-progress", str(binary)]):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "casebuilder", *args],
                              capture_output=True, text=True, check=False)
        assert done.returncode in (0, 1), done.stderr[-2000:]
        imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                    if line.startswith("import time:")}
        loaded = sorted(m for m in imported for h in heavy if m == h or m.startswith(h + "."))
        if args[0] == "--help":  # not even the database layer or the signing key
            loaded += sorted(m for m in imported
                             if m.split(".")[0] in {"sqlalchemy", "cryptography"})
        else:
            loaded = [m for m in loaded if not m.startswith("importlib.metadata")]  # tool id
        assert loaded == [], f"{args[0]} imports {loaded}"
