"""Extraction, export and analysts' decisions through the command line."""

from __future__ import annotations

import csv
import io
import json

from conftest import run_cli


def log_entries(home):
    return [json.loads(line) for line in (home / "custody" / "log.jsonl").read_text().splitlines()]


def test_geocode_prints_one_object_per_query_in_order():
    result = run_cli("geocode", "Kiev", "Odessa", "Nowhere-at-all-xyz")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["query"] for r in rows] == ["Kiev", "Odessa", "Nowhere-at-all-xyz"]
    assert rows[0]["name"] == "Kyiv" and rows[0]["country"] == "UA"
    assert abs(rows[1]["lat"] - 46.48) < 0.1 and rows[1]["precision"] == "settlement"
    assert rows[2]["lat"] is None and rows[2]["gazetteer_id"] is None


def test_geocode_reads_standard_input(tmp_path):
    import subprocess
    import sys

    queries = "Chuhuiv, south of Kharkiv\nObolon, Kyiv\n\nBucha, Kyiv vicinity\n"
    result = subprocess.run([sys.executable, "-m", "casebuilder", "geocode"], input=queries,
                            capture_output=True, text=True, check=False)
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 4
    assert rows[0]["name"] == "Chuhuiv"
    assert rows[1]["precision"] == "district"
    assert rows[2]["name"] is None
    assert rows[3]["name"] == "Bucha"


def test_geocode_reads_free_text_and_lists_every_place():
    result = run_cli("geocode", "Zaporozhye region: in Orekhov, Gulyaipole and Preobrazhenka",
                     "Kupyansk in the Kharkov region.", "LPR", "the Pochaiv Lavra")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 4
    assert rows[0]["name"] == "Orikhiv" and rows[0]["admin1"] == "Zaporizhzhia Oblast"
    assert [o["name"] for o in rows[0]["others"]] == ["Huliaipole", "Preobrazhenka"]
    assert all(o["admin1"] == "Zaporizhzhia Oblast" for o in rows[0]["others"])
    assert rows[1]["name"] == "Kupiansk" and rows[1]["others"] == []
    assert rows[2]["name"] == "Luhansk Oblast" and rows[2]["precision"] == "region"
    assert rows[3]["name"] == "Pochaiv" and "site" in rows[3]["reason"]
    assert all(isinstance(r["reason"], str) and r["uncertainty_km"] for r in rows)


def test_exports_in_three_formats_are_logged(dev_case_copy, tmp_path):
    for fmt in ("geojson", "csv", "json"):
        out = tmp_path / f"incidents.{fmt}"
        result = run_cli("export", "incidents", "--format", fmt, "-o", out, home=dev_case_copy)
        assert result.returncode == 0, result.stderr
    collection = json.loads((tmp_path / "incidents.geojson").read_text())
    assert collection["type"] == "FeatureCollection"
    feature = collection["features"][0]
    for key in ("id", "categories", "place", "admin1", "country", "precision", "date_start",
                "date_end", "killed_min", "killed_max", "injured_min", "injured_max",
                "victims_civilian", "weapon", "target_type", "perpetrator_claimed", "sources",
                "figures", "contradictions", "independent_sources", "grade"):
        assert key in feature["properties"], key
    source = feature["properties"]["sources"][0]
    for key in ("document", "sha256", "title", "outlet", "published", "attributed_to",
                "evidentiality", "quote", "char_start", "char_end"):
        assert key in source, key
    assert feature["geometry"]["type"] == "Point"
    rows = list(csv.DictReader(io.StringIO((tmp_path / "incidents.csv").read_text())))
    assert len(rows) == len(collection["features"])
    records = json.loads((tmp_path / "incidents.json").read_text())
    assert len(records) == len(rows)
    exports = [e for e in log_entries(dev_case_copy) if e["action"] == "export"]
    assert [e["details"]["format"] for e in exports] == ["geojson", "csv", "json"]


def test_incidents_table_filters(dev_case_copy):
    everything = run_cli("incidents", home=dev_case_copy)
    assert everything.returncode == 0, everything.stderr
    assert "Kramatorsk" in everything.stdout
    only = run_cli("incidents", "--place", "Kramatorsk", "--category", "explosive_attack",
                   "--from", "2022-04-08", "--to", "2022-04-08", home=dev_case_copy)
    assert "1 of" in only.stdout and "Chernihiv" not in only.stdout
    contested = run_cli("incidents", "--grade", "contested", home=dev_case_copy)
    assert "Kramatorsk" in contested.stdout


