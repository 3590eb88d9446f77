"""Every file of a court bundle is signed, or verified from signed values (bundle format 2).

The bundle's own ``bundle`` entry lists each item's stored file and item.json (path, SHA-256,
size), the tag files, the bag-info.txt fields that describe the case, and how many checkpoints
came before it. The rest (log, checkpoints, key, token, proofs) the checker verifies in full. So
a forger who adds or edits a file and rewrites manifests, Payload-Oxum and tag manifests still
fails ``verify_bundle.py``, naming the file. Each test tampers with a copy of a bundle written by
the real ``casebuilder bundle`` command, checks the failure, undoes it and checks it passes.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from court_bundles import assert_caught, assert_passes, bundle_entry, rebag, verify
from cryptography.hazmat.primitives import serialization

from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import init_case
from casebuilder.reporting.bundle import write_bundle
from conftest import run_cli


@pytest.fixture(scope="module")
def made(tmp_path_factory, dev_reports) -> dict[str, Path]:
    """A case holding the development reports, and its bundle 'tbt' made by the command."""
    root = tmp_path_factory.mktemp("files")
    home = root / "home"
    case = init_case(home, name="Kramatorsk station", environ={})
    try:
        ingest(case, [dev_reports])
    finally:
        case.close()
    result = run_cli("bundle", "-o", root / "tbt", home=home)
    assert result.returncode == 0, result.stderr
    return {"home": home, "bundle": root / "tbt"}


@pytest.fixture
def bag(made, tmp_path) -> Path:
    return Path(shutil.copytree(made["bundle"], tmp_path / "tbt"))


@pytest.mark.parametrize(
    "where",
    ["data/items/2/photo.jpg", "data/custody/notes.txt", "data/summary.txt",
     "data/proofs/999.json", "data/items/2/.hidden"],
)
def test_a_file_added_to_the_payload_is_named(bag, where):
    added = bag / where
    added.write_bytes(b"\xff\xd8\xff\xe0 a photo nobody received")
    rebag(bag)
    own, _ = bundle_entry(bag)
    assert_caught(bag, f"[files] {where}: is in data/ but is not listed in log.jsonl line "
                       f"{own + 1} (entry {own}), the signed entry that made this bundle")
    added.unlink()
    rebag(bag)
    assert_passes(bag)


def test_a_file_added_in_a_new_item_folder_is_named(bag):
    """A whole item planted: its folder, item.json and file (no entry lists them)."""
    folder = bag / "data/items/999"
    shutil.copytree(bag / "data/items/3", folder)
    rebag(bag)
    assert_caught(bag, "[files] data/items/999/item.json: is in data/ but is not listed",
                  "[contents] data/items/999/: item 999 is not listed")
    shutil.rmtree(folder)
    rebag(bag)
    assert_passes(bag)


def edit_json(path: Path, change: Callable[[dict], None], indent: int | None = 2) -> Callable:
    original = path.read_bytes()
    value = json.loads(original)
    change(value)
    path.write_text(json.dumps(value, indent=indent, ensure_ascii=False, sort_keys=True) + "\n",
                    encoding="utf-8")
    return lambda: path.write_bytes(original)


@pytest.mark.parametrize(
    ("field", "value"),
    [("media_type", "image/jpeg"), ("entries", [0]),
     ("children", [{"item": 99, "relation": "attachment", "member": "order.pdf"}]),
     ("parent", {"item": 1, "relation": "archive-member", "member": "leak.zip/a.txt"}),
     ("collection", {"source": "a channel nobody watched"})],
)
def test_an_item_json_field_the_log_does_not_record_is_signed_all_the_same(bag, field, value):
    """These fields of item.json are not in any log entry, so only its listed digest can tell."""
    path = bag / "data/items/2/item.json"
    assert json.loads(path.read_text())[field] != value
    undo = edit_json(path, lambda item: item.update({field: value}))
    rebag(bag)
    assert_caught(bag, "[files] data/items/2/item.json: sha256 is",
                  "the signed entry that made this bundle, lists")
    undo()
    rebag(bag)
    assert_passes(bag)


def edit_bag_info(bag: Path, label: str, value: str | None) -> Callable[[], None]:
    path = bag / "bag-info.txt"
    original = path.read_bytes()
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if not line.startswith(f"{label}:")]
    if value is not None:
        lines.append(f"{label}: {value}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rebag(bag)

    def undo() -> None:
        path.write_bytes(original)
        rebag(bag)

    return undo


@pytest.mark.parametrize(
    ("label", "value", "message"),
    [
        ("Casebuilder-Case-Name", "Another case",
         "[bag-info] bag-info.txt Casebuilder-Case-Name: is 'Another case', but log.jsonl line"),
        ("Casebuilder-Case-Name", None, "bag-info.txt: must have one Casebuilder-Case-Name, has 0"),
        ("Bagging-Date", "2022-04-08", "bag-info.txt Bagging-Date: is '2022-04-08', but"),
        ("Casebuilder-Exhibit", "P-17 (statement of the accused)",
         "bag-info.txt Casebuilder-Exhibit: is not among the fields"),
        ("Casebuilder-Checkpoint-Root", "ab" * 32,
         "bag-info.txt Casebuilder-Checkpoint-Root: is 'abab"),
        ("Casebuilder-Checkpoint-Size", "3", "bag-info.txt Casebuilder-Checkpoint-Size: is '3'"),
    ],
)
def test_bag_info_fields_are_signed_or_checked_against_the_checkpoint(bag, label, value, message):
    undo = edit_bag_info(bag, label, value)
    assert_caught(bag, message)
    undo()
    assert_passes(bag)


def test_a_deleted_older_checkpoint_line_is_caught(bag):
    path = bag / "data/custody/checkpoints.jsonl"
    original = path.read_bytes()
    lines = original.splitlines(keepends=True)
    assert len(lines) >= 3
    path.write_bytes(b"".join(lines[:1] + lines[2:]))
    rebag(bag)
    own, entry = bundle_entry(bag)
    counted = entry["details"]["checkpoints_before"]
    assert_caught(bag, f"[checkpoints] data/custody/checkpoints.jsonl: holds {counted - 1} "
                       "checkpoint(s) signed before the bundle's own entry, but log.jsonl line "
                       f"{own + 1} (entry {own}), which is signed, counted {counted}: a "
                       "checkpoint line was removed")
    # A copy of another line in its place keeps the count, but not the order.
    path.write_bytes(b"".join(lines[:1] + lines[:1] + lines[2:]))
    rebag(bag)
    assert_caught(bag, "checkpoints.jsonl line 2: tree_size", "a line was copied")
    path.write_bytes(original)
    rebag(bag)
    assert_passes(bag)


def test_the_last_checkpoint_line_removed_is_caught(bag):
    path = bag / "data/custody/checkpoints.jsonl"
    original = path.read_bytes()
    path.write_bytes(b"".join(original.splitlines(keepends=True)[:-1]))
    rebag(bag)
    assert_caught(bag, "its last line is not the checkpoint of checkpoint.json")
    path.write_bytes(original)
    rebag(bag)
    assert_passes(bag)


@pytest.mark.parametrize(
    ("target", "change", "message"),
    [
        ("data/proofs/2.json", lambda v: v.update(note="seen by the prosecutor"),
         "[proof] data/proofs/2.json: holds the field(s) note, which no proof has"),
        ("data/custody/checkpoint.json", lambda v: v.update(comment="approved"),
         "[checkpoint] data/custody/checkpoint.json: holds the field(s) comment"),
    ],
)
def test_unsigned_fields_in_verified_files_are_refused(bag, target, change, message):
    undo = edit_json(bag / target, change)
    rebag(bag)
    assert_caught(bag, message)
    undo()
    rebag(bag)
    assert_passes(bag)


def test_text_beside_the_public_key_is_refused(bag):
    path = bag / "data/custody/public_key.pem"
    original = path.read_bytes()
    path.write_bytes(b"Key handed over by the investigator on 2022-04-09.\n" + original)
    rebag(bag)
    assert_caught(bag, "public_key.pem: holds more than the key's one PEM block")
    path.write_bytes(original)
    rebag(bag)
    assert_passes(bag)


def test_a_changed_guide_is_named_even_with_rewritten_tag_manifests(bag):
    path = bag / "VERIFY.md"
    original = path.read_bytes()
    path.write_bytes(original.replace(b"does not prove", b"proves", 1))
    rebag(bag)
    assert_caught(bag, "[files] VERIFY.md: sha256 is")
    path.write_bytes(original)
    rebag(bag)
    assert_passes(bag)


def test_a_bundle_whose_folder_was_renamed_passes(bag, tmp_path):
    renamed = bag.rename(tmp_path / "exhibit-7")
    code, output = verify(renamed)
    assert code == 0, output
    assert "this bundle was written as 'tbt'" in output


# -- times ----------------------------------------------------------------------------------


def resign(bag: Path, home: Path, time: str) -> None:
    """An insider with the case key signs the bundle's checkpoint again with another time."""
    key = serialization.load_pem_private_key(
        (home / "keys/case-signing-key.pem").read_bytes(), password=None)
    path = bag / "data/custody/checkpoint.json"
    checkpoint = json.loads(path.read_text())
    checkpoint["time"] = time
    signed = {k: checkpoint[k] for k in ("case_id", "root", "time", "tree_size", "type")}
    message = json.dumps(signed, sort_keys=True, separators=(",", ":")).encode()
    checkpoint["signature"] = base64.b64encode(key.sign(message)).decode()  # type: ignore
    path.write_text(json.dumps(checkpoint, indent=2, sort_keys=True) + "\n")
    lines = (bag / "data/custody/checkpoints.jsonl").read_text().splitlines()
    lines[-1] = json.dumps(checkpoint, sort_keys=True, separators=(",", ":"))
    (bag / "data/custody/checkpoints.jsonl").write_text("\n".join(lines) + "\n")
    rebag(bag)


