"""The exports other tools read: ACLED's CSV, TimeMap's files and KML, on the development
reports' incidents and on an incident with hostile values; and the mapping files they read."""

from __future__ import annotations

import copy
import csv
import dataclasses
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from casebuilder.model.claim_values import PerpetratorValue
from casebuilder.preservation.case import open_case
from casebuilder.reporting import acled, timemap
from casebuilder.reporting.acled import ACLED_COLUMNS, ExportMappingError
from casebuilder.reporting.kml import render_kml
from casebuilder.resolution.incidents import build_incidents
from casebuilder.resolution.summary import Incident
from conftest import REPO, run_cli

KML = "{http://www.opengis.net/kml/2.2}"
HOSTILE_PLACE = 'Caf\u00e9 "<&>", north\nside; yard'
HOSTILE_REGION = 'Oblast, "the <region>"'
HOSTILE_QUOTE = 'He said "stop, now" & <left>\nthen, later; gone'
HOSTILE_OUTLET = 'The "Daily" <Post> & Co; Ltd'


@pytest.fixture(scope="module")
def incidents(dev_case_home) -> list[Incident]:
    case = open_case(dev_case_home, environ={})
    try:
        return build_incidents(case)
    finally:
        case.close()


def hostile(incident: Incident, *, placed: bool = True) -> Incident:
    """A copy whose place, quotes and outlets hold quotes, commas, newlines and <&>."""
    other = copy.deepcopy(incident)
    other.id = "inc-hostile" + ("" if placed else "-unplaced")
    place = {"name": HOSTILE_PLACE, "admin1": HOSTILE_REGION, "country": "UA",
             "precision": "settlement", "uncertainty_km": 2.0, "gazetteer_id": "test:hostile"}
    if placed:
        place.update(lat=48.1234567, lon=37.7654321)
    other.overrides["place"] = place
    for mention in other.mentions:
        mention.document = dataclasses.replace(mention.document, outlet=HOSTILE_OUTLET)
        for claim in mention.claims:
            claim.document = mention.document
            claim.quote = HOSTILE_QUOTE
    return other


def killed_incident(incidents: list[Incident]) -> Incident:
    return next(i for i in incidents if i.id == "inc-9b35f254e7" or
                any(c.kind == "killed" for c in i.claims))


# --- acled-csv ---------------------------------------------------------------------------------


def acled_rows(incidents: list[Incident]) -> tuple[list[str], list[dict[str, str]]]:
    text = acled.render_acled(incidents).decode("utf-8")
    assert "\r" not in text.replace(HOSTILE_PLACE, "").replace(HOSTILE_QUOTE, "")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows = list(reader)
    return list(reader.fieldnames or []), rows


def test_acled_has_acleds_columns_in_acleds_order(incidents):
    header, rows = acled_rows(incidents)
    assert header == list(ACLED_COLUMNS) and len(header) == 31
    assert header[0] == "event_id_cnty" and header[-1] == "timestamp"
    assert [r["event_id_cnty"] for r in rows] == ["CB-" + i.id for i in incidents]
    vocabulary = acled.shipped_mapping()
    kinds = {(r.event_type, r.sub_event_type, r.disorder_type) for r in vocabulary.event_types}
    for r in rows:
        assert (r["event_type"], r["sub_event_type"], r["disorder_type"]) in kinds
        assert r["time_precision"] in {"1", "2", "3"}
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", r["event_date"]) and \
            r["year"] == r["event_date"][:4]
        assert re.fullmatch(r"-?\d+\.\d{6}", r["latitude"]), r["latitude"]
        assert re.fullmatch(r"-?\d+\.\d{6}", r["longitude"])
        assert r["geo_precision"] in {"1", "2", "3"}
        assert r["fatalities"].isdigit()
        assert r["civilian_targeting"] in {"", "Civilian targeting"}
        assert r["location"] and r["admin1"] and r["country"] == "Ukraine" and r["iso"] == "804"
        assert "casebuilder-incident=" + r["event_id_cnty"][3:] in r["tags"]
        assert "not a finding" in r["notes"] or "No source names who acted" in r["notes"]


