"""Tests of the offline gazetteer: spelling variants, disambiguation, precision, the text
scanner, normalisation properties, the use of context (raions, locators in running text,
document-level resolution, rivers named like towns, honest uncertainty), and the CIR monitor
benchmark (read from ../shared)."""

from __future__ import annotations

import csv
import json
import os
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casebuilder.gazetteer import (
    Gazetteer,
    Place,
    PlaceContext,
    ToponymMention,
    distance_km,
    fold_toponym,
    load_gazetteer,
    normalise_toponym,
    romanise_ukrainian,
)

REPO = Path(__file__).resolve().parents[2]
CIR_EVENTS = REPO.parent / "shared" / "datasets" / "cir-monitor" / "events.csv"

# Approximate city centres from public maps (independent of the gazetteer's data).
KYIV = (50.4501, 30.5234)
KHARKIV = (49.9935, 36.2304)


@pytest.fixture(scope="session")
def cache_dir() -> Path:
    """The run's gazetteer cache, where the suite's gazetteer was read from (or built)."""
    return Path(os.environ["CASEBUILDER_CACHE"]) / "gazetteer"


@pytest.fixture(scope="session")
def gazetteer(suite_gazetteer: Gazetteer) -> Gazetteer:
    return suite_gazetteer


# --- spelling variants ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["Kiev", "Kyiv", "Київ", "KYIV"], KYIV),
        (["Odessa", "Odesa", "Одеса"], (46.4825, 30.7233)),
        (["Kharkov", "Kharkiv", "Харків", "Харьков"], KHARKIV),
        (["Dnepr", "Dnipro", "Dnipropetrovsk"], (48.4647, 35.0462)),
        (["Zaporozhye", "Zaporizhia", "Zaporizhzhia", "Zaporizhzhya"], (47.8388, 35.1396)),
        (["Nikolaev", "Mykolaiv", "Mykolayiv"], (46.9750, 31.9946)),
        (["Gostomel", "Hostomel"], (50.5692, 30.2650)),
        (["Irpen", "Irpin", "Irpin'"], (50.5218, 30.2506)),
        (["Vinnitsa", "Vinnytsia", "Vinnytsya"], (49.2331, 28.4682)),
        (["Izyum", "Izium"], (49.2122, 37.2569)),
        (["Artemovsk", "Artemivsk", "Bakhmut"], (48.5953, 38.0004)),
        (["Snake Island", "Zmiinyi Island", "Zmiinyi"], (45.2553, 30.2043)),
        (["Mariupol", "Mariupol'", "Маріуполь"], (47.0971, 37.5434)),
        (["Sevastopol", "Sebastopol"], (44.6166, 33.5254)),
    ],
)
def test_spelling_variants_resolve_to_the_same_city(
    gazetteer: Gazetteer, names: list[str], expected: tuple[float, float]
) -> None:
    for name in names:
        resolution = gazetteer.resolve(name)
        assert resolution.place is not None, name
        assert distance_km(resolution.place, expected) <= 10.0, (name, resolution)


@pytest.mark.parametrize(
    ("query", "admin1"),
    [
        ("Kharkiv oblast", "Kharkiv Oblast"),
        ("Kharkiv region", "Kharkiv Oblast"),
        ("Kharkiv province", "Kharkiv Oblast"),
        ("Kharkivs'ka oblast", "Kharkiv Oblast"),
        ("Oblast Charkov", "Kharkiv Oblast"),
        ("Donetsk Oblast", "Donetsk Oblast"),
        ("Donestk Oblast", "Donetsk Oblast"),
        ("Zaporizhia Oblast", "Zaporizhzhia Oblast"),
        ("Odessa region", "Odesa Oblast"),
    ],
)
def test_region_names_resolve_to_the_region(gazetteer: Gazetteer, query: str, admin1: str) -> None:
    resolution = gazetteer.resolve(query)
    assert resolution.place is not None
    assert resolution.place.precision == "region"
    assert resolution.place.admin1 == admin1


def test_province_spellings_of_the_monitor_format(gazetteer: Gazetteer) -> None:
    for query in (
        "Merefa, Kharkivska, Ukraine",
        "Merefa, Kharkiv Oblast, Ukraine",
        "Merefa, Kharkivs'ka oblast, Ukraine",
        "Merefa, Харківська область, Ukraine",
    ):
        place = gazetteer.resolve(query).place
        assert place is not None, query
        assert distance_km(place, (49.8198, 36.0573)) <= 5.0, query


# --- disambiguation -------------------------------------------------------------------------


def test_region_in_context_picks_the_small_mykolaiv(gazetteer: Gazetteer) -> None:
    small = gazetteer.resolve("Mykolaiv", PlaceContext(admin1=("Lviv",))).place
    assert small is not None
    assert small.admin1 == "Lviv Oblast"
    assert distance_km(small, (49.5255, 23.9779)) <= 10.0

    big = gazetteer.resolve("Mykolaiv").place
    assert big is not None
    assert big.admin1 == "Mykolaiv Oblast"
    assert (big.population or 0) > 400_000


