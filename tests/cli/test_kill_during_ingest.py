"""`kill -9` at random moments of an ingest, then a plain rerun: nothing lost, nothing doubled,
every stored text extracted exactly once, and the case verifies.

The suite runs a few kills (``CASEBUILDER_KILL_RUNS``, default 2: one kill, then three in a
row, over 40 texts); the audit's full check is 20 over 200:
``CASEBUILDER_KILL_RUNS=20 CASEBUILDER_KILL_TEXTS=200 pytest
tests/cli/test_kill_during_ingest.py``.
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import insider
from conftest import command_env, run_cli

RUNS = int(os.environ.get("CASEBUILDER_KILL_RUNS", "2"))
TEXTS = int(os.environ.get("CASEBUILDER_KILL_TEXTS", "40"))

PLACES = ["Kharkiv", "Kramatorsk", "Chernihiv", "Mykolaiv", "Odesa", "Sumy", "Kherson", "Izium"]
WHAT = ["a missile struck a residential building", "shelling hit the central market",
        "a drone hit a bus stop", "a rocket struck a school"]


def write_corpus(folder: Path, seed: int) -> list[Path]:
    """Short reports with distinct texts, plus a few large binary files whose copy takes long
    enough for a kill to land in the middle of it."""
    rng = random.Random(seed)
    folder.mkdir()
    files = []
    for i in range(TEXTS):
        place, what = rng.choice(PLACES), rng.choice(WHAT)
        killed = rng.randint(1, 30)
        path = folder / f"report-{i:03d}.txt"
        path.write_text(
            f"Report {i}\n\nOn 3 March 2022 {what} in {place}, killing {killed} civilians, "
            f"the regional governor said. Ref {seed}-{i}.\n", encoding="utf-8")
        files.append(path)
    for i in range(3):
        path = folder / f"video-{i}.bin"
        with open(path, "wb") as fh:
            for _ in range(40):
                fh.write(rng.randbytes(1024 * 1024))
        files.append(path)
    return files


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kill_ingest_at(home: Path, corpus: Path, after: float) -> int:
    env = command_env()
    proc = subprocess.Popen([sys.executable, "-m", "casebuilder", "--home", str(home), "ingest",
                             "--no-progress", str(corpus)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(after)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    return proc.wait()


def case_state(home: Path) -> tuple[dict[str, int], list[int], int]:
    db = insider.connect(home)
    try:
        items = dict(db.execute("SELECT sha256, id FROM items WHERE kind = 'original'"))
        unextracted = [row[0] for row in db.execute(
            "SELECT id FROM items i WHERE kind = 'original' AND text_item_id IS NOT NULL "
            "AND NOT EXISTS (SELECT 1 FROM extraction_runs r WHERE r.item_id = i.id)")]
        runs_per_item = db.execute(
            "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM extraction_runs GROUP BY item_id) "
            "AS runs"
        ).fetchone()[0] or 0
        return items, unextracted, runs_per_item
    finally:
        db.close()


def assert_only_the_videos_unread(result: subprocess.CompletedProcess[str], where: str) -> None:
    """The large files are random bytes, which no reader recognises: ingest keeps them and
    lists those it read in this run as problems (exit 1, partial failure); nothing else may be
    a problem, and a run with no problem exits 0."""
    out = result.stdout + result.stderr
    section = result.stdout.split("Problems", 1)[1] if "Problems" in result.stdout else ""
    problems = [line.strip() for line in section.splitlines()[1:] if line.startswith("  ")]
    assert all("video-" in p and "format not recognised" in p for p in problems), \
        f"{where}: {out}"
    assert result.returncode == (1 if problems else 0), f"{where}: {out}"


@pytest.mark.slow
def test_kill_at_random_points_then_a_plain_rerun(tmp_path):
    corpus = tmp_path / "corpus"
    files = write_corpus(corpus, seed=20261201)
    expected = {sha256(path) for path in files}
    rng = random.Random(7)
    # Time a whole run once so the kills land across all of it, not just its start.
    probe = tmp_path / "probe"
    start = time.monotonic()
    done = run_cli("ingest", "--no-progress", corpus, home=probe)
    whole = time.monotonic() - start
    assert_only_the_videos_unread(done, "the probe")
    for run in range(RUNS):
        home = tmp_path / f"case-{run}"
        kills = (1, 3, 2)[run % 3]  # up to three kills in a row before the rerun
        codes = [kill_ingest_at(home, corpus, rng.uniform(0.3, whole)) for _ in range(kills)]
        rerun = run_cli("ingest", "--no-progress", corpus, home=home)
        where = f"run {run} (kills at exit codes {codes})"
        assert_only_the_videos_unread(rerun, where)
        items, unextracted, runs_per_item = case_state(home)
        assert set(items) == expected, f"{where}: items lost or added"
        assert unextracted == [], f"{where}: texts never extracted: {unextracted}"
        assert runs_per_item == 1, f"{where}: a text was extracted more than once"
        leftovers = [p.name for p in (home / "tmp").iterdir()]
        assert leftovers == [], f"{where}: tmp/ holds {leftovers}"
        checked = run_cli("verify", home=home)
        assert checked.returncode == 0, f"{where}: {checked.stdout}{checked.stderr}"
        listed = run_cli("incidents", home=home)
        assert "not extracted yet" not in listed.stderr, f"{where}: {listed.stderr}"
