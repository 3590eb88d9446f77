"""Checks of `verify` that no other test exercised alone: each test breaks exactly one thing, so
removing the check it covers makes the test fail (issue 9, "tests that bite")."""

from __future__ import annotations

import json
import os

import insider
from casebuilder.preservation.checkpoint import sign_checkpoint
from casebuilder.preservation.verify import verify_case


def annotate(case, note):
    with case.transaction() as tx:
        tx.record("annotate", details={"note": note})
    case.checkpoint()


def test_a_stored_original_made_writable_by_its_owner_alone_is_reported(case, tmp_path):
    from casebuilder.intake.ingest import ingest

    report = tmp_path / "report.txt"
    report.write_text("A shell hit the market in Kherson.\n")
    ingest(case, [report])
    with case.session() as session:
        from casebuilder.store.schema import Item

        sha = session.query(Item).filter(Item.kind == "original").one().sha256
    stored = case.objects.path_for(sha)
    assert verify_case(case, settle_seconds=0).ok
    os.chmod(stored, 0o644)  # nothing else: the bytes are unchanged
    failures = [str(f) for f in verify_case(case, settle_seconds=0).failures]
    assert any("made writable" in f for f in failures), failures
    os.chmod(stored, 0o444)
    assert verify_case(case, settle_seconds=0).ok


def test_a_checkpoint_dated_before_the_one_before_it_is_reported(case):
    """An insider with the key re-signs a later checkpoint with an earlier time: signature and
    root are valid, only the order of times is wrong."""
    annotate(case, "a")
    annotate(case, "b")
    lines = case.paths.checkpoints.read_text().splitlines()
    last, previous = json.loads(lines[-1]), json.loads(lines[-2])
    earlier = previous["time"][:-7] + "000000Z"  # the same second, before the earlier one
    assert earlier < previous["time"]
    signed, _ = sign_checkpoint(case.signer, case_id=case.case_id, tree_size=last["tree_size"],
                                root=bytes.fromhex(last["root"]), time=earlier)
    lines[-1] = signed.as_line()
    case.paths.checkpoints.write_text("".join(line + "\n" for line in lines))
    db = insider.connect(case.paths.root)
    db.execute("UPDATE checkpoints SET time = ?, signature = ?, record = ? WHERE id = "
               "(SELECT MAX(id) FROM checkpoints)", (earlier, signed.signature, signed.as_line()))
    db.commit()
    db.close()
    failures = [str(f) for f in verify_case(case, settle_seconds=0).failures]
    assert any("goes backwards" in f and "time" in f for f in failures), failures
