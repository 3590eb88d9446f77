"""The SVG charts of the case file: the same input draws the same bytes, the text is well-formed
XML with no outside reference, labels from the case are escaped, and an empty or odd input
draws a "no data" figure instead of failing."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET

import pytest

from casebuilder.reporting.casefile.figures import ChartDrawer, Count, Dated, FigurePoint
from casebuilder.reporting.charts import SvgCharts

HOSTILE = 'Gov <script>alert("x")</script> & \'co\' \x01'
SVG = "{http://www.w3.org/2000/svg}"


def forty_points() -> list[FigurePoint]:
    sources = ("district head", "news agency", HOSTILE, "rescue service", "city hall",
               "monitoring mission", "ministry")
    return [FigurePoint(moment=f"2024-02-{1 + i // 6:02d}T{(i * 5) % 24:02d}:30:00+03:00",
                        low=2 + i // 4, high=(5 + i // 4) if i % 4 == 0 else None,
                        measure="injured" if i % 3 == 0 else "killed",
                        source=sources[i % len(sources)], footnote=i + 1)
            for i in range(40)]


def many_events(n: int) -> list[Dated]:
    return [Dated(day=f"202{3 + i % 2}-{1 + i % 12:02d}-{1 + (i * 7) % 28:02d}",
                  label=f"village {i}", value=(i * 13) % 41) for i in range(n)]


def drawings() -> dict[str, str]:
    charts = SvgCharts()
    return {
        "figures-40": charts.figures_over_time(forty_points()),
        "figures-1": charts.figures_over_time(
            [FigurePoint("2024-02-03", 4, None, "killed", "district head", 1)]),
        "figures-one-moment": charts.figures_over_time(
            [FigurePoint("2024-02-03T08:00", 4, 6, "killed", "district head", 1),
             FigurePoint("2024-02-03T08:00", 4, None, "killed", "news agency", 2),
             FigurePoint("2024-02-03T08:00", 9, None, "injured", "news agency", None)]),
        "hours": charts.bars([Count(f"{h:02d}", h % 5) for h in range(24)],
                             "By hour of day", "incidents"),
        "weekdays": charts.bars([Count(d, v) for d, v in zip(
            ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"), (0, 3, 1, 0, 7, 2, 0),
            strict=True)], "By weekday"),
        "timeline-1": charts.timeline([Dated("2024-04-09", "a town", 3)], "One incident"),
        "timeline-300": charts.timeline(many_events(300), "Incidents"),
        "hostile": charts.bars([Count(HOSTILE, 2)], HOSTILE, HOSTILE),
        "hostile-timeline": charts.timeline([Dated("2024-04-09", HOSTILE, 3)], HOSTILE),
    }


def test_svg_charts_is_a_chart_drawer() -> None:
    drawer: ChartDrawer = SvgCharts()
    assert drawer.bars([Count("a", 1)])


def test_same_input_same_bytes() -> None:
    assert drawings() == drawings()


@pytest.mark.parametrize("name", sorted(drawings()))
def test_well_formed_and_self_contained(name: str) -> None:
    svg = drawings()[name]
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox")
    assert svg.replace("http://www.w3.org/2000/svg", "").count("http") == 0
    assert "href" not in svg and "url(" not in svg and "@import" not in svg
    assert " id=" not in svg  # no generated ids, which would differ between drawings
    fonts = {e.get("font-family") for e in root.iter() if e.get("font-family")}
    assert fonts <= {"serif", "sans-serif"}


def test_hostile_labels_are_escaped() -> None:
    for name in ("hostile", "hostile-timeline", "figures-40"):
        svg = drawings()[name]
        assert "<script" not in svg
        root = ET.fromstring(svg)
        texts = [e.text or "" for e in root.iter(f"{SVG}text")]
        assert any('<script>alert("x")</script>' in t for t in texts), name


@pytest.mark.parametrize("svg", [
    SvgCharts().figures_over_time([]),
    SvgCharts().figures_over_time([FigurePoint("not a date", 1, None, "killed", "x")]),
    SvgCharts().bars([], "By hour"),
    SvgCharts().timeline([], "Incidents"),
    SvgCharts().timeline([Dated("someday", "x")], "Incidents"),
])
def test_empty_input_draws_no_data(svg: str) -> None:
    root = ET.fromstring(svg)
    texts = " ".join(e.text or "" for e in root.iter(f"{SVG}text"))
    assert "No data" in texts


def test_figures_over_time_shows_every_footnote_source_and_measure() -> None:
    points = forty_points()
    root = ET.fromstring(SvgCharts().figures_over_time(points))
    texts = [e.text or "" for e in root.iter(f"{SVG}text")]
    for point in points:
        assert str(point.footnote) in texts
    legend = " ".join(texts)
    for source in {p.source for p in points}:
        assert source.split()[0] in legend
    assert any(t.startswith("Killed") for t in texts)
    assert any(t.startswith("Injured") for t in texts)


def test_bars_keep_order_and_show_zeros() -> None:
    counts = [Count(d, v) for d, v in zip(("Mon", "Tue", "Wed"), (0, 4, 0), strict=True)]
    root = ET.fromstring(SvgCharts().bars(counts, "By weekday"))
    texts = [e.text or "" for e in root.iter(f"{SVG}text")]
    labels = [t for t in texts if t in ("Mon", "Tue", "Wed")]
    assert labels == ["Mon", "Tue", "Wed"]
    assert texts.count("0") >= 3  # two zero bars and the axis's 0
    bars = [e for e in root.iter(f"{SVG}rect") if e.get("fill") == "#4C72B0"]
    assert len(bars) == 3


def test_timeline_draws_one_mark_per_event_and_labels_the_largest() -> None:
    events = many_events(120)
    root = ET.fromstring(SvgCharts().timeline(events, "Incidents"))
    assert len(list(root.iter(f"{SVG}circle"))) == len(events)
    texts = " ".join(e.text or "" for e in root.iter(f"{SVG}text"))
    largest = max(events, key=lambda e: e.value)
    assert f"({largest.value})" in texts


def test_timeline_of_3000_events_is_quick() -> None:
    events = many_events(3000)
    started = time.perf_counter()
    svg = SvgCharts().timeline(events, "Incidents")
    assert time.perf_counter() - started < 0.5
    assert svg.count("<circle") == 3000