def test_entries_dated_after_the_checkpoint_that_signs_them_are_caught(made, bag):
    lines = (bag / "data/custody/checkpoints.jsonl").read_text().splitlines()
    earlier = json.loads(lines[-2])["time"]
    resign(bag, made["home"], earlier)
    own, entry = bundle_entry(bag)
    assert_caught(bag, f"log.jsonl line {own + 1} (entry {own}): time {entry['time']} is after "
                       f"the time of checkpoints.jsonl line {len(lines)} ({earlier}), the first "
                       "checkpoint that signs it")


@pytest.fixture
def _no_proxies(monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.mark.usefixtures("_no_proxies")
def test_a_token_stamped_days_after_its_checkpoint_fails(tmp_path, local_tsa):
    """A case whose clock runs three days behind the time-stamping authority's: each token's
    genTime is three days after the checkpoint it stamps, as for a back-dated case."""
    case = init_case(tmp_path / "home", environ={"CASEBUILDER_TSA_URL": local_tsa.url},
                     clock=lambda: datetime.now(UTC) - timedelta(days=3))
    try:
        with case.transaction() as tx:
            tx.record("annotate", details={"note": "one entry"})
        case.checkpoint()
        bundle = write_bundle(case, tmp_path / "late").path
    finally:
        case.close()
    output = assert_caught(bundle, "[timestamp] data/custody/checkpoint.json: the token's "
                                   "genTime", "(more than the 1 day, 0:00:00 allowed)",
                           "as a back-dated checkpoint would be")
    assert "[timestamp] checkpoints.jsonl line 1: the token's genTime" in output
    code, output = verify(bundle, "--timestamp-window", "96")
    assert code == 0, output


def guide_command(bag: Path, prefix: str) -> str:
    """A command line of VERIFY.md's code blocks, as shipped in the bundle."""
    return next(line for line in (bag / "VERIFY.md").read_text(encoding="utf-8").splitlines()
                if line.startswith(prefix))


def test_the_manual_files_check_in_verify_md(bag):
    """Section 5.7: the one-liner comparing data/ with the bundle entry's list of files."""
    command = guide_command(bag, 'python3 -c "import json,os,hashlib;')

    def run() -> str:
        done = subprocess.run(["bash", "-c", command], cwd=bag, capture_output=True, text=True,
                              check=False, env={"PATH": "/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "not listed: none\nmissing or different: none\n" in run()
    (bag / "data/items/2/photo.jpg").write_bytes(b"planted")
    with (bag / "data/items/3/item.json").open("a") as item:
        item.write(" ")
    output = run()
    assert "not listed: ['data/items/2/photo.jpg']" in output
    assert "missing or different: ['data/items/3/item.json']" in output
