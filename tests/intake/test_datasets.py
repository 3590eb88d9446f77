"""Importing datasets as evidence (extraction/datasets/): the reader's byte spans and bad rows,
the monitor format on a hostile sample of our own, idempotence, verification, and the real
Russia-Ukraine Monitor file when the shared folder has it."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from tests.conftest import SHARED, run_cli

from casebuilder.errors import DatasetError
from casebuilder.extraction.datasets.importing import import_dataset
from casebuilder.extraction.datasets.reading import read_csv
from casebuilder.preservation.verify import verify_case
from casebuilder.resolution.records import load_mentions
from casebuilder.store import schema

DATA = Path(__file__).resolve().parent.parent / "data" / "datasets"
HOSTILE = DATA / "cir-monitor-hostile.csv"
MONITOR = SHARED / "datasets" / "cir-monitor" / "events.csv"


def rows_of(case, item_id):
    with case.session() as session:
        return list(session.execute(select(schema.DatasetRow).where(
            schema.DatasetRow.item_id == item_id).order_by(schema.DatasetRow.id)).scalars())


def test_reader_gives_byte_spans_of_quoted_and_plain_cells():
    data = 'a,b\r\n"x, ""y""\nz",é\r\n\r\nplain,2\n'.encode()
    read = read_csv(data)
    assert read.header == ["a", "b"] and read.empty_lines == 1
    first, second = read.rows
    assert first.cells["a"].text == 'x, "y"\nz' and first.line == 2 and first.line_end == 3
    assert data[first.cells["a"].start:first.cells["a"].end] == b'x, ""y""\nz'
    assert data[first.cells["b"].start:first.cells["b"].end].decode() == "é"
    assert second.line == 5 and second.text("a") == "plain"
    assert data[first.start:first.end].endswith("é".encode())


def test_reader_reports_broken_rows_and_goes_on():
    data = b'a,b\n"never closed,1\nok,2\nbad"quote,3\n\xff,4\n1,2,3\nlast,5'
    rows = read_csv(data).rows
    problems = {r.line: r.problem for r in rows}
    assert "opens on line 2" in problems[2]
    assert problems[3] is None
    assert "quote inside" in problems[4]
    assert "not UTF-8" in problems[5]
    assert "3 cells" in problems[6]
    assert problems[7] is None and rows[-1].text("b") == "5"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_never_crash_the_reader_and_every_record_is_a_row(data):
    try:
        read = read_csv(b"a,b,c\n" + data)
    except DatasetError:
        return
    assert all(r.problem or len(r.cells) == 3 for r in read.rows)
    lines = [r.line for r in read.rows]
    assert lines == sorted(lines)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.text(max_size=12), min_size=3, max_size=3), max_size=8))
def test_cells_written_by_the_csv_module_come_back_with_their_bytes(table):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["a", "b", "c"])
    writer.writerows(table)
    data = out.getvalue().encode("utf-8", "surrogatepass")
    try:
        read = read_csv(data)
    except DatasetError:
        return
    good = [r for r in read.rows if r.problem is None]
    for row in good:
        for cell in row.cells.values():
            raw = data[cell.start:cell.end].decode("utf-8", "surrogatepass")
            assert raw.replace('""', '"') == cell.text


def test_hostile_monitor_sample(case):
    report = import_dataset(case, "cir-monitor", HOSTILE)
    assert report.counts == {"incident": 6, "context": 4, "rejected": 9}
    assert report.empty_lines == 2
    reasons = {o.row.line: o.reason for o in report.of("rejected")}
    assert "latitude '91'" in reasons[7]
    assert "longitude 'abc'" in reasons[8]
    assert "2022-02-30" in reasons[9]
    assert "duplicate" in reasons[11]
    assert "cells where the header has" in reasons[14]
    assert "quote" in reasons[15]
    assert "not UTF-8" in reasons[16]
    assert "date" in reasons[20]
    assert "decimal comma" in reasons[21]
    stored = rows_of(case, report.item_id)
    assert len(stored) == 19 and {r.status for r in stored} == {"incident", "context",
                                                                 "rejected"}
    context = {r.line: r.rule for r in stored if r.status == "context"}
    assert context[3] == "rows/military-presence"
    assert context[12] == "rows/military-losses"
    assert verify_case(case).ok


def test_claims_cite_the_cells_bytes_even_when_not_ascii(case):
    report = import_dataset(case, "cir-monitor", HOSTILE)
    data = HOSTILE.read_bytes()
    mentions = load_mentions(case)
    assert len(mentions) == 6
    chuhuiv = next(m for m in mentions if "Чугуїв" in m.place_name)
    assert chuhuiv.place is not None and (chuhuiv.place["lat"], chuhuiv.place["lon"]) == (
        49.8351, 36.6861)
    assert chuhuiv.place_name == "Чугуїв, Chuhuivskyi, Kharkivska"
    for claim in chuhuiv.claims:
        assert data[claim.char_start:claim.char_end].decode("utf-8") == claim.quote
        assert claim.document.item_id == report.item_id
        assert claim.source_kind == "monitoring_dataset"
    place = next(c for c in chuhuiv.claims if c.kind == "place")
    assert place.quote == "Чугуїв"
    newline_row = next(m for m in mentions if "bus stop" in "".join(
        c.quote for c in m.claims))
    assert {c.kind for c in newline_row.claims} >= {"category", "place", "date", "weapon"}


def test_importing_the_same_file_again_adds_nothing(case):
    first = import_dataset(case, "cir-monitor", HOSTILE)
    with case.session() as session:
        before = session.scalar(select(func.count()).select_from(schema.IncidentMention))
    again = import_dataset(case, "cir-monitor", HOSTILE)
    assert again.status == "unchanged" and again.item_id == first.item_id
    with case.session() as session:
        after = session.scalar(select(func.count()).select_from(schema.IncidentMention))
        runs = session.scalar(select(func.count()).select_from(schema.ExtractionRun))
    assert before == after == 6 and runs == 1
    assert verify_case(case).ok


def test_wrong_column_set_is_an_error_naming_the_file_and_columns(case):
    with pytest.raises(DatasetError, match=r"cir-monitor-wrong-columns.csv.*town/city"):
        import_dataset(case, "cir-monitor", DATA / "cir-monitor-wrong-columns.csv")
    with case.session() as session:
        assert session.scalar(select(func.count()).select_from(schema.Item)) == 0


def test_cli_exit_status_and_listing(tmp_path):
    home = tmp_path / "home"
    done = run_cli("import", "cir-monitor", HOSTILE, home=home)
    assert done.returncode == 1, done.stderr
    assert "6 incident mentions, 4 context rows, 9 rejected" in done.stdout
    assert "line 7: latitude '91'" in done.stdout
    wrong = run_cli("import", "cir-monitor", DATA / "cir-monitor-wrong-columns.csv",
                    home=home)
    assert wrong.returncode == 2 and "town/city" in wrong.stderr
    listed = run_cli("rows", "1", "--status", "context", home=home)
    assert listed.returncode == 0 and listed.stdout.count("context") == 4
    assert run_cli("verify", home=home).returncode == 0


@pytest.mark.slow
def test_the_real_monitor_file_every_row_accounted_for(case):
    if not MONITOR.is_file():
        pytest.skip(f"{MONITOR} is not in the shared folder")
    report = import_dataset(case, "cir-monitor", MONITOR)
    with MONITOR.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert report.rows == len(rows) == 6650
    assert report.counts["incident"] > 3000 and report.counts["context"] > 2000
    assert all(o.reason for o in report.of("rejected"))
    by_line = {number + 2: r for number, r in enumerate(rows)}  # no cell spans lines
    mentions = {m.key: m for m in load_mentions(case)}
    stored = rows_of(case, report.item_id)
    assert len(stored) == 6650
    for row in stored:
        if row.status != "incident":
            continue
        source, mention = by_line[row.line], mentions[row.mention_key]
        assert mention.place is not None
        assert (mention.place["lat"], mention.place["lon"]) == (float(source["lat"]),
                                                                float(source["lon"]))
        assert mention.date is not None and mention.date.start.isoformat() == source["date"]
        parts = [source[c].strip() for c in ("town/city", "district", "province")]
        assert mention.place_name == (", ".join(p for p in parts if p) or source["country"])
    assert verify_case(case).ok


def test_acled_columns_in_any_order_extra_columns_and_bad_rows(case):
    report = import_dataset(case, "acled", DATA / "acled-hostile.csv")
    assert report.counts == {"incident": 3, "context": 0, "rejected": 4}
    reasons = sorted(o.reason or "" for o in report.of("rejected"))
    assert any("longitude 'abc'" in r for r in reasons)
    assert any("2022-02-30" in r for r in reasons)
    assert any("latitude '-91'" in r for r in reasons)
    assert any("fatalities 'two'" in r for r in reasons)
    mentions = load_mentions(case)
    chernihiv = next(m for m in mentions if m.place_name.startswith("Chernihiv"))
    assert chernihiv.date is not None and chernihiv.date.iso() == "2022-03-16"  # "16 March 2022"
    killed = [c for c in chernihiv.claims if c.kind == "killed"]
    assert len(killed) == 1 and killed[0].quote == "10"
    assert "not only civilians" in killed[0].value.text and killed[0].value.population == "all"
    assert killed[0].also_attributed == ["Regional prosecutor"]
    assert chernihiv.document.name.endswith(f"line {chernihiv.document.name.split()[-1]}")
    assert verify_case(case).ok


def test_acled_zero_fatalities_is_a_stated_zero(case):
    import_dataset(case, "acled", DATA / "acled-dev-attacks.csv")
    barvinkove = next(m for m in load_mentions(case) if m.place_name.startswith("Barvinkove"))
    killed = [c for c in barvinkove.claims if c.kind == "killed"]
    assert [(c.value.low, c.value.high, c.quote) for c in killed] == [(0, 0, "0")]
    hostomel = [o for o in import_dataset(case, "acled", DATA / "acled-dev-attacks.csv").outcomes
                if o.facts.get("entry") == "UKR9007"]
    assert hostomel[0].status == "context" and hostomel[0].rule == "rows/strategic-development"


def test_ucdp_ged_figures_dates_and_context(case):
    report = import_dataset(case, "ucdp-ged", DATA / "ucdp-ged-sample.csv")
    assert report.counts == {"incident": 3, "context": 1, "rejected": 3}
    reasons = " | ".join(o.reason or "" for o in report.of("rejected"))
    assert "longitude '200'" in reasons and "before the start date" in reasons
    assert "2022-13-01" in reasons
    context = report.of("context")[0]
    assert context.rule == "rows/fighting-without-civilian-deaths"
    mentions = {m.place_name.split(",")[0]: m for m in load_mentions(case)}
    vinnytsia = mentions["Vinnytsia town"]
    figures = sorted((c.value.low, c.value.high, c.value.population, c.value.subgroup)
                     for c in vinnytsia.claims if c.kind == "killed")
    assert figures == [(20, 27, "all", False), (23, 23, "civilians", False)]
    assert vinnytsia.categories == ["explosive_attack"]
    bucha = mentions["Bucha town"]
    assert bucha.date is not None and (bucha.date.start.isoformat(),
                                       bucha.date.end.isoformat()) == ("2022-03-01",
                                                                       "2022-03-31")
    assert bucha.categories == ["killing"]
    assert any(c.kind == "perpetrator" and c.value.party == "russia" for c in bucha.claims)
    kharkiv = mentions["Kharkiv town"]
    civilians = [c for c in kharkiv.claims if c.kind == "killed" and
                 c.value.population == "civilians"]
    assert civilians[0].value.subgroup  # 2 of 3 dead were civilians: a part of the toll
    data = (DATA / "ucdp-ged-sample.csv").read_bytes()
    for claim in kharkiv.claims:
        assert data[claim.char_start:claim.char_end].decode() == claim.quote
    assert verify_case(case).ok


def test_civilian_harm_json_rows_cells_and_bad_entries(case):
    path = DATA / "civilian-harm-sample.json"
    report = import_dataset(case, "civilian-harm-json", path)
    assert report.counts == {"incident": 3, "context": 1, "rejected": 6}
    reasons = {o.row.number: o.reason or "" for o in report.of("rejected")}
    assert "latitude '91'" in reasons[3] and "longitude 'abc'" in reasons[4]
    assert "02/30/2022" in reasons[5] and "'date'" in reasons[6]
    assert "duplicate" in reasons[9] and "not an object" in reasons[10]
    assert report.of("context")[0].rule == "rows/military-only"
    data = path.read_bytes()
    mentions = {m.place_name: m for m in load_mentions(case)}
    theatre = mentions["Mariupol, Donetsk Oblast"]
    assert theatre.categories == ["explosive_attack"]
    assert theatre.date is not None and theatre.date.iso() == "2022-03-16"
    assert theatre.place is not None and (theatre.place["lat"], theatre.place["lon"]) == (
        47.0958, 37.5494)
    for claim in theatre.claims:
        assert data[claim.char_start:claim.char_end].decode() == claim.quote
    assert {c.kind for c in theatre.claims} >= {"target", "weapon"}
    kramatorsk = mentions["Kramatorsk"]
    assert any(c.kind == "weapon" and c.value.weapon == "cluster munition"
               for c in kramatorsk.claims)
    assert verify_case(case).ok


def test_geojson_round_trip_gives_the_same_incidents(dev_case_copy, tmp_path):
    from casebuilder.preservation.case import init_case, open_case
    from casebuilder.reporting.export import export_incidents
    from casebuilder.resolution.incidents import build_incidents

    source = open_case(dev_case_copy, create=False)
    try:
        before = build_incidents(source)
        out = tmp_path / "incidents.geojson"
        export_incidents(source, before, "geojson", out)
    finally:
        source.close()
    fresh = init_case(tmp_path / "fresh", name="round trip", environ={})
    try:
        report = import_dataset(fresh, "geojson", out)
        after = build_incidents(fresh)
        assert verify_case(fresh).ok
    finally:
        fresh.close()
    assert report.counts["incident"] == len(before) and report.counts["rejected"] == 0

    def shape(incidents):
        from casebuilder.resolution import summary

        out = []
        for i in incidents:
            _, place = summary.best_place(i)
            when, _ = summary.dates(i)
            killed = summary.best_figure(i, "killed")
            out.append((round(float(place["lat"]), 5), round(float(place["lon"]), 5),
                        tuple(summary.categories(i)), when.iso() if when else None,
                        killed.low if killed else None))
        return sorted(out, key=repr)

    assert shape(after) == shape(before)


def test_geojson_of_another_tool_and_bad_features(case):
    path = DATA / "geojson-other.geojson"
    report = import_dataset(case, "geojson", path)
    assert report.counts == {"incident": 2, "context": 0, "rejected": 4}
    reasons = {o.row.number: o.reason or "" for o in report.of("rejected")}
    assert "no Point" in reasons[2] and "no Point" in reasons[3]
    assert "looting" in reasons[4] and "latitude '95.0'" in reasons[5]
    mentions = {m.place_name: m for m in load_mentions(case)}
    sumy = mentions["Sumy"]
    assert {c.kind for c in sumy.claims} >= {"killed", "weapon", "target", "perpetrator"}
    kharkiv = mentions["Харків"]
    assert kharkiv.situation and kharkiv.date is not None
    assert kharkiv.date.start.isoformat() == "2022-02-24"
    data = path.read_bytes()
    for claim in [*sumy.claims, *kharkiv.claims]:
        assert data[claim.char_start:claim.char_end].decode() == claim.quote
    with pytest.raises(DatasetError, match="FeatureCollection"):
        import_dataset(case, "geojson", DATA / "civilian-harm-sample.json")


def test_plain_csv_through_a_column_mapping(case):
    report = import_dataset(case, "csv", DATA / "field-log.csv",
                            mapping=DATA / "field-log.toml")
    assert report.counts == {"incident": 3, "context": 1, "rejected": 2}
    reasons = " | ".join(o.reason or "" for o in report.of("rejected"))
    assert "'looting' is no category" in reasons and "'-2'" in reasons
    assert report.of("context")[0].rule == "categories/troops moving"
    mentions = {m.document.name.rsplit(" ", 1)[-1]: m for m in load_mentions(case)}
    tower = mentions["2"]
    kinds = {c.kind: c for c in tower.claims}
    assert kinds["weapon"].value.weapon == "rocket"
    assert kinds["target"].value.target_type == "residential building"
    assert kinds["killed"].quote == "1" and kinds["injured"].quote == "10"
    assert kinds["category"].attributed_to == "Field team A log"
    assert mentions["6"].categories == ["explosive_attack"]  # no type: the default category
    assert verify_case(case).ok


def test_plain_csv_mapping_is_checked_on_load(case):
    with pytest.raises(DatasetError, match=r"field-log-bad-mapping.toml.*colour"):
        import_dataset(case, "csv", DATA / "field-log.csv",
                       mapping=DATA / "field-log-bad-mapping.toml")
    with pytest.raises(DatasetError, match="--mapping"):
        import_dataset(case, "csv", DATA / "field-log.csv")


def test_ingest_recognises_datasets_by_content(tmp_path):
    import shutil

    from casebuilder.extraction.datasets.recognising import recognise

    assert recognise((DATA / "acled-dev-attacks.csv").read_bytes()).name == "acled"
    assert recognise((DATA / "ucdp-ged-sample.csv").read_bytes()).name == "ucdp-ged"
    assert recognise(HOSTILE.read_bytes()).name == "cir-monitor"
    assert recognise((DATA / "civilian-harm-sample.json").read_bytes()).name == \
        "civilian-harm-json"
    assert recognise((DATA / "geojson-other.geojson").read_bytes()).name == "geojson"
    assert recognise((DATA / "field-log.csv").read_bytes()) is None
    assert recognise(b"Shelling hit the town, officials said.\n") is None
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(DATA / "acled-dev-attacks.csv", folder / "export.csv")
    (folder / "note.txt").write_text("A note with no attack in it.\n", encoding="utf-8")
    home = tmp_path / "home"
    done = run_cli("ingest", "--no-extract", folder, home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(acled)" in done.stdout and "5 incident mentions, 2 context rows" in done.stdout
    listed = run_cli("rows", "1", home=home) if "item #1" in done.stdout else run_cli(
        "rows", "2", home=home)
    assert listed.returncode == 0 and listed.stdout.count("incident") == 5


def test_verify_finds_an_edited_dataset_row(case):
    from sqlalchemy import update

    report = import_dataset(case, "cir-monitor", HOSTILE)
    assert verify_case(case).ok
    with case.session() as session:
        session.execute(update(schema.DatasetRow).where(
            schema.DatasetRow.item_id == report.item_id, schema.DatasetRow.line == 7).values(
            status="context", reason=None, rule="rows/military-presence"))
        session.commit()
    found = verify_case(case)
    assert not found.ok
    assert any("dataset rows" in f.problem for f in found.failures), found.failures


def test_extract_never_reads_an_imported_dataset_as_prose(case, extraction_tools):
    from casebuilder.extraction.run import extract_items

    report = import_dataset(case, "acled", DATA / "acled-dev-attacks.csv")
    done = extract_items(case, extraction_tools, [report.item_id], force=True)
    assert [o.status for o in done.outcomes] == ["unchanged"]
    with case.session() as session:
        runs = list(session.execute(select(schema.ExtractionRun)).scalars())
    assert len(runs) == 1 and runs[0].extractor == "import:acled/1"
    assert len(load_mentions(case)) == 5
