"""Analysts' decisions applied to incidents: which incident an edit or grade ends up on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import insider
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


def log_entries(home: Path) -> list[dict]:
    return [json.loads(line) for line in (home / "custody" / "log.jsonl").read_text().splitlines()]


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


# -- decisions after an upgrade that keys mentions differently ---------------------------------


def rewrite_keys(home: Path, *, move_date: bool = False) -> None:
    """What an upgrade with a new key formula leaves behind: every stored mention has a key no
    decision names (here written straight into the database); with ``move_date`` the mentions
    also changed date, so nothing can tell which of them a decision meant."""

    with insider.connect(home) as db:
        db.execute("UPDATE incident_mentions SET key = 'm-v2-' || substr(key, 3, 14)")
        if move_date:
            db.execute("UPDATE incident_mentions SET date_start = '2024-02-20', "
                       "date_end = '2024-02-20'")
        # an upgrade's new extractor id changes what the stored incidents were built with
        db.execute("UPDATE incident_state SET rules = 'before-the-upgrade'")


def test_a_grade_survives_mention_keys_changed_by_an_upgrade(chuhuiv_home):
    from casebuilder.preservation.case import open_case
    from casebuilder.resolution.anchoring import record_reanchoring
    from casebuilder.resolution.incidents import build_incidents, stale_decisions

    home = chuhuiv_home
    (whole,) = incidents(home)
    decide(home, "grade", whole["id"], "discounted", "--reason", "combatants only")
    rewrite_keys(home)

    (after,) = incidents(home)
    assert after["grade"] == "discounted"
    (grade,) = after["analyst_decisions"]
    assert sorted(grade["reanchored"]) == sorted(grade["payload"]["anchor_keys"])
    assert all(new[0].startswith("m-v2-") for new in grade["reanchored"].values())
    show = run_cli("incident", "show", after["id"], home=home)
    assert show.returncode == 0 and "re-anchored after re-extraction" in show.stdout
    assert "warning" not in show.stderr

    case = open_case(home, environ={})
    try:
        assert stale_decisions(case) == []
        assert record_reanchoring(case) == 1
        assert record_reanchoring(case) == 0  # logged once
        (incident,) = build_incidents(case)
        assert incident.overrides["grade"]["grade"] == "discounted"
    finally:
        case.close()
    notes = [e["details"] for e in log_entries(home) if e["action"] == "annotate"
             and "reanchored" in e["details"]]
    assert len(notes) == 1 and notes[0]["reanchored"][0]["action"] == "grade"


def test_decisions_made_before_anchors_were_recorded_follow_the_superseded_runs(
        chuhuiv_home, extraction_tools, monkeypatch):
    """A decision recorded without the facts of its mentions (as every decision was before
    they were recorded) is re-anchored from the extraction runs a new key formula superseded."""
    from dataclasses import replace

    from casebuilder.extraction.mentions import IncidentMention
    from casebuilder.extraction.run import extract_items
    from casebuilder.preservation.case import open_case
    from casebuilder.resolution.anchoring import (
        anchoring_for,
        current_anchors,
        record_reanchoring,
    )
    from casebuilder.resolution.decisions import load_decisions
    from casebuilder.resolution.incidents import assemble
    from casebuilder.resolution.records import load_mentions

    home = chuhuiv_home
    (whole,) = incidents(home)
    decide(home, "grade", whole["id"], "discounted", "--reason", "combatants only")
    decide(home, "split", whole["id"], "--document", "r1.txt", "--reason", "earlier strike")

    old_key = IncidentMention.key
    monkeypatch.setattr(IncidentMention, "key",
                        lambda self, sha256: "m-v2-" + old_key(self, sha256)[2:16])
    case = open_case(home, environ={})
    try:
        extract_items(case, extraction_tools, force=True)
        assert record_reanchoring(case) == 2  # as the command line does after extracting
        case.checkpoint()
        mentions = load_mentions(case)
        assert all(m.key.startswith("m-v2-") for m in mentions)
        legacy = [replace(d, payload={k: v for k, v in d.payload.items() if k != "anchors"})
                  for d in load_decisions(case)]
        anchoring = anchoring_for(case, legacy, current_anchors(case))
        assert not anchoring.unapplied and not anchoring.lost
        built = {len(i.mentions): i for i in assemble(mentions, legacy, anchoring)}
    finally:
        case.close()
    assert built[2].id == whole["id"] and built[2].overrides["grade"]["grade"] == "discounted"
    assert built[1].id != whole["id"] and "grade" not in built[1].overrides
    # After the extraction that changed the keys, the re-anchoring of both decisions is logged.
    notes = [e["details"] for e in log_entries(home) if e["action"] == "annotate"
             and "reanchored" in e["details"]]
    assert [r["action"] for n in notes for r in n["reanchored"]] == ["grade", "split"]
    assert run_cli("verify", home=home).returncode == 0


def test_a_decision_that_cannot_be_reanchored_is_reported_by_every_view(chuhuiv_home, tmp_path):
    home = chuhuiv_home
    (whole,) = incidents(home)
    decide(home, "grade", whole["id"], "discounted", "--reason", "combatants only")
    rewrite_keys(home, move_date=True)

    (now,) = incidents(home)  # named after its first mention's key, which changed too
    listing = run_cli("incidents", home=home)
    show = run_cli("incident", "show", now["id"], home=home)
    export = run_cli("export", "incidents", "-o", tmp_path / "x.geojson", home=home)
    for result in (listing, show, export):
        assert result.returncode == 0, result.stderr
        assert f"the grade of {whole['id']}" in result.stderr
        assert "NOT applied" in result.stderr
    assert now["grade"] == "weak" and now["analyst_decisions"] == []

    extract = run_cli("extract", home=home)
    assert extract.returncode == 0, extract.stderr
    assert "1 re-anchored to changed mention keys or found unanchorable" in extract.stdout
    assert "NOT applied" in extract.stderr
    notes = [e["details"] for e in log_entries(home) if e["action"] == "annotate"
             and "unanchored" in e["details"]]
    assert len(notes) == 1
    (lost,) = notes[0]["unanchored"]
    assert lost["action"] == "grade" and lost["applies"] is False and len(lost["keys"]) == 3
