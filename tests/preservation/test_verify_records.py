"""Derived rows an insider could edit: extraction results and analysts' decisions.

Each test edits the case database through its driver (tests/insider.py), as an insider would,
bypassing casebuilder; checks that verification fails and names the problem, then undoes the
edit and checks that verification passes again. The extraction checks recompute each run's results
digest from the stored mentions and claims exactly as extraction/run.py computed it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import insider
from casebuilder.extraction.run import extract_items
from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import open_case
from casebuilder.preservation.verify import verify_case
from casebuilder.resolution.decisions import record_decision
from conftest import run_cli

Undo = Callable[[], None]


@pytest.fixture(scope="module")
def pristine_records(dev_case_home, tmp_path_factory, extraction_tools) -> Path:
    """The development case, extracted, with one item extracted twice and three decisions."""
    home = tmp_path_factory.mktemp("records") / "home"
    shutil.copytree(dev_case_home, home)
    case = open_case(home, environ={})
    try:
        with closing(insider.connect(home)) as db:
            (item_id,) = db.execute(
                "SELECT item_id FROM extraction_runs ORDER BY id LIMIT 1"
            ).fetchone()
        extract_items(case, extraction_tools, [item_id], force=True)
        record_decision(case, "grade", "inc-0000000001", {"grade": "fair"}, "site visit")
        record_decision(case, "edit", "inc-0000000001",
                        {"field": "killed_best", "value": {"low": 20, "high": 20, "text": "20"}},
                        "hospital lists")
        record_decision(case, "merge", "inc-0000000001",
                        {"keys": ["m-aaaaaaaaaaaaaaaa", "m-bbbbbbbbbbbbbbbb"]}, "same strike")
        report = verify_case(case)
        assert report.ok, [str(f) for f in report.failures]
    finally:
        case.close()
    return home


@pytest.fixture
def home(pristine_records, tmp_path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(pristine_records, copy)
    return copy


def failures(home: Path) -> list[str]:
    case = open_case(home, environ={})
    try:
        return [str(f) for f in verify_case(case).failures]
    finally:
        case.close()


def assert_named(home: Path, *fragments: str) -> list[str]:
    found = failures(home)
    assert found, "verification passed after the tampering"
    text = "\n".join(found)
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} not in:\n{text}"
    return found


def query(home: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with closing(insider.connect(home)) as db:
        return db.execute(sql, params).fetchall()


def set_cell(home: Path, table: str, column: str, row_id: int, value: Any) -> Undo:
    """UPDATE one cell the way an insider would; returns how to put the old value back."""
    ((old,),) = query(home, f"SELECT {column} FROM {table} WHERE id = ?", row_id)

    def write(v: Any) -> None:
        with closing(insider.connect(home)) as db, db:
            db.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?", (v, row_id))

    write(value)
    return lambda: write(old)


def delete_rows(home: Path, table: str, where: str, *params: Any) -> Undo:
    """DELETE rows (sqlite3's default: no foreign-key enforcement); returns how to restore."""
    with closing(insider.connect(home)) as db, db:
        cursor = db.execute(f"SELECT * FROM {table} WHERE {where}", params)
        columns = [d[0] for d in cursor.description]
        rows = cursor.fetchall()
        assert rows, f"nothing in {table} where {where} {params}"
        db.execute(f"DELETE FROM {table} WHERE {where}", params)

    def undo() -> None:
        marks = ", ".join("?" for _ in columns)
        with closing(insider.connect(home)) as db, db:
            db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    return undo


def tampered_then_restored(home: Path, undo: Undo, *fragments: str) -> None:
    assert_named(home, *fragments)
    undo()
    assert failures(home) == []


# -- extraction results ---------------------------------------------------------------------


def killed_claim(home: Path) -> tuple[int, int, int, dict[str, Any]]:
    """(claim id, run id, item id, value) of a claim giving a number of people killed."""
    rows = query(
        home,
        "SELECT c.id, m.run_id, c.item_id, c.value FROM claims c "
        "JOIN incident_mentions m ON m.id = c.mention_id WHERE c.kind = 'killed' ORDER BY c.id",
    )
    for claim_id, run_id, item_id, value in rows:
        parsed = json.loads(value)
        if isinstance(parsed.get("low"), int):
            return claim_id, run_id, item_id, parsed
    pytest.fail("the development reports gave no claim of a number killed")


def test_a_killed_figure_changed_in_a_claim(home):
    claim_id, run_id, item_id, value = killed_claim(home)
    raised = dict(value, low=value["low"] * 10, high=(value.get("high") or value["low"]) * 10)
    undo = set_cell(home, "claims", "value", claim_id, json.dumps(raised))
    tampered_then_restored(
        home, undo, f"extraction run {run_id} of item {item_id}", "results digest",
        "a mention or claim was edited",
    )


def test_a_killed_figure_changed_is_caught_by_the_cli(home):
    claim_id, run_id, _, value = killed_claim(home)
    undo = set_cell(home, "claims", "value", claim_id, json.dumps(dict(value, low=200)))
    result = run_cli("verify", home=home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"extraction run {run_id}" in result.stdout and "results digest" in result.stdout
    undo()
    assert run_cli("verify", home=home).returncode == 0


def test_a_quote_changed_in_a_claim(home):
    claim_id, run_id, _, _ = killed_claim(home)
    undo = set_cell(home, "claims", "quote", claim_id, "Nobody was hurt.")
    tampered_then_restored(home, undo, f"extraction run {run_id}", "results digest")


def test_a_mention_moved_in_time(home):
    ((mention_id, run_id),) = query(
        home, "SELECT id, run_id FROM incident_mentions WHERE date_start IS NOT NULL LIMIT 1"
    )
    undo = set_cell(home, "incident_mentions", "date_start", mention_id, "2021-01-01")
    tampered_then_restored(home, undo, f"extraction run {run_id}", "results digest")


def test_the_claims_of_a_report_deleted(home):
    _, run_id, item_id, _ = killed_claim(home)
    undo = delete_rows(home, "claims", "item_id = ?", item_id)
    tampered_then_restored(
        home, undo, f"extraction run {run_id} of item {item_id}",
        "claim(s) in the database", "claims were deleted or added", "results digest",
    )


def test_one_claim_deleted(home):
    claim_id, run_id, item_id, _ = killed_claim(home)
    undo = delete_rows(home, "claims", "id = ?", claim_id)
    tampered_then_restored(home, undo, f"extraction run {run_id} of item {item_id}",
                           "claims were deleted or added")


def test_the_mentions_of_a_report_deleted(home):
    _, run_id, item_id, _ = killed_claim(home)
    undo = delete_rows(home, "incident_mentions", "item_id = ?", item_id)
    tampered_then_restored(
        home, undo, f"extraction run {run_id} of item {item_id}",
        "incident mention(s) in the database", "mentions were deleted or added",
        "that are not in the database",
    )


def runs_of_twice_extracted_item(home: Path) -> tuple[int, int, int]:
    """(item, superseded run, current run) of the item the fixture extracted twice."""
    ((item_id,),) = query(
        home, "SELECT item_id FROM extraction_runs GROUP BY item_id HAVING COUNT(*) = 2"
    )
    (old, _), (new, current) = query(
        home, "SELECT id, current FROM extraction_runs WHERE item_id = ? ORDER BY id", item_id
    )
    assert current  # 1 on SQLite, true on PostgreSQL
    return item_id, old, new


def test_current_flag_cleared(home):
    _, _, new = runs_of_twice_extracted_item(home)
    undo = set_cell(home, "extraction_runs", "current", new, False)
    tampered_then_restored(home, undo, f"extraction run {new}",
                           "is the latest logged run of the item", "not marked current")


def test_current_flag_moved_to_the_superseded_run(home):
    _, old, new = runs_of_twice_extracted_item(home)
    undo_new = set_cell(home, "extraction_runs", "current", new, False)
    undo_old = set_cell(home, "extraction_runs", "current", old, True)
    assert_named(home, f"extraction run {old}", "is marked current, but log entry",
                 "records a later run")
    undo_old()
    undo_new()
    assert failures(home) == []


@pytest.mark.parametrize(
    ("column", "value", "what"),
    [
        ("extractor", "casebuilder-extractor 0.0.1", "extractor"),
        ("vocabulary_sha256", "0" * 64, "vocabulary digest"),
        ("gazetteer", "another gazetteer", "gazetteer"),
        ("mention_count", 99, "mention count"),
        ("claim_count", 999, "claim count"),
        ("results_sha256", "f" * 64, "results digest"),
        ("created_at", "2020-01-01T00:00:00.000000Z", "creation time"),
        ("text_item_id", 1, "text item"),
    ],
)
def test_an_extraction_run_row_edited(home, column, value, what):
    ((run_id,),) = query(home, "SELECT id FROM extraction_runs ORDER BY id LIMIT 1")
    undo = set_cell(home, "extraction_runs", column, run_id, value)
    tampered_then_restored(home, undo, f"extraction run {run_id}", f"its {what}")


def test_an_extraction_run_row_deleted(home):
    ((run_id, seq),) = query(home, "SELECT id, entry_seq FROM extraction_runs ORDER BY id LIMIT 1")
    undo = delete_rows(home, "extraction_runs", "id = ?", run_id)
    tampered_then_restored(
        home, undo, f"log entry {seq}: records an extraction run (extract), but the database "
        "has no extraction_runs row", f"extraction run {run_id}: is missing from the database",
    )


# -- runs logged by an older extractor ------------------------------------------------------

#: Claim.as_json() keys before the extractor added also_attributed (commit 22a0715).
OLD_CLAIM_KEYS = ("kind", "value", "rule", "item_id", "char_start", "char_end", "quote",
                  "sentence_start", "sentence_end", "attributed_to", "speaker_role",
                  "source_kind", "party", "verb", "evidentiality", "qualifiers")


def old_format_digest(home: Path, run_id: int) -> str:
    """The results digest an extractor from before 22a0715 logged for the stored rows."""
    from casebuilder.preservation.canonical import json_digest
    from casebuilder.preservation.verify import mention_record
    from casebuilder.store.schema import Claim, IncidentMention

    case = open_case(home, environ={})
    try:
        with case.session() as s:
            mentions = s.query(IncidentMention).filter_by(run_id=run_id).order_by(
                IncidentMention.id).all()
            return json_digest([
                {"mention": mention_record(m),
                 "claims": [{key: getattr(c, key) for key in OLD_CLAIM_KEYS}
                            for c in s.query(Claim).filter_by(mention_id=m.id)
                            .order_by(Claim.id)]}
                for m in mentions
            ])
    finally:
        case.close()


def rewrite_entry(home: Path, seq: int, change: Callable[[dict[str, Any]], None]) -> None:
    """Rewrite one custody entry in the file and the database and re-sign every checkpoint with
    the case key, as the log would be had the entry been written that way."""
    from casebuilder.preservation.canonical import canonical_bytes
    from casebuilder.preservation.checkpoint import sign_checkpoint
    from casebuilder.preservation.merkle import MerkleTree, leaf_hash
    from casebuilder.preservation.seal import sign_seal, write_seal

    case = open_case(home, environ={})
    try:
        lines = case.paths.log.read_bytes().splitlines()
        entry = json.loads(lines[seq])
        change(entry)
        lines[seq] = canonical_bytes(entry)
        data = b"".join(line + b"\n" for line in lines)
        case.paths.log.write_bytes(data)
        tree = MerkleTree([leaf_hash(line) for line in lines])
        records = []
        with closing(insider.connect(home)) as db, db:
            db.execute("UPDATE custody_events SET entry = ?, leaf_hash = ? WHERE seq = ?",
                       (lines[seq].decode(), leaf_hash(lines[seq]).hex(), seq))
            db.execute("UPDATE log_state SET byte_length = ?", (len(data),))
            for cp_id, size, time in db.execute(
                    "SELECT id, tree_size, time FROM checkpoints ORDER BY id").fetchall():
                signed, _ = sign_checkpoint(case.signer, case_id=case.case_id, tree_size=size,
                                            root=tree.root(size), time=time)
                records.append(signed.as_line())
                db.execute("UPDATE checkpoints SET root = ?, signature = ?, record = ?, "
                           "timestamp_token = NULL WHERE id = ?",
                           (signed.root, signed.signature, signed.as_line(), cp_id))
            seal = sign_seal(case.signer, case_id=case.case_id, base=(tree.size, tree.root()),
                             head=(tree.size, tree.root()), time=json.loads(lines[-1])["time"])
            db.execute("UPDATE log_state SET frontier = NULL, seal = ?", (seal.as_line(),))
        case.paths.checkpoints.write_text("".join(r + "\n" for r in records))
        write_seal(case.paths.seal, seal)
    finally:
        case.close()


def make_old_format_run(home: Path) -> tuple[int, int, int]:
    """Turn the run of a report with a killed figure into one the previous extractor logged:
    no source_sha256 in its entry or row, its digest without also_attributed."""
    claim_id, run_id, _ = killed_claim(home)[:3]
    ((seq,),) = query(home, "SELECT entry_seq FROM extraction_runs WHERE id = ?", run_id)
    digest = old_format_digest(home, run_id)

    def old(entry: dict[str, Any]) -> None:
        del entry["details"]["source_sha256"]
        del entry["details"]["results_format"]  # recorded only since format 2
        entry["details"]["results_sha256"] = digest

    rewrite_entry(home, seq, old)
    with closing(insider.connect(home)) as db, db:
        db.execute("UPDATE extraction_runs SET results_sha256 = ?, source_sha256 = NULL "
                   "WHERE id = ?", (digest, run_id))
    return claim_id, run_id, seq


def test_a_run_logged_by_the_previous_extractor_verifies(home):
    _, run_id, _ = make_old_format_run(home)
    case = open_case(home, environ={})
    try:
        report = verify_case(case)
    finally:
        case.close()
    assert report.ok, [str(f) for f in report.failures]
    assert any("older extractor" in note and str(run_id) in note for note in report.notes)


@pytest.mark.parametrize("column,value", [("quote", "Nobody was hurt."),
                                          ("attributed_to", "a blogger")])
def test_a_claim_edited_in_a_run_of_the_previous_extractor_is_caught(home, column, value):
    claim_id, run_id, _ = make_old_format_run(home)
    undo = set_cell(home, "claims", column, claim_id, value)
    tampered_then_restored(home, undo, f"extraction run {run_id}", "results digest")


def test_a_run_of_an_unknown_results_format_is_reported_not_passed(home):
    _, run_id, seq = killed_claim(home)[:3]
    ((seq,),) = query(home, "SELECT entry_seq FROM extraction_runs WHERE id = ?", run_id)

    def future(entry: dict[str, Any]) -> None:
        entry["details"]["results_format"] = 99

    rewrite_entry(home, seq, future)
    case = open_case(home, environ={})
    try:
        report = verify_case(case)
    finally:
        case.close()
    assert any("results format 99" in str(f) for f in report.failures)


def test_also_attributed_edited_in_a_current_run_is_caught(home):
    claim_id, run_id, _, _ = killed_claim(home)
    undo = set_cell(home, "claims", "also_attributed", claim_id, json.dumps(["a blogger"]))
    tampered_then_restored(home, undo, f"extraction run {run_id}", "results digest")


# -- analysts' decisions --------------------------------------------------------------------


def decision(home: Path, action: str) -> tuple[int, int]:
    ((row_id, seq),) = query(
        home, "SELECT id, entry_seq FROM analyst_decisions WHERE action = ?", action
    )
    return row_id, seq


def test_a_decision_deleted(home):
    row_id, seq = decision(home, "edit")
    undo = delete_rows(home, "analyst_decisions", "id = ?", row_id)
    tampered_then_restored(
        home, undo, f"log entry {seq}: records an analyst's decision, but the database has no "
        "analyst_decisions row for it (deleted)",
    )


@pytest.mark.parametrize(
    ("action", "column", "value", "what"),
    [
        ("edit", "payload",
         json.dumps({"field": "killed_best", "value": {"low": 200, "high": 200, "text": "200"}}),
         "payload"),
        ("edit", "payload",
         json.dumps({"field": "killed_best", "value": {"low": 20.0, "high": 20, "text": "20"}}),
         "payload"),
        ("grade", "payload", json.dumps({"grade": "confirmed"}), "payload"),
        ("merge", "payload", json.dumps({"keys": ["m-aaaaaaaaaaaaaaaa"]}), "payload"),
        ("grade", "reason", "because I say so", "reason"),
        ("edit", "actor", "someone.else", "actor"),
        ("merge", "at", "2020-01-01T00:00:00.000000Z", "time"),
        ("grade", "incident_id", "inc-0000000002", "incident"),
        ("grade", "action", "merge", "decision"),
    ],
)
def test_a_decision_edited(home, action, column, value, what):
    row_id, seq = decision(home, action)
    undo = set_cell(home, "analyst_decisions", column, row_id, value)
    tampered_then_restored(home, undo, f"analyst decision {row_id}", f"its {what}",
                           f"recorded in log entry {seq}")


def test_a_decision_pointed_at_another_entry(home):
    row_id, _ = decision(home, "grade")
    _, other = decision(home, "merge")
    undo = set_cell(home, "analyst_decisions", "entry_seq", row_id, other)
    tampered_then_restored(home, undo, f"analyst decision {row_id}", "its decision",
                           "2 analyst_decisions rows name it")


# -- intake failures and the log state ------------------------------------------------------


def test_intake_failure_rows_and_the_log_state(case, tmp_path):
    ingest(case, [tmp_path / "no-such-folder"])
    home = case.paths.root
    case.close()
    ((row_id, seq, reason),) = query(home, "SELECT id, entry_seq, reason FROM intake_failures")
    assert failures(home) == []
    undo = set_cell(home, "intake_failures", "reason", row_id, "unreadable")
    tampered_then_restored(home, undo, f"intake failure {row_id}",
                           f"its reason 'unreadable' differs from {reason!r}")
    undo = delete_rows(home, "intake_failures", "id = ?", row_id)
    tampered_then_restored(home, undo, f"log entry {seq}", "no intake_failures row")
    undo = set_cell(home, "log_state", "byte_length", 1, 10)
    tampered_then_restored(home, undo, "custody log: the database records",
                           "in 10 bytes, but holds")
    undo = set_cell(home, "case_info", "name", query(home, "SELECT id FROM case_info")[0][0],
                    "another case")
    tampered_then_restored(home, undo, "case: its name 'another case' differs")
