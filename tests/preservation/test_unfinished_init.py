"""An init stopped before its config.toml (kill -9, a full disk) leaves a key pair that signed
nothing and perhaps an empty database: the next command starts the case again, and its init
entry names what it cleared. A home holding anything signed is never cleared."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from casebuilder.errors import CaseHomeError
from casebuilder.preservation.case import init_case, open_case
from casebuilder.preservation.keys import create_signing_key
from casebuilder.preservation.verify import verify_case
from casebuilder.store.home import CasePaths
from conftest import command_env, run_cli


def test_a_key_pair_left_by_a_stopped_init_is_cleared_and_named(tmp_path):
    paths = CasePaths(tmp_path / "home")
    paths.keys.mkdir(parents=True)
    paths.custody.mkdir()
    create_signing_key(paths.signing_key, paths.public_key)
    paths.log.touch()
    old_key = paths.public_key.read_bytes()
    case = init_case(paths.root, environ={})
    try:
        assert paths.public_key.read_bytes() != old_key
        first = json.loads(paths.log.read_text().splitlines()[0])
        assert first["action"] == "init"
        assert sorted(first["details"]["unfinished_init_cleared"]) == sorted(
            str(p.relative_to(paths.root)) for p in (paths.signing_key, paths.public_key))
    finally:
        case.close()
    assert run_cli("verify", home=paths.root).returncode == 0


def test_a_home_without_config_but_with_a_signed_log_is_refused_untouched(tmp_path):
    paths = CasePaths(tmp_path / "home")
    paths.keys.mkdir(parents=True)
    paths.custody.mkdir()
    create_signing_key(paths.signing_key, paths.public_key)
    paths.log.write_text('{"seq":0}\n')
    before = {p: p.read_bytes() for p in (paths.signing_key, paths.public_key, paths.log)}
    with pytest.raises(CaseHomeError, match=r"no config\.toml but holds"):
        init_case(paths.root, environ={})
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.slow
def test_init_killed_at_random_points_then_a_plain_command(tmp_path):
    """kill -9 during `casebuilder init` at 8 points across its run; then `items` (which
    needs a case) and `verify` work, or init is simply run again."""
    probe = tmp_path / "probe"
    start = time.monotonic()
    assert run_cli("init", home=probe).returncode == 0
    whole = time.monotonic() - start
    rng = random.Random(11)
    env = command_env()  # the database of the rest of the run (see suite_database.py)
    for run in range(8):
        home = tmp_path / f"case-{run}"
        proc = subprocess.Popen([sys.executable, "-m", "casebuilder", "--home", str(home), "init"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.1, whole))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        if not (home / "config.toml").exists():
            again = run_cli("init", home=home)
            assert again.returncode == 0, f"run {run}: {again.stdout}{again.stderr}"
        checked = run_cli("verify", home=home)
        assert checked.returncode == 0, f"run {run}: {checked.stdout}{checked.stderr}"


def test_a_schema_half_made_by_a_stopped_init_is_cleared(tmp_path):
    """Killed inside the schema's creation: tables exist, their version is not recorded."""
    import sqlite3

    paths = CasePaths(tmp_path / "home")
    paths.keys.mkdir(parents=True)
    create_signing_key(paths.signing_key, paths.public_key)
    db = sqlite3.connect(paths.database)
    db.execute("CREATE TABLE case_info (id TEXT PRIMARY KEY)")
    db.commit()
    db.close()
    case = init_case(paths.root, environ={})
    try:
        first = json.loads(paths.log.read_text().splitlines()[0])
        assert "case.db" in first["details"]["unfinished_init_cleared"]
    finally:
        case.close()
    assert run_cli("verify", home=paths.root).returncode == 0


def test_a_database_holding_items_without_a_config_is_refused_untouched(tmp_path):
    import sqlite3

    paths = CasePaths(tmp_path / "home")
    paths.root.mkdir()
    db = sqlite3.connect(paths.database)
    db.execute("CREATE TABLE items (id INTEGER PRIMARY KEY)")
    db.execute("INSERT INTO items VALUES (1)")
    db.commit()
    db.close()
    before = paths.database.read_bytes()
    with pytest.raises(CaseHomeError, match=r"holds 1 rows of items"):
        init_case(paths.root, environ={})
    assert paths.database.read_bytes() == before


