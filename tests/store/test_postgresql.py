"""The same code on PostgreSQL: the full flow, and tampering with a row is still caught.

CI starts a local PostgreSQL server and sets CASEBUILDER_TEST_POSTGRES_URL (an admin URL such
as postgresql+psycopg://cb:cb@127.0.0.1:5432/postgres); each test gets a database of its own.
"""

from __future__ import annotations

from sqlalchemy import text

from casebuilder.extraction.run import extract_items
from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import init_case, open_case
from casebuilder.preservation.verify import verify_case
from casebuilder.resolution.decisions import record_decision
from casebuilder.resolution.incidents import build_incidents, merged_incidents
from casebuilder.resolution.stored import ListFilter, listed


def test_full_flow_on_postgresql(postgres_url, tmp_path, dev_reports, extraction_tools):
    environ = {"CASEBUILDER_DATABASE_URL": postgres_url}
    case = init_case(tmp_path / "home", environ=environ)
    try:
        assert case.engine.dialect.name == "postgresql"
        ingest(case, [dev_reports])
        extract_items(case, extraction_tools)
        incidents = build_incidents(case)
        station = next(i for i in incidents if any("kramatorsk-3" in m.document.name
                                                   for m in i.mentions))
        record_decision(case, "grade", station.id,
                        {"grade": "fair", "anchor_keys": [m.key for m in station.mentions]},
                        "test on PostgreSQL")
        # the stored incidents, updated for the decision on PostgreSQL, equal a fresh merge
        updated = build_incidents(case)
        assert [(i.id, [m.key for m in i.mentions], i.overrides) for i in updated] == \
            [(i.id, [m.key for m in i.mentions], i.overrides) for i in merged_incidents(case)]
        lines, total = listed(case, ListFilter(place="kramatorsk", grade="fair"))
        assert total == len(updated) and station.id in [line["id"] for line in lines]
        assert all(line["grade"] == "fair" for line in lines)
        assert verify_case(case).ok
    finally:
        case.close()
    reopened = open_case(tmp_path / "home", environ=environ)
    try:
        rebuilt = build_incidents(reopened)
        assert any(i.overrides.get("grade", {}).get("grade") == "fair" for i in rebuilt)
        with reopened.engine.begin() as conn:  # an insider edits a hash in a row
            conn.execute(text("UPDATE items SET sha512 = :x WHERE id = 3"), {"x": "0" * 128})
        failures = [str(f) for f in verify_case(reopened).failures]
        assert any("item 3" in f and "sha512" in f for f in failures)
    finally:
        reopened.close()


def test_dataset_import_on_postgresql(postgres_url, tmp_path):
    from pathlib import Path

    from casebuilder.extraction.datasets.importing import import_dataset
    from casebuilder.resolution.records import load_mentions

    data = Path(__file__).resolve().parent.parent / "data" / "datasets"
    case = init_case(tmp_path / "home", environ={"CASEBUILDER_DATABASE_URL": postgres_url})
    try:
        monitor = import_dataset(case, "cir-monitor", data / "cir-monitor-hostile.csv")
        acled = import_dataset(case, "acled", data / "acled-dev-attacks.csv")
        assert monitor.counts == {"incident": 6, "context": 4, "rejected": 9}
        assert acled.counts["incident"] == 5
        assert import_dataset(case, "acled", data / "acled-dev-attacks.csv").status == \
            "unchanged"
        assert len(load_mentions(case)) == 11
        assert build_incidents(case)
        assert verify_case(case).ok
        with case.engine.begin() as conn:  # an insider turns a rejected row into context
            conn.execute(text("UPDATE dataset_rows SET status = 'context' WHERE line = 7"))
        assert any("dataset rows" in f.problem for f in verify_case(case).failures)
    finally:
        case.close()
