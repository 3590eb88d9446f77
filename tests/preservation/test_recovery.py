"""A command that stops half-way leaves the case usable, and says so in the log."""

from __future__ import annotations

import json

from casebuilder.model.clock import format_utc
from casebuilder.preservation.canonical import canonical_bytes
from casebuilder.preservation.case import open_case
from casebuilder.preservation.checkpoint import sign_checkpoint
from casebuilder.preservation.merkle import MerkleTree
from casebuilder.preservation.verify import verify_case
from casebuilder.store.schema import CustodyEvent


def entries(case):
    return [json.loads(line) for line in case.paths.log.read_text().splitlines()]


def test_entries_written_before_a_crashed_commit_are_moved_aside_and_noted(case):
    # A command wrote its entry to the log file and died before the database commit.
    last = entries(case)[-1]
    orphan = dict(last, seq=last["seq"] + 1, action="annotate", items=[],
                  details={"note": "never committed"})
    with open(case.paths.log, "ab") as fh:
        fh.write(canonical_bytes(orphan) + b"\n")
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "next command"})
    case.checkpoint()
    log = entries(case)
    note = next(e for e in log if e["action"] == "checkpoint-note" and "moved_to" in e["details"])
    aside = case.paths.custody / note["details"]["moved_to"]
    assert json.loads(aside.read_text())["details"]["note"] == "never committed"
    assert not any(e["details"].get("note") == "never committed" for e in log)
    assert verify_case(case).ok


def test_a_partial_line_after_the_end_is_still_refused(case):
    with open(case.paths.log, "ab") as fh:
        fh.write(b'{"seq": 99')
    import pytest

    from casebuilder.errors import CustodyLogError

    with pytest.raises(CustodyLogError, match="partial"), case.transaction() as tx:
        tx.record("annotate")


def test_a_genuine_checkpoint_left_by_a_crash_is_adopted(case):
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "x"})
    # The command signed and appended its checkpoint, then died before the database commit.
    with case.session() as s:
        leaves = [bytes.fromhex(row.leaf_hash) for row in
                  s.query(CustodyEvent).order_by(CustodyEvent.seq)]
    signed, _ = sign_checkpoint(case.signer, case_id=case.case_id, tree_size=len(leaves),
                                root=MerkleTree(leaves).root(), time=format_utc(case.clock()))
    with open(case.paths.checkpoints, "a") as fh:
        fh.write(signed.as_line() + "\n")
    assert case.checkpoint().checkpoint is None  # adopted: nothing left to sign
    assert verify_case(case).ok


def test_a_forged_checkpoint_line_is_moved_aside(case):
    with case.transaction() as tx:
        tx.record("annotate", details={"note": "x"})
    lines = case.paths.checkpoints.read_text().splitlines()
    forged = json.loads(lines[-1])
    forged["tree_size"] += 1
    with open(case.paths.checkpoints, "a") as fh:
        fh.write(json.dumps(forged) + "\n")
    assert case.checkpoint().checkpoint is not None
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

