"""Large named files are copied into the store while ingest is still starting; the run takes
each finished copy only for the very file it was made from."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from casebuilder.intake.ingest import ingest
from casebuilder.preservation.early import EARLY_MIN_BYTES, start_early_copies
from casebuilder.preservation.verify import verify_case
from conftest import run_cli


@pytest.fixture
def large(tmp_path: Path) -> Path:
    path = tmp_path / "video.bin"
    path.write_bytes(os.urandom(EARLY_MIN_BYTES + 1024))
    return path


def store_notes(case) -> list[dict]:
    lines = case.paths.log.read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["action"] == "store-note"]


def test_the_run_takes_the_early_copy_of_an_unchanged_file(case, large, monkeypatch):
    early = start_early_copies(case.paths.root, [large], {})
    assert early is not None
    early.hand_to(case.objects)
    early.wait()

    def copied_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the run copied the file again")

    monkeypatch.setattr(case.objects, "_store_stream", copied_again)
    (outcome,) = ingest(case, [large]).outcomes
    early.close()
    assert outcome.status == "new"
    assert outcome.sha256 == hashlib.sha256(large.read_bytes()).hexdigest()
    assert store_notes(case) == [] and verify_case(case).ok


def test_a_file_changed_after_its_early_copy_is_copied_again(case, large):
    early = start_early_copies(case.paths.root, [large], {})
    assert early is not None
    early.hand_to(case.objects)
    early.wait()
    first = hashlib.sha256(large.read_bytes()).hexdigest()
    with open(large, "ab") as fh:
        fh.write(b"appended after the early copy")
    (outcome,) = ingest(case, [large]).outcomes
    early.close()
    assert outcome.sha256 == hashlib.sha256(large.read_bytes()).hexdigest() != first
    (note,) = store_notes(case)  # the early object, never an item, is logged by the command
    assert [o["sha256"] for o in note["details"]["objects_without_item"]] == [first]
    report = verify_case(case)
    assert report.ok, report.failures


def test_files_in_the_case_home_or_small_ones_are_never_copied_early(case, tmp_path):
    inside = case.paths.root / "big-file-in-home.bin"
    inside.write_bytes(bytes(EARLY_MIN_BYTES + 1))
    small = tmp_path / "small.txt"
    small.write_text("A short report.\n")
    assert start_early_copies(case.paths.root, [inside, small], {}) is None


def test_a_copy_stopped_before_it_is_taken_leaves_nothing_in_tmp(case, large):
    early = start_early_copies(case.paths.root, [large, large.with_name("missing.bin")], {})
    assert early is not None
    early.close()
    assert sorted(case.paths.tmp.glob("incoming-*")) == []


def test_ingest_of_a_large_file_through_the_command_line_is_recorded_once(tmp_path, large):
    home = tmp_path / "home"
    assert run_cli("init", home=home).returncode == 0
    done = run_cli("ingest", "--no-progress", large, home=home)
    assert done.returncode == 1, done.stdout + done.stderr  # 1: no format to read it by
    assert "1 new" in done.stdout
    checked = run_cli("verify", home=home)
    assert checked.returncode == 0 and "object" not in checked.stdout.split("\n", 1)[1], \
        checked.stdout
    assert list((home / "tmp").iterdir()) == []


def _writer_locks_held(tmp: Path) -> list[str]:
    """Names of the writer locks in ``tmp`` some process still holds."""
    import fcntl

    held = []
    for lock in tmp.glob("writer-*.lock"):
        fd = os.open(lock, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held.append(lock.name)
        finally:
            os.close(fd)
    return held


def test_an_ingest_killed_while_its_copier_copies_takes_the_copier_with_it(tmp_path):
    """The early copy runs in a forked copier; kill -9 of the command must not leave it
    running (writing into tmp/ and holding the command's writer lock), and the next command
    clears what it left."""
    import signal
    import subprocess
    import sys
    import time

    home = tmp_path / "home"
    assert run_cli("init", home=home).returncode == 0
    big = tmp_path / "big.bin"
    with open(big, "wb") as fh:
        for _ in range(48):
            fh.write(os.urandom(8 * 1024 * 1024))
    command = [sys.executable, "-m", "casebuilder", "--home", str(home), "ingest",
               "--no-progress", str(big)]
    ingest_run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not list((home / "tmp").glob("incoming-*")) and time.monotonic() < deadline:
        time.sleep(0.002)
    assert list((home / "tmp").glob("incoming-*")), "no copy was seen under way"
    ingest_run.send_signal(signal.SIGKILL)
    ingest_run.wait()
    deadline = time.monotonic() + 10
    while _writer_locks_held(home / "tmp") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _writer_locks_held(home / "tmp") == []  # the copier died with its command...
    stored = [p for p in (home / "objects").rglob("*") if p.is_file()]
    assert stored == []  # ...at once: it did not go on to finish the copy
    assert run_cli("verify", home=home).returncode in (0, 1)
    assert run_cli("log", "--tail", "1", home=home).returncode == 0
    assert list((home / "tmp").glob("incoming-*")) == []
    assert run_cli("verify", home=home).returncode == 0


PLANS = [
    # argv, stderr is a terminal, (home, paths) or None
    (["ingest", "a.mp4"], False, (None, ["a.mp4"])),
    (["--home", "h", "ingest", "--no-progress", "a", "b"], True, ("h", ["a", "b"])),
    (["--home=h", "ingest", "--json", "--no-extract", "--", "-odd-name"], False,
     ("h", ["-odd-name"])),
    (["ingest", "a.mp4"], True, None),  # a progress bar counts bytes in the run's order
    (["ingest", "--progress", "a.mp4"], False, None),
    (["ingest", "--unknown", "a.mp4"], False, None),
    (["--verbose", "ingest", "a.mp4"], False, None),
    (["verify"], False, None),
    (["ingest"], False, None),
    (["--help"], False, None),
]


@pytest.mark.parametrize(("argv", "terminal", "plan"), PLANS)
def test_the_entry_point_reads_only_plain_ingests(argv, terminal, plan):
    from casebuilder.cli.entry import ingest_plan

    found = ingest_plan(argv, terminal)
    assert (None if found is None else (found[0], [str(p) for p in found[1]])) == plan


def test_copies_started_ahead_are_taken_only_for_the_same_home_and_paths(case, large,
                                                                         tmp_path):
    from casebuilder.preservation import early

    early.start_ahead(case.paths.root, [large])
    ahead = early._AHEAD
    assert ahead is not None
    with early.early_copies(case.paths.root, [large]) as taken:
        assert taken is ahead[2]
    assert early._AHEAD is None

    other = tmp_path / "other.bin"
    other.write_bytes(os.urandom(EARLY_MIN_BYTES + 10))
    early.start_ahead(case.paths.root, [large])
    ahead = early._AHEAD
    assert ahead is not None
    with early.early_copies(case.paths.root, [other]) as taken:
        assert taken is not ahead[2]  # read otherwise by the command line: stopped
    assert early._AHEAD is None
    assert sorted(case.paths.tmp.glob("incoming-*")) == []
