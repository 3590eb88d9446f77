"""Stored incidents, updated as documents and decisions arrive, always equal a fresh merge.

The development reports are taken into a case one document at a time, in a shuffled order;
after each, reading the incidents updates the stored ones (only the parts the new mentions
touch) and the result is compared with a merge of every mention afresh: same ids, members,
reasons, decisions and listing records. Then analysts merge, split, grade and undo, with the
same comparison after each decision; then `incidents rebuild` changes nothing."""

from __future__ import annotations

import json
import random
import shutil

import pytest
from sqlalchemy import func, select

import insider
from casebuilder.extraction.run import extract_items
from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import init_case, open_case
from casebuilder.resolution.incidents import build_incidents, merged_incidents
from casebuilder.resolution.listing import incident_properties
from casebuilder.resolution.stored import ListFilter, listed, stored_incident
from casebuilder.store import schema
from conftest import run_cli


def shape(incidents):
    return [(i.id, [m.key for m in i.mentions], i.reasons, i.decisions, i.overrides,
             incident_properties(i)) for i in incidents]


def last_refresh(home):
    entries = [json.loads(line) for line in (home / "custody" / "log.jsonl").read_text()
               .splitlines()]
    return [e["details"] for e in entries if e["action"] == "incidents"][-1]


def test_documents_taken_in_one_by_one_give_the_incidents_of_a_fresh_merge(
        tmp_path, dev_reports, extraction_tools):
    reports = sorted(p for p in dev_reports.iterdir() if not p.name.endswith(".meta.json"))
    random.Random(4).shuffle(reports)
    home = tmp_path / "home"
    case = init_case(home, environ={})
    try:
        for number, report in enumerate(reports):
            folder = tmp_path / f"in-{number}"
            folder.mkdir()
            shutil.copy(report, folder)
            meta = report.with_name(report.name.rsplit(".", 1)[0] + ".meta.json")
            if meta.exists():
                shutil.copy(meta, folder)
            ingest(case, [folder])
            extract_items(case, extraction_tools)
            stored = build_incidents(case)
            assert shape(stored) == shape(merged_incidents(case)), report.name
            assert last_refresh(home)["how"] == ("rebuilt" if number == 0 else "updated")
        assert len(stored) >= 5
        with case.session() as session:
            merged_again = last_refresh(home)["merged_again"]
            every = session.execute(select(func.count(schema.MergeEntry.key))).scalar_one()
        assert merged_again < every  # the last update did not merge the whole case again
    finally:
        case.close()


@pytest.fixture
def decided_home(dev_case_copy):
    case = open_case(dev_case_copy, environ={})
    try:
        build_incidents(case)  # stored once, before any decision
    finally:
        case.close()
    return dev_case_copy


def decide(home, *args):
    result = run_cli("incident", *args, home=home)
    assert result.returncode == 0, result.stdout + result.stderr


def compare(home):
    case = open_case(home, environ={})
    try:
        stored = build_incidents(case)
        assert shape(stored) == shape(merged_incidents(case))
        return stored
    finally:
        case.close()


def test_decisions_update_the_stored_incidents_as_a_fresh_merge_would(decided_home):
    home = decided_home
    before = compare(home)
    by_place = {}
    for incident in before:
        by_place.setdefault(incident_properties(incident)["place"], []).append(incident)
    first, second = next(group for group in by_place.values() if len(group) >= 2)[:2] \
        if any(len(g) >= 2 for g in by_place.values()) else before[:2]
    decide(home, "merge", first.id, second.id, "--reason", "one attack, two reports")
    merged = compare(home)
    assert last_refresh(home)["how"] == "updated"
    assert len(merged) == len(before) - 1
    (whole,) = [i for i in merged if i.id == first.id]
    document = whole.mentions[-1].document.name
    decide(home, "split", first.id, "--document", document, "--reason", "a second attack")
    compare(home)
    decide(home, "grade", first.id, "contested", "--reason", "denied by the other side")
    graded = compare(home)
    assert next(i for i in graded if i.id == first.id).overrides["grade"]["grade"] == \
        "contested"
    assert last_refresh(home)["how"] == "updated"
    rebuilt = run_cli("incidents", "rebuild", home=home)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert last_refresh(home)["how"] == "rebuilt"
    assert shape(compare(home)) == shape(graded)


def test_one_incident_and_a_filtered_list_are_read_from_the_tables(decided_home):
    case = open_case(decided_home, environ={})
    try:
        every = build_incidents(case)
        one = every[len(every) // 2]
        assert shape([stored_incident(case, one.id)]) == shape([one])
        assert stored_incident(case, one.mentions[0].key).id == one.id
        records, total = listed(case, ListFilter())
        assert total == len(every) and [r["id"] for r in records] == [i.id for i in every]
        place = incident_properties(one)["place"]
        near, _ = listed(case, ListFilter(place=place.upper()))
        assert one.id in [r["id"] for r in near]
        assert all(place.lower() in f"{r['place']} {r['admin1']}".lower() for r in near)
        category = incident_properties(one)["categories"][0]
        kind, _ = listed(case, ListFilter(category=category))
        assert kind and all(category in r["categories"] for r in kind)
        assert listed(case, ListFilter(place="100%_no such place"))[0] == []
    finally:
        case.close()


def test_tables_out_of_step_with_the_mentions_are_rebuilt_not_trusted(decided_home):
    """Rows of the stored incidents lost or edited apart from the mentions (a restored
    backup, a hand edit): the next reading rebuilds them, says why, and equals a fresh merge."""

    with insider.connect(decided_home) as db:
        db.execute(f"DELETE FROM incident_members WHERE {db.row_key} IN "
                   f"(SELECT {db.row_key} FROM incident_members LIMIT 3)")
    compare(decided_home)
    assert last_refresh(decided_home) == {**last_refresh(decided_home), "how": "rebuilt",
                                          "why": "stored members and current mentions differ"}
