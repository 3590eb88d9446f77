"""What an ingest killed with kill -9 leaves in tmp/ and in the store is cleared and logged by
the next command, never at a live ingest's expense; verify tells an object a logged
interruption left (a note), one a running command has not committed yet (a note) and one
nothing accounts for (a failure)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import command_env, run_cli

PAUSED = Path(__file__).with_name("paused_ingest.py")


def _entries(home: Path, action: str) -> list[dict]:
    lines = (home / "custody" / "log.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["action"] == action]


def _incoming(home: Path) -> list[Path]:
    return sorted((home / "tmp").glob("incoming-*"))


class Paused:
    """``casebuilder`` run with its ingest paused at ``mode`` (see paused_ingest.py)."""

    def __init__(self, tmp_path: Path, mode: str, *args: str | os.PathLike[str]) -> None:
        self.ready, self.go = tmp_path / f"{mode}.ready", tmp_path / f"{mode}.go"
        env = command_env()
        self.process = subprocess.Popen(
            [sys.executable, str(PAUSED), mode, str(self.ready), str(self.go), "--",
             *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env)
        deadline = time.monotonic() + 120
        while not self.ready.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                out, err = self.process.communicate()
                raise AssertionError(f"never paused: {out}{err}")
            time.sleep(0.02)

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=60)

    def finish(self) -> subprocess.CompletedProcess[str]:
        self.go.touch()
        out, err = self.process.communicate(timeout=300)
        return subprocess.CompletedProcess(self.process.args, self.process.returncode, out, err)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    assert run_cli("init", home=home).returncode == 0
    return home


@pytest.fixture
def big(tmp_path: Path) -> Path:
    path = tmp_path / "video.bin"
    path.write_bytes(os.urandom(6 * 1024 * 1024))  # more than one 4 MiB chunk
    return path


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "note.txt"
    path.write_text("Shelling hit the market at 10:00.\n")
    return path


def test_a_partial_copy_left_by_kill_9_is_named_by_verify_then_removed_and_logged(
        tmp_path, home, big, small):
    paused = Paused(tmp_path, "copying", "--home", home, "ingest", "--no-progress", big)
    paused.kill()
    (left,) = _incoming(home)
    size = left.stat().st_size
    assert size > 0

    checked = run_cli("verify", home=home)
    assert checked.returncode == 0, checked.stdout
    assert f"tmp/{left.name} ({size} bytes): a partial copy left by an interrupted command" \
        in checked.stdout

    assert run_cli("ingest", "--no-extract", small, home=home).returncode == 0
    assert _incoming(home) == []
    (note,) = _entries(home, "store-note")
    assert note["details"]["temporaries_removed"] == [{"name": f"tmp/{left.name}", "size": size}]
    assert "writer-" not in " ".join(p.name for p in (home / "tmp").iterdir())
    again = run_cli("verify", home=home)
    assert again.returncode == 0 and "tmp/" not in again.stdout


def test_an_object_renamed_in_before_a_kill_9_is_logged_then_adopted(tmp_path, home, big,
                                                                      small):
    sha256 = hashlib.sha256(big.read_bytes()).hexdigest()
    paused = Paused(tmp_path, "placed", "--home", home, "ingest", "--no-progress", big)
    paused.kill()
    assert (home / "objects" / "sha256" / sha256[:2] / sha256[2:4] / sha256).is_file()

    checked = run_cli("verify", home=home)
    assert checked.returncode == 0, checked.stdout
    assert f"object {sha256}: stored by a command that stopped before committing its item" \
        in checked.stdout

    assert run_cli("ingest", "--no-extract", small, home=home).returncode == 0
    (note,) = _entries(home, "store-note")
    assert note["details"]["objects_without_item"] == [{"sha256": sha256,
                                                         "size": big.stat().st_size}]
    logged = run_cli("verify", home=home)
    assert logged.returncode == 0, logged.stdout
    assert f"object {sha256}: left without an item by a command that stopped or failed " \
        f"(log entry {note['seq']} records it)" in logged.stdout

    adopted = run_cli("ingest", "--no-extract", big, home=home)
    assert "1 new" in adopted.stdout  # the same file again: its object becomes its item
    final = run_cli("verify", home=home)
    assert final.returncode == 0 and sha256 not in final.stdout


def test_a_live_ingest_keeps_its_copy_and_verify_beside_it_raises_no_alarm(tmp_path, home,
                                                                           big, small):
    sha256 = hashlib.sha256(big.read_bytes()).hexdigest()
    copying = Paused(tmp_path, "copying", "--home", home, "ingest", "--no-progress", big)
    (live,) = _incoming(home)
    assert run_cli("ingest", "--no-extract", small, home=home).returncode == 0
    assert live.exists() and _entries(home, "store-note") == []
    done = copying.finish()
    assert done.returncode == 1, done.stdout + done.stderr  # 1: the format is not recognised
    assert "1 new" in done.stdout

    other = tmp_path / "other.bin"
    other.write_bytes(os.urandom(1024))
    placed = Paused(tmp_path, "placed", "--home", home, "ingest", "--no-progress", other)
    beside = run_cli("verify", home=home)
    other_sha = hashlib.sha256(other.read_bytes()).hexdigest()
    assert beside.returncode == 0, beside.stdout
    assert f"object {other_sha}: not yet committed, a command is running" in beside.stdout
    assert placed.finish().returncode == 1
    final = run_cli("verify", home=home)
    assert final.returncode == 0, final.stdout
    assert not [line for line in final.stdout.splitlines() if line.startswith("note: object")]
    assert sha256 not in final.stdout


def test_an_object_nothing_accounts_for_fails_verify(tmp_path, home, small):
    # An older copy of the database and log put back: the item is gone, its file is not.
    saved = tmp_path / "saved"
    shutil.copytree(home, saved)
    later = tmp_path / "later.txt"
    later.write_text("A report that was taken in, then rolled back.\n")
    assert run_cli("ingest", "--no-extract", later, home=home).returncode == 0
    # (on the PostgreSQL test server, the home's database is the one its marker file names)
    for name in ("case.db", "case.db-wal", "case.db-shm", "test-postgres-database"):
        (home / name).unlink(missing_ok=True)
        if (saved / name).exists():
            shutil.copy2(saved / name, home / name)
    shutil.rmtree(home / "custody")
    shutil.copytree(saved / "custody", home / "custody")
    checked = run_cli("verify", home=home)
    sha256 = hashlib.sha256(later.read_bytes()).hexdigest()
    assert checked.returncode == 1, checked.stdout
    assert f"object {sha256}: is in the store, but no item names it and no custody entry " \
        "accounts for it" in checked.stdout
