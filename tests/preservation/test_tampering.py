"""Tampering done from outside, with ordinary tools, must make ``casebuilder verify`` fail.

Each test tampers with a fresh copy of a case holding the development reports, checks that the
real command (a separate process) exits non-zero and names the problem, then undoes the tampering
and checks that verification passes again.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import insider
from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import init_case, open_case
from casebuilder.preservation.sealing import seal_pending
from casebuilder.preservation.verify import verify_case
from conftest import run_cli


@pytest.fixture(scope="module")
def pristine_home(tmp_path_factory, dev_reports) -> Path:
    home = tmp_path_factory.mktemp("pristine") / "home"
    case = init_case(home, name="tamper tests", environ={})
    try:
        report = ingest(case, [dev_reports])
        assert report.new and not [o for o in report.outcomes if o.status == "failed"]
        assert seal_pending(case).sealed  # both digests of every item recorded
    finally:
        case.close()
    return home


@pytest.fixture
def home(pristine_home, tmp_path) -> Iterator[Path]:
    copy = tmp_path / "home"
    shutil.copytree(pristine_home, copy)
    yield copy


def verify_in_process(home: Path) -> list[str]:
    case = open_case(home, environ={})
    try:
        return [str(f) for f in verify_case(case).failures]
    finally:
        case.close()


def assert_caught(home: Path, *fragments: str) -> str:
    result = run_cli("verify", home=home)
    assert result.returncode == 1, result.stdout + result.stderr
    for fragment in fragments:
        assert fragment in result.stdout, f"{fragment!r} not in:\n{result.stdout}"
    return result.stdout


def object_path(home: Path, item_id: int) -> Path:
    with insider.connect(home) as db:
        (sha,) = db.execute("SELECT sha256 FROM items WHERE id = ?", (item_id,)).fetchone()
    return home / "objects" / "sha256" / sha[:2] / sha[2:4] / sha


def sqlite(home: Path, statement: str) -> None:
    """Edit the database the way an insider would: with its command-line tool (sqlite3, or
    psql when the suite runs on PostgreSQL)."""
    insider.run_tool(home, statement)


def flip_byte(path: Path, offset: int = 0) -> Callable[[], None]:
    os.chmod(path, 0o644)
    data = bytearray(path.read_bytes())
    original = bytes(data)
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))

    def undo() -> None:
        path.write_bytes(original)
        os.chmod(path, 0o444)

    return undo


def edit_lines(path: Path, change: Callable[[list[bytes]], list[bytes]]) -> Callable[[], None]:
    original = path.read_bytes()
    lines = original.split(b"\n")[:-1]
    path.write_bytes(b"".join(line + b"\n" for line in change(lines)))
    return lambda: path.write_bytes(original)


def test_untouched_case_verifies(home):
    result = run_cli("verify", home=home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK" in result.stdout


def test_flipped_byte_in_a_stored_original(home):
    undo = flip_byte(object_path(home, 2), offset=10)
    assert_caught(home, "item 2", "SHA-256", "altered or swapped")
    undo()
    assert verify_in_process(home) == []


def test_hash_edited_in_a_database_row(home):
    with insider.connect(home) as db:
        (sha512,) = db.execute("SELECT sha512 FROM items WHERE id = 3").fetchone()
    sqlite(home, "UPDATE items SET sha512 = '" + "0" * 128 + "' WHERE id = 3")
    assert_caught(home, "item 3", "sha512")
    sqlite(home, f"UPDATE items SET sha512 = '{sha512}' WHERE id = 3")
    assert verify_in_process(home) == []


def test_a_pending_sha512_filled_in_by_hand(tmp_path, dev_reports):
    home = tmp_path / "home"
    case = init_case(home, name="pending", environ={})
    try:
        ingest(case, [dev_reports / "2022-04-08-kramatorsk-1.txt"])
    finally:
        case.close()
    sqlite(home, "UPDATE items SET sha512 = '" + "0" * 128 + "' WHERE id = 1")
    assert_caught(home, "item 1", "database sha512 0000000000000000… is stated by no custody "
                  "entry")


def test_sha256_edited_in_a_database_row(home):
    with insider.connect(home) as db:
        (sha,) = db.execute("SELECT sha256 FROM items WHERE id = 4").fetchone()
    sqlite(home, "UPDATE items SET sha256 = '" + "ab" * 32 + "' WHERE id = 4")
    assert_caught(home, "item 4", "sha256")
    sqlite(home, f"UPDATE items SET sha256 = '{sha}' WHERE id = 4")
    assert verify_in_process(home) == []


def test_altered_log_entry(home):
    def alter(lines):
        assert b"chernihiv" in lines[1]
        lines[1] = lines[1].replace(b"chernihiv", b"chernihov", 1)
        return lines

    undo = edit_lines(home / "custody" / "log.jsonl", alter)
    assert_caught(home, "log entry 1", "differs from the database copy", "its root does not match")
    undo()
    assert verify_in_process(home) == []


def test_altered_time_in_a_log_entry_is_back_dating(home):
    log = home / "custody" / "log.jsonl"

    def backdate(lines):
        entry = json.loads(lines[3])
        entry["time"] = "2020-01-01T00:00:00.000000Z"
        lines[3] = json.dumps(
            entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode()
        return lines

    undo = edit_lines(log, backdate)
    assert_caught(home, "log entry 3", "back-dated")
    undo()
    assert verify_in_process(home) == []


def test_deleted_log_entry(home):
    undo = edit_lines(home / "custody" / "log.jsonl", lambda ls: ls[:4] + ls[5:])
    assert_caught(home, "log entry 4", "removed")
    undo()
    assert verify_in_process(home) == []


def test_reordered_log_entries(home):
    undo = edit_lines(home / "custody" / "log.jsonl", lambda ls: [*ls[:2], ls[3], ls[2], *ls[4:]])
    assert_caught(home, "log entry 2", "reordered")
    undo()
    assert verify_in_process(home) == []


def test_appended_log_entry(home):
    def append(lines):
        last = json.loads(lines[-1])
        forged = dict(last, seq=len(lines), action="annotate", items=[], details={"note": "forged"})
        return [
            *lines,
            json.dumps(forged, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(),
        ]

    undo = edit_lines(home / "custody" / "log.jsonl", append)
    assert_caught(home, "not in the database", "not covered by any signed checkpoint")
    undo()
    assert verify_in_process(home) == []


def test_truncated_log_mid_line(home):
    log = home / "custody" / "log.jsonl"
    original = log.read_bytes()
    log.write_bytes(original[: len(original) - 40])
    assert_caught(home, "cut off")
    log.write_bytes(original)
    assert verify_in_process(home) == []


def test_truncated_log_whole_entries(home):
    undo = edit_lines(home / "custody" / "log.jsonl", lambda ls: ls[:5])
    assert_caught(home, "missing from the log file", "entries were removed")
    undo()
    assert verify_in_process(home) == []


def test_swapped_stored_files(home):
    a, b = object_path(home, 2), object_path(home, 5)
    original = a.read_bytes()
    os.chmod(a, 0o644)
    shutil.copyfile(b, a)
    assert_caught(home, "item 2", "altered or swapped")
    a.write_bytes(original)
    os.chmod(a, 0o444)
    assert verify_in_process(home) == []


def test_deleted_stored_file(home):
    a = object_path(home, 3)
    saved = a.read_bytes()
    a.unlink()
    assert_caught(home, "item 3", "missing")
    a.write_bytes(saved)
    os.chmod(a, 0o444)
    assert verify_in_process(home) == []


def test_edited_checkpoint(home):
    def change_root(lines):
        record = json.loads(lines[-1])
        record["root"] = "0" * 64
        lines[-1] = json.dumps(record, sort_keys=True, separators=(",", ":")).encode()
        return lines

    undo = edit_lines(home / "custody" / "checkpoints.jsonl", change_root)
    assert_caught(home, "signature does not verify", "differs between checkpoints.jsonl")
    undo()
    assert verify_in_process(home) == []


def test_deleted_item_row(home):
    with insider.connect(home) as db:
        row = db.execute("SELECT * FROM items WHERE id = 6").fetchone()
        columns = [d[0] for d in db.execute("SELECT * FROM items").description]
    sqlite(home, "DELETE FROM items WHERE id = 6")
    assert_caught(home, "item 6", "missing from the database")
    with insider.connect(home) as db:
        db.execute(
            f"INSERT INTO items ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
            row,
        )
    assert verify_in_process(home) == []


def test_edited_metadata_row(home):
    with insider.connect(home) as db:
        item_id, metadata = db.execute(
            "SELECT id, metadata FROM items WHERE metadata IS NOT NULL AND format = 'html'"
        ).fetchone()
    edited = json.loads(metadata)
    edited["published"] = "2022-01-01T00:00:00+00:00"
    escaped = json.dumps(edited).replace("'", "''")
    sqlite(home, f"UPDATE items SET metadata = '{escaped}' WHERE id = {item_id}")
    assert_caught(home, f"item {item_id}", "metadata")
    original = metadata.replace("'", "''")
    sqlite(home, f"UPDATE items SET metadata = '{original}' WHERE id = {item_id}")
    assert verify_in_process(home) == []


def test_every_failure_is_reported_not_just_the_first(home):
    flip_byte(object_path(home, 2))
    flip_byte(object_path(home, 7))
    edit_lines(home / "custody" / "log.jsonl", lambda ls: ls[:4] + ls[5:])
    out = assert_caught(home, "item 2", "item 7", "log entry 4")
    assert "verification was not appended" in out


# -- rows that must match the entries that recorded them --------------------------------------


def cell(home: Path, sql: str) -> object:
    with insider.connect(home) as db:
        return db.execute(sql).fetchone()[0]


def quoted(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def edit_then_restore(home: Path, table: str, column: str, row_id: int, value: object,
                      *fragments: str) -> None:
    old = cell(home, f"SELECT {column} FROM {table} WHERE id = {row_id}")
    sqlite(home, f"UPDATE {table} SET {column} = {quoted(value)} WHERE id = {row_id}")
    assert_caught(home, *fragments)
    sqlite(home, f"UPDATE {table} SET {column} = {quoted(old)} WHERE id = {row_id}")
    assert verify_in_process(home) == []


def delete_then_restore(home: Path, table: str, row_id: int, *fragments: str) -> None:
    with insider.connect(home) as db:
        row = db.execute(f"SELECT * FROM {table} WHERE id = ?", (row_id,)).fetchone()
        columns = [d[0] for d in db.execute(f"SELECT * FROM {table}").description]
    sqlite(home, f"DELETE FROM {table} WHERE id = {row_id}")
    assert_caught(home, *fragments)
    marks = ", ".join("?" for _ in columns)
    with insider.connect(home) as db:
        db.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", row)
    assert verify_in_process(home) == []


def test_origin_back_dated(home):
    seq = cell(home, "SELECT entry_seq FROM origins WHERE id = 2")
    edit_then_restore(home, "origins", "received_at", 2, "2022-03-01T09:00:00.000000Z",
                      "origin 2 of item 2", "receipt time", f"recorded in log entry {seq}")


def test_origin_actor_changed(home):
    edit_then_restore(home, "origins", "actor", 2, "a.colleague", "origin 2 of item 2",
                      "its actor 'a.colleague' differs")


@pytest.mark.parametrize(
    ("column", "value", "what"),
    [
        ("parent_item_id", 1, "parent item"),
        ("sidecar_item_id", 5, "sidecar item"),
        ("source_path", "/evidence/elsewhere.txt", "source path"),
        ("name", "elsewhere.txt", "name"),
        ("relation", "attachment", "relation"),
        ("source_mtime", "2020-01-01T00:00:00.000000Z", "source mtime"),
    ],
)
def test_origin_field_changed(home, column, value, what):
    edit_then_restore(home, "origins", column, 2, value, "origin 2 of item 2", f"its {what}")


def test_origin_collection_changed(home):
    collection = cell(home, "SELECT collection FROM origins WHERE id = 2")
    assert isinstance(collection, str)
    changed = json.dumps(dict(json.loads(collection), published="2022-01-01"))
    edit_then_restore(home, "origins", "collection", 2, changed, "origin 2 of item 2",
                      "its collection metadata differs")


def test_origin_row_deleted(home):
    seq = cell(home, "SELECT entry_seq FROM origins WHERE id = 3")
    delete_then_restore(home, "origins", 3, f"log entry {seq}", "records a receipt (ingest)",
                        "no origins row")


def test_derivation_row_deleted(home):
    row_id = cell(home, "SELECT id FROM derivations ORDER BY id LIMIT 1")
    seq = cell(home, f"SELECT entry_seq FROM derivations WHERE id = {row_id}")
    assert isinstance(row_id, int)
    delete_then_restore(home, "derivations", row_id, f"log entry {seq}",
                        "records a derived file (derive)", "no derivations row")


def test_derivation_tool_version_changed(home):
    row_id = cell(home, "SELECT id FROM derivations ORDER BY id LIMIT 1")
    assert isinstance(row_id, int)
    edit_then_restore(home, "derivations", "tool_version", row_id, "9.9.9", "derivation of item",
                      "its tool version")


def test_original_flipped_to_derived(home):
    edit_then_restore(home, "items", "kind", 2, "derived", "item 2", "its kind 'derived'",
                      "received it")


def test_derived_flipped_to_original(home):
    item_id = cell(home, "SELECT id FROM items WHERE kind = 'derived' ORDER BY id LIMIT 1")
    assert isinstance(item_id, int)
    edit_then_restore(home, "items", "kind", item_id, "original", f"item {item_id}",
                      "its kind 'original'", "derived it")


def test_format_changed(home):
    fmt = cell(home, "SELECT format FROM items WHERE id = 2")
    edit_then_restore(home, "items", "format", 2, "pdf", "item 2", f"its format 'pdf' differs "
                      f"from {fmt!r}")


def test_format_of_a_derived_item_changed(home):
    item_id = cell(home, "SELECT id FROM items WHERE kind = 'derived' ORDER BY id LIMIT 1")
    assert isinstance(item_id, int)
    edit_then_restore(home, "items", "format", item_id, "thumbnail", f"item {item_id}",
                      "its format 'thumbnail'")


def test_parse_tool_and_creation_time_changed(home):
    edit_then_restore(home, "items", "parse_tool", 2, "another reader", "item 2", "parse tool")
    edit_then_restore(home, "items", "created_at", 2, "2020-01-01T00:00:00.000000Z", "item 2",
                      "creation time")


def test_escaped_lone_surrogate_in_a_log_line(home):
    def plant(lines):
        assert b'"name":"' in lines[1]
        lines[1] = lines[1].replace(b'"name":"', b'"name":"\\ud800', 1)
        return lines

    undo = edit_lines(home / "custody" / "log.jsonl", plant)
    out = assert_caught(home, "log entry 1", "lone surrogate")
    assert "Traceback" not in out
    undo()
    assert verify_in_process(home) == []
