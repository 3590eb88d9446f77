"""Free-text place strings (casebuilder/gazetteer/geocoding.py, what ``casebuilder geocode``
answers): the strings of data/free_text_places.tsv, written by us in the styles of conflict
datasets and news reports, placed within 10 km of the place each names; strings that name no
place never placed abroad; and the reading of multi-place strings, areas and reference
points."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from casebuilder.gazetteer import Gazetteer, distance_km

DATA = Path(__file__).parent / "data" / "free_text_places.tsv"
WITHIN_KM = 10.0
TARGET = 0.95


@pytest.fixture(scope="module")
def gazetteer(suite_gazetteer: Gazetteer) -> Gazetteer:
    return suite_gazetteer


def _rows() -> list[dict[str, str]]:
    columns = ["query", "name", "admin1", "lat", "lon", "gazetteer_id", "style"]
    with DATA.open(encoding="utf-8", newline="") as handle:
        lines = [line for line in handle if line.strip() and not line.startswith("#")]
    return [dict(zip(columns, row, strict=True))
            for row in csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)]  # fmt: skip


ROWS = _rows()
PLACED = [row for row in ROWS if row["lat"]]


def test_the_file_covers_the_styles_of_real_place_strings() -> None:
    assert len(PLACED) >= 150
    styles = " ".join(row["style"] for row in ROWS)
    for style in ("Russian form", "in the region", "district of city", "region then list",
                  "near X, Y front", "people's republic", "hromada", "site at its town",
                  "street in city", "typo", "region stays region", "running text",
                  "Cyrillic", "not a place: a person", "not a place: an agreement"):  # fmt: skip
        assert style in styles, style


def test_free_text_strings_are_placed_within_10_km(gazetteer: Gazetteer) -> None:
    misses = []
    for row in PLACED:
        place = gazetteer.geocode(row["query"]).place
        error = (distance_km(place, (float(row["lat"]), float(row["lon"])))
                 if place is not None else float("inf"))  # fmt: skip
        if error > WITHIN_KM:
            misses.append(f"{row['query']!r}: {place.name if place else None} ({error:.0f} km),"
                          f" not {row['name']}")  # fmt: skip
    share = 1 - len(misses) / len(PLACED)
    assert share >= TARGET, "\n".join(misses)


@pytest.mark.parametrize("row", [r for r in ROWS if not r["lat"]], ids=lambda r: r["query"])
def test_names_that_are_no_place_are_never_placed_abroad(gazetteer: Gazetteer,
                                                         row: dict[str, str]) -> None:
    found = gazetteer.geocode(row["query"])
    for resolution in found.resolutions:
        assert resolution.place is None or resolution.place.country == "UA", resolution


def test_a_multi_place_string_gives_every_place_in_its_order(gazetteer: Gazetteer) -> None:
    found = gazetteer.geocode("Kherson region: Beryslav, Kakhovka and Nova Kakhovka")
    names = [r.place.name for r in found.resolutions if r.place is not None]
    assert names == ["Beryslav", "Kakhovka", "Nova Kakhovka"]
    assert all(r.place is not None and r.place.admin1 == "Kherson Oblast"
               for r in found.resolutions)  # fmt: skip
    assert found.how == "parts" and [r.place for r in found.others] == [
        r.place for r in found.resolutions[1:]]


def test_areas_and_reference_points_locate_and_are_not_other_places(gazetteer: Gazetteer
                                                                    ) -> None:
    found = gazetteer.geocode("village of Hrushivka, Kupiansk district, Kharkiv region")
    assert found.place is not None and found.place.name == "Hrushivka" and not found.others
    found = gazetteer.geocode("near Klishchiivka, Bakhmut front")
    assert found.place is not None and found.place.name == "Klishchiivka"
    assert "relative" in found.reason and not found.others
    found = gazetteer.geocode("Kharkiv region")
    assert found.place is not None and found.place.precision == "region"
    assert found.place.name == "Kharkiv Oblast"  # never the city


def test_running_text_is_read_with_the_scanner(gazetteer: Gazetteer) -> None:
    found = gazetteer.geocode("a drone hit a school in Sumy and damaged houses in Okhtyrka")
    assert found.how == "running text"
    assert [r.place.name for r in found.resolutions if r.place] == ["Sumy", "Okhtyrka"]
    assert gazetteer.geocode("").place is None
    assert gazetteer.geocode("Image 3").place is None


def test_loose_reading_takes_spellings_of_names_only_in_place_strings(gazetteer: Gazetteer
                                                                     ) -> None:
    text = "Houses burned in Malaya Rohan"
    assert not gazetteer.find_toponyms(text)  # a document: exact names only
    assert [m.place.name for m in gazetteer.find_toponyms(text, loose=True)] == ["Mala Rohan"]
    assert gazetteer.geocode(text).place is not None
    # in a document, a name that a word such as "village of" announces may be a spelling too
    text = "Houses burned in the village of Malaya Rohan"
    assert [m.place.name for m in gazetteer.find_toponyms(text)] == ["Mala Rohan"]
    # a short common word, a word before another capitalised one, a place abroad: never
    for text in ("Mass grave found in Bucha", "Damage to School No. 12 in Izium"):
        names = [m.place.name for m in gazetteer.find_toponyms(text, loose=True)]
        assert names in (["Bucha"], ["Izium"]), names
