"""Round trips between casebuilder's exports and its importers: the dev case exported in
ACLED's columns and imported into a fresh case gives the same incidents (place, date, the toll
ACLED's one column can carry), every row an incident, none rejected, and the fresh case
verifies."""

from __future__ import annotations

from pathlib import Path

from casebuilder.extraction.datasets.importing import import_dataset
from casebuilder.preservation.case import init_case, open_case
from casebuilder.preservation.verify import verify_case
from casebuilder.reporting.export import export_incidents
from casebuilder.resolution import summary
from casebuilder.resolution.incidents import build_incidents
from casebuilder.resolution.summary import Incident


def _shape(incidents: list[Incident]) -> list[tuple[object, ...]]:
    out = []
    for i in incidents:
        _, place = summary.best_place(i)
        when, _ = summary.dates(i)
        killed = summary.best_figure(i, "killed")
        out.append((round(float(place["lat"]), 4), round(float(place["lon"]), 4),
                    when.iso() if when else None, killed.low if killed else None))
    return sorted(out, key=repr)


def _round_trip(dev_case: Path, tmp_path: Path, fmt: str, importer: str
                ) -> tuple[list[Incident], list[Incident], dict[str, int]]:
    source = open_case(dev_case, create=False)
    try:
        before = build_incidents(source)
        out = tmp_path / f"incidents.{fmt}"
        export_incidents(source, before, fmt, out)
    finally:
        source.close()
    fresh = init_case(tmp_path / "fresh", name="round trip", environ={})
    try:
        report = import_dataset(fresh, importer, out)
        after = build_incidents(fresh)
        assert verify_case(fresh).ok
    finally:
        fresh.close()
    return before, after, dict(report.counts)


def test_acled_csv_export_imports_back_to_the_same_incidents(dev_case_copy: Path,
                                                             tmp_path: Path) -> None:
    before, after, counts = _round_trip(dev_case_copy, tmp_path, "acled-csv", "acled")
    assert counts.get("rejected", 0) == 0
    assert counts["incident"] == len(before)
    assert len(after) == len(before)
    assert _shape(after) == _shape(before)


def test_only_casebuilder_rows_have_their_tags_read() -> None:
    from casebuilder.extraction.datasets.acled import own_export_tags

    assert own_export_tags("crowd size=no report") == {}
    assert own_export_tags("casebuilder-incident=inc-1; categories=killing; killed-best=none") \
        == {"casebuilder-incident": "inc-1", "categories": "killing", "killed-best": "none"}
