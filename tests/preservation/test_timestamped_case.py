"""A case configured with a time-stamping authority gets an RFC 3161 token on every checkpoint,
verify checks them, and bundles carry the latest one for openssl to check."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

import pytest

from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import init_case
from casebuilder.preservation.checkpoint import SignedCheckpoint, read_checkpoint_lines
from casebuilder.preservation.verify import verify_case
from casebuilder.reporting.bundle import write_bundle


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def test_checkpoints_are_time_stamped_and_checked(local_tsa, tmp_path, dev_reports):
    case = init_case(tmp_path / "home", environ={"CASEBUILDER_TSA_URL": local_tsa.url})
    try:
        ingest(case, [dev_reports])
        lines = read_checkpoint_lines(case.paths.checkpoints)
        checkpoints = [SignedCheckpoint.from_line(line) for line in lines]
        assert checkpoints and all(cp.timestamp_token for cp in checkpoints)
        report = verify_case(case)
        assert report.ok, report.failures
        assert report.counts["time-stamped checkpoints"] == len(checkpoints)

        bundle = write_bundle(case, tmp_path / "bundle").path
        token = bundle / "data/custody/checkpoint.tsr"
        record = json.loads((bundle / "data/custody/checkpoint.json").read_text())
        message = json.dumps(
            {k: record[k] for k in ("case_id", "root", "time", "tree_size", "type")},
            sort_keys=True,
            separators=(",", ":"),
        ).encode()
        openssl = shutil.which("openssl")
        if openssl is None:
            pytest.skip("openssl is not installed")
        ok = subprocess.run(
            [
                openssl,
                "ts",
                "-verify",
                "-digest",
                hashlib.sha256(message).hexdigest(),
                "-in",
                str(token),
                "-token_in",
                "-CAfile",
                str(local_tsa.ca_cert_path),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert ok.returncode == 0, ok.stdout + ok.stderr
    finally:
        case.close()


def test_a_forged_token_is_caught(local_tsa, tmp_path):
    case = init_case(tmp_path / "home", environ={"CASEBUILDER_TSA_URL": local_tsa.url})
    try:
        with case.transaction() as tx:
            tx.record("annotate", details={"note": "x"})
        case.checkpoint()
        # Move the first checkpoint's token onto the second: a real token, for another root.
        lines = read_checkpoint_lines(case.paths.checkpoints)
        first, second = json.loads(lines[0]), json.loads(lines[1])
        second["timestamp_token"] = first["timestamp_token"]
        lines[1] = json.dumps(second, sort_keys=True, separators=(",", ":"))
        case.paths.checkpoints.write_text("".join(line + "\n" for line in lines))
        failures = [str(f) for f in verify_case(case).failures]
        assert any(
            "checkpoint 1" in f and "time-stamp token is not valid" in f for f in failures
        ), failures
    finally:
        case.close()


def test_unreachable_authority_still_signs_and_says_so(tmp_path):
    case = init_case(tmp_path / "home", environ={"CASEBUILDER_TSA_URL": "http://127.0.0.1:9/"})
    try:
        with case.transaction() as tx:
            tx.record("annotate")
        outcome = case.checkpoint()
        assert outcome.checkpoint is not None and outcome.checkpoint.timestamp_token is None
        assert outcome.timestamp_problem
        assert verify_case(case).ok
    finally:
        case.close()