def test_region_named_in_the_query_wins(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Mykolaiv, Lviv Oblast")
    assert resolution.place is not None
    assert resolution.place.admin1 == "Lviv Oblast"
    assert "Lviv Oblast" in resolution.reason
    assert len(resolution.candidates) >= 2


def test_proximity_to_other_places_of_the_document(gazetteer: Gazetteer) -> None:
    # Several villages are called Novoselivka; the one near the document's other places wins.
    candidates = gazetteer.lookup("Novoselivka")
    assert len(candidates) > 5
    located = [p for p in candidates if p.precision == "settlement" and p.name == "Novoselivka"]
    target = located[-1]  # the smallest located one: population alone would not pick it
    resolution = gazetteer.resolve("Novoselivka", PlaceContext(nearby=(target.coordinates,)))
    assert resolution.place is not None
    assert distance_km(resolution.place, target) <= 30.0
    assert "nearest" in resolution.reason


def test_relative_positions_and_vicinity(gazetteer: Gazetteer) -> None:
    chuhuiv = gazetteer.resolve("Chuhuiv, south of Kharkiv").place
    assert chuhuiv is not None and chuhuiv.name == "Chuhuiv"
    assert distance_km(chuhuiv, (49.8353, 36.6880)) <= 5.0

    bucha = gazetteer.resolve("Bucha, Kyiv vicinity").place
    assert bucha is not None and bucha.admin1 == "Kyiv Oblast"
    assert distance_km(bucha, (50.5439, 30.2124)) <= 5.0

    near = gazetteer.resolve("12 km north of Kharkiv")
    assert near.place is not None and near.place.name == "Kharkiv"
    assert "relative" in near.reason


def test_city_district_with_its_city(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Obolon, Kyiv")
    place = resolution.place
    assert place is not None
    assert place.precision == "district"
    assert place.admin1 == "Kyiv City"
    assert distance_km(place, KYIV) <= 12.0
    assert distance_km(place, (50.505, 30.498)) <= 3.0

    saltivka = gazetteer.resolve("Saltivka, Kharkiv").place
    assert saltivka is not None and saltivka.precision == "district"
    assert distance_km(saltivka, KHARKIV) <= 12.0


def test_village_missing_from_geonames_is_placed_coarsely(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Hroza, Kharkiv")
    place = resolution.place
    assert place is not None
    assert place.admin1 == "Kharkiv Oblast"
    assert distance_km(place, (49.64, 37.36)) <= 25.0
    if place.gazetteer_id.startswith("katottg:"):
        assert place.precision in ("district", "region")
        assert place.uncertainty_km >= 8.0
        assert "not in GeoNames" in place.placed_at
        assert "placed at" in resolution.reason
    assert place.local_name == "Гроза"


def test_cyrillic_query(gazetteer: Gazetteer) -> None:
    place = gazetteer.resolve("Гроза, Харківська область").place
    assert place is not None and place.name == "Hroza" and place.admin1 == "Kharkiv Oblast"


def test_features(gazetteer: Gazetteer) -> None:
    for query, expected in (
        ("Azovstal", (47.10, 37.61)),
        ("Antonivskyi Bridge", (46.672, 32.717)),
        ("Antonovsky bridge", (46.672, 32.717)),
    ):
        place = gazetteer.resolve(query).place
        assert place is not None and place.precision == "point", query
        assert distance_km(place, expected) <= 2.0


def test_misspelt_region_marker_and_composite_heads(gazetteer: Gazetteer) -> None:
    for query in ("Izium, Kharkiv Obalst, Ukraine", "Izium, Kharkiv Olast, Ukraine"):
        place = gazetteer.resolve(query).place
        assert place is not None and place.admin1 == "Kharkiv Oblast", query
        assert distance_km(place, (49.2122, 37.2569)) <= 5.0, query
    snake = gazetteer.resolve("Snake Island-Zmiinyi, Ukraine").place
    assert snake is not None and snake.name == "Snake Island"
    lyman = gazetteer.resolve("Lyman (approximately), Donetsk Oblast, Ukraine").place
    assert lyman is not None and lyman.admin1 == "Donetsk Oblast" and lyman.name == "Lyman"


def test_water_bodies_resolve_coarsely(gazetteer: Gazetteer) -> None:
    for query in ("Black Sea", "Sea of Azov", "Kakhovka Reservoir", "Dnieper River"):
        place = gazetteer.resolve(query).place
        assert place is not None, query
        assert place.feature_kind == "water_body" and place.precision == "region", query
        assert place.uncertainty_km >= 20.0 and place.placed_at, query
    # the towns keep their names
    for town in ("Irpin", "Inhulets", "Desna"):
        place = gazetteer.resolve(town).place
        assert place is not None and place.feature_kind == "settlement", town


def test_unknown_name_resolves_to_none_and_keeps_the_name(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Xyzzyville")
    assert resolution.place is None
    assert not resolution.resolved
    assert resolution.matched_name == "Xyzzyville"
    assert resolution.reason


def test_unknown_name_in_a_named_region_falls_back_to_the_region(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Xyzzyville, Kharkiv Oblast")
    assert resolution.place is not None
    assert resolution.place.precision == "region"
    assert "not found" in resolution.reason


def test_resolution_is_deterministic(gazetteer: Gazetteer) -> None:
    for query in ("Oleksandrivka", "Novoselivka, Donetsk Oblast", "Andriivka, Kyiv Oblast"):
        first = gazetteer.resolve(query)
        second = gazetteer.resolve(query)
        assert first == second


def test_lookup_lists_all_places_of_a_name(gazetteer: Gazetteer) -> None:
    places = gazetteer.lookup("mykolaiv")
    regions = {p.admin1 for p in places}
    assert {"Mykolaiv Oblast", "Lviv Oblast"} <= regions
    assert places[0].admin1 == "Mykolaiv Oblast"  # the largest located one first
    assert gazetteer.lookup("Mykolaïv") == places
    assert gazetteer.lookup("Миколаїв") == places
    assert gazetteer.lookup("") == []


# --- precision honesty ----------------------------------------------------------------------


def test_katottg_villages_are_never_given_fine_precision(gazetteer: Gazetteer) -> None:
    coarse = [p for p in gazetteer.places if p.gazetteer_id.startswith("katottg:")]
    settlements = [p for p in coarse if p.feature_kind == "settlement"]
    assert len(settlements) > 10_000
    assert all(p.precision in ("district", "region") for p in settlements)
    assert all(p.placed_at for p in settlements)
    assert all(p.uncertainty_km >= 8.0 for p in settlements)


def test_every_place_is_well_formed(gazetteer: Gazetteer) -> None:
    for place in gazetteer.places:
        assert -90 <= place.lat <= 90 and -180 <= place.lon <= 180
        assert place.precision in ("point", "district", "settlement", "region", "country")
        assert place.gazetteer_id.split(":", 1)[0] in ("geonames", "katottg", "casebuilder")
        assert len(place.country) == 2
        if place.country == "UA" and place.feature_kind not in ("country", "water_body"):
            assert place.admin1, place
        if place.feature_kind == "water_body":
            assert place.precision == "region" and place.uncertainty_km >= 8.0, place


# --- distances --------------------------------------------------------------------------------


def test_distance_km() -> None:
    assert distance_km(KYIV, KYIV) == 0.0
    kyiv_kharkiv = distance_km(KYIV, KHARKIV)
    assert 400 < kyiv_kharkiv < 420
    assert distance_km(KHARKIV, KYIV) == pytest.approx(kyiv_kharkiv)
    assert distance_km((0.0, 0.0), (0.0, 180.0)) == pytest.approx(20015, rel=1e-3)


# --- normalisation and romanisation ---------------------------------------------------------


@pytest.mark.parametrize(
    ("cyrillic", "latin"),
    [
        ("Гроза", "Hroza"),
        ("Харків", "Kharkiv"),
        ("Київ", "Kyiv"),
        ("Згурівка", "Zghurivka"),
        ("Яготин", "Yahotyn"),
        ("Знам'янка", "Znam'ianka"),
        ("Їжакевич", "Yizhakevych"),
        ("Юрій", "Yurii"),
        ("Марія", "Mariia"),
        ("Щорс", "Shchors"),
        ("Ґорґани", "Gorgany"),
        ("Йосипівка", "Yosypivka"),
        ("Запоріжжя", "Zaporizhzhia"),
    ],
)
def test_ukrainian_national_romanisation(cyrillic: str, latin: str) -> None:
    assert romanise_ukrainian(cyrillic) == latin


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Mariupol'", "Mariupol"),
        ("Kup’iansk", "Kupiansk"),
        ("Kupʼiansk", "KUPIANSK"),
        ("Ivano-Frankivsk", "Ivano Frankivsk"),
        ("Mykolaïv", "mykolaiv"),
        ("Мерефа", "Merefa"),
    ],
)
def test_normalisation_merges_surface_differences(a: str, b: str) -> None:
    assert normalise_toponym(a) == normalise_toponym(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Vinnitsa", "Vinnytsia"),
        ("Izyum", "Izium"),
        ("Malaya Rohan", "Mala Rohan"),
        ("Gostomel", "Hostomel"),
        ("Zaporizhia", "Zaporizhzhia"),
        ("Slovyansk", "Sloviansk"),
    ],
)
def test_fold_merges_romanisation_variants(a: str, b: str) -> None:
    assert fold_toponym(a) == fold_toponym(b)


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_normalisation_is_idempotent_and_total(text: str) -> None:
    once = normalise_toponym(text)
    assert normalise_toponym(once) == once
    assert set(once) <= set("abcdefghijklmnopqrstuvwxyz0123456789 ")
    assert set(fold_toponym(text)) <= set("abcdefghijklmnopqrstuvwxyz0123456789 ")
    assert fold_toponym(text) == fold_toponym(once)
    romanise_ukrainian(text)


# --- text scanner -----------------------------------------------------------------------------


def test_scanner_finds_places_with_offsets(gazetteer: Gazetteer) -> None:
    text = (
        "On Sunday, shelling hit Kharkiv and Chuhuiv. Strikes near Nova Kakhovka "
        "and in Kharkiv region were reported; Slava Ukraini, said the Azov regiment."
    )
    mentions = gazetteer.find_toponyms(text)
    found = [m.text for m in mentions]
    assert found == ["Kharkiv", "Chuhuiv", "Nova Kakhovka", "Kharkiv region"]
    for mention in mentions:
        assert text[mention.start : mention.end] == mention.text
        assert mention.candidates
    assert mentions[3].candidates[0].precision == "region"


def test_scanner_common_words_need_a_place_context(gazetteer: Gazetteer) -> None:
    assert not gazetteer.find_toponyms("Peremoha! The crowd chanted peremoha.")
    mentions = gazetteer.find_toponyms("Shells fell on the village of Peremoha overnight.")
    assert [m.text for m in mentions] == ["Peremoha"]
    assert not gazetteer.find_toponyms("Bread queue. Victory Day. Peace talks. Mission report.")


def test_scanner_possessive_and_cyrillic(gazetteer: Gazetteer) -> None:
    mentions = gazetteer.find_toponyms("Kharkiv's mayor spoke. Обстріл Харкова та Гроза.")
    assert mentions[0].text == "Kharkiv"
    assert "Гроза" in [m.text for m in mentions]


# Approximate coordinates from public maps (independent of the gazetteer's data).
BELGOROD = (50.597, 36.588)
KURSK = (51.730, 36.193)
BRYANSK = (53.243, 34.364)
VORONEZH = (51.672, 39.184)
ROSTOV_ON_DON = (47.235, 39.701)
MOSCOW = (55.756, 37.617)
MINSK = (53.902, 27.562)
ISTANBUL = (41.009, 28.978)


def _mentions(gazetteer: Gazetteer, text: str) -> list[tuple[str, str, str]]:
    """(text, kind, country) of each mention, after checking the offsets."""
    found = gazetteer.find_toponyms(text)
    for mention in found:
        assert text[mention.start : mention.end] == mention.text
        assert mention.candidates and mention.place is mention.candidates[0]
    return [(m.text, m.kind, m.country) for m in found]


def test_scanner_lower_case_use_does_not_hide_well_known_names(gazetteer: Gazetteer) -> None:
    text = (
        "Bodies lay in the streets of the Kyiv suburbs. Kyiv Mayor Vitali Klitschko spoke. "
        "The column never made it to kyiv, and Odesa, not odesa, was hit."
    )
    found = _mentions(gazetteer, text)
    assert [t for t, _, _ in found] == ["Kyiv", "Kyiv", "Odesa"]
    assert all(kind == "settlement" for _, kind, _ in found)


def test_scanner_lower_case_rule_still_guards_small_and_common_names(gazetteer: Gazetteer) -> None:
    # A village's name written in lower case elsewhere in the same text still needs a place
    # context; a stoplist word needs one whatever the text does.
    assert not _mentions(gazetteer, "Hroza had warned them. The hroza of war came.")
    assert [t for t, _, _ in _mentions(gazetteer, "In Hroza, the hroza of war came.")] == ["Hroza"]
    assert not _mentions(gazetteer, "Victory is near, they said after the victory parade.")


def test_scanner_finds_water_bodies_not_settlements(gazetteer: Gazetteer) -> None:
    text = (
        "Mariupol, a port on the Sea of Azov, was cut off. Missiles struck the Black Sea port "
        "of Odesa. Troops crossed the Dnipro River near Kherson, and the Kakhovka Reservoir "
        "drained after the dam was blown up."
    )
    found = _mentions(gazetteer, text)
    assert found == [
        ("Mariupol", "settlement", "UA"),
        ("Sea of Azov", "water_body", "XZ"),
        ("Black Sea", "water_body", "XZ"),
        ("Odesa", "settlement", "UA"),
        ("Dnipro River", "water_body", "UA"),
        ("Kherson", "settlement", "UA"),
        ("Kakhovka Reservoir", "water_body", "UA"),
    ]
    for mention in gazetteer.find_toponyms(text):
        if mention.kind == "water_body":
            assert all(p.feature_kind == "water_body" for p in mention.candidates)
            assert mention.place.precision == "region"


def test_scanner_name_beside_a_water_word_is_not_the_town(gazetteer: Gazetteer) -> None:
    # Irpin and Inhulets are towns as well as rivers; Udy is a village on a river the
    # gazetteer does not know: skipped rather than taken for the village.
    text = (
        "Bridges over the Irpin River were blown. Further south the river Irpin flooded. "
        "Shells fell beside the Inhulets river and along the Udy River."
    )
    found = _mentions(gazetteer, text)
    assert found == [
        ("Irpin River", "water_body", "UA"),
        ("river Irpin", "water_body", "UA"),
        ("Inhulets river", "water_body", "UA"),
    ]
    assert _mentions(gazetteer, "Irpin was shelled.") == [("Irpin", "settlement", "UA")]
    assert _mentions(gazetteer, "Вибухи над річкою Дніпро.") == [
        ("річкою Дніпро", "water_body", "UA")
    ]


def test_scanner_finds_countries_and_foreign_places(gazetteer: Gazetteer) -> None:
    text = (
        "Troops came from Belarus and Russia. The ministers of France, Germany and the United "
        "Kingdom met; Britain's envoy flew on to Washington. Talks in Istanbul, Moscow and "
        "Minsk followed, while Turkey and Georgia stayed neutral."
    )
    found = _mentions(gazetteer, text)
    assert found == [
        ("Belarus", "country", "BY"),
        ("Russia", "country", "RU"),
        ("France", "country", "FR"),
        ("Germany", "country", "DE"),
        ("United Kingdom", "country", "GB"),
        ("Britain", "country", "GB"),
        ("Washington", "settlement", "US"),
        ("Istanbul", "settlement", "TR"),
        ("Moscow", "settlement", "RU"),
        ("Minsk", "settlement", "BY"),
        ("Turkey", "country", "TR"),
        ("Georgia", "country", "GE"),
    ]
    places = {m.text: m.place for m in gazetteer.find_toponyms(text)}
    assert distance_km(places["Moscow"], MOSCOW) <= 10.0
    assert distance_km(places["Minsk"], MINSK) <= 10.0
    assert distance_km(places["Istanbul"], ISTANBUL) <= 15.0
    assert places["Russia"].precision == "country"


def test_scanner_finds_border_regions_and_towns_of_russia(gazetteer: Gazetteer) -> None:
    text = (
        "Drones struck Belgorod and the Kursk region overnight; Shebekino, Sudzha and Bryansk "
        "Oblast reported damage, and a fuel depot burned in Rostov-on-Don."
    )
    found = gazetteer.find_toponyms(text)
    assert [(m.text, m.kind, m.country) for m in found] == [
        ("Belgorod", "settlement", "RU"),
        ("Kursk region", "region", "RU"),
        ("Shebekino", "settlement", "RU"),
        ("Sudzha", "settlement", "RU"),
        ("Bryansk Oblast", "region", "RU"),
        ("Rostov-on-Don", "settlement", "RU"),
    ]
    assert distance_km(found[0].place, BELGOROD) <= 10.0
    assert distance_km(found[5].place, ROSTOV_ON_DON) <= 10.0
    assert found[1].place.admin1 == "Kursk Oblast"
    assert found[3].place.admin1 == "Kursk Oblast"


def test_scanner_ignores_demonyms_and_keeps_possessives(gazetteer: Gazetteer) -> None:
    text = (
        "Ukrainian soldiers said the Russians had left. The British foreign secretary and a "
        "German newspaper blamed Russian-backed forces; Ukrainians and Russians died."
    )
    assert _mentions(gazetteer, text) == []
    for text in ("Ukraine's army held.", "Ukraine’s army held."):
        (mention,) = gazetteer.find_toponyms(text)
        assert mention.text == "Ukraine" and (mention.start, mention.end) == (0, 7)
        assert mention.kind == "country" and mention.place.precision == "country"


def test_scanner_person_names_and_regional_offices(gazetteer: Gazetteer) -> None:
    text = (
        "The Kharkiv regional governor spoke first. Deputy mayor Serhiy Orlov and the governor, "
        "Vyacheslav Chaus, were there. Chaus said the city held; Kyiv said nothing."
    )
    found = _mentions(gazetteer, text)
    assert found == [("Kharkiv", "region", "UA"), ("Kyiv", "settlement", "UA")]
    assert gazetteer.find_toponyms(text)[0].place.admin1 == "Kharkiv Oblast"


def test_country_names_resolve_to_the_country(gazetteer: Gazetteer) -> None:
    for query, code in (
        ("Russia", "RU"),
        ("Russian Federation", "RU"),
        ("Britain", "GB"),
        ("United Kingdom", "GB"),
        ("United States", "US"),
        ("Türkiye", "TR"),
        ("Moldova", "MD"),
        ("Ukraine", "UA"),
        ("Росія", "RU"),
    ):
        place = gazetteer.resolve(query).place
        assert place is not None, query
        assert (place.precision, place.feature_kind, place.country) == ("country", "country", code)
        assert gazetteer.country_of(place) == place
    russia = gazetteer.country("ru")
    assert russia is not None and distance_km(russia, MOSCOW) <= 10.0  # placed at its capital
    assert "only the country is known" in russia.placed_at


def test_russian_border_towns_resolve_with_their_own_coordinates(gazetteer: Gazetteer) -> None:
    for query, expected in (
        ("Belgorod", BELGOROD),
        ("Kursk", KURSK),
        ("Bryansk", BRYANSK),
        ("Voronezh", VORONEZH),
        ("Rostov-on-Don", ROSTOV_ON_DON),
        ("Moscow", MOSCOW),
        ("Minsk", MINSK),
    ):
        place = gazetteer.resolve(query).place
        assert place is not None, query
        assert place.precision == "settlement" and place.country != "UA", (query, place)
        assert distance_km(place, expected) <= 10.0, (query, place)
    sudzha = gazetteer.resolve("Sudzha, Kursk Oblast").place
    assert sudzha is not None and sudzha.country == "RU" and sudzha.admin1 == "Kursk Oblast"
    assert distance_km(sudzha, (51.19, 35.27)) <= 5.0
    # A region named in the query outweighs the country it names (as the monitor writes it).
    shebekino = gazetteer.resolve("Shebekino, Belgorod Oblast, Ukraine").place
    assert shebekino is not None and shebekino.country == "RU"
    kursk_oblast = gazetteer.resolve("Kursk Oblast").place
    assert kursk_oblast is not None and kursk_oblast.precision == "region"
    russia = gazetteer.country_of(sudzha)
    assert russia is not None and russia.name == "Russia"


def test_country_of_a_place_and_of_a_mention(gazetteer: Gazetteer) -> None:
    (kharkiv,) = gazetteer.find_toponyms("Kharkiv was shelled.")
    ukraine = gazetteer.country_of(kharkiv)
    assert ukraine is not None and ukraine.name == "Ukraine" and ukraine.country == "UA"
    sevastopol = gazetteer.resolve("Sevastopol").place
    assert sevastopol is not None and gazetteer.country_of(sevastopol) == ukraine
    sea = gazetteer.resolve("Black Sea").place
    assert sea is not None and sea.feature_kind == "water_body"
    assert gazetteer.country_of(sea) is None  # international waters


# === context: raions, locators, document resolution, false hits, rivers, uncertainty ===

# Approximate coordinates from public maps (independent of the gazetteer's data).
KHERSON = (46.6354, 32.6169)
KRAMATORSK = (48.7389, 37.5848)


def _found(gazetteer: Gazetteer, text: str) -> list[tuple[str, str, int | None]]:
    """(text, kind, locates) of each mention, after checking offsets and candidates."""
    mentions = gazetteer.find_toponyms(text)
    for mention in mentions:
        assert text[mention.start : mention.end] == mention.text
        assert mention.candidates
        if mention.locates is not None:
            assert 0 <= mention.locates < len(mentions)
    return [(m.text, m.kind, m.locates) for m in mentions]


def _raion(gazetteer: Gazetteer, name: str) -> Place:
    (raion,) = [p for p in gazetteer.places if p.is_raion and p.name == name]
    return raion


# --- raions ------------------------------------------------------------------------------------


def test_every_raion_is_a_coarse_place(gazetteer: Gazetteer) -> None:
    areas = [p for p in gazetteer.places if p.is_raion and not p.is_hromada]
    raions = [p for p in areas if p.country == "UA"]
    assert len(raions) == 136  # the raions of KATOTTG since the reform of 2020
    abroad = [p for p in areas if p.country != "UA"]  # foreign.toml [[district]]
    assert abroad and all(p.gazetteer_id.startswith("casebuilder:district-")
                          and p.name.endswith(" district") and p.admin1 == p.parent
                          and p.precision == "region" for p in abroad)
    for raion in raions:
        assert raion.feature_kind == "region" and raion.precision == "region", raion
        assert raion.admin1 == raion.parent and raion.name.endswith(" raion"), raion
        assert 20.0 <= raion.uncertainty_km <= 150.0, raion
        assert raion.placed_at and raion.gazetteer_id.startswith("katottg:"), raion
    oblasts = [p for p in gazetteer.places if p.feature_kind == "region" and not p.is_raion]
    assert not any(p.is_raion for p in oblasts) and len(oblasts) >= 27
    # a raion lies around its places: Kharkivskyi raion around Kharkiv
    kharkivskyi = _raion(gazetteer, "Kharkivskyi raion")
    assert distance_km(kharkivskyi, KHARKIV) <= 30.0
    assert "located places of Kharkivskyi raion" in kharkivskyi.placed_at


def test_every_located_hromada_is_an_area_of_its_raion(gazetteer: Gazetteer) -> None:
    hromadas = [p for p in gazetteer.places if p.is_hromada]
    assert len(hromadas) > 1400  # of the 1,469 hromadas of 2020, those with a located place
    for hromada in hromadas:
        assert hromada.feature_kind == "region" and hromada.precision == "region", hromada
        assert hromada.parent.endswith(" raion") and hromada.placed_at, hromada
        assert 17.0 <= hromada.uncertainty_km <= 30.0, hromada
    for query in ("Vilkhivska hromada", "Vilkhivka community", "Vilkhivska hromada, Kharkiv"):
        place = gazetteer.resolve(query).place
        assert place is not None and place.name == "Vilkhivska hromada", query
        assert place.parent == "Kharkivskyi raion" and distance_km(place, KHARKIV) <= 30.0
    # a hromada narrows a name down like a raion
    hroza = gazetteer.resolve("Hroza, Shevchenkivska hromada, Kharkiv region").place
    assert hroza is not None and "Shevchenkivska hromada" in hroza.parent
    assert hroza.admin1 == "Kharkiv Oblast"


@pytest.mark.parametrize(
    "query",
    [
        "Kharkivskyi raion",
        "Kharkivskyi district",
        "Kharkivs'kyi rayon",
        "Kharkiv raion",
        "Kharkiv district, Kharkiv Oblast",
        "Kharkivskyi, Kharkiv",  # ACLED: admin2, admin1
        "Харківський район",
    ],
)
def test_raion_names_and_adjectives_resolve_to_the_raion(
    gazetteer: Gazetteer, query: str
) -> None:
    place = gazetteer.resolve(query).place
    assert place is not None and place.name == "Kharkivskyi raion", (query, place)


def test_renamed_raion_keeps_its_former_name(gazetteer: Gazetteer) -> None:
    place = gazetteer.resolve("Sievierodonetskyi, Luhansk").place
    assert place is not None and place.is_raion and place.admin1 == "Luhansk Oblast"
    kramatorskyi = gazetteer.resolve("Kramatorsk district").place
    assert kramatorskyi is not None and kramatorskyi.name == "Kramatorskyi raion"
    assert distance_km(kramatorskyi, KRAMATORSK) <= 40.0


def test_raion_in_the_query_or_context_picks_the_village(gazetteer: Gazetteer) -> None:
    # A name borne by located villages in two raions of one oblast: the raion decides.
    by_raion: dict[tuple[str, str], dict[str, Place]] = defaultdict(dict)
    for place in gazetteer.places:
        if place.feature_kind == "settlement" and place.precision == "settlement":
            raion = next((u for u in place.parent.split(", ") if u.endswith(" raion")), "")
            if raion and place.admin1 == "Kharkiv Oblast":
                by_raion[(place.name, place.admin1)].setdefault(raion, place)
    name, admin1 = next(k for k, v in sorted(by_raion.items()) if len(v) >= 2)
    for raion_name, expected in sorted(by_raion[(name, admin1)].items()):
        adjective = raion_name.removesuffix(" raion")
        for resolution in (
            gazetteer.resolve(f"{name}, {adjective}, {admin1}"),
            gazetteer.resolve(name, PlaceContext(within=(adjective, admin1))),
            gazetteer.resolve(name, PlaceContext(within=(f"{adjective} district",))),
            gazetteer.resolve(name, PlaceContext(admin1=(raion_name,))),
        ):
            assert resolution.place is not None, (name, raion_name)
            assert raion_name in resolution.place.parent, (name, raion_name, resolution)
            assert distance_km(resolution.place, expected) <= 1.0
            assert adjective in resolution.reason


def test_within_weighs_like_the_query(gazetteer: Gazetteer) -> None:
    for query, within in (
        ("Vilkhivka, Kharkivskyi, Kharkiv", ("Kharkivskyi", "Kharkiv")),
        ("Mykolaiv, Lviv Oblast", ("Lviv Oblast",)),
        ("Chuhuiv, south of Kharkiv", ("south of Kharkiv",)),
    ):
        head = query.split(",")[0]
        assert gazetteer.resolve(head, PlaceContext(within=within)).place == (
            gazetteer.resolve(query).place
        ), query
    vilkhivka = gazetteer.resolve("Vilkhivka", PlaceContext(within=("Kharkivskyi", "Kharkiv")))
    assert vilkhivka.place is not None and vilkhivka.place.admin1 == "Kharkiv Oblast"
    assert "Kharkivskyi raion" in vilkhivka.place.parent


def test_unknown_name_in_a_raion_falls_back_to_the_raion(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Xyzzyivka, Kupianskyi, Kharkiv")
    assert resolution.place is not None and resolution.place.name == "Kupianskyi raion"
    assert resolution.place.precision == "region" and "not found" in resolution.reason


def test_lone_candidate_outside_the_named_region_gives_way_to_the_region(
    gazetteer: Gazetteer,
) -> None:
    # A village known only in one oblast, named with a neighbouring oblast: the text says
    # where it is, so the neighbouring oblast (coarse) is taken, not the wrong village.
    kherson = gazetteer.resolve("Kherson Oblast").place
    assert kherson is not None
    counts: dict[str, list[Place]] = defaultdict(list)
    for place in gazetteer.places:
        if place.feature_kind == "settlement" and place.country == "UA":
            counts[place.name].append(place)
    name = next(
        n for n, found in sorted(counts.items())
        if len(found) == 1 and found[0].admin1 == "Mykolaiv Oblast"
        and (found[0].population or 0) < 10_000 and len(gazetteer.lookup(n)) == 1
        and distance_km(found[0], kherson) <= 100.0 and " " not in n
    )  # fmt: skip
    resolution = gazetteer.resolve(f"{name}, Kherson Oblast")
    assert resolution.place == kherson, resolution
    assert resolution.candidates and resolution.candidates[0].place.admin1 == "Mykolaiv Oblast"
    in_text = gazetteer.resolve(name, PlaceContext(within=("Kherson Oblast",)))
    assert in_text.place == kherson
    # A town of 10,000+ people just over the line is still taken (a region misnamed).
    lysychansk = gazetteer.resolve("Lysychansk, Donetsk Oblast").place
    assert lysychansk is not None and lysychansk.name == "Lysychansk"
    # A region named only elsewhere in the document does not overrule the lone candidate.
    elsewhere = gazetteer.resolve(name, PlaceContext(admin1=("Kherson Oblast",)))
    assert elsewhere.place is not None and elsewhere.place.admin1 == "Mykolaiv Oblast"


def test_city_districts_of_katottg(gazetteer: Gazetteer) -> None:
    kherson = gazetteer.resolve("Tsentralnyi district, Kherson").place
    assert kherson is not None and kherson.feature_kind == "city_district"
    assert kherson.parent == "Kherson" and kherson.precision == "district"
    assert distance_km(kherson, KHERSON) <= 10.0 and kherson.uncertainty_km >= 3.0
    # the shipped districts keep their own centres and are not duplicated
    kyiv = [p for p in gazetteer.lookup("Shevchenkivskyi district") if p.parent == "Kyiv"]
    assert len(kyiv) == 1 and kyiv[0].gazetteer_id.startswith("casebuilder:")


# --- locators in running text ------------------------------------------------------------------


def test_acled_locators(gazetteer: Gazetteer) -> None:
    text = (
        "On 5 May, Russian forces shelled Vilkhivka (Kharkivskyi, Kharkiv) and Novoselivka "
        "(Kramatorskyi, Donetsk). Drones hit Hostomel (Buchanskyi, Kyiv)."
    )
    assert _found(gazetteer, text) == [
        ("Vilkhivka", "settlement", None),
        ("Kharkivskyi", "region", 0),
        ("Kharkiv", "region", 0),
        ("Novoselivka", "settlement", None),
        ("Kramatorskyi", "region", 3),
        ("Donetsk", "region", 3),
        ("Hostomel", "settlement", None),
        ("Buchanskyi", "region", 6),
        ("Kyiv", "region", 6),
    ]
    mentions = gazetteer.find_toponyms(text)
    assert mentions[1].place.name == "Kharkivskyi raion"
    assert mentions[2].place.name == "Kharkiv Oblast"  # the oblast, not the city
    assert mentions[8].place.name == "Kyiv Oblast"
    places = [r.place for r in gazetteer.resolve_mentions(mentions)]
    assert all(p is not None for p in places)
    vilkhivka, novoselivka, hostomel = places[0], places[3], places[6]
    assert vilkhivka is not None and vilkhivka.admin1 == "Kharkiv Oblast"
    assert "Kharkivskyi raion" in vilkhivka.parent
    assert novoselivka is not None and "Kramatorskyi raion" in novoselivka.parent
    assert hostomel is not None and distance_km(hostomel, (50.5692, 30.2650)) <= 5.0
    assert places[1] is not None and places[1].is_raion


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Shelling hit Hroza (Kharkiv Oblast) overnight.",
         [("Hroza", "settlement", None), ("Kharkiv Oblast", "region", 0)]),
        ("Shelling hit Merefa, Kharkiv.",
         [("Merefa", "settlement", None), ("Kharkiv", "region", 0)]),
        ("Shelling hit Merefa, Kharkiv Oblast, on Monday.",
         [("Merefa", "settlement", None), ("Kharkiv Oblast", "region", 0)]),
        ("Vilkhivka, Kharkivskyi raion, Kharkiv Oblast was hit.",
         [("Vilkhivka", "settlement", None), ("Kharkivskyi raion", "region", 0),
          ("Kharkiv Oblast", "region", 0)]),
        ("Vuhledar, Oblast Donetsk was hit.",
         [("Vuhledar", "settlement", None), ("Oblast Donetsk", "region", 0)]),
        ("The village of Hroza in the Kupianskyi district of the Kharkiv region was hit.",
         [("Hroza", "settlement", None), ("Kupianskyi district", "region", 0),
          ("Kharkiv region", "region", 0)]),
        ("Russian troops shelled Nikopol in the Dnipropetrovsk region.",
         [("Nikopol", "settlement", None), ("Dnipropetrovsk region", "region", 0)]),
        ("A missile hit the Shevchenkivskyi district of Kyiv.",
         [("Shevchenkivskyi district", "city_district", None), ("Kyiv", "settlement", 0)]),
        ("Shells fell on Kyiv's Obolon district.",
         [("Kyiv", "settlement", 1), ("Obolon", "city_district", None)]),
        # lists and clauses, not locators
        ("Bucha, Irpin, Kyiv.",
         [("Bucha", "settlement", None), ("Irpin", "settlement", None),
          ("Kyiv", "settlement", None)]),
        ("Shelling hit Kharkiv Oblast and Sumy Oblast.",
         [("Kharkiv Oblast", "region", None), ("Sumy Oblast", "region", None)]),
        ("Strikes on Mariupol, Kharkiv and Izium.",
         [("Mariupol", "settlement", None), ("Kharkiv", "settlement", None),
          ("Izium", "settlement", None)]),
        ("Strikes on Kupiansk, Kharkiv Oblast, and Izium.",
         [("Kupiansk", "settlement", None), ("Kharkiv Oblast", "region", 0),
          ("Izium", "settlement", None)]),
    ],
)  # fmt: skip
def test_locator_patterns(
    gazetteer: Gazetteer, text: str, expected: list[tuple[str, str, int | None]]
) -> None:
    assert _found(gazetteer, text) == expected


