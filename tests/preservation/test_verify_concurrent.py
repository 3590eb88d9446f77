"""Verifying while another process writes to the case must not report false tampering.

A writer in another process appends custody entries in a loop (analysts' decisions, each with
its database row and its checkpoint, and plain notes) while verification runs several times.
Verification reads the log, the checkpoints and the rows under the case lock, so it sees each
unit of work wholly or not at all, and waits for a command that has committed its entries to
sign its checkpoint.
"""

from __future__ import annotations

import json
import multiprocessing
import time
from pathlib import Path
from typing import Any

import pytest

import insider
from casebuilder.errors import IntegrityError
from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import Case, open_case
from casebuilder.preservation.verify import verify_case
from casebuilder.resolution.decisions import record_decision

ROUNDS = 8


def write_in_a_loop(home: str, stop: Any, started: Any, written: Any) -> None:
    case = open_case(Path(home), environ={})
    try:
        n = 0
        while not stop.is_set():
            record_decision(case, "grade", f"inc-{n:010d}", {"grade": "fair"}, f"reason {n}")
            with case.transaction() as tx:
                for i in range(3):
                    tx.record("annotate", details={"note": f"note {n}.{i}"})
            case.checkpoint()
            n += 1
            written.value = n
            started.set()
    finally:
        case.close()


def test_verify_while_another_process_appends(case: Case, tmp_path: Path) -> None:
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    (evidence / "statement.txt").write_text("Witness A: the shelling began at 10:00.\n")
    ingest(case, [evidence])
    context = multiprocessing.get_context("spawn")
    stop, started = context.Event(), context.Event()
    written = context.Value("i", 0)
    writer = context.Process(
        target=write_in_a_loop, args=(str(case.paths.root), stop, started, written)
    )
    writer.start()
    reports = []
    try:
        assert started.wait(120), "the writer did not start"
        for _ in range(ROUNDS):
            reports.append(verify_case(case))
            time.sleep(0.01)
            assert writer.is_alive(), "the writer stopped"
    finally:
        stop.set()
        writer.join(120)
    assert writer.exitcode == 0
    for report in reports:
        assert report.ok, [str(f) for f in report.failures]
    sizes = [report.counts["log entries"] for report in reports]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1], sizes  # it really was writing
    final = verify_case(case)
    assert final.ok, [str(f) for f in final.failures]
    assert final.counts["analyst decisions"] == written.value


def write_then_wait(home: str, written: Any, go_on: Any, finish: bool) -> None:
    """A long command: entries committed, its checkpoint only at the end (like ingest)."""
    import os

    case = open_case(Path(home), environ={})
    with case.transaction() as tx:
        for i in range(3):
            tx.record("annotate", details={"note": f"part {i} of a long command"})
    written.set()
    go_on.wait(60)
    if not finish:
        os._exit(9)  # killed before its checkpoint: the kernel drops its running lock
    case.checkpoint()
    case.close()


def start_long_command(home: Path, finish: bool) -> tuple[Any, Any]:
    context = multiprocessing.get_context("spawn")
    written, go_on = context.Event(), context.Event()
    writer = context.Process(target=write_then_wait, args=(str(home), written, go_on, finish))
    writer.start()
    assert written.wait(120), "the writer did not write"
    return writer, go_on


def test_a_long_command_still_running_is_a_note_not_a_failure(case: Case) -> None:
    writer, go_on = start_long_command(case.paths.root, finish=True)
    try:
        report = verify_case(case, settle_seconds=0.1)  # well past the grace period
        assert report.ok, [str(f) for f in report.failures]
        assert any("a command is running; entries 1..3 not yet signed" in n
                   for n in report.notes), report.notes
    finally:
        go_on.set()
        writer.join(120)
    assert writer.exitcode == 0
    final = verify_case(case, settle_seconds=0)
    assert final.ok and not any("running" in n for n in final.notes)


def test_entries_of_a_command_that_died_before_its_checkpoint_are_a_note(case: Case) -> None:
    # Its units of work sealed them with the case key: not tampering, but not yet checkpointed.
    writer, go_on = start_long_command(case.paths.root, finish=False)
    go_on.set()
    writer.join(120)
    assert writer.exitcode == 9
    report = verify_case(case, settle_seconds=0.1)
    assert report.ok, [str(f) for f in report.failures]
    assert any("entries 1..3 were committed by a command that stopped before its checkpoint"
               in n for n in report.notes), report.notes


def test_entries_committed_by_hand_without_a_seal_are_a_failure(case: Case) -> None:

    from casebuilder.preservation.canonical import canonical_bytes
    from casebuilder.preservation.merkle import leaf_hash

    # Someone with the files and the database but not the key adds an entry consistently to
    # both, as a command would: the file line, its database copy and the recorded length.
    last = json.loads(case.paths.log.read_text().splitlines()[-1])
    forged = canonical_bytes(dict(last, seq=last["seq"] + 1, action="annotate",
                                  details={"note": "forged"}))
    with open(case.paths.log, "ab") as fh:
        fh.write(forged + b"\n")
    db = insider.connect(case.paths.root)
    db.execute("INSERT INTO custody_events (seq, leaf_hash, action, actor, time, entry) "
               "VALUES (?, ?, 'annotate', ?, ?, ?)",
               (last["seq"] + 1, leaf_hash(forged).hex(), last["actor"], last["time"],
                forged.decode()))
    db.execute("UPDATE log_state SET tree_size = tree_size + 1, byte_length = ?",
               (case.paths.log.stat().st_size,))
    db.commit()
    db.close()
    failures = [str(f) for f in verify_case(case, settle_seconds=0).failures]
    assert any("come after the seal of the last unit of work" in f for f in failures), failures
    with pytest.raises(IntegrityError, match="neither the case key's seal"), \
            case.transaction() as tx:
        tx.record("view")
    with pytest.raises(IntegrityError):
        case.checkpoint()
    assert not verify_case(case, settle_seconds=0).ok  # still failing: nothing signed it
    case.recover("an entry added by hand, examined")
    report = verify_case(case, settle_seconds=0)
    assert report.ok, [str(f) for f in report.failures]
    recovered = json.loads(case.paths.log.read_text().splitlines()[-1])
    assert recovered["action"] == "recover" and "adopted" in recovered["details"]["note"]


def test_this_process_own_unsigned_entries_are_not_excused(case: Case) -> None:
    # The lock this very case holds is not "another command running": its entries are named
    # as not yet checkpointed (sealed), not as entries another command will sign.
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "never signed"})
    assert case.running is not None and case.running.held
    notes = verify_case(case, settle_seconds=0).notes
    assert any("stopped before its checkpoint" in n for n in notes), notes
    assert not any("a command is running" in n for n in notes), notes
    assert case.running.held  # and verify left it held
    case.checkpoint()
    assert not case.running.held and verify_case(case, settle_seconds=0).ok