def test_incidents_within_km_of_a_point(dev_case_copy):
    near = run_cli("incidents", "--near", "48.7386,37.5844", "--km", "5", "--json",
                   home=dev_case_copy)
    assert near.returncode == 0, near.stderr
    places = {i["place"] for i in json.loads(near.stdout)["incidents"]}
    assert places and all("Kramatorsk" in p for p in places)  # Sloviansk is 12 km away
    wide = run_cli("incidents", "--near", "48.7386,37.5844", "--km", "15", "--json",
                   home=dev_case_copy)
    assert "Sloviansk" in {i["place"] for i in json.loads(wide.stdout)["incidents"]}
    wrong = run_cli("incidents", "--near", "north of Kramatorsk", home=dev_case_copy)
    assert wrong.returncode == 2 and "latitude, longitude" in wrong.stderr


def _incident_ids(home):
    out = run_cli("export", "incidents", "--format", "json", "-o", home / "x.json", home=home)
    assert out.returncode == 0
    return {r["place"] + "|" + (r["date_start"] or ""): r for r in
            json.loads((home / "x.json").read_text())}


def test_analyst_decisions_need_reasons_are_logged_and_survive_reextraction(dev_case_copy):
    home = dev_case_copy
    before = _incident_ids(home)
    kramatorsk = next(r for k, r in before.items() if k.startswith("Kramatorsk"))
    barvinkove = next(r for k, r in before.items() if k.startswith("Barvinkove"))
    show = run_cli("incident", "show", kramatorsk["id"], home=home)
    assert show.returncode == 0 and "why these documents are one incident" in show.stdout
    assert "joined" in show.stdout and "Tetyana Ignatchenko" in show.stdout

    no_reason = run_cli("incident", "grade", kramatorsk["id"], "fair", home=home)
    assert no_reason.returncode != 0

    assert run_cli("incident", "grade", kramatorsk["id"], "fair", "--reason",
                   "denial judged not credible after site visit", home=home).returncode == 0
    assert run_cli("incident", "merge", kramatorsk["id"], barvinkove["id"], "--reason",
                   "test merge", home=home).returncode == 0
    assert run_cli("incident", "edit", kramatorsk["id"], "--set", "killed_best=52",
                   "--reason", "hospital lists", home=home).returncode == 0
    split = run_cli("incident", "split", kramatorsk["id"], "--document",
                    "2022-04-08-kramatorsk-1.txt", "--reason", "undo part of the merge",
                    home=home)
    assert split.returncode == 0, split.stderr

    entries = log_entries(home)
    decisions = [e["details"] for e in entries if "decision" in e["details"]]
    assert [d["decision"] for d in decisions] == ["grade", "merge", "edit", "split"]
    assert all(d["reason"] for d in decisions)

    # Re-running extraction (with changed rules it would replace every mention) keeps them.
    rerun = run_cli("extract", "--force", home=home)
    assert rerun.returncode == 0 and "0 already extracted" in rerun.stdout
    after = _incident_ids(home)
    station = next(r for k, r in after.items() if k.startswith("Kramatorsk railway"))
    assert station["grade"] == "fair"
    assert station["killed_max"] == 52
    assert any(d["action"] == "merge" for d in station["analyst_decisions"])
    assert "2022-04-08-kramatorsk-1.txt" not in station["documents"]
    assert run_cli("verify", home=home).returncode == 0


def test_a_toll_given_jointly_for_two_towns_is_not_each_towns_own(tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "joint.txt").write_text(
        "On 4 April 2022 Russian forces shelled Kramatorsk and Sloviansk with Smerch rockets, "
        "killing three people, officials said.\n")
    (reports / "kramatorsk.txt").write_text(
        "Shelling of a residential street in Kramatorsk on 4 April 2022 killed two civilians, "
        "the mayor said.\n")
    home = tmp_path / "home"
    assert run_cli("ingest", reports, home=home).returncode == 0
    out = tmp_path / "incidents.geojson"
    result = run_cli("export", "incidents", "-o", out, home=home)
    assert result.returncode == 0, result.stderr
    found = {f["properties"]["place"]: f["properties"]
             for f in json.loads(out.read_text())["features"]}
    # Kramatorsk has a source giving its own toll; Sloviansk only the joint one, marked as such
    assert (found["Kramatorsk"]["killed_max"], found["Kramatorsk"]["killed_shared_by"]) == (2, [])
    assert (found["Sloviansk"]["killed_max"], found["Sloviansk"]["killed_shared_by"]) == (
        3, ["Kramatorsk", "Sloviansk"])