def test_district_of_a_city_resolves_in_that_city(gazetteer: Gazetteer) -> None:
    for text, city in (
        ("A missile hit the Shevchenkivskyi district of Kyiv.", KYIV),
        ("Shevchenkivskyi district of Kharkiv came under fire.", KHARKIV),
        ("Shells fell on Kyiv's Obolon district.", KYIV),
        ("The Tsentralnyi district of Kherson was shelled.", KHERSON),
    ):
        mentions = gazetteer.find_toponyms(text)
        (located,) = [m for m in mentions if m.locates is None]
        resolution = gazetteer.resolve_mentions(mentions)[mentions.index(located)]
        assert resolution.place is not None, text
        assert resolution.place.feature_kind == "city_district", (text, resolution)
        assert distance_km(resolution.place, city) <= 15.0, (text, resolution)
        assert located.place == resolution.place, text  # the scanner lists it first too


def test_lone_candidate_with_a_locator_in_the_text(gazetteer: Gazetteer) -> None:
    text = "Shlyakhove, Kherson Oblast was shelled."
    mentions = gazetteer.find_toponyms(text)
    assert [(m.text, m.locates) for m in mentions] == [
        ("Shlyakhove", None),
        ("Kherson Oblast", 0),
    ]
    # the scanner lists every place of that name up to romanisation, not only the Odesa one
    assert len(mentions[0].candidates) > 1
    place = gazetteer.resolve_mentions(mentions)[0].place
    assert place is not None and place.admin1 == "Kherson Oblast"


