"""The custody log's unit of work: entries and rows land together or not at all."""

from __future__ import annotations

import json
import os
import stat

import pytest

from casebuilder.errors import CustodyLogError
from casebuilder.preservation.canonical import canonical_bytes, parse_canonical
from casebuilder.preservation.merkle import leaf_hash
from casebuilder.store.schema import CustodyEvent, IntakeFailure


def log_lines(case):
    return case.paths.log.read_bytes().splitlines()


def test_new_case_has_init_entry_signed_key_and_private_key_mode(case):
    lines = log_lines(case)
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["action"] == "init" and entry["seq"] == 0
    assert entry["actor"] == "Test Investigator"
    assert entry["time"].endswith("Z")
    assert stat.S_IMODE(os.stat(case.paths.signing_key).st_mode) == 0o600
    assert case.paths.checkpoints.read_text().count("\n") == 1


def test_entries_are_canonical_and_hashed_as_in_the_database(case):
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "ünïcode – kept as is", "n": 3})
    raw = log_lines(case)[-1]
    assert parse_canonical(raw) == json.loads(raw)
    with case.session() as s:
        row = s.get(CustodyEvent, 1)
    assert row.entry.encode() == raw
    assert row.leaf_hash == leaf_hash(raw).hex()


def test_failed_unit_of_work_leaves_no_entry_and_no_row(case):
    before = case.paths.log.read_bytes()
    with pytest.raises(RuntimeError), case.transaction() as tx:
        tx.record("annotate", details={"note": "never lands"})
        tx.session.add(IntakeFailure(source_path="x", reason="y", at="z", entry_seq=1))
        raise RuntimeError("boom")
    assert case.paths.log.read_bytes() == before
    with case.session() as s:
        assert s.query(CustodyEvent).count() == 1
        assert s.query(IntakeFailure).count() == 0


def test_commit_failure_cuts_the_log_back(case, monkeypatch):
    before = case.paths.log.read_bytes()
    from sqlalchemy.orm import Session

    def broken_commit(self):
        raise OSError("disk full")

    monkeypatch.setattr(Session, "commit", broken_commit)
    with pytest.raises(OSError), case.transaction() as tx:
        tx.record("annotate", details={"note": "x"})
    monkeypatch.undo()
    assert case.paths.log.read_bytes() == before


def test_writer_refuses_a_log_changed_outside(case):
    with open(case.paths.log, "ab") as fh:
        fh.write(b'{"forged":true}\n')  # does not continue the log: not set aside either
    with (
        pytest.raises(CustodyLogError, match="casebuilder verify"),
        case.transaction() as tx,
    ):
        tx.record("annotate")


def test_unknown_action_and_floats_are_refused(case):
    with pytest.raises(CustodyLogError), case.transaction() as tx:
        tx.record("teleport")
    with pytest.raises(CustodyLogError):
        canonical_bytes({"lat": 1.5})


def test_times_never_run_backwards_within_a_command(case):
    from datetime import UTC, datetime, timedelta

    with case.transaction() as tx:
        # the clock steps back a year between two entries of one command
        case.clock = tx.clock = lambda: datetime(2030, 1, 1, tzinfo=UTC)
        tx.record("annotate")
        tx.clock = lambda: datetime(2029, 1, 1, tzinfo=UTC)
        tx.record("annotate")
    times = [json.loads(line)["time"] for line in log_lines(case)[-2:]]
    assert times[0] <= times[1]
    del timedelta


def test_writer_refuses_a_log_cut_short(case):
    with case.transaction() as tx:
        tx.record("annotate")
    data = case.paths.log.read_bytes()
    case.paths.log.write_bytes(data[:-10])
    with pytest.raises(CustodyLogError, match="changed outside casebuilder"), \
            case.transaction() as tx:
        tx.record("annotate")