def test_acled_row_of_a_contested_figure_says_whose_and_the_range(incidents):
    _, rows = acled_rows(incidents)
    kramatorsk = next(r for r in rows if r["location"] == "Kramatorsk railway station")
    assert kramatorsk["event_type"] == "Explosions/Remote violence"
    assert kramatorsk["sub_event_type"] == "Shelling/artillery/missile attack"
    assert kramatorsk["actor1"] == "Military Forces of Russia (2000-)"
    assert kramatorsk["inter1"] == "8" and kramatorsk["inter2"] == "7"
    assert kramatorsk["interaction"] == "78"
    assert kramatorsk["actor2"] == "Civilians (Ukraine)"
    assert kramatorsk["fatalities"] == "50"
    assert "range from 24 to 50 (contested)" in kramatorsk["notes"]
    assert "killed-range=24-50" in kramatorsk["tags"].split("; ")
    assert "according to" in kramatorsk["notes"]


def test_acled_hostile_values_survive_csv(incidents):
    base = killed_incident(incidents)
    _, rows = acled_rows([hostile(base), hostile(base, placed=False)])
    placed, unplaced = rows
    assert placed["location"] == HOSTILE_PLACE == unplaced["location"]
    assert placed["admin1"] == HOSTILE_REGION
    assert placed["latitude"] == "48.123457" and placed["longitude"] == "37.765432"
    assert unplaced["latitude"] == unplaced["longitude"] == unplaced["geo_precision"] == ""
    assert HOSTILE_OUTLET.replace(";", ",") in placed["source"]


def test_acled_exports_every_party_the_same_way(incidents):
    """The same incident, accused party and country swapped, gets the same row but the
    actor: forces abroad are external forces (8), whichever side is accused."""
    base = killed_incident(incidents)
    swapped = copy.deepcopy(base)
    for claim in swapped.claims:
        if isinstance(claim.value, PerpetratorValue):
            claim.value = dataclasses.replace(claim.value, party="ukraine", label="Ukraine")
    mapping = acled.shipped_mapping()
    profiles = acled.load_profiles()
    original = acled.row(base, profiles, mapping, 0)
    other = acled.row(swapped, profiles, mapping, 0)
    assert other["actor1"] == "Military Forces of Ukraine (2019-)"
    assert original["inter1"] == "8" and other["inter1"] == "1"  # at home in Ukraine
    for column in ("event_type", "sub_event_type", "actor2", "civilian_targeting",
                   "fatalities", "location"):
        assert original[column] == other[column]
    russia, ukraine = mapping.parties["russia"], mapping.parties["ukraine"]
    assert mapping.party_inter(russia, "UA") == mapping.party_inter(ukraine, "RU") == 8
    assert mapping.party_inter(russia, "RU") == mapping.party_inter(ukraine, "UA") == 1


# --- the mapping files -----------------------------------------------------------------------


def test_each_event_type_rule_gives_its_examples_and_is_needed():
    mapping = acled.shipped_mapping()
    for rule in mapping.event_types:
        for categories, family in rule.examples:
            assert mapping.event_type(categories, family).name == rule.name
        for categories, family in rule.counterexamples:
            assert not rule.matches(categories, family)
        if rule is mapping.event_types[-1]:
            continue
        changed = [mapping.event_type(c, f, without=rule.name) for c, f in rule.examples]
        assert any((r.event_type, r.sub_event_type) != (rule.event_type, rule.sub_event_type)
                   for r in changed), f"switching off {rule.name} changes none of its examples"


def test_each_main_category_rule_gives_its_examples_and_is_needed():
    mapping = timemap.shipped_mapping()
    data = timemap.tomllib.loads(timemap.MAPPING_FILE.read_text(encoding="utf-8"))
    for entry in data["main_category"]:
        for example in entry["examples"]:
            assert mapping.main(frozenset(example)).name == entry["name"]
        if entry is data["main_category"][-1]:
            continue
        assert any(mapping.main(frozenset(e), without=entry["name"]).category !=
                   entry["category"] for e in entry["examples"]), entry["name"]


