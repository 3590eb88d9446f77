"""Tests of the offline gazetteer: spelling variants, disambiguation, precision, the text
scanner, normalisation properties, and the CIR monitor benchmark (read from ../shared)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casebuilder.gazetteer import (
    Gazetteer,
    PlaceContext,
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
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gazetteer-cache")


@pytest.fixture(scope="session")
def gazetteer(cache_dir: Path) -> Gazetteer:
    return load_gazetteer(cache_dir)


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
    # Measured 85.2% (5,026 of 5,899 events); see docs/decisions/0005-gazetteer.md.
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
