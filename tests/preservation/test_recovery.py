"""A command that stops half-way leaves the case usable, and says so in the log."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

import insider
from casebuilder.errors import CustodyLogError, IntegrityError, NotFound
from casebuilder.model.clock import format_utc
from casebuilder.preservation.canonical import canonical_bytes
from casebuilder.preservation.case import open_case
from casebuilder.preservation.checkpoint import sign_checkpoint
from casebuilder.preservation.merkle import MerkleTree
from casebuilder.preservation.verify import verify_case
from casebuilder.store.schema import Checkpoint, CustodyEvent
from conftest import run_cli


def entries(case):
    return [json.loads(line) for line in case.paths.log.read_text().splitlines()]


CRASH_AT_COMMIT = """
import os, signal, sys
from pathlib import Path
from casebuilder.preservation import custody
from casebuilder.preservation.case import open_case

real = custody._append_and_commit

def dying(session, log_path, old_length, blob):
    # the entries are appended and fsynced; the process dies instead of committing
    session.commit = lambda: os.kill(os.getpid(), signal.SIGKILL)
    real(session, log_path, old_length, blob)

custody._append_and_commit = dying
case = open_case(Path(sys.argv[1]), environ={})
with case.transaction() as tx:
    tx.record("annotate", details={"note": "never committed"})
"""


def crash_between_append_and_commit(case):
    """A real `kill -9` of a command after it appended its entries, before its commit."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", CRASH_AT_COMMIT, str(case.paths.root)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == -9, done.stderr
    assert b"never committed" in case.paths.log.read_bytes()


def test_entries_a_killed_command_appended_but_never_committed_are_moved_aside(case):
    crash_between_append_and_commit(case)
    report = verify_case(case, settle_seconds=0)
    assert report.ok, [str(f) for f in report.failures]  # sealed by the key: a note, not tampering
    assert any("stopped before its database commit" in n for n in report.notes), report.notes
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "next command"})
    case.checkpoint()
    log = entries(case)
    note = next(e for e in log if e["action"] == "checkpoint-note" and "moved_to" in e["details"])
    assert note["details"]["sealed"] is True
    aside = case.paths.custody / note["details"]["moved_to"]
    assert json.loads(aside.read_text())["details"]["note"] == "never committed"
    assert not any(e["details"].get("note") == "never committed" for e in log)
    assert verify_case(case).ok


def test_a_line_appended_by_hand_keeps_failing_until_an_investigator_recovers(case):
    append_orphan(case)
    for _ in range(2):  # any command refuses, and verify keeps failing: nothing moved silently
        with pytest.raises(CustodyLogError, match="did not seal"), case.transaction() as tx:
            tx.record("view")
        report = verify_case(case, settle_seconds=0)
        assert not report.ok
        assert any("not in the database" in str(f) for f in report.failures)
    assert aside_files(case) == []
    assert case.recover("forged line found by the audit of 1 December")
    log = entries(case)
    entry = next(e for e in log if e["action"] == "recover")
    assert entry["details"]["sealed"] is False
    assert entry["details"]["reason"] == "forged line found by the audit of 1 December"
    aside = case.paths.custody / entry["details"]["moved_to"]
    assert json.loads(aside.read_text())["details"]["note"] == "never committed"
    report = verify_case(case, settle_seconds=0)
    assert report.ok, [str(f) for f in report.failures]
    assert any(aside.name in n for n in report.notes)
    assert case.recover("nothing left") == []


def test_the_cli_recover_command_needs_a_reason_and_logs_it(case):
    append_orphan(case)
    home = case.paths.root
    case.close()
    refused = run_cli("show", "1", home=home)
    assert refused.returncode == 2 and "recover" in refused.stderr
    assert run_cli("recover", home=home).returncode == 2
    done = run_cli("recover", "--reason", "line added by hand", home=home)
    assert done.returncode == 0, done.stderr
    assert "moved aside" in done.stdout
    assert run_cli("verify", home=home).returncode == 0