def test_resolve_mentions_uses_the_whole_document(gazetteer: Gazetteer) -> None:
    text = (
        "The Kharkiv region was shelled. In Novoselivka two people died; Chuhuiv was hit too."
    )
    mentions = gazetteer.find_toponyms(text)
    resolutions = gazetteer.resolve_mentions(mentions)
    assert len(resolutions) == len(mentions)
    by_text = {m.text: r.place for m, r in zip(mentions, resolutions, strict=True)}
    assert by_text["Kharkiv region"] is not None
    assert by_text["Kharkiv region"].name == "Kharkiv Oblast"
    novoselivka = by_text["Novoselivka"]
    assert novoselivka is not None and novoselivka.admin1 == "Kharkiv Oblast"
    # context given by the caller counts too, and the answer does not depend on caching
    again = gazetteer.resolve_mentions(mentions, PlaceContext(admin1=("Kharkiv Oblast",)))
    assert [r.place for r in again] == [r.place for r in resolutions]


def test_a_name_repeated_in_a_document_is_the_place_its_local_context_gives(
    gazetteer: Gazetteer,
) -> None:
    text = (
        "Hroza buries its dead\n\n"
        "The toll from the strike on a cafe in Hroza rose to 52, Kharkiv regional governor "
        "Oleh Syniehubov said.\n\n"
        "A soldier was first buried in the Dnipropetrovsk region, not in Hroza."
    )
    mentions = gazetteer.find_toponyms(text)
    hrozas = [
        (m.sentence, r.place.admin1 if r.place else None)
        for m, r in zip(mentions, gazetteer.resolve_mentions(mentions), strict=True)
        if m.text == "Hroza"
    ]
    # the headline has no context of its own: it takes the first placed occurrence's Hroza;
    # the last keeps the Hroza its own sentence's region gives
    assert [admin1 for _s, admin1 in hrozas] == [
        "Kharkiv Oblast", "Kharkiv Oblast", "Dnipropetrovsk Oblast"]