def test_an_init_stopped_after_its_config_is_finished_by_the_next_command(tmp_path, monkeypatch):
    """The window a kill -9 of init found: config.toml written, no init entry or checkpoint
    yet. The next command writes both (saying so) and verify passes."""
    import casebuilder.preservation.case as case_module

    real_write = case_module.write_config

    def write_then_die(*args, **kwargs):
        real_write(*args, **kwargs)
        raise KeyboardInterrupt  # stands for the kill: nothing after config.toml runs

    monkeypatch.setattr(case_module, "write_config", write_then_die)
    home = tmp_path / "home"
    with pytest.raises(KeyboardInterrupt):
        init_case(home, environ={})
    monkeypatch.undo()
    assert (home / "config.toml").exists() and (home / "custody" / "log.jsonl").read_bytes() == b""
    case = open_case(home, environ={})
    (entry,) = [json.loads(line) for line in case.paths.log.read_text().splitlines()]
    assert entry["action"] == "init" and "finished_by_a_later_command" in entry["details"]
    report = verify_case(case)
    assert report.ok, report.failures
    case.close()
    again = open_case(home, environ={})  # finished once: the next opening adds nothing
    assert len(again.paths.log.read_text().splitlines()) == 1
    again.close()


def test_a_case_whose_log_was_emptied_is_not_finished_but_fails_verify(tmp_path):
    """Only a case with nothing in it is completed: a log emptied by hand in a case that holds
    entries is tampering, left for verify to name."""
    home = tmp_path / "home"
    case = init_case(home, environ={})
    case.close()
    (home / "custody" / "log.jsonl").write_bytes(b"")
    (home / "custody" / "checkpoints.jsonl").write_bytes(b"")
    (home / "custody" / "seal.json").unlink(missing_ok=True)
    reopened = open_case(home, environ={})
    assert reopened.paths.log.read_bytes() == b""
    assert not verify_case(reopened).ok
    reopened.close()



def _init_killed_before_its_checkpoint(home):
    """Run init in a process that kills itself (SIGKILL) where its first checkpoint would be
    signed: the init entry is committed and sealed, nothing is signed."""
    script = (
        "import os, signal, sys\n"
        "import casebuilder.preservation.case as c\n"
        "c.Case.checkpoint = lambda self: os.kill(os.getpid(), signal.SIGKILL)\n"
        "c.init_case(__import__('pathlib').Path(sys.argv[1]), environ={})\n"
    )
    env = command_env()  # the database of the rest of the run (see suite_database.py)
    died = subprocess.run([sys.executable, "-c", script, str(home)], env=env)
    assert died.returncode == -signal.SIGKILL
    checkpoints = home / "custody" / "checkpoints.jsonl"
    assert not checkpoints.exists() or checkpoints.read_bytes() == b""
    assert len((home / "custody" / "log.jsonl").read_text().splitlines()) == 1


def test_an_init_killed_after_its_entry_before_its_checkpoint_verifies_with_a_note(tmp_path):
    """The window CI's kill -9 found: verify says so in a note (the seal covers the entry) and
    passes; the next command signs the entry."""
    home = tmp_path / "home"
    _init_killed_before_its_checkpoint(home)
    checked = run_cli("verify", home=home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "stopped before its checkpoint" in checked.stdout
    assert run_cli("items", home=home).returncode == 0
    again = run_cli("verify", home=home)
    assert again.returncode == 0 and "stopped before its checkpoint" not in again.stdout


def test_an_unsigned_first_entry_without_its_seal_fails_verify(tmp_path):
    """The note above is earned by the seal: without it, an unsigned first entry fails."""
    home = tmp_path / "home"
    _init_killed_before_its_checkpoint(home)
    (home / "custody" / "seal.json").unlink()
    checked = run_cli("verify", home=home)
    assert checked.returncode != 0
    assert "not covered by any signed checkpoint" in checked.stdout, checked.stdout