def test_a_partial_line_after_the_end_is_still_refused(case):
    with open(case.paths.log, "ab") as fh:
        fh.write(b'{"seq": 99')
    from casebuilder.errors import CustodyLogError

    with pytest.raises(CustodyLogError, match="partial"), case.transaction() as tx:
        tx.record("annotate")


def _append_checkpoint_then_crash(case):
    """What a command leaves when it signed and appended its checkpoint for the log as it
    stands, then died before committing the checkpoint's database row."""
    with case.session() as s:
        leaves = [bytes.fromhex(row.leaf_hash) for row in
                  s.query(CustodyEvent).order_by(CustodyEvent.seq)]
    signed, _ = sign_checkpoint(case.signer, case_id=case.case_id, tree_size=len(leaves),
                                root=MerkleTree(leaves).root(), time=format_utc(case.clock()))
    with open(case.paths.checkpoints, "a") as fh:
        fh.write(signed.as_line() + "\n")
    return signed


def test_a_genuine_checkpoint_left_by_a_crash_is_adopted(case):
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "x"})
    # The command signed and appended its checkpoint, then died before the database commit.
    _append_checkpoint_then_crash(case)
    assert case.checkpoint().checkpoint is None  # adopted: nothing left to sign
    assert verify_case(case).ok


KILLED_AFTER_CHECKPOINT_LINE = """
import os, signal, sys
from pathlib import Path
from casebuilder.preservation import case as case_module
from casebuilder.preservation.case import open_case

real = case_module.append_checkpoint_line

def dying(path, line):
    # the signed line is in checkpoints.jsonl and fsynced; the row is never committed
    real(path, line)
    os.kill(os.getpid(), signal.SIGKILL)

case_module.append_checkpoint_line = dying
case = open_case(Path(sys.argv[1]), environ={})
with case.transaction() as tx:
    tx.record("annotate", details={"note": "signed in the file only"})
case.checkpoint()
"""


def test_verify_straight_after_a_kill_between_checkpoint_line_and_row_passes(case):
    """kill -9 after a command appended its checkpoint line, before the database row: the
    first thing run next may be `verify` (no command has adopted the line yet). It must pass,
    saying so, and the next command records the line; a forged extra line still fails."""
    import subprocess
    import sys

    case.close()
    done = subprocess.run([sys.executable, "-c", KILLED_AFTER_CHECKPOINT_LINE,
                           str(case.paths.root)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == -9, done.stderr
    again = open_case(case.paths.root, environ={})
    try:
        lines = again.paths.checkpoints.read_text().splitlines()
        with again.session() as s:
            assert s.query(Checkpoint).count() == len(lines) - 1
        report = verify_case(again, settle_seconds=0)
        assert report.ok, [str(f) for f in report.failures]
        assert any("not yet in the database" in n for n in report.notes), report.notes
        with again.transaction() as tx:  # the next command adopts the line
            tx.record("view")
        again.checkpoint()
        with again.session() as s:
            recorded = [row.record for row in s.query(Checkpoint).order_by(Checkpoint.id)]
        assert recorded == again.paths.checkpoints.read_text().splitlines()
        report = verify_case(again, settle_seconds=0)
        assert report.ok and not any("not yet in the database" in n for n in report.notes)
        plant_forged_checkpoint(again)  # one line more, but not signed by the case key
        assert not verify_case(again, settle_seconds=0).ok
    finally:
        again.close()


def test_a_forged_checkpoint_line_is_refused_until_recovered(case):
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "x"})
    lines = case.paths.checkpoints.read_text().splitlines()
    forged = json.loads(lines[-1])
    forged["tree_size"] += 1
    with open(case.paths.checkpoints, "a") as fh:
        fh.write(json.dumps(forged) + "\n")
    with pytest.raises(CustodyLogError, match="recover"):
        case.checkpoint()
    assert list(case.paths.custody.glob("checkpoints-interrupted-*.jsonl")) == []
    assert case.recover("forged checkpoint line")
    asides = list(case.paths.custody.glob("checkpoints-interrupted-*.jsonl"))
    assert len(asides) == 1 and json.loads(asides[0].read_text())["tree_size"] == \
        forged["tree_size"]
    assert verify_case(case).ok