def test_bare_raion_adjective_counts_only_as_a_locator(gazetteer: Gazetteer) -> None:
    assert _found(gazetteer, "Officials in Kramatorskyi were quoted.") == []
    assert _found(gazetteer, "Shelling in the Kramatorskyi raion continued.") == [
        ("Kramatorskyi raion", "region", None)
    ]


# --- scanner false hits -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Shells fell on Nova Foobarivka overnight.",
        "In the morning, Verkhnia Xyzivka was quiet.",
        "Residents of Velyka Qwertivka fled.",
        "Shelling of Stara Blahivka and Mala Hmmivka continued.",
        "Troops entered Novyi Zzzyiv at dawn.",
        "Anna Kovalenko, a nurse, described the night.",
        "Part of the convoy turned back. Man in uniform stopped us.",
        "They met in Gorky Park. Later, on Pushkin Street and Lenin Square, crowds gathered.",
        "Nice weather. Reading the report, Split decisions, Mobile phones, Union leaders.",
    ],
)
def test_scanner_false_hits(gazetteer: Gazetteer, text: str) -> None:
    assert _found(gazetteer, text) == []


def test_scanner_still_finds_real_names(gazetteer: Gazetteer) -> None:
    assert _found(gazetteer, "Shells fell on Nova Kakhovka and Velyka Novosilka.") == [
        ("Nova Kakhovka", "settlement", None),
        ("Velyka Novosilka", "settlement", None),
    ]
    # a headline in title case is not a run of unknown names
    assert _found(gazetteer, "Shelling In Hroza Kills Three")[0][0] == "Hroza"
    assert _found(gazetteer, "Hroza Village Council said")[0][0] == "Hroza"
    assert [t for t, _, _ in _found(gazetteer, "Rockets hit Moscow and Minsk.")] == [
        "Moscow",
        "Minsk",
    ]


