"""Key rotation: the old key approves the new one in the log, every checkpoint after it is
signed with the new key, and a rotation stopped half-way is finished or dropped."""

from __future__ import annotations

import json
import subprocess

import pytest

from casebuilder.errors import SigningError
from casebuilder.preservation.case import Case, init_case, open_case
from casebuilder.preservation.checkpoint import SignedCheckpoint, read_checkpoint_lines
from casebuilder.preservation.keys import create_signing_key
from casebuilder.preservation.rotation import (
    next_key_path,
    retired_key_path,
    rotate_key,
    rotation_details,
)
from casebuilder.preservation.verify import verify_case
from conftest import run_cli


def note(case: Case, text: str) -> None:
    with case.transaction() as tx:
        tx.record("annotate", details={"note": text})
    case.checkpoint()


def signers(case: Case) -> list[tuple[int, str]]:
    return [(cp.tree_size, cp.public_key_sha256) for cp in
            map(SignedCheckpoint.from_line, read_checkpoint_lines(case.paths.checkpoints))]


def test_a_rotated_case_signs_with_the_new_key_and_verifies(case):
    note(case, "before")
    old = case.signer.key_id
    outcome = rotate_key(case, "the laptop holding the key was lost")
    assert (outcome.old_digest, outcome.new_digest) == (old, case.signer.key_id)
    note(case, "after")
    sizes = signers(case)
    assert all(key == old for size, key in sizes if size <= outcome.seq)
    assert all(key == outcome.new_digest for size, key in sizes if size > outcome.seq)
    assert retired_key_path(case.paths, old).is_file()
    assert not next_key_path(case.paths).exists()
    entry = json.loads(case.paths.log.read_text().splitlines()[outcome.seq])
    assert entry["action"] == "key-rotation"
    assert entry["details"]["reason"] == "the laptop holding the key was lost"
    report = verify_case(case, settle_seconds=0)
    assert report.ok, report.failures


def test_a_process_holding_the_old_key_signs_with_the_new_one(case):
    other = open_case(case.paths.root, environ={})
    try:
        rotate_key(other, "routine")
        new = other.signer.key_id
    finally:
        other.close()
    note(case, "written by a process that loaded the old key")
    assert case.signer.key_id == new
    assert signers(case)[-1][1] == new
    assert verify_case(case, settle_seconds=0).ok


def test_a_rotation_stopped_after_its_entry_is_finished_by_the_next_checkpoint(case):
    staged = next_key_path(case.paths)
    new = create_signing_key(staged, staged.with_suffix(".public.pem"))
    with case.transaction() as tx:
        tx.record("key-rotation", details=rotation_details(case.case_id, case.signer, new, "x"))
    # ...the command stops here: the entry is committed, the key not yet in place.
    case.close()
    again = open_case(case.paths.root, environ={})
    try:
        assert again.signer.key_id != new.key_id
        again.checkpoint()
        assert again.signer.key_id == new.key_id and not staged.exists()
        assert signers(again)[-1][1] == new.key_id
        assert verify_case(again, settle_seconds=0).ok
    finally:
        again.close()


def test_a_staged_key_no_entry_names_is_dropped(case):
    staged = next_key_path(case.paths)
    stray = create_signing_key(staged, staged.with_suffix(".public.pem"))
    outcome = rotate_key(case, "routine")
    assert outcome.new_digest != stray.key_id
    assert verify_case(case, settle_seconds=0).ok


def test_a_rotation_needs_a_reason(case, tmp_path):
    with pytest.raises(SigningError, match="needs a reason"):
        rotate_key(case, "  ")
    case.close()
    assert run_cli("key", "rotate", home=case.paths.root).returncode == 2


def test_a_bundle_made_after_a_rotation_passes_its_own_checker(tmp_path):
    from casebuilder.reporting.bundle import write_bundle

    case = init_case(tmp_path / "home", environ={})
    try:
        note(case, "before")
        rotate_key(case, "routine")
        note(case, "after")
        bag = write_bundle(case, tmp_path / "bag").path
    finally:
        case.close()
    done = subprocess.run(["python3", "verify_bundle.py"], cwd=bag, capture_output=True,
                          text=True, check=False, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the case key was rotated from" in done.stdout
