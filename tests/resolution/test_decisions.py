"""Analysts' decisions applied to incidents: which incident an edit or grade ends up on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casebuilder.preservation.case import init_case
from conftest import run_cli

REPORT = (
    "Missile strikes school in Chuhuiv\n\nA Russian missile struck a school in the town of "
    "Chuhuiv in the Kharkiv region on 1 March 2024, killing three civilians, regional governor "
    "Oleh Syniehubov said. Report number {n}.\n"
)


@pytest.fixture
def chuhuiv_home(tmp_path: Path, extraction_tools) -> Path:
    """Three reports of one strike, published on three days: one incident of three documents."""
    from casebuilder.extraction.run import extract_items
    from casebuilder.intake.ingest import ingest

    reports = tmp_path / "reports"
    reports.mkdir()
    for n in (1, 2, 3):
        (reports / f"r{n}.txt").write_text(REPORT.format(n=n))
        (reports / f"r{n}.txt.meta.json").write_text(json.dumps(
            {"title": f"r{n}", "outlet": f"desk{n}",
             "published": f"2024-03-0{n}T10:00:00+02:00"}))
    home = tmp_path / "home"
    case = init_case(home, name="chuhuiv", environ={})
    try:
        ingest(case, [reports])
        extract_items(case, extraction_tools)
    finally:
        case.close()
    return home


def incidents(home: Path) -> list[dict]:
    out = home.parent / "incidents.json"
    result = run_cli("export", "incidents", "--format", "json", "-o", out, home=home)
    assert result.returncode == 0, result.stderr
    return json.loads(out.read_text())


def decide(home: Path, *args: str) -> None:
    result = run_cli("incident", *args, home=home)
    assert result.returncode == 0, result.stderr


def test_a_grade_and_edit_made_before_a_split_stay_with_the_majority_of_their_mentions(
        chuhuiv_home):
    home = chuhuiv_home
    (whole,) = incidents(home)
    assert len(whole["documents"]) == 3
    decide(home, "grade", whole["id"], "discounted", "--reason", "combatants per MoD records")
    decide(home, "edit", whole["id"], "--set", "killed_best=7", "--reason", "morgue list")
    decide(home, "split", whole["id"], "--document", "r1.txt", "--reason",
           "r1 describes an earlier strike")

    after = {len(i["documents"]): i for i in incidents(home)}
    remaining, split_off = after[2], after[1]
    # What remains of the incident keeps its id and the decisions made on all three reports.
    assert remaining["id"] == whole["id"]
    assert remaining["documents"] == ["r2.txt", "r3.txt"]
    assert remaining["grade"] == "discounted"
    assert remaining["killed_min"] == remaining["killed_max"] == 7
    assert [d["action"] for d in remaining["analyst_decisions"]] == ["grade", "edit", "split"]
    # The report moved out is judged on its own sources again.
    assert split_off["id"] == whole["id"] + "-split"
    assert split_off["documents"] == ["r1.txt"]
    assert split_off["grade"] == "weak"
    assert split_off["killed_min"] == 3
    assert split_off["analyst_decisions"] == []

    # A grade made afterwards on the incident split off applies to it, not to the other one.
    decide(home, "grade", split_off["id"], "fair", "--reason", "second origin found")
    again = {len(i["documents"]): i for i in incidents(home)}
    assert again[1]["grade"] == "fair" and again[2]["grade"] == "discounted"
