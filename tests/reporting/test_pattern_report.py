"""The pattern report on a generated case with planted patterns (the analysis tests'
generator): every finding appears with its figures and incidents, the parameters table carries
the run's digests, and the same run gives the same document."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

from casebuilder.analysis.patterns.records import IncidentRecord
from casebuilder.analysis.patterns.run import PatternReport, analyse
from casebuilder.reporting.casefile.document import Document, Figure, Heading, Table, plain
from casebuilder.reporting.casefile.figures import MapPoint
from casebuilder.reporting.casefile.pattern_report import pattern_blocks, pattern_document
from casebuilder.reporting.charts import SvgCharts

GENERATOR = Path(__file__).parents[1] / "analysis" / "patterns" / "generator.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("planted_patterns_generator", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class TinyMaps:
    """A map drawer for tests: a small valid SVG naming the points it was given."""

    def locator(self, point: MapPoint) -> str:
        return self.series([point])

    def close_up(self, point: MapPoint, neighbours: Sequence[MapPoint] = (),
                 radius_km: float = 30.0) -> str:
        return self.series([point, *neighbours])

    def series(self, points: Sequence[MapPoint], title: str = "") -> str:
        ids = " ".join(p.incident_id for p in points)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
                f"<desc>{ids}</desc></svg>")


@pytest.fixture(scope="module")
def planted() -> tuple[PatternReport, dict[str, IncidentRecord]]:
    records, _truth = _generator().make_case(3)
    return analyse(records), {r.id: r for r in records}


def build(planted: tuple[PatternReport, dict[str, IncidentRecord]]) -> Document:
    report, by_id = planted
    return pattern_document(report, charts=SvgCharts(), maps=TinyMaps(),
                            case_name="planted case", as_of="2024-01-01T00:00:00Z",
                            state_digest="0" * 64, incidents_by_id=by_id)


def test_every_finding_appears_with_figures_listing_its_incidents(planted) -> None:
    report, _ = planted
    assert report.findings and {f.kind for f in report.findings} >= {"series", "double_tap"}
    blocks = build(planted).blocks
    anchors = [b.anchor for b in blocks if isinstance(b, Heading)]
    for f in report.findings:
        assert f"finding-{f.id}" in anchors
        at = anchors.index(f"finding-{f.id}")
        heading = [b for b in blocks if isinstance(b, Heading)][at]
        rest = blocks[blocks.index(heading) + 1:]
        end = next((i for i, b in enumerate(rest) if isinstance(b, Heading)), len(rest))
        figures = [b for b in rest[:end] if isinstance(b, Figure)]
        assert len(figures) == 2, f.kind  # series map and timeline
        for figure in figures:
            assert figure.incidents == f.incidents
        assert "<svg" in figures[0].svg and f.incidents[0] in figures[0].svg


def test_summary_says_what_the_analysis_finds_in_neutral_words(planted) -> None:
    report, _ = planted
    blocks = build(planted).blocks
    summary = next(b for b in blocks if isinstance(b, Table)
                   and b.caption == "Findings of the pattern analysis")
    assert len(summary.rows) == len(report.findings)
    words = " ".join(plain(p.parts) for p in blocks if hasattr(p, "parts"))
    assert "The analysis finds" in words
    assert "committed" not in words
    tested = [f for f in report.findings if f.statistic and "p_adjusted" in f.statistic]
    assert tested
    for row, f in zip(summary.rows, report.findings, strict=True):
        if f in tested:
            assert plain(row[5])  # the Holm-adjusted p


def test_distributions_and_weapon_target_table(planted) -> None:
    report, _ = planted
    blocks = build(planted).blocks
    captions = [b.caption for b in blocks if isinstance(b, Figure)]
    assert any("by hour" in c for c in captions)
    assert any("by weekday" in c for c in captions)
    pairs = next(b for b in blocks if isinstance(b, Table)
                 and b.caption == "Weapon-target pairs tested")
    assert len(pairs.rows) == sum(t.kind == "weapon_target" for t in report.tests)
    assert any(plain(r[0]) == "glide bomb" and plain(r[1]) == "school" and
               plain(r[6]) == "yes" for r in pairs.rows)


def test_parameters_table_has_the_run_digests(planted) -> None:
    report, _ = planted
    blocks = build(planted).blocks
    table = next(b for b in blocks if isinstance(b, Table)
                 and b.caption == "Parameters and inputs")
    values = {plain(r[0]): plain(r[1]) for r in table.rows}
    assert values["Input digest (SHA-256)"] == report.inputs["digest"]
    assert values["Parameters digest (SHA-256)"] == report.parameters.digest()
    assert values["Findings digest (SHA-256)"] == report.findings_digest()
    assert "run.alpha" in values


def test_same_run_same_document(planted) -> None:
    one, two = build(planted), build(planted)
    assert one == two and repr(one) == repr(two)


def test_blocks_for_the_case_file_are_the_body(planted) -> None:
    report, by_id = planted
    blocks = pattern_blocks(report, charts=SvgCharts(), maps=TinyMaps(), incidents_by_id=by_id)
    assert blocks == build(planted).blocks


def test_a_run_without_findings_still_builds() -> None:
    report = analyse([])
    document = pattern_document(report, charts=SvgCharts(), maps=TinyMaps(), case_name="c",
                                as_of="2024-01-01T00:00:00Z", state_digest="0" * 64,
                                incidents_by_id={})
    words = " ".join(plain(b.parts) for b in document.blocks if hasattr(b, "parts"))
    assert "finds no pattern" in words