@pytest.mark.parametrize(("old", "new", "entry", "problem"), [
    ('sub_event_type = "Air/drone strike"', 'sub_event_type = "Air strike"',
     "bombs-and-drones-from-the-air", "is not one of"),
    ('examples = [{categories = ["explosive_attack"], weapon_family = "mine"}]',
     'examples = [{categories = ["explosive_attack"], weapon_family = "drone"}]',
     "mines-and-explosive-devices", "is given rule"),
    ('name = "sexual-violence"\n', 'name = "sexual-violence"\nweapon = "knife"\n',
     "sexual-violence", "unknown keys"),
    ('weapon_families = ["mine"]', 'weapon_families = ["spear"]',
     "mines-and-explosive-devices", "weapon families"),
    ('examples = [{precision = "district", uncertainty_km = 3.0}]',
     'examples = [{precision = "district", uncertainty_km = 30.0}]',
     "a-city-district", "is given"),
    ('actor = "Military Forces of Belarus (1994-)"\ncountry = "BY"\n'
     'examples = [{country = "UA", inter = 8}]',
     'actor = "Military Forces of Belarus (1994-)"\ncountry = "BY"\nexamples = []',
     "belarus", "no examples"),
])
def test_a_broken_acled_mapping_names_the_file_and_the_entry(tmp_path, old, new, entry,
                                                             problem):
    text = acled.MAPPING_FILE.read_text(encoding="utf-8")
    assert old in text
    broken = tmp_path / "acled.toml"
    broken.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ExportMappingError) as caught:
        acled.load_mapping(broken)
    message = str(caught.value)
    assert str(broken) in message and repr(entry) in message and problem in message


def test_a_broken_timemap_mapping_names_the_file_and_the_entry(tmp_path):
    text = timemap.MAPPING_FILE.read_text(encoding="utf-8")
    broken = tmp_path / "timemap.toml"
    broken.write_text(text.replace('examples = [["torture", "detention"]]',
                                   'examples = [["killing", "torture"]]'), encoding="utf-8")
    with pytest.raises(ExportMappingError, match=r"timemap\.toml: entry 'torture': example"):
        timemap.load_mapping(broken)
    broken.write_text(text.replace('category = "siege"', 'category = "blockade"'),
                      encoding="utf-8")
    with pytest.raises(ExportMappingError, match=r"entry 'siege'.*no \[categories\]"):
        timemap.load_mapping(broken)


# --- timemap -----------------------------------------------------------------------------------


def load_timemap(files: dict[str, bytes]) -> dict[str, object]:
    return {name: json.loads(data) for name, data in files.items() if name.endswith(".json")}


def test_timemap_events_have_every_field_and_consistent_ids(incidents):
    files = timemap.render_timemap([*incidents, hostile(incidents[0], placed=False)])
    data = load_timemap(files)
    assert "README.txt" in files and b"EVENTS_EXT" in files["README.txt"]
    events, documented = data["events.json"], data["events-documented.json"]
    associations = {a["id"]: a for a in data["associations.json"]}
    sources, sites = data["sources.json"], data["sites.json"]
    assert [e["id"] for e in events] == [i.id for i in incidents] + ["inc-hostile-unplaced"]
    assert [e["id"] for e in documented] == [e["id"] for e in events]
    for a in associations.values():
        assert set(a) == set(timemap.ASSOCIATION_FIELDS)
        assert a["mode"] in {"CATEGORY", "FILTER"} and a["filter_paths"]
    category_titles = {a["title"] for a in associations.values() if a["mode"] == "CATEGORY"}
    for event in events:
        # TimeMap refuses a field its schema does not list: exactly these, every one
        assert set(event) == set(timemap.EVENT_FIELDS), event["id"]
        assert all(isinstance(event[k], str) for k in timemap.EVENT_FIELDS
                   if k not in ("associations", "sources", "narrative___stepStyles"))
        assert re.fullmatch(r"\d{2}/\d{2}/\d{4}", event["date"]), event["date"]
        assert event["time"] == "" or re.fullmatch(r"\d{2}:\d{2}", event["time"])
        assert (event["latitude"] == "") == (event["longitude"] == "")
        assert event["category"] in category_titles
        assert all(a in associations for a in event["associations"])
        modes = [associations[a]["mode"] for a in event["associations"]]
        assert modes.count("CATEGORY") == 1, "one and only one category per event"
        assert event["sources"] and all(s in sources for s in event["sources"])
    for key, source in sources.items():
        assert source["id"] == key and set(source) == set(timemap.SOURCE_FIELDS)
        assert isinstance(source["paths"], list)
    placed = {(e["location"], e["latitude"], e["longitude"]) for e in events if e["latitude"]}
    assert len(sites) == len({s["id"] for s in sites})
    for site in sites:
        assert set(site) == set(timemap.SITE_FIELDS)
        assert (site["site"], site["latitude"], site["longitude"]) in placed
    categories = {c["category"] for c in data["categories.json"]}
    for c in data["categories.json"]:
        assert set(c) == set(timemap.CATEGORY_FIELDS)

    def keys(node: dict) -> set[str]:
        return {node["key"]} | {k for child in node["children"].values() for k in keys(child)}

    tree = keys(data["filters.json"])
    for event in documented:
        assert set(event) == set(timemap.DOCUMENTED_EVENT_FIELDS), event["id"]
        assert event["category"] in categories
        assert all(f in tree for f in event["filters"].split(",") if f)
        assert all(s in sources for s in event["source"].split(","))