def test_entries_a_previous_command_left_unsigned_are_noted_before_signing(case):
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "left without checkpoint"})
    case.close()
    again = open_case(case.paths.root, environ={})
    try:
        with again.transaction() as tx:
            tx.record("annotate", details={"note": "next"})
        again.checkpoint()
        note = [e for e in entries(again) if e["action"] == "checkpoint-note"]
        assert note and note[0]["details"]["first"] <= note[0]["details"]["last"]
        assert verify_case(again).ok
    finally:
        again.close()



# -- signed entries removed from the database are never moved aside as "interrupted" ----------


def annotate(case, *notes):
    with case.transaction() as tx:
        for note in notes:
            tx.record("annotate", details={"note": note})
    case.checkpoint()


def cut_database_back(case, keep: int, *, drop_checkpoints: bool) -> None:
    """What someone with only database access does to erase entries: delete their rows and set
    the recorded log length back, so the file's tail looks like an interrupted command's."""
    raw = case.paths.log.read_bytes().splitlines(keepends=True)
    length = sum(len(line) for line in raw[:keep])
    db = insider.connect(case.paths.root)
    try:
        db.execute("DELETE FROM custody_events WHERE seq >= ?", (keep,))
        db.execute("UPDATE log_state SET tree_size = ?, byte_length = ?", (keep, length))
        if drop_checkpoints:
            db.execute("DELETE FROM checkpoints WHERE tree_size > ?", (keep,))
        db.commit()
    finally:
        db.close()


def aside_files(case):
    return sorted(p.name for p in case.paths.custody.glob("*interrupted-*"))


@pytest.mark.parametrize("drop_checkpoints", [False, True])
def test_signed_entries_cut_from_the_database_are_refused_not_moved_aside(case, drop_checkpoints):
    annotate(case, "kept")
    keep = len(entries(case))
    annotate(case, "damning 1", "damning 2")  # committed and signed
    cut_database_back(case, keep, drop_checkpoints=drop_checkpoints)
    log_before = case.paths.log.read_bytes()
    checkpoints_before = case.paths.checkpoints.read_bytes()

    for _attempt in range(2):  # a routine command, then another: nothing ever gives way
        with pytest.raises(IntegrityError, match="investigator's attention"), \
                case.transaction() as tx:
            tx.record("view")
        with pytest.raises(IntegrityError):
            case.checkpoint()
    assert case.paths.log.read_bytes() == log_before
    assert case.paths.checkpoints.read_bytes() == checkpoints_before
    assert aside_files(case) == []
    failures = [str(f) for f in verify_case(case, settle_seconds=0).failures]
    assert any("in the log file but not in the database" in f for f in failures), failures


def test_the_cli_refuses_and_says_the_case_needs_attention(case):
    annotate(case, "damning")
    keep = len(entries(case)) - 1
    cut_database_back(case, keep, drop_checkpoints=True)
    case.close()
    shown = run_cli("show", "1", home=case.paths.root)
    assert shown.returncode == 2 and "investigator's attention" in shown.stderr, shown.stderr
    checked = run_cli("verify", home=case.paths.root)
    assert checked.returncode == 1 and "not in the database" in checked.stdout


def test_signed_entries_cut_from_both_file_and_database_are_refused(case):
    # The tail is gone from the file as well; the checkpoint lines still sign it.
    annotate(case, "kept")
    keep = len(entries(case))
    annotate(case, "damning")
    cut_database_back(case, keep, drop_checkpoints=True)
    raw = case.paths.log.read_bytes().splitlines(keepends=True)
    case.paths.log.write_bytes(b"".join(raw[:keep]))
    with pytest.raises(IntegrityError, match="investigator's attention"), \
            case.transaction() as tx:
        tx.record("view")
    assert aside_files(case) == []
    assert not verify_case(case, settle_seconds=0).ok


def append_orphan(case, note="never committed"):
    last = entries(case)[-1]
    orphan = dict(last, seq=last["seq"] + 1, action="annotate", items=[],
                  details={"note": note})
    with open(case.paths.log, "ab") as fh:
        fh.write(canonical_bytes(orphan) + b"\n")