def test_generic_square_needs_a_named_city(gazetteer: Gazetteer) -> None:
    # the gazetteer knows Kharkiv's Freedom (Svobody) Square only
    assert _found(gazetteer, "Svobody Square in Kherson was hit.") == [
        ("Kherson", "settlement", None)
    ]
    assert _found(gazetteer, "A missile hit Svobody Square in Kharkiv.") == [
        ("Svobody Square", "feature", None),
        ("Kharkiv", "settlement", 0),
    ]
    # no town named: the square is the only evidence, and is kept
    assert _found(gazetteer, "A missile hit Svobody Square.") == [
        ("Svobody Square", "feature", None)
    ]
    # a site whose name is its own is kept whatever towns the text names
    assert ("Azovstal", "feature", None) in _found(gazetteer, "Kyiv said Azovstal held out.")
    kharkiv = gazetteer.resolve("Kharkiv").place
    kherson = gazetteer.resolve("Kherson").place
    assert kharkiv is not None and kherson is not None
    far = gazetteer.resolve("Svobody Square", PlaceContext(nearby=(kherson.coordinates,)))
    assert far.place is None and far.candidates
    near = gazetteer.resolve("Svobody Square", PlaceContext(nearby=(kharkiv.coordinates,)))
    assert near.place is not None and near.place.name == "Freedom Square"
    in_kherson = gazetteer.resolve("Svobody Square, Kherson").place
    assert in_kherson == kherson


def test_left_bank_of_mariupol_needs_mariupol(gazetteer: Gazetteer) -> None:
    assert _found(gazetteer, "Kyiv shelled the Left Bank overnight.") == [
        ("Kyiv", "settlement", None)
    ]
    found = _found(gazetteer, "In Mariupol, the Left Bank was cut off.")
    assert ("Left Bank", "city_district", None) in found


# --- rivers named like towns ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Troops crossed the Dnipro near Kherson.", "water_body"),
        ("Shelling across the Dnipro continued.", "water_body"),
        ("Positions on the Dnipro's left bank were hit.", "water_body"),
        ("Ukrainian units landed on the Dnipro left bank.", "water_body"),
        ("Dnipro left bank villages were evacuated.", "water_body"),
        ("The Dnipro river rose.", "water_body"),
        ("The Dnipro city council met.", "settlement"),
        ("The Dnipro mayor spoke.", "settlement"),
        ("Missiles hit Dnipro overnight.", "settlement"),
        ("A Dnipro-based charity helped.", "settlement"),
    ],
)
def test_dnipro_the_river_and_the_city(gazetteer: Gazetteer, text: str, kind: str) -> None:
    mentions = [m for m in gazetteer.find_toponyms(text) if "Dnipro" in m.text]
    assert mentions and mentions[0].kind == kind, (text, mentions)
    if kind == "water_body":
        assert all(p.feature_kind == "water_body" for p in mentions[0].candidates)
        assert gazetteer.resolve_mentions(mentions)[0].place == mentions[0].place


# --- honest uncertainty ---------------------------------------------------------------------------


def test_uncertainty_is_always_set_and_ranks_coarse_below_located(gazetteer: Gazetteer) -> None:
    ranges: dict[str, list[float]] = defaultdict(list)
    for place in gazetteer.places:
        assert place.uncertainty_km > 0, place
        if place.feature_kind == "settlement" and place.country == "UA":
            kind = "by hromada or raion" if place.precision == "district" else place.precision
            ranges[kind].append(place.uncertainty_km)
        elif place.is_hromada:
            ranges["hromada"].append(place.uncertainty_km)
        elif place.is_raion:
            ranges["raion"].append(place.uncertainty_km)
        elif place.feature_kind == "region" and place.country == "UA":
            ranges["oblast"].append(place.uncertainty_km)
        elif place.country == "UA" or place.feature_kind != "settlement":
            ranges[place.precision].append(place.uncertainty_km)
    assert min(ranges["settlement"]) >= 2.5 and max(ranges["settlement"]) <= 20.0
    assert min(ranges["by hromada or raion"]) >= 17.0
    assert max(ranges["by hromada or raion"]) <= 60.0
    assert min(ranges["raion"]) >= 20.0
    assert min(ranges["hromada"]) >= 17.0 and max(ranges["hromada"]) <= 30.0
    assert min(ranges["oblast"]) >= 20.0
    assert max(ranges["point"]) <= 10.0
    assert min(ranges["country"]) >= 50.0
    # a village placed at its hromada's centre is coarser than any located village or town
    # of under 100,000 people, and than the median city
    located = [
        p.uncertainty_km for p in gazetteer.places
        if p.precision == "settlement" and p.country == "UA" and (p.population or 0) < 100_000
    ]  # fmt: skip
    assert max(located) < min(ranges["by hromada or raion"])
    assert statistics.median(ranges["settlement"]) < 5.0
    kyiv = gazetteer.resolve("Kyiv").place
    assert kyiv is not None and 12.0 <= kyiv.uncertainty_km <= 20.0  # it spans ~30 km


def test_locator_mentions_are_frozen_values(gazetteer: Gazetteer) -> None:
    (mention, locator) = gazetteer.find_toponyms("Hroza (Kharkiv Oblast)")
    assert isinstance(locator, ToponymMention) and locator.locates == 0
    assert mention.locates is None
    with pytest.raises(AttributeError):
        locator.locates = None  # type: ignore[misc]


# --- local context, datelines, lists of regions, institutions ----------------------------------


def _resolved(gazetteer: Gazetteer, text: str) -> list[tuple[str, Place | None]]:
    mentions = gazetteer.find_toponyms(text)
    resolutions = gazetteer.resolve_mentions(mentions)
    return [(m.text, r.place) for m, r in zip(mentions, resolutions, strict=True)]


MONITOR_RECORDS = (
    "04/07/2022 Sloviansk central market hit by cluster munitions\n"
    "Province: Donetsk Oblast. Town/city: Sloviansk. Footage shows fires at the market.\n"
    "\n"
    "11/08/2022 Damage to a residential building in Nikolaev after overnight shelling\n"
    "Province: Mykolaiv Oblast. Town/city: Nikolaev. Footage of a damaged building.\n"
    "\n"
    "27/09/2022 Russian strike on Zaporizhia outskirts, bodies at the scene\n"
    "Province: Zaporizhzhia Oblast. Town/city: Zaporizhia. Images show a destroyed minibus.\n"
)


def test_region_of_the_same_record_outweighs_regions_elsewhere(gazetteer: Gazetteer) -> None:
    """Several monitor records in one document: each town is resolved in its own record's
    province, not pulled towards a hamlet of its name near another record's places."""
    city = gazetteer.resolve("Zaporizhzhia").place
    assert city is not None and (city.population or 0) > 500_000
    found = _resolved(gazetteer, MONITOR_RECORDS)
    zaporizhia = [place for text, place in found if text == "Zaporizhia"]
    assert len(zaporizhia) == 2
    assert all(place == city for place in zaporizhia), zaporizhia
    nikolaev = [place for text, place in found if text == "Nikolaev"]
    assert nikolaev and all(p is not None and p.admin1 == "Mykolaiv Oblast" for p in nikolaev)
    # the same records one a line (no blank lines): each line is a record
    one_a_line = "\n".join(line for line in MONITOR_RECORDS.splitlines() if line.strip())
    assert all(
        place == city for text, place in _resolved(gazetteer, one_a_line) if text == "Zaporizhia"
    )


