"""The suite's own database set-up (tests/suite_database.py, tests/on_postgres/): a test run
on PostgreSQL really is on PostgreSQL, in every process, and a copied case home behaves as a
copied SQLite file would. These run in both modes and fail if the set-up quietly falls back."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import insider
from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import open_case
from conftest import run_cli


def _report(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_text(f"{name}: a shell hit a school in Kharkiv on 3 May 2022.\n")
    return path


def test_the_case_is_in_the_database_the_run_asked_for(case):
    asked = os.environ.get("CASEBUILDER_TEST_DATABASE", "sqlite")
    assert case.engine.dialect.name == ("postgresql" if asked == "postgresql" else "sqlite")
    assert insider.on_postgresql(case.paths.root) == (asked == "postgresql")
    assert (case.paths.root / "case.db").exists() == (asked != "postgresql")


def test_a_command_a_test_starts_reads_the_same_database(case, tmp_path):
    ingest(case, [_report(tmp_path, "first.txt")])
    case.close()
    listed = run_cli("items", "--json", home=case.paths.root)
    assert listed.returncode == 0, listed.stderr
    names = [json.loads(line)["name"] for line in listed.stdout.splitlines() if line.strip()]
    assert names == ["first.txt"]


def test_a_copied_home_holds_what_the_case_held_when_it_was_copied(case, tmp_path):
    before = _report(tmp_path, "before.txt")
    ingest(case, [before])
    copy = tmp_path / "copy"
    shutil.copytree(case.paths.root, copy)
    ingest(case, [_report(tmp_path, "after.txt")])  # the original goes on after the copy
    with insider.connect(copy) as db:
        copied = [row[0] for row in db.execute("SELECT sha256 FROM items")]
    reopened = open_case(copy, environ={})
    try:
        with reopened.engine.connect() as conn:
            seen = [row[0] for row in conn.exec_driver_sql("SELECT sha256 FROM items")]
    finally:
        reopened.close()
    assert copied == seen == [hashlib.sha256(before.read_bytes()).hexdigest()]
