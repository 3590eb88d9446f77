"""The development reports end to end: the checks the resolution issue names."""

from __future__ import annotations

import importlib.util
import json

import pytest

from casebuilder.preservation.case import open_case
from casebuilder.reporting.export import export_incidents
from casebuilder.resolution.incidents import build_incidents
from casebuilder.resolution.listing import incident_properties
from conftest import SHARED


@pytest.fixture(scope="module")
def incidents(dev_case_home):
    case = open_case(dev_case_home, environ={})
    try:
        return {i.id: incident_properties(i) for i in build_incidents(case)}
    finally:
        case.close()


def one(incidents, documents_part, *, situation=False):
    found = [p for p in incidents.values()
             if any(documents_part in d for d in p["documents"]) and p["situation"] == situation]
    assert len(found) == 1, [p["place"] for p in found]
    return found[0]


def test_kramatorsk_reports_are_one_incident_with_the_figure_timeline(incidents):
    p = one(incidents, "kramatorsk-2")
    assert len(p["documents"]) == 3
    timeline = p["figures"]["killed"]
    texts = [f["text"].lower() for f in timeline]
    assert any("dozens" in t for t in texts)
    assert any(f["low"] == 27 and f["source"] == "Tetyana Ignatchenko" for f in timeline)
    assert any(f["low"] == 30 and f["qualifier"] == "more than" for f in timeline)
    assert any(f["low"] == 50 and f["source"] == "Pavlo Kyrylenko" for f in timeline)
    assert [f["reported_at"] for f in timeline] == sorted(f["reported_at"] for f in timeline)
    assert p["killed_max"] == 50 and p["killed_qualifier"] == "at least"
    assert p["killed_range"] == [24, 50]


def test_kramatorsk_denial_is_attributed_and_contests_the_grade(incidents):
    p = one(incidents, "kramatorsk-3")
    responsibility = next(c for c in p["contradictions"] if c["aspect"] == "responsibility")
    assert responsibility["denied_by"][0]["source"] == "Russia's defence ministry"
    assert "denied responsibility" in responsibility["denied_by"][0]["quote"]
    assert p["grade"] == "contested"
    assert any("denied" in r for r in p["grade_reasons"])
    weapons = next(c for c in p["contradictions"] if c["aspect"] == "weapon")
    assert {v["value"] for v in weapons["versions"]} >= {"Iskander", "Tochka-U"}


def test_chernihiv_bread_queue_keeps_both_the_gunfire_and_artillery_accounts(incidents):
    p = one(incidents, "bread-line-1")
    cause = next(c for c in p["contradictions"] if c["aspect"] == "cause")
    versions = {v["value"]: v for v in cause["versions"]}
    assert set(versions) == {"small arms", "explosive weapons"}
    gunfire_sources = {s["source"] for s in versions["small arms"]["sources"]}
    artillery_sources = {s["source"] for s in versions["explosive weapons"]["sources"]}
    assert "Vyacheslav Chaus" in artillery_sources
    assert gunfire_sources & {"the public broadcaster Suspilne",
                              "The United States embassy in Kyiv"}
    assert p["killed_max"] == 10 and len(p["documents"]) == 3


def test_mariupol_theatre_stays_separate_from_the_siege(incidents):
    theatre = one(incidents, "theatre-3")
    assert theatre["date_start"] == theatre["date_end"] == "2022-03-16"
    assert theatre["killed_max"] == 300
    sieges = [p for p in incidents.values() if p["situation"] and "siege" in p["categories"]
              and p["place"] == "Mariupol"]
    assert len(sieges) == 1 and sieges[0]["id"] != theatre["id"]
    assert not set(sieges[0]["documents"]) >= set(theatre["documents"])


def test_independent_origins_count_speakers_not_outlets(incidents):
    p = one(incidents, "kramatorsk-2")
    origins = p["independent_origins"]
    assert len([o for o in origins if o.endswith(":kyrylenko")]) == 1  # two documents, one man
    assert p["independent_sources"] == len(origins)


def _scorer():
    path = SHARED / "tools" / "score_incidents.py"
    if not path.exists():
        pytest.skip(f"{path} is not in the shared folder")
    spec = importlib.util.spec_from_file_location("score_incidents", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_dev_corpus_scores_meet_the_issue_thresholds(dev_case_copy, tmp_path):
    scorer = _scorer()
    case = open_case(dev_case_copy, environ={})
    try:
        out = tmp_path / "incidents.geojson"
        export_incidents(case, build_incidents(case), "geojson", out)
    finally:
        case.close()
    gold = json.loads((SHARED / "corpus" / "dev" / "gold.json").read_text())
    result = scorer.score(gold, scorer.load_predictions(out))
    assert result["recall"] >= 0.9, result
    assert result["precision"] >= 0.85, result
    assert result["f1"] >= 0.9, result
    assert result["duplicates"] <= 1, result
    assert result["date"] >= 0.9, result
    assert result["killed"] >= 0.85, result
    assert result["attribution"] >= 0.8, result