def test_mentions_carry_their_sentence_and_paragraph(gazetteer: Gazetteer) -> None:
    mentions = gazetteer.find_toponyms(MONITOR_RECORDS)
    zaporizhia = [m for m in mentions if m.text == "Zaporizhia"]
    oblast = next(m for m in mentions if m.text == "Zaporizhzhia Oblast")
    assert {m.paragraph for m in zaporizhia} == {oblast.paragraph} == {2}
    assert oblast.sentence not in {m.sentence for m in zaporizhia}  # same record, not sentence
    assert mentions[0].sentence == mentions[0].paragraph == 0
    # a mention built by hand has no place in a text, and resolves as before
    hand = ToponymMention(0, 10, "Zaporizhia", zaporizhia[0].candidates)
    assert hand.sentence == hand.paragraph == -1 and not hand.dateline
    (resolution,) = gazetteer.resolve_mentions([hand])
    assert resolution.place is not None


def test_local_region_outweighs_document_region(gazetteer: Gazetteer) -> None:
    text = (
        "Crimea was quiet overnight, officials in Simferopol said.\n\n"
        "In the Kyiv region, a drone hit Ukrainka."
    )
    ukrainka = dict(_resolved(gazetteer, text))["Ukrainka"]
    assert ukrainka is not None and ukrainka.admin1 == "Kyiv Oblast"
    # the same through the API: a region named beside the name before one named elsewhere
    resolution = gazetteer.resolve(
        "Ukrainka", PlaceContext(admin1=("Crimea", "Kyiv Oblast"), local_admin1=("Kyiv Oblast",))
    )
    assert resolution.place is not None and resolution.place.admin1 == "Kyiv Oblast"
    assert "beside it" in resolution.reason
    # without the local hint the document's regions still choose among their candidates
    crimea = gazetteer.resolve("Ukrainka", PlaceContext(admin1=("Crimea",))).place
    assert crimea is not None and crimea.admin1 == "Crimea"


def test_places_named_in_the_same_paragraph_weigh_first(gazetteer: Gazetteer) -> None:
    """A village named before its neighbours ("Kamianske and Stepnohirsk near Orikhiv") is
    placed beside them, not in a region another paragraph names."""
    text = (
        "Russian forces shelled Kamianske and Stepnohirsk near Orikhiv.\n\n"
        "Crimea was quiet, the occupation authorities said."
    )
    kamianske = dict(_resolved(gazetteer, text))["Kamianske"]
    assert kamianske is not None and kamianske.admin1 == "Zaporizhzhia Oblast"
    stepnohirsk = gazetteer.resolve("Stepnohirsk").place
    assert stepnohirsk is not None
    near = gazetteer.resolve(
        "Kamianske", PlaceContext(admin1=("Crimea",), local_nearby=(stepnohirsk.coordinates,))
    )
    assert near.place == kamianske and "beside it" in near.reason


@pytest.mark.parametrize(
    ("spelling", "official"),
    [("Zaporizhia", "Zaporizhzhia"), ("Kharkov", "Kharkiv"), ("Nikolaev", "Mykolaiv"),
     ("Kiev", "Kyiv")],
)  # fmt: skip
def test_variant_spelling_of_a_big_city_beats_hamlets(
    gazetteer: Gazetteer, spelling: str, official: str
) -> None:
    """Nearness to the document's other places, or a region named elsewhere in it, does not
    make a Russian-style or variant spelling of a big city a hamlet of that name."""
    city = gazetteer.resolve(official).place
    assert city is not None and (city.population or 0) >= 100_000
    for region, town in (("Donetsk Oblast", "Sloviansk"), ("Chernihiv Oblast", "Nizhyn"),
                         ("Kherson Oblast", "Kherson")):  # fmt: skip
        anchor = gazetteer.resolve(town).place
        assert anchor is not None
        context = PlaceContext(admin1=(region,), nearby=(anchor.coordinates,))
        assert gazetteer.resolve(spelling, context).place == city, (spelling, region)
    # a named locator still picks the hamlet: "Zaporizhia, Donetsk Oblast" is not the city
    hamlet = gazetteer.resolve("Zaporizhia, Donetsk Oblast").place
    assert hamlet is not None and hamlet.admin1 == "Donetsk Oblast"


def test_an_oblast_centre_by_its_own_name_beats_hamlets(gazetteer: Gazetteer) -> None:
    """"The town of Zaporizhzhia" in a paragraph on Mariupol, in a document that also names
    Chernihiv, is the oblast centre, not the village of that name nearer Mariupol nor a
    hamlet of Chernihiv Oblast."""
    city = gazetteer.resolve("Zaporizhzhia").place
    assert city is not None
    text = (
        "Shelling continued in Chernihiv and the Chernihiv region.\n\n"
        "A parking lot in the town of Zaporizhzhia has become the gathering point for people "
        "fleeing Mariupol."
    )
    assert dict(_resolved(gazetteer, text))["Zaporizhzhia"] == city
    mariupol = gazetteer.resolve("Mariupol").place
    assert mariupol is not None
    context = PlaceContext(admin1=("Chernihiv Oblast",), local_nearby=(mariupol.coordinates,))
    assert gazetteer.resolve("Zaporizhzhia", context).place == city


def test_well_known_own_name_beats_small_spelling_matches(gazetteer: Gazetteer) -> None:
    # "Sumy" is the city, not a Crimean village that GeoNames also calls Shumy, nor a Shumy
    crimea = PlaceContext(admin1=("Crimea",))
    sumy = gazetteer.resolve("Sumy", crimea).place
    assert sumy is not None and sumy.admin1 == "Sumy Oblast"
    # a city's official name written exactly decides nothing by itself: nearness still does
    orikhiv = gazetteer.resolve("Orikhiv").place
    assert orikhiv is not None
    village = gazetteer.resolve("Kamianske", PlaceContext(nearby=(orikhiv.coordinates,))).place
    assert village is not None and village.admin1 == "Zaporizhzhia Oblast"


@pytest.mark.parametrize(
    ("text", "datelines"),
    [
        ("KYIV — A strike hit the capital overnight.", ["KYIV"]),
        ("MOSCOW, 2 March 2023 — Officials said Kursk was hit.", ["MOSCOW"]),
        ("KRAMATORSK, Ukraine (April 8) - A missile hit the station.", ["KRAMATORSK", "Ukraine"]),
        ("ZAPORIZHZHIA (Ukraine) — A missile hit a block.", ["ZAPORIZHZHIA", "Ukraine"]),
        ("LVIV (Reuters) - Drones hit Lviv.", ["LVIV"]),
        ("Headline\nODESA, Ukraine — Missiles struck Odesa.", ["ODESA", "Ukraine"]),
        ("Officials in KYIV — and elsewhere — said.", []),  # not at the start of a paragraph
        ("Kyiv — the capital — was hit.", []),  # not in capitals
        ("KHARKIV STRIKES KILL TWO", []),  # no comma or dash after the name
    ],
)
def test_datelines(gazetteer: Gazetteer, text: str, datelines: list[str]) -> None:
    mentions = gazetteer.find_toponyms(text)
    assert [m.text for m in mentions if m.dateline] == datelines
    assert all(text[m.start : m.end] == m.text for m in mentions)


def test_dateline_is_a_place_but_not_local_context(gazetteer: Gazetteer) -> None:
    text = "KHERSON — Shelling hit Zelenyi Hai overnight."
    found = _resolved(gazetteer, text)
    assert found[0][0] == "KHERSON" and found[0][1] is not None
    assert found[0][1].name == "Kherson"
    mentions = gazetteer.find_toponyms(text)
    assert mentions[0].dateline and not mentions[1].dateline


@pytest.mark.parametrize(
    ("text", "regions"),
    [
        (
            "the largest electricity supplier for the Kyiv, Cherkasy and Zhytomyr regions",
            ["Kyiv Oblast", "Cherkasy Oblast", "Zhytomyr Oblast"],
        ),
        ("Drones were shot down over Kharkiv and Sumy oblasts.", ["Kharkiv Oblast", "Sumy Oblast"]),
        ("Blackouts hit the regions of Kyiv and Chernihiv.", ["Kyiv Oblast", "Chernihiv Oblast"]),
        ("Shelling near the border of Kherson & Dnepropetrovsk oblasts",
         ["Kherson Oblast", "Dnipropetrovsk Oblast"]),
        ("Shelling of Donetsk, Luhansk, Zaporizhzhia and Kherson provinces",
         ["Donetsk Oblast", "Luhansk Oblast", "Zaporizhzhia Oblast", "Kherson Oblast"]),
    ],
)  # fmt: skip
def test_lists_of_regions_name_oblasts(gazetteer: Gazetteer, text: str, regions: list[str]) -> None:
    mentions = gazetteer.find_toponyms(text)
    assert [m.place.name for m in mentions] == regions
    assert all(m.kind == "region" for m in mentions)
    resolved = [p.name if p else None for _t, p in _resolved(gazetteer, text)]
    assert resolved == regions


