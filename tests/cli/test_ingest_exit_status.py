"""Ingest's exit status tells success (0), partial failure (1) and error (2) apart, and a full
disk stops the run with the summary of what was stored and one line naming the file and the
problem, leaving nothing half-written."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from casebuilder.intake.ingest import ingest
from casebuilder.preservation import objects as objects_module
from casebuilder.preservation.objects import ObjectStore, StoredObject
from casebuilder.preservation.verify import verify_case
from casebuilder.store.schema import LogState
from conftest import run_cli


def test_a_path_that_does_not_exist_is_a_partial_failure(tmp_path):
    result = run_cli("ingest", tmp_path / "nonexistent", home=tmp_path / "home")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 with problems" in result.stdout and "no such file or folder [not taken in]" \
        in result.stdout


def test_every_path_taken_in_and_read_is_success_and_a_partial_reading_is_not(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("Shelling hit the market at 10:00.\n")
    mixed = tmp_path / "mixed.txt"
    mixed.write_bytes("Удар по Харкову. ".encode() + "Ещё удар.".encode("cp1251"))
    home = tmp_path / "home"
    assert run_cli("ingest", "--no-extract", good, home=home).returncode == 0
    partly = run_cli("ingest", "--no-extract", mixed, home=home)
    assert partly.returncode == 1 and "read in part" in partly.stdout


def test_ingest_json_is_one_object_on_stdout_with_every_path_and_the_exit_status(tmp_path):
    """``ingest --json``: stdout parses as one JSON object (the human summary goes to stderr),
    listing each path with what became of it, and the exit status it exits with."""
    good = tmp_path / "good.txt"
    good.write_text("Shelling hit the market at 10:00.\n")
    missing = tmp_path / "missing.txt"
    home = tmp_path / "home"
    result = run_cli("ingest", "--no-extract", "--json", good, missing, home=home)
    assert result.returncode == 1, result.stderr
    summary = json.loads(result.stdout)
    assert summary["exit_status"] == 1
    assert summary["counts"] == {"new": 1, "already_held": 0, "with_problems": 1,
                                 "read_now": 0}
    by_path = {Path(o["path"]).name: o for o in summary["outcomes"]}
    assert by_path["good.txt"]["status"] == "new" and by_path["good.txt"]["item_id"] == 1
    assert by_path["missing.txt"]["status"] == "failed"
    assert "no such file" in by_path["missing.txt"]["problem"]
    assert summary["checkpoint"]["tree_size"] >= 2 and summary["stopped"] is None
    assert "1 with problems" in result.stderr  # the lines for people, kept apart
    again = run_cli("ingest", "--no-extract", "--json", good, home=home)
    assert again.returncode == 0
    assert json.loads(again.stdout)["outcomes"][0]["status"] == "duplicate"


# -- a full disk -------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 6 MB tmpfs, for a real ENOSPC (needs root and a mount command that works here)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small file system needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(disk)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    """A file that leaves about ``leave`` bytes free on ``disk``."""
    filler = disk / "filler"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    with open(filler, "wb") as fh:
        fh.truncate(0)
        fh.write(bytes(max(free - leave, 0)))
    return filler


def test_a_full_disk_stops_the_run_with_a_summary_and_one_line_naming_the_problem(
        tmp_path, small_disk):
    home = small_disk / "home"
    assert run_cli("init", home=home).returncode == 0
    first = tmp_path / "first.txt"
    first.write_text("Shelling hit the market at 10:00.\n")
    # UTF-16 with a BOM: stored as received (2 MB), its text kept as UTF-8 (1 MB) beside it
    statement = tmp_path / "statement.txt"
    statement.write_bytes(("Rescuers searched the rubble. " * 35_000).encode("utf-16"))
    later = tmp_path / "later.txt"
    later.write_text("Never looked at.\n")
    filler = _fill(small_disk, statement.stat().st_size + 500_000)

    result = run_cli("ingest", "--no-extract", first, statement, later, home=home)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    (error,) = result.stderr.strip().splitlines()
    assert "no space left on device (ENOSPC)" in error and "statement.txt" in error
    assert "2 new" in result.stdout and "first.txt" in result.stdout
    assert "later.txt" not in result.stdout
    assert list((home / "tmp").iterdir()) == []  # no partial copy left behind

    filler.unlink()
    checked = run_cli("verify", home=home)
    assert checked.returncode == 0, checked.stdout
    again = run_cli("ingest", "--no-extract", statement, later, home=home)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "read now: ok" in again.stdout  # the stored original is read when it comes again


def test_a_failed_write_to_the_store_stops_the_run_and_keeps_what_was_stored(
        case, tmp_path, monkeypatch):
    paths = []
    for name in ("a.txt", "b.txt", "c.txt"):
        paths.append(tmp_path / name)
        paths[-1].write_text(f"Report {name}: shelling hit the market.\n")
    real_write = objects_module._write_all
    calls = []

    def disk_full_on_second_file(fd: int, data: bytes | memoryview) -> None:
        calls.append(len(data))
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_write(fd, data)

    monkeypatch.setattr(objects_module, "_write_all", disk_full_on_second_file)
    report = ingest(case, paths)
    assert [o.path.rsplit("/", 1)[-1] for o in report.outcomes] == ["a.txt"]
    assert report.stopped is not None and report.stopped.path.endswith("b.txt")
    assert "b.txt: cannot write to the case home: no space left on device (ENOSPC)" \
        in report.stopped.reason
    assert [p.name for p in case.paths.tmp.iterdir() if p.name.startswith("incoming-")] == []
    assert verify_case(case).ok


def test_a_database_that_cannot_be_written_stops_the_run_and_cuts_the_log_back(
        case, tmp_path, monkeypatch):
    paths = []
    for name in ("a.txt", "b.txt"):
        paths.append(tmp_path / name)
        paths[-1].write_text(f"Report {name}.\n")
    real_commit, real_store = Session.commit, ObjectStore.store_file
    full = []

    def store(self: ObjectStore, path: Path, **kwargs: Any) -> StoredObject:
        stored = real_store(self, path, **kwargs)
        full.append(path.name == "b.txt")  # the disk fills up as b.txt is stored
        return stored

    def commit(self: Session) -> None:
        if any(full):
            raise OperationalError("COMMIT", {}, sqlite3.OperationalError(
                "database or disk is full"))
        real_commit(self)

    monkeypatch.setattr(ObjectStore, "store_file", store)
    monkeypatch.setattr(Session, "commit", commit)
    report = ingest(case, paths)
    monkeypatch.setattr(Session, "commit", real_commit)
    assert report.stopped is not None and report.stopped.path.endswith("b.txt")
    assert report.stopped.reason == \
        "the case database could not be written: database or disk is full"
    assert report.checkpoint_problem is not None  # nothing could be signed either
    with case.session() as session:
        state = session.get(LogState, 1)
        assert state is not None and state.byte_length == case.paths.log.stat().st_size
    case.checkpoint()  # the next command signs what the stopped one could not
    # b.txt's object was renamed into the store before its receipt failed: logged as such
    lines = case.paths.log.read_text().splitlines()
    (note,) = [e for e in map(json.loads, lines) if e["action"] == "store-note"]
    assert note["details"]["note"].startswith("objects this command stored whose records it "
                                              "could not commit")
    b_sha = hashlib.sha256(paths[1].read_bytes()).hexdigest()
    assert [o["sha256"] for o in note["details"]["objects_without_item"]] == [b_sha]
    report = verify_case(case)
    assert report.ok, report.failures
    assert any(f"object {b_sha}: left without an item by a command" in n for n in report.notes)
