"""`casebuilder ingest` finishes what a stopped run left undone, extraction included."""

from __future__ import annotations

import shutil
from pathlib import Path

from casebuilder.intake.ingest import Ingester
from casebuilder.preservation.case import init_case
from conftest import run_cli

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "casebuilder" / "samples"
SAMPLE = SAMPLES / "2022-07-29-olenivka-prison.txt"


def test_an_item_a_stopped_run_left_unread_is_read_and_extracted(tmp_path: Path) -> None:
    report = Path(shutil.copy(SAMPLE, tmp_path / SAMPLE.name))
    home = tmp_path / "home"
    case = init_case(home, name="stopped run", environ={})
    try:
        # A run killed while reading: the file is stored and received, never read.
        Ingester(case, [])._preserve(report, relation="file")
    finally:
        case.close()
    done = run_cli("ingest", report, home=home)
    assert done.returncode == 0, done.stderr
    assert "0 new, 1 already held" in done.stdout
    assert "(read now: ok)" in done.stdout
    assert "Extraction: 1 texts read, 1 incident mentions" in done.stdout, done.stdout
    incidents = run_cli("incidents", home=home)
    assert incidents.returncode == 0, incidents.stderr
    assert "Olenivka" in incidents.stdout, incidents.stdout
