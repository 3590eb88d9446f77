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
from casebuilder.preservation.case import init_case
from casebuilder.preservation.keys import create_signing_key
from casebuilder.store.home import CasePaths
from conftest import run_cli


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
@pytest.mark.xfail(strict=False, reason="known gap: an init killed after config.toml is written "
                   "but before its init entry and checkpoint leaves a case with an empty log, "
                   "which verify fails ('there is no signed checkpoint'); finishing such an "
                   "init on the next command is not built yet. Whether a kill lands in that "
                   "window is random, so the test may pass.")
def test_init_killed_at_random_points_then_a_plain_command(tmp_path):
    """kill -9 during `casebuilder init` at 12 points across its run; then `items` (which
    needs a case) and `verify` work, or init is simply run again."""
    probe = tmp_path / "probe"
    start = time.monotonic()
    assert run_cli("init", home=probe).returncode == 0
    whole = time.monotonic() - start
    rng = random.Random(11)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASEBUILDER_")}
    for run in range(12):
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
