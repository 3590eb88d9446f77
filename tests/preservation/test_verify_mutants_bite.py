"""Checks of `verify` that survived mutation testing (issue 9, item 7): each test tampers with a
case for real (its database with sqlite3, its log or checkpoint files as bytes) and asserts that
verify names what was changed and says what is wrong, so that a verify which no longer checks it,
or checks it under another key, fails the test.

The case most of them use is made here from three short texts: an HTML page (stored with the text
derived from it, then extracted), a plain text (extracted) and a plain text the extractor is made
to fail on, so that it holds a derivation, extraction runs and an extraction failure without the
shared development corpus.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import insider
from casebuilder.extraction.run import extract_items
from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import Case, open_case
from casebuilder.preservation.checkpoint import sign_checkpoint
from casebuilder.preservation.keys import public_key_pem
from casebuilder.preservation.verify import verify_case

PAGE = ("<html><body><p>On 4 March 2022 an air strike hit a school in Kharkiv, killing two "
        "people.</p></body></html>")
REPORT = "On 3 March 2022 a shell hit the market in Kherson, killing 4 civilians.\n"
BROKEN = "BOOM. This text is one the extractor is made to fail on.\n"


def _tools_failing_on_boom(tools: Any) -> Any:
    """The real extraction tools, except that the extractor raises on a text starting BOOM."""

    class FailsOnBoom:
        def extract_by_section(self, source: Any) -> Iterator[Any]:
            if source.text.startswith("BOOM"):
                raise ValueError("this text cannot be read")
            yield from tools.extractor.extract_by_section(source)

    return dataclasses.replace(tools, extractor=FailsOnBoom())


@pytest.fixture(scope="module")
def extracted_home(tmp_path_factory, extraction_tools) -> Path:
    root = tmp_path_factory.mktemp("mutants")
    texts = root / "texts"
    texts.mkdir()
    (texts / "page.html").write_text(PAGE)
    (texts / "report.txt").write_text(REPORT)
    (texts / "broken.txt").write_text(BROKEN)
    home = root / "home"
    from casebuilder.preservation.case import init_case

    case = init_case(home, name="mutants", environ={})
    try:
        ingest(case, [texts])
        extract_items(case, _tools_failing_on_boom(extraction_tools))
    finally:
        case.close()
    return home


@pytest.fixture
def home(extracted_home, tmp_path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(extracted_home, copy)
    return copy


def verified(home: Path, **options: Any):
    case = open_case(home, environ={})
    try:
        return verify_case(case, settle_seconds=0, **options)
    finally:
        case.close()


def failures(home: Path) -> list[str]:
    return [str(f) for f in verified(home).failures]


def assert_named(found: list[str], *fragments: str) -> None:
    """Some one failure holds every fragment (the subject, and words saying what is wrong)."""
    assert any(all(fragment in f for fragment in fragments) for f in found), (fragments, found)


def query(home: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with closing(insider.connect(home)) as db:
        return db.execute(sql, params).fetchall()


def execute(home: Path, sql: str, *params: Any) -> None:
    with closing(insider.connect(home)) as db, db:
        db.execute(sql, params)


def log_entries(home: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (home / "custody" / "log.jsonl").read_text().splitlines()]


# -- the case made here ----------------------------------------------------------------------------


def test_the_case_holds_a_derivation_extraction_runs_and_a_failure_and_verifies(extracted_home):
    assert query(extracted_home, "SELECT COUNT(*) FROM derivations") == [(1,)]
    assert query(extracted_home, "SELECT COUNT(*) FROM extraction_failures") == [(1,)]
    report = verified(extracted_home)
    assert report.ok, [str(f) for f in report.failures]
    assert report.counts["extraction runs"] == 2


# -- derived files and extraction runs -------------------------------------------------------------


def test_a_derivation_pointed_at_a_receipt_entry_is_named(home):
    ((row_id, derived, ingest_seq),) = query(
        home, "SELECT d.id, d.derived_item_id, o.entry_seq FROM derivations d "
        "JOIN origins o ON o.item_id = d.source_item_id")
    execute(home, "UPDATE derivations SET entry_seq = ? WHERE id = ?", ingest_seq, row_id)
    assert_named(failures(home), f"derivation of item {derived}",
                 f"log entry {ingest_seq}, which is not a derive entry")


def run_of(home: Path, name: str) -> tuple[int, int]:
    """(run id, item id) of the extraction run of the original received as ``name``."""
    ((run_id, item_id),) = query(
        home, "SELECT r.id, r.item_id FROM extraction_runs r "
        "JOIN origins o ON o.item_id = r.item_id WHERE o.name = ?", name)
    return run_id, item_id


def test_an_extraction_runs_gazetteer_changed_in_the_database_is_named(home):
    run_id, item_id = run_of(home, "report.txt")
    ((logged,),) = query(home, "SELECT gazetteer FROM extraction_runs WHERE id = ?", run_id)
    execute(home, "UPDATE extraction_runs SET gazetteer = 'another gazetteer' WHERE id = ?",
            run_id)
    assert_named(failures(home), f"extraction run {run_id} of item {item_id}",
                 f"its gazetteer 'another gazetteer' differs from {logged!r}")


def test_an_extraction_run_moved_to_another_item_is_named(home):
    run_id, item_id = run_of(home, "report.txt")
    other, _ = run_of(home, "page.html")
    (other_item,) = query(home, "SELECT item_id FROM extraction_runs WHERE id = ?", other)[0]
    execute(home, "UPDATE extraction_runs SET item_id = ? WHERE id = ?", other_item, run_id)
    assert_named(failures(home), f"extraction run {run_id} of item {other_item}",
                 f"its item {other_item} differs from {item_id}")


def test_an_extraction_run_no_longer_marked_current_is_named(home):
    run_id, item_id = run_of(home, "report.txt")
    execute(home, "UPDATE extraction_runs SET current = FALSE WHERE id = ?", run_id)
    assert_named(failures(home), f"extraction run {run_id} of item {item_id}",
                 "is the latest logged run of the item", "not marked current")


def test_an_extraction_failures_time_changed_in_the_database_is_named(home):
    ((row_id, item_id, logged),) = query(home, "SELECT id, item_id, at FROM extraction_failures")
    execute(home, "UPDATE extraction_failures SET at = '2020-01-01T00:00:00.000000Z'")
    assert_named(failures(home), f"extraction failure {row_id} of item {item_id}",
                 f"its time '2020-01-01T00:00:00.000000Z' differs from {logged!r}")


def test_an_extraction_failures_vocabulary_digest_changed_in_the_database_is_named(home):
    ((row_id, item_id, logged),) = query(
        home, "SELECT id, item_id, vocabulary_sha256 FROM extraction_failures")
    execute(home, "UPDATE extraction_failures SET vocabulary_sha256 = ?", "0" * 64)
    assert_named(failures(home), f"extraction failure {row_id} of item {item_id}",
                 f"its vocabulary digest '{'0' * 64}' differs from {logged!r}")


# -- items and their origins -----------------------------------------------------------------------


def test_an_origins_name_changed_in_the_database_is_named(home):
    ((origin_id, item_id),) = query(home, "SELECT id, item_id FROM origins WHERE name = ?",
                                    "report.txt")
    execute(home, "UPDATE origins SET name = 'elsewhere.txt' WHERE id = ?", origin_id)
    assert_named(failures(home), f"origin {origin_id} of item {item_id}",
                 "its name 'elsewhere.txt' differs from 'report.txt'")


def test_a_parsed_items_format_change_names_the_parse_entry_it_differs_from(home):
    ((item_id,),) = query(home, "SELECT item_id FROM origins WHERE name = 'report.txt'")
    (parse_seq,) = [e["seq"] for e in log_entries(home) if e["action"] == "parse"
                    and any(r.get("id") == item_id for r in e["items"])]
    execute(home, "UPDATE items SET format = 'pdf' WHERE id = ?", item_id)
    assert_named(failures(home), f"item {item_id} ", "its format 'pdf' differs",
                 f"recorded in log entry {parse_seq}")


def test_a_parse_error_given_to_a_derived_item_is_named(home):
    ((item_id,),) = query(home, "SELECT id FROM items WHERE kind = 'derived'")
    execute(home, "UPDATE items SET parse_error = 'unreadable' WHERE id = ?", item_id)
    assert_named(failures(home), f"item {item_id} ", "its parse error 'unreadable' differs")


# -- the seal, the log and its checkpoints ---------------------------------------------------------


def test_a_seal_removed_from_the_database_is_named(home):
    execute(home, "UPDATE log_state SET seal = NULL")
    assert_named(failures(home), "custody seal", "the database's seal was removed")


def test_an_entry_added_after_the_seal_is_named_with_its_number(home):
    log = home / "custody" / "log.jsonl"
    size = len(log.read_bytes().splitlines())
    last = log.read_bytes().splitlines()[-1]
    log.write_bytes(log.read_bytes() + last + b"\n")  # one more line, a copy of the last
    assert_named(failures(home), "custody log", f"entries {size}..{size} come after the seal")


def test_an_entry_added_while_the_seal_file_is_gone_is_reported_without_a_crash(home):
    log = home / "custody" / "log.jsonl"
    last = log.read_bytes().splitlines()[-1]
    log.write_bytes(log.read_bytes() + last + b"\n")
    (home / "custody" / "seal.json").unlink()
    found = failures(home)
    assert_named(found, "custody seal", "custody/seal.json is missing")


def test_a_missing_log_file_is_named_as_missing(home):
    (home / "custody" / "log.jsonl").unlink()
    assert_named(failures(home), "custody log", "cannot be read: the file is missing")


def test_a_checkpoint_line_removed_from_the_file_is_counted(home):
    path = home / "custody" / "checkpoints.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("".join(line + "\n" for line in lines[:-1]))
    assert_named(failures(home), "checkpoints",
                 f"{len(lines) - 1} in checkpoints.jsonl but {len(lines)} in the database")


def test_a_checkpoint_signed_for_another_case_is_named(home):
    path = home / "custody" / "checkpoints.jsonl"
    lines = path.read_text().splitlines()
    last = json.loads(lines[-1])
    case = open_case(home, environ={})
    try:
        signed, _ = sign_checkpoint(case.signer, case_id="another-case",
                                    tree_size=last["tree_size"],
                                    root=bytes.fromhex(last["root"]), time=last["time"])
    finally:
        case.close()
    lines[-1] = signed.as_line()
    path.write_text("".join(line + "\n" for line in lines))
    assert_named(failures(home), f"checkpoint {len(lines) - 1}", "names another case")


def test_a_case_created_with_another_key_per_the_database_is_named(home):
    execute(home, "UPDATE case_info SET public_key_sha256 = ?", "0" * 64)
    assert_named(failures(home), "case public key",
                 "is not the key this case was created with")


def test_a_trusted_key_is_compared_with_the_case_key(home):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    case = open_case(home, environ={})
    try:
        own_pem = case.paths.public_key.read_bytes()
    finally:
        case.close()
    assert verified(home, trusted_key=own_pem).ok
    stranger = public_key_pem(Ed25519PrivateKey.generate().public_key())
    assert_named([str(f) for f in verified(home, trusted_key=stranger).failures],
                 "case public key", "is not the key given")


# -- what verify says: the subject and what is wrong ----------------------------------------------


def test_a_receipts_origin_pointed_at_a_parse_entry_is_named(home):
    ((origin_id, item_id),) = query(home, "SELECT id, item_id FROM origins WHERE name = ?",
                                    "report.txt")
    (parse_seq,) = [e["seq"] for e in log_entries(home) if e["action"] == "parse"
                    and any(r.get("id") == item_id for r in e["items"])]
    execute(home, "UPDATE origins SET entry_seq = ? WHERE id = ?", parse_seq, origin_id)
    assert_named(failures(home), f"origin {origin_id} of item {item_id}: names log entry "
                 f"{parse_seq}, which is not a receipt")


def test_a_parsed_items_metadata_changed_in_the_database_is_named(home):
    ((item_id,),) = query(home, "SELECT item_id FROM origins WHERE name = 'report.txt'")
    execute(home, "UPDATE items SET metadata = ? WHERE id = ?", '{"encoding": "latin-1"}',
            item_id)
    assert_named(failures(home), f"item {item_id} (report.txt): its extracted metadata")


def test_a_checkpoint_root_changed_in_the_database_shows_both_values(home):
    line = (home / "custody" / "checkpoints.jsonl").read_text().splitlines()[0]
    root = json.loads(line)["root"]
    execute(home, "UPDATE checkpoints SET root = ? WHERE id = (SELECT MIN(id) FROM checkpoints)",
            "0" * 64)
    assert_named(failures(home), "checkpoint 0", "checkpoints.root is '" + "0" * 64,
                 f"but checkpoints.jsonl has '{root}'")


def test_a_back_dated_log_entry_is_named(home):
    log = home / "custody" / "log.jsonl"
    lines = log.read_bytes().split(b"\n")[:-1]
    entry = json.loads(lines[-1])
    entry["time"] = "2000-01-01T00:00:00.000000Z"
    lines[-1] = json.dumps(entry, separators=(",", ":"), sort_keys=True,
                           ensure_ascii=False).encode()
    log.write_bytes(b"".join(line + b"\n" for line in lines))
    assert_named(failures(home), f"log entry {len(lines) - 1}: is dated 2000-01-01",
                 "back-dated or reordered")


def test_a_log_line_that_is_not_an_object_is_named(home):
    log = home / "custody" / "log.jsonl"
    count = len(log.read_bytes().splitlines())
    log.write_bytes(log.read_bytes() + b"[]\n")
    assert_named(failures(home), f"log entry {count}: is not a JSON object")


def test_an_unreadable_seal_file_is_named(home):
    seal = home / "custody" / "seal.json"
    seal.write_text("this is not a seal\n")
    assert_named(failures(home), "custody seal: custody/seal.json")


def test_a_seal_file_that_cannot_be_read_is_not_taken_for_a_missing_one(home):
    seal = home / "custody" / "seal.json"
    seal.unlink()
    seal.mkdir()  # reading it fails with an error, not with "no such file"
    assert_named(failures(home), "custody seal", "custody/seal.json cannot be read")


def test_on_item_is_given_each_items_size(home):
    sizes: list[int] = []
    verified(home, on_item=sizes.append)
    assert sorted(sizes) == sorted(size for (size,) in query(home, "SELECT size FROM items"))


# -- a command between its unit of work and its checkpoint ----------------------------------------


def annotate_without_checkpoint(case: Case) -> None:
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "not yet signed"})


def test_verify_waits_for_a_command_whose_entries_no_checkpoint_covers_yet(case):
    annotate_without_checkpoint(case)
    started = time.monotonic()
    verify_case(case, settle_seconds=0.6)
    assert time.monotonic() - started >= 0.6  # it read the case again until the wait ran out


def test_verify_finds_the_checkpoint_a_command_writes_while_it_waits(case):
    annotate_without_checkpoint(case)
    writer = threading.Timer(0.3, case.checkpoint)
    writer.start()
    try:
        report = verify_case(case, settle_seconds=30)
    finally:
        writer.join()
    assert report.ok, [str(f) for f in report.failures]
    assert not any("stopped before its checkpoint" in n for n in report.notes), report.notes


def test_verify_does_not_wait_when_the_unsigned_entry_differs_from_the_database(case):
    annotate_without_checkpoint(case)
    with closing(insider.connect(case.paths.root)) as db, db:
        db.execute("UPDATE custody_events SET entry = replace(entry, 'not yet signed', "
                   "'changed after') WHERE seq = (SELECT MAX(seq) FROM custody_events)")
    started = time.monotonic()
    report = verify_case(case, settle_seconds=30)
    assert time.monotonic() - started < 15
    last = len(case.paths.log.read_bytes().splitlines()) - 1
    assert_named([str(f) for f in report.failures],
                 f"log entry {last}: differs from the database copy")


APPEND_THEN_DIE = """
import os, signal, sys
from pathlib import Path
from casebuilder.preservation import custody
from casebuilder.preservation.case import open_case

append_and_commit = custody._append_and_commit

def append_then_die(session, log_path, old_length, blob):
    session.commit = lambda: os.kill(os.getpid(), signal.SIGKILL)  # dies in place of its commit
    append_and_commit(session, log_path, old_length, blob)

custody._append_and_commit = append_then_die
case = open_case(Path(sys.argv[1]), environ={})
with case.transaction() as tx:
    tx.record("annotate", details={"note": "appended, never committed"})
"""


def test_entries_sealed_but_never_committed_after_a_checkpoint_are_a_note(case):
    import subprocess
    import sys

    with case.transaction() as tx:
        tx.record("annotate", details={"note": "committed and signed"})
    case.checkpoint()
    died = subprocess.run([sys.executable, "-c", APPEND_THEN_DIE, str(case.paths.root)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert died.returncode == -9, died.stderr
    report = verify_case(case, settle_seconds=0)
    assert report.ok, [str(f) for f in report.failures]
    assert any("stopped before its database commit" in n for n in report.notes), report.notes