def test_lists_of_regions_leave_cities_alone(gazetteer: Gazetteer) -> None:
    found = _found(gazetteer, "Missiles hit Kyiv, Cherkasy and Zhytomyr on Monday.")
    assert found == [(t, "settlement", None) for t in ("Kyiv", "Cherkasy", "Zhytomyr")]
    # one name is no list; the region after "the region of" is one name, not those after it
    assert _found(gazetteer, "Kyiv regions ...")[0][1] == "settlement"
    found = _found(gazetteer, "In the region of Kherson, Mykolaiv was hit.")
    assert found == [("Kherson", "region", None), ("Mykolaiv", "settlement", None)]


@pytest.mark.parametrize(
    "text",
    [
        "Dozens of children from the Kherson Regional Children's Home were taken away.",
        "Home to 30,000 people, the town was shelled.",
        "The Opera House, the Town Hall and the Central Park were damaged.",
        "Damage to Center for Support and Development.",
        "Blast damage to zoo facilities.",
        "Skit/Stugna-P ATGM strike by the Ukrainian forces.",
        "Part of the convoy turned back. Man in uniform stopped us.",
        "Thorn bushes, Vine leaves, Soul music, Tape recorders, Deli counters.",
        "A drone of the 503rd Marine Battalion was hit.",
    ],
)
def test_institution_words_and_foreign_alternate_names_are_not_places(
    gazetteer: Gazetteer, text: str
) -> None:
    found = _found(gazetteer, text)
    assert all(kind in ("region", "country") or text_ == "Kherson" for text_, kind, _ in found), (
        found
    )
    assert not any(
        p.country not in ("UA",) for m in gazetteer.find_toponyms(text) for p in m.candidates[:1]
    )


def test_places_abroad_by_their_own_names_and_exonyms(gazetteer: Gazetteer) -> None:
    """A town abroad is found by its own name, a well-known exonym, or a spelling of its own
    name, never by an alternate name GeoNames writes in another script (the Serbian
    "Гомељ" romanised is "Home") or that is a common English word; in its own script it is."""
    for text, name in (
        ("Gomel", "Homyel'"), ("Homyel", "Homyel'"), ("Kishinev", "Chisinau"),
        ("Cologne", "Köln"), ("Tyotkino", "Tëtkino"), ("Гомель", "Homyel'"),
    ):  # fmt: skip
        mentions = gazetteer.find_toponyms(f"Troops moved towards {text} on Monday.")
        assert mentions and mentions[0].place.name == name, (text, mentions)
    assert gazetteer.find_toponyms("They went Home on Monday.") == []
    # a place abroad known by a former name only is not found by it in running text
    assert all(
        m.place.country == "UA" or m.place.name != "Golovchino"
        for m in gazetteer.find_toponyms("Fighting near Spasskaya was reported.")
    )
    # resolution of a query is unchanged: a query names a place on purpose
    assert gazetteer.resolve("Kishinev").place is not None


def test_crimean_is_an_adjective_and_the_crimean_bridge_a_feature(gazetteer: Gazetteer) -> None:
    for text in (
        "Crimean Tatars were detained.",
        "The Crimean Tatar Mejlis protested; a Crimean Tatar activist was jailed.",
        "CRIMEAN TATARS protested. Crimean authorities said.",
    ):
        assert _found(gazetteer, text) == [], text
    found = _resolved(gazetteer, "The Crimean Bridge and the Kerch Bridge; the Antonivskyi Bridge.")
    assert [(t, p.feature_kind if p else None) for t, p in found] == [
        ("Crimean Bridge", "feature"),
        ("Kerch Bridge", "feature"),
        ("Antonivskyi Bridge", "feature"),
    ]
    assert found[0][1] == found[1][1]  # the same bridge
    assert _found(gazetteer, "A strike on the Crimean port of Sevastopol.") == [
        ("Sevastopol", "settlement", None)
    ]


# --- the cache ----------------------------------------------------------------------------------


def test_cache_round_trip(gazetteer: Gazetteer, cache_dir: Path) -> None:
    files = list(cache_dir.glob("gazetteer-index-*.json"))
    assert len(files) == 1
    assert json.loads(files[0].read_text(encoding="utf-8"))["format"] >= 1
    again = load_gazetteer(cache_dir)
    assert again.places == gazetteer.places
    for query in ("Hroza, Kharkiv", "Obolon, Kyiv", "Mykolaiv"):
        assert again.resolve(query) == gazetteer.resolve(query)


def test_damaged_cache_is_rebuilt(tmp_path: Path, gazetteer: Gazetteer, cache_dir: Path) -> None:
    (source,) = cache_dir.glob("gazetteer-index-*.json")
    damaged = tmp_path / source.name
    damaged.write_text("{not json", encoding="utf-8")
    rebuilt = load_gazetteer(tmp_path)
    assert rebuilt.places == gazetteer.places


# --- the CIR monitor benchmark ------------------------------------------------------------------


def _cir_within_10km(gazetteer: Gazetteer) -> float:
    if not CIR_EVENTS.is_file():
        pytest.skip(f"CIR monitor data set not found at {CIR_EVENTS} (evaluation data in shared/)")
    with CIR_EVENTS.open(encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["country"].strip() == "Ukraine"]
    assert len(rows) > 1000
    hits = 0
    for row in rows:
        parts = [row["town/city"].strip(), row["province"].strip(), "Ukraine"]
        place = gazetteer.resolve(", ".join(p for p in parts if p)).place
        if place is not None and distance_km(place, (float(row["lat"]), float(row["lon"]))) <= 10:
            hits += 1
    return hits / len(rows)


@pytest.fixture(scope="session")
def cir_share(gazetteer: Gazetteer) -> float:
    return _cir_within_10km(gazetteer)


def test_cir_monitor_regression_floor(cir_share: float) -> None:
    # Measured 85.2% (5,027 of 5,899 events); see docs/decisions/0005-gazetteer.md.
    assert cir_share >= 0.84


@pytest.mark.xfail(
    strict=True,
    reason="target of 90% not reached: 85.2% measured; for 12.4% of the events no place of that "
    "name in the offline data lies within 10 km of the monitor's point (villages known only "
    "from KATOTTG and placed by hromada 6.0%, big-city spread 3.1%), so even a perfect choice "
    "among the candidates reaches only 87.6%; see docs/decisions/0005-gazetteer.md",
)
def test_cir_monitor_target(cir_share: float) -> None:
    assert cir_share >= 0.90


def test_a_village_beside_a_named_town_is_not_a_far_city_of_its_name(gazetteer: Gazetteer) -> None:
    text = ("Russian missiles struck the town of Pokrovsk and the nearby village of Rivne in "
            "Ukraine's Donetsk region, killing 11 people.")
    mentions = gazetteer.find_toponyms(text)
    by_text = {m.text: r.place for m, r in
               zip(mentions, gazetteer.resolve_mentions(mentions), strict=True)}
    assert by_text["Rivne"] is not None and by_text["Rivne"].admin1 == "Donetsk Oblast"


def test_two_builders_of_one_cache_do_not_take_each_others_file(
    tmp_path: Path, gazetteer: Gazetteer, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two commands that find no cache both build and write it; the second one's write,
    landing while the first is still writing, must not rename the first one's file away
    (it did with one fixed temporary name: 'cannot write the gazetteer cache')."""
    import casebuilder.gazetteer.build as build

    (source,) = cache_dir.glob("gazetteer-index-*.json")
    built = build.GazetteerIndex.from_json(json.loads(source.read_text(encoding="utf-8")))
    monkeypatch.setattr(build, "build_index", lambda versions: built)
    real_dump = build.json.dump
    inside: list[bool] = []

    def dump_while_another_writes(obj: object, handle: object, **kwargs: object) -> None:
        if not inside:
            inside.append(True)
            build.load_or_build_index(tmp_path)  # the other command, finishing first
        real_dump(obj, handle, **kwargs)

    monkeypatch.setattr(build.json, "dump", dump_while_another_writes)
    index = build.load_or_build_index(tmp_path)
    assert index.places == built.places
    assert [p.name for p in tmp_path.iterdir()] == [source.name]  # no temporary left