def test_the_recovery_note_survives_a_command_that_fails(case):
    # `casebuilder show 9999` after a crash: the command fails, the recovery it did stays logged
    crash_between_append_and_commit(case)
    with pytest.raises(NotFound), case.transaction():
        raise NotFound("no item 9999 in this case")
    notes = [e for e in entries(case) if e["action"] == "checkpoint-note"]
    assert len(notes) == 1 and notes[0]["details"]["moved_to"] == aside_files(case)[0]
    with case.session() as s:
        assert s.query(CustodyEvent).count() == len(entries(case))
    report = verify_case(case, settle_seconds=0)
    assert report.ok, [str(f) for f in report.failures]  # and the note was signed at once
    assert any("moved aside" in note for note in report.notes)


def test_checkpoint_lines_moved_aside_are_logged(case):
    annotate(case, "x")
    forged = json.loads(case.paths.checkpoints.read_text().splitlines()[-1])
    forged["tree_size"] += 5
    with open(case.paths.checkpoints, "a") as fh:
        fh.write(json.dumps(forged) + "\n")
    with pytest.raises(CustodyLogError, match="no command of this case left"), \
            case.transaction():
        pass
    assert not verify_case(case, settle_seconds=0).ok
    case.recover("a checkpoint line nobody signed")
    note = next(e for e in entries(case) if e["action"] == "recover")
    aside = case.paths.custody / note["details"]["moved_to"]
    assert note["details"]["lines"] == 1
    assert hashlib.sha256(aside.read_bytes()).hexdigest() == note["details"]["sha256"]
    assert verify_case(case, settle_seconds=0).ok


def test_verify_checks_every_set_aside_file_against_its_note(case):
    append_orphan(case)
    case.recover("a line added by hand")
    forged = json.loads(case.paths.checkpoints.read_text().splitlines()[-1])
    forged["signature"] = forged["signature"][::-1]
    with open(case.paths.checkpoints, "a") as fh:
        fh.write(json.dumps(forged) + "\n")
    case.recover("a forged checkpoint line")
    tail_file, checkpoint_file = (case.paths.custody / name for name in
                                  sorted(aside_files(case), key=lambda n: n.startswith("c")))
    assert verify_case(case, settle_seconds=0).ok
    # Alter the moved entries, drop the moved checkpoints, plant a file no note names.
    os.chmod(tail_file, 0o644)
    tail_file.write_text(tail_file.read_text().replace("never committed", "nothing to see"))
    checkpoint_file.unlink()
    planted = case.paths.custody / "checkpoints-interrupted-2020-01-01T000000Z.jsonl"
    planted.write_text("{}\n")
    failures = [str(f) for f in verify_case(case, settle_seconds=0).failures]
    assert any(tail_file.name in f and "altered" in f for f in failures), failures
    assert any(checkpoint_file.name in f and "missing" in f for f in failures), failures
    assert any(planted.name in f and "no custody note" in f for f in failures), failures


# -- replayed checkpoints, and adoption before the "not covered" note --------------------------


@pytest.mark.parametrize("which", [0, -1])
def test_a_replayed_genuine_checkpoint_is_moved_aside_not_adopted(case, which):
    annotate(case, "a")
    annotate(case, "b")
    lines = case.paths.checkpoints.read_text().splitlines()
    with open(case.paths.checkpoints, "a") as fh:
        fh.write(lines[which] + "\n")  # a genuine line, signed with the case key, played again
    assert not verify_case(case, settle_seconds=0).ok  # before any command: a difference
    with pytest.raises(CustodyLogError), case.transaction():  # `casebuilder show 1` refuses
        pass
    assert not verify_case(case, settle_seconds=0).ok  # ... and it still fails
    case.recover("a copy of an earlier checkpoint")
    kept = case.paths.checkpoints.read_text().splitlines()
    assert kept[: len(lines)] == lines and lines[which] not in kept[len(lines):]
    with case.session() as s:
        from casebuilder.store.schema import Checkpoint

        sizes = [row.tree_size for row in s.query(Checkpoint).order_by(Checkpoint.id)]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    note = next(e for e in entries(case) if e["action"] == "recover")
    assert "not later than the checkpoint before it" in note["details"]["reasons"][0]
    aside = case.paths.custody / note["details"]["moved_to"]
    assert aside.read_text() == lines[which] + "\n"
    report = verify_case(case, settle_seconds=0)
    assert report.ok, [str(f) for f in report.failures]  # no longer "goes backwards" for ever
    assert any(aside.name in n and "not later than" in n for n in report.notes), report.notes