def test_timemap_hostile_values_survive(incidents):
    files = timemap.render_timemap([hostile(incidents[0])])
    data = load_timemap(files)
    event = data["events.json"][0]
    assert event["location"] == HOSTILE_PLACE
    assert HOSTILE_QUOTE in event["description"]
    assert data["sites.json"][0]["site"] == HOSTILE_PLACE
    assert any(s["author"] == HOSTILE_OUTLET for s in data["sources.json"].values())


def test_docs_list_every_timemap_field_and_acled_column():
    page = (REPO / "docs" / "exports.md").read_text(encoding="utf-8")
    for field in (*timemap.EVENT_FIELDS, *timemap.DOCUMENTED_EVENT_FIELDS,
                  *timemap.SOURCE_FIELDS, *timemap.ASSOCIATION_FIELDS, *timemap.SITE_FIELDS,
                  *timemap.CATEGORY_FIELDS, *ACLED_COLUMNS):
        assert f"`{field}`" in page, field
    assert "src/reducers/validate/eventSchema.js" in page
    assert "docs/configuration.md" in page


# --- kml ---------------------------------------------------------------------------------------


def test_kml_parses_with_one_placemark_per_placed_incident(incidents):
    extra = [hostile(incidents[0]), hostile(incidents[0], placed=False)]
    root = ET.fromstring(render_kml([*incidents, *extra]))
    assert root.tag == f"{KML}kml"
    document = root.find(f"{KML}Document")
    assert document is not None
    folders = {f.findtext(f"{KML}name"): f for f in document.findall(f"{KML}Folder")}
    placed = folders["Incidents"].findall(f"{KML}Placemark")
    assert len(placed) == len(incidents) + 1
    assert all(p.find(f"{KML}Point/{KML}coordinates") is not None for p in placed)
    unplaced = folders["Unplaced incidents"].findall(f"{KML}Placemark")
    assert [p.get("id") for p in unplaced] == ["inc-hostile-unplaced"]
    assert unplaced[0].find(f"{KML}Point") is None
    assert "inc-hostile-unplaced" in (document.findtext(f"{KML}description") or "")
    mark = next(p for p in placed if p.get("id") == "inc-hostile")
    assert mark.findtext(f"{KML}Point/{KML}coordinates") == "37.765432,48.123457"
    assert HOSTILE_PLACE in (mark.findtext(f"{KML}name") or "")
    assert HOSTILE_QUOTE in (mark.findtext(f"{KML}description") or "")
    data = {d.get("name"): d.findtext(f"{KML}value")
            for d in mark.findall(f"{KML}ExtendedData/{KML}Data")}
    assert data["incident_id"] == "inc-hostile" and data["place"] == HOSTILE_PLACE
    assert data["grade"] and data["categories"]
    for p in placed:
        when = p.findtext(f"{KML}TimeStamp/{KML}when") or p.findtext(f"{KML}TimeSpan/{KML}end")
        assert when, p.get("id")


# --- through the command line ------------------------------------------------------------------


def test_exports_through_the_cli_are_custody_entries(dev_case_copy, tmp_path: Path):
    outputs = {"acled-csv": tmp_path / "acled.csv", "timemap": tmp_path / "timemap",
               "kml": tmp_path / "incidents.kml"}
    for fmt, out in outputs.items():
        result = run_cli("export", "incidents", "--format", fmt, "-o", out, home=dev_case_copy)
        assert result.returncode == 0, result.stderr
    assert (outputs["timemap"] / "events.json").is_file()
    entries = [json.loads(line) for line in
               (dev_case_copy / "custody" / "log.jsonl").read_text().splitlines()]
    exports = {e["details"]["format"]: e["details"] for e in entries if e["action"] == "export"}
    assert set(exports) == set(outputs)
    for details in exports.values():
        assert details["incidents"] and details["made_from"]["documents"]
        assert all(d["sha256"] for d in details["made_from"]["documents"])
    assert exports["acled-csv"]["made_from"]["mappings"][0]["file"].endswith("acled.toml")
    files = {f["file"]: f["sha256"] for f in exports["timemap"]["files"]}
    import hashlib

    assert files["events.json"] == hashlib.sha256(
        (outputs["timemap"] / "events.json").read_bytes()).hexdigest()
