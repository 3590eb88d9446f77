"""What the audit found missing or wrong at the command line: reading and searching texts,
JSON listings, checked decisions, undo, and reads logged as views."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli


def log_entries(home):
    return [json.loads(line) for line in (home / "custody" / "log.jsonl").read_text().splitlines()]


def incidents_json(home):
    listed = run_cli("incidents", "--json", home=home)
    assert listed.returncode == 0, listed.stderr
    return json.loads(listed.stdout)


def text_items(home):
    rows = [json.loads(line) for line in run_cli("items", "--json", home=home).stdout.splitlines()]
    return [r for r in rows if r["text_item"] is not None]


def test_an_items_text_is_printed_and_the_reading_logged(dev_case_copy):
    item = text_items(dev_case_copy)[0]
    shown = run_cli("text", str(item["id"]), "--json", home=dev_case_copy)
    assert shown.returncode == 0, shown.stderr
    record = json.loads(shown.stdout)
    assert record["item"] == item["id"] and record["text_item"] == item["text_item"]
    assert len(record["text"]) > 100
    last = log_entries(dev_case_copy)[-1]
    assert last["action"] == "view" and last["details"]["what"] == "item text"
    assert {ref["id"] for ref in last["items"]} == {item["id"], item["text_item"]}
    assert run_cli("text", "99999", home=dev_case_copy).returncode == 2


def test_search_gives_offsets_into_the_text_and_is_logged(dev_case_copy):
    found = run_cli("search", "kramatorsk", "--json", home=dev_case_copy)
    assert found.returncode == 0, found.stderr
    hits = [json.loads(line) for line in found.stdout.splitlines()]
    assert hits
    for hit in hits[:5]:
        text = json.loads(run_cli("text", str(hit["item"]), "--json",
                                  home=dev_case_copy).stdout)["text"]
        assert text[hit["char_start"]:hit["char_end"]].lower() == "kramatorsk"
    search = next(e for e in reversed(log_entries(dev_case_copy))
                  if e["details"].get("what") == "text search")
    assert search["details"]["query"] == "kramatorsk" and search["items"]
    assert run_cli("search", "(", "--regex", home=dev_case_copy).returncode == 2


def test_listings_are_json_on_request_and_logged_as_views(dev_case_copy):
    data = incidents_json(dev_case_copy)
    assert data["count"] == len(data["incidents"]) > 0
    assert {"id", "categories", "grade"} <= set(data["incidents"][0])
    last = log_entries(dev_case_copy)[-1]
    assert last["action"] == "view" and last["details"]["what"] == "incident list"
    assert text_items(dev_case_copy)
    assert log_entries(dev_case_copy)[-1]["details"]["what"] == "item list"


def test_log_tail_takes_a_positive_count(dev_case_copy):
    assert run_cli("log", "--tail", "0", home=dev_case_copy).returncode == 2
    one = run_cli("log", "--tail", "1", home=dev_case_copy)
    assert one.returncode == 0 and len(one.stdout.splitlines()) == 1


@pytest.mark.parametrize("args", [["--grade", "bogus"], ["--category", "bogus"]])
def test_an_unknown_filter_value_is_refused_not_silently_empty(dev_case_copy, args):
    refused = run_cli("incidents", *args, home=dev_case_copy)
    assert refused.returncode == 2 and "bogus" in refused.stderr


@pytest.mark.parametrize(("assignment", "says"), [
    ("categories=bogus", "unknown category"),
    ("killed_best=60-50", "low <= high"),
    ('place={"name": "Somewhere"}', "coordinates"),
    ('place={"name": "Somewhere", "lat": 95, "lon": 30}', "coordinates"),
    ("weather=fine", "only these can be edited"),
])
def test_an_edit_that_makes_no_sense_is_refused_and_not_logged(dev_case_copy, assignment, says):
    first = incidents_json(dev_case_copy)["incidents"][0]["id"]
    before = len(log_entries(dev_case_copy))
    refused = run_cli("incident", "edit", first, "--set", assignment, "--reason", "test",
                      home=dev_case_copy)
    assert refused.returncode == 2 and says in refused.stderr, refused.stderr
    assert not any(e["action"] == "edit" for e in log_entries(dev_case_copy)[before:])


def test_an_incident_is_not_merged_with_itself(dev_case_copy):
    first = incidents_json(dev_case_copy)["incidents"][0]["id"]
    refused = run_cli("incident", "merge", first, first, "--reason", "same", home=dev_case_copy)
    assert refused.returncode == 2 and "itself" in refused.stderr


def test_split_names_the_new_incident_and_undo_withdraws_a_decision(dev_case_copy):
    listed = incidents_json(dev_case_copy)["incidents"]
    several = next(i for i in listed if len(i["documents"]) > 1)
    moved = several["documents"][0]
    split = run_cli("incident", "split", several["id"], "--document", moved, "--reason",
                    "a different strike", home=dev_case_copy)
    assert split.returncode == 0, split.stderr
    new_id = split.stdout.split("now incident ")[1].split(".")[0]
    after = {i["id"]: i for i in incidents_json(dev_case_copy)["incidents"]}
    assert moved in after[new_id]["documents"]
    assert moved not in after[several["id"]]["documents"]
    decision = int(split.stdout.split("as decision ")[1].split(" ")[0])
    undone = run_cli("incident", "undo", str(decision), "--reason", "it was the same strike",
                     home=dev_case_copy)
    assert undone.returncode == 0, undone.stderr
    restored = {i["id"]: i for i in incidents_json(dev_case_copy)["incidents"]}
    assert moved in restored[several["id"]]["documents"]
    undo_entry = next(e for e in reversed(log_entries(dev_case_copy))
                      if e["details"].get("decision") == "undo")
    assert undo_entry["details"]["payload"]["undoes"] == decision
    # undoing the undo puts the split back
    again = int(undone.stdout.split("by decision ")[1].split(" ")[0])
    assert run_cli("incident", "undo", str(again), "--reason", "it was a split after all",
                   home=dev_case_copy).returncode == 0
    final = {i["id"]: i for i in incidents_json(dev_case_copy)["incidents"]}
    assert moved not in final[several["id"]]["documents"]
    assert run_cli("incident", "undo", "9999", "--reason", "x", home=dev_case_copy
                   ).returncode == 2
    assert run_cli("verify", home=dev_case_copy).returncode == 0


def test_one_organisation_named_three_ways_is_one_origin_and_reports_are_none(tmp_path):
    report = tmp_path / "railway.txt"
    report.write_text(
        "Initial reports said a missile struck the railway station in Kramatorsk on 8 April "
        "2022, killing 50 people. The rail company said the station was crowded. Ukraine's "
        "state railway company said 4,000 people were there. The railway said trains were "
        "delayed.\n", encoding="utf-8")
    home = tmp_path / "home"
    assert run_cli("ingest", report, home=home).returncode == 0
    (incident,) = incidents_json(home)["incidents"]
    assert incident["independent_sources"] == 1, incident["independent_origins"]
    assert incident["grade"] == "weak"