def test_an_adopted_checkpoint_leaves_no_uncovered_note(case):
    # A command committed its entries, signed and appended its checkpoint, then died before
    # the checkpoint's database row was committed.
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "x"})
    signed = _append_checkpoint_then_crash(case)
    case.close()
    again = open_case(case.paths.root, environ={})
    try:
        with again.transaction() as tx:
            tx.record("view")
        again.checkpoint()
        assert [e for e in entries(again) if e["action"] == "checkpoint-note"] == []
        assert signed.as_line() in again.paths.checkpoints.read_text().splitlines()
        assert verify_case(again, settle_seconds=0).ok
    finally:
        again.close()


# -- set-aside files and the rewrite of checkpoints.jsonl are crash-safe ------------------------


def plant_forged_checkpoint(case):
    forged = json.loads(case.paths.checkpoints.read_text().splitlines()[-1])
    forged["signature"] = forged["signature"][::-1]
    with open(case.paths.checkpoints, "a") as fh:
        fh.write(json.dumps(forged) + "\n")
    return json.dumps(forged)


def test_checkpoints_jsonl_is_replaced_whole_never_cut_and_rewritten(case):
    annotate(case, "x")
    plant_forged_checkpoint(case)
    before = case.paths.checkpoints.read_bytes()
    with open(case.paths.checkpoints, "rb") as held:  # a reader holding the old file
        inode = os.fstat(held.fileno()).st_ino
        case.recover("a forged checkpoint line")
        assert held.read() == before  # it was never truncated in place
    assert os.stat(case.paths.checkpoints).st_ino != inode
    assert [p.name for p in case.paths.custody.iterdir() if p.name.endswith(".tmp")] == []
    assert verify_case(case, settle_seconds=0).ok


def test_a_failed_rewrite_of_checkpoints_jsonl_leaves_it_whole(case, monkeypatch):
    annotate(case, "x")
    plant_forged_checkpoint(case)
    before = case.paths.checkpoints.read_bytes()

    real_replace = os.replace

    def crash(source, target, *args, **kwargs):
        if str(target).endswith("checkpoints.jsonl"):
            raise OSError("power cut")
        return real_replace(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="power cut"):
        case.recover("a forged checkpoint line")
    monkeypatch.undo()
    assert case.paths.checkpoints.read_bytes() == before
    assert [p.name for p in case.paths.custody.iterdir() if p.name.endswith(".tmp")] == []
    # The move was logged before the rewrite: the line is still there, and still refused until
    # the investigator recovers again.
    with pytest.raises(CustodyLogError), case.transaction():
        pass
    case.recover("the same line, after the power cut")
    report = verify_case(case, settle_seconds=0)
    assert report.ok, [str(f) for f in report.failures]


def test_set_aside_files_never_overwrite_one_another(case):
    from datetime import UTC, datetime

    annotate(case, "x")
    case.clock = lambda: datetime(2030, 1, 1, tzinfo=UTC)  # every aside file gets one stamp
    first = plant_forged_checkpoint(case)
    case.recover("first forged line")
    second = plant_forged_checkpoint(case)
    case.recover("second forged line")
    files = aside_files(case)
    assert len(files) == 2, files
    contents = {(case.paths.custody / name).read_text() for name in files}
    assert contents == {first + "\n", second + "\n"}
    assert all(os.stat(case.paths.custody / n).st_mode & 0o222 == 0 for n in files)
    assert verify_case(case, settle_seconds=0).ok
