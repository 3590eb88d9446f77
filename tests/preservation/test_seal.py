"""The unit-of-work seal and the Merkle frontier behind it (preservation/seal.py, merkle.py)."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import insider
from casebuilder.errors import IntegrityError
from casebuilder.preservation.merkle import Frontier, MerkleTree, leaf_hash
from casebuilder.preservation.verify import verify_case
from conftest import run_cli

leaves = st.lists(st.binary(max_size=40).map(leaf_hash), max_size=300)


@settings(max_examples=150, deadline=None)
@given(leaves, st.integers(min_value=0, max_value=300))
def test_the_frontier_gives_the_rfc9162_root_of_every_prefix(hashes, cut):
    cut = min(cut, len(hashes))
    frontier = Frontier.of(hashes[:cut])
    assert frontier.root() == MerkleTree(hashes[:cut]).root()
    grown = frontier.extended(hashes[cut:])
    assert grown.size == len(hashes) and grown.root() == MerkleTree(hashes).root()
    assert frontier.size == cut  # extending leaves the original as it was
    assert Frontier.from_json(json.loads(json.dumps(grown.as_json()))).root() == grown.root()


@pytest.mark.parametrize("bad", [[[3, "00" * 32]], [[1, "00" * 32], [2, "00" * 32]],
                                 [[2, "00" * 31]], "x", [[1]]])
def test_a_malformed_frontier_is_refused(bad):
    with pytest.raises(ValueError):
        Frontier.from_json(bad)


def annotate(case, note):
    with case.transaction() as tx:
        tx.record("annotate", details={"note": note})
    case.checkpoint()


def test_every_unit_of_work_leaves_a_seal_of_the_whole_log(case):
    annotate(case, "a")
    annotate(case, "b")
    seal = json.loads(case.paths.seal.read_text())
    lines = case.paths.log.read_bytes().splitlines()
    tree = MerkleTree([leaf_hash(line) for line in lines])
    assert (seal["tree_size"], seal["root"]) == (len(lines), tree.root().hex())
    assert (seal["base_size"], seal["base_root"]) == (len(lines) - 1,
                                                       tree.root(len(lines) - 1).hex())
    assert verify_case(case, settle_seconds=0).ok


def test_a_removed_or_replayed_seal_file_is_caught(case, tmp_path):
    annotate(case, "a")
    old = tmp_path / "old-seal.json"
    shutil.copy(case.paths.seal, old)
    annotate(case, "b")
    os.replace(old, case.paths.seal)  # an earlier genuine seal put back
    failures = [str(f) for f in verify_case(case, settle_seconds=0).failures]
    assert any("custody/seal.json differs from the seal the database records" in f
               for f in failures), failures
    case.paths.seal.unlink()
    failures = [str(f) for f in verify_case(case, settle_seconds=0).failures]
    assert any("seal.json is missing" in f for f in failures), failures


def test_a_seal_signed_with_another_key_is_caught(case, tmp_path):
    from casebuilder.preservation.case import init_case

    other = init_case(tmp_path / "other", environ={})
    other.close()
    annotate(case, "a")
    shutil.copy(other.paths.seal, case.paths.seal)
    failures = [str(f) for f in verify_case(case, settle_seconds=0).failures]
    assert any("not signed by the case key" in f for f in failures), failures


def test_a_time_column_edited_in_the_database_is_caught_and_never_carried_forward(case):
    annotate(case, "a")
    db = insider.connect(case.paths.root)
    db.execute("UPDATE custody_events SET time = '2031-01-01T00:00:00.000000Z' "
               "WHERE seq = (SELECT MAX(seq) FROM custody_events)")
    db.commit()
    db.close()
    failures = [str(f) for f in verify_case(case, settle_seconds=0).failures]
    assert any("time column holds '2031" in f for f in failures), failures
    # The next writer reads the time the entry itself states, so nothing after it says 2031.
    with case.transaction() as tx:
        tx.record("view")
    last = json.loads(case.paths.log.read_text().splitlines()[-1])
    assert last["time"] < "2031"


def test_a_last_entry_dated_in_the_future_stops_every_writer(case):
    from datetime import UTC, datetime

    case.clock = lambda: datetime(2031, 1, 1, tzinfo=UTC)  # a clock set years ahead
    annotate(case, "written with a wrong clock")
    case.clock = lambda: datetime.now(UTC)
    with pytest.raises(IntegrityError, match="forward-dated"), case.transaction() as tx:
        tx.record("view")


def test_verify_needs_only_the_public_key(case, tmp_path):
    from casebuilder.intake.ingest import ingest

    report = tmp_path / "report.txt"
    report.write_text("A shell hit the market.\n")
    ingest(case, [report])
    home = case.paths.root
    case.close()
    private = home / "keys" / "case-signing-key.pem"
    kept = tmp_path / "offline-key.pem"
    shutil.move(private, kept)
    checked = run_cli("verify", home=home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "OK:" in checked.stdout and "private key is not in this case home" in checked.stdout
    as_json = json.loads(run_cli("verify", "--json", home=home).stdout)
    assert as_json["ok"] and not as_json["logged"]
    # a command that writes says what it misses
    shown = run_cli("show", "1", home=home)
    assert shown.returncode == 2 and "case-signing-key.pem" in shown.stderr
    shutil.move(kept, private)
    assert run_cli("verify", home=home).returncode == 0


def test_verify_with_a_key_obtained_apart_from_the_case(case, tmp_path):
    from casebuilder.preservation.case import init_case

    annotate(case, "a")
    home = case.paths.root
    disclosed = tmp_path / "disclosed.pem"
    shutil.copy(case.paths.public_key, disclosed)
    case.close()
    assert run_cli("verify", "--public-key", disclosed, home=home).returncode == 0
    # the whole key pair of the case home replaced: only the disclosed key shows it
    other = init_case(tmp_path / "other", environ={})
    other.close()
    for name in ("case-signing-key.pem", "case-public-key.pem"):
        os.chmod(home / "keys" / name, 0o600)
        shutil.copy(other.paths.keys / name, home / "keys" / name)
    checked = run_cli("verify", "--public-key", disclosed, home=home)
    assert checked.returncode == 1
    assert "not the key given" in checked.stdout


@pytest.mark.sqlite_only("deletes the case.db file; a server database that is gone is a "
                        "connection error, tested with an unreachable URL below")
def test_a_deleted_database_is_named_not_recreated(case):
    home = case.paths.root
    case.close()
    for path in home.glob("case.db*"):
        path.unlink()
    checked = run_cli("verify", home=home)
    assert checked.returncode == 2
    assert "case database" in checked.stderr and "missing" in checked.stderr
    assert "Traceback" not in checked.stderr
    assert not (home / "case.db").exists()


@pytest.mark.parametrize("url", ["notaurl:::", "postgresql+psycopg://u:secret@127.0.0.1:1/x"])
def test_a_bad_database_url_in_the_configuration_is_one_clear_line(case, url):
    home = case.paths.root
    case.close()
    config = (home / "config.toml").read_text()
    head, _, rest = config.partition("[database]")
    (home / "config.toml").write_text(
        head + "[database]" + rest.replace('url = ""', f'url = "{url}"', 1))
    shown = run_cli("items", home=home)
    assert shown.returncode == 2
    assert "cannot open the case database" in shown.stderr and "config.toml" in shown.stderr
    assert "Traceback" not in shown.stderr and "secret" not in shown.stderr
