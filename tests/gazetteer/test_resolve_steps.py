"""The steps of Gazetteer.resolve and resolve_mentions on a small hand-made gazetteer: what a
query's qualifiers name, regions and countries named as a whole, names a letter or two off,
raions, regions named beside a mention or elsewhere in its document, and a document read as
running text. Fast (no index is built), so the mutation testing of resolver.py runs them."""

from __future__ import annotations

import pytest
from test_ranking import ORIGIN, REGIONS, build, north, region_places, town

from casebuilder.gazetteer import Gazetteer, Place, PlaceContext

KHARKIV = (50.0, 36.23)
DONETSK = (48.72, 37.56)


def raion(name: str, at: tuple[float, float], oblast: str, gid: str) -> Place:
    return Place(f"{name} raion", at[0], at[1], oblast, "UA", gid, "region", "region", None,
                 40.0, parent=oblast)


@pytest.fixture(scope="module")
def gazetteer() -> Gazetteer:
    places = [
        town("Kharkiv", KHARKIV, population=1_400_000, gid="test:kharkiv"),  # 0
        town("Vilkhivka", north(10, KHARKIV), population=2_000, gid="test:vilkhivka-kh",
             parent="Vilkhivska hromada, Kharkivskyi raion"),  # 1
        town("Vilkhivka", north(20, DONETSK), population=3_000, admin1="Donetsk Oblast",
             gid="test:vilkhivka-dn", parent="Foo hromada, Kramatorskyi raion"),  # 2
        raion("Kharkivskyi", north(5, KHARKIV), "Kharkiv Oblast", "test:raion-kh"),  # 3
        raion("Kramatorskyi", DONETSK, "Donetsk Oblast", "test:raion-kr"),  # 4
        town("Kramatorsk", DONETSK, population=150_000, admin1="Donetsk Oblast",
             gid="test:kramatorsk"),  # 5
        Place("Russia", 55.75, 37.62, "", "RU", "test:ru", "country", "country", 140_000_000,
              1500.0),  # 6
        town("Zalizne", north(40, DONETSK), population=1_000, admin1="Donetsk Oblast",
             gid="test:zalizne"),  # 7
        town("Hroza", north(60, KHARKIV), population=400, gid="test:hroza-kh"),  # 8
        town("Hroza", north(30, DONETSK), population=400, admin1="Donetsk Oblast",
             gid="test:hroza-dn"),  # 9
        town("Obolonsk", north(80, KHARKIV), population=700, gid="test:obolonsk",
             admin1=""),  # 10
    ]
    own = {3: ["Kharkivskyi", "Kharkivskyi raion", "Kharkivskyi district"],
           4: ["Kramatorskyi", "Kramatorskyi raion", "Kramatorsk district"],
           6: ["Rossiia"]}
    return build(places, own=own)


def place_of(gazetteer: Gazetteer, query: str, **context: object) -> str | None:
    place = gazetteer.resolve(query, PlaceContext(**context)).place  # type: ignore[arg-type]
    return None if place is None else place.gazetteer_id


# --- queries without a name of their own ----------------------------------------------------


def test_queries_without_a_name(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve(", south of Kharkiv")
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:kharkiv"
    assert resolution.reason == "only a position relative to this place is given"
    resolution = gazetteer.resolve(", Kharkivskyi raion")
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:raion-kh"
    assert resolution.reason.startswith("only a raion is given; placed at the")
    resolution = gazetteer.resolve(", Donetsk Oblast")
    assert resolution.place is not None and resolution.place.name == "Donetsk Oblast"
    assert resolution.reason.startswith("only a region is given")
    resolution = gazetteer.resolve("")
    assert (resolution.place, resolution.reason) == (None, "no place name in the query")


def test_regions_and_countries_named_as_a_whole(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Kharkiv oblast")
    assert resolution.place is not None and resolution.place.name == "Kharkiv Oblast"
    assert resolution.reason.startswith("the query names a region")
    assert gazetteer.resolve("Kharkivska").place == region_places()[0]  # a region's spelling
    assert gazetteer.resolve("Donestk Oblast").place == region_places()[1]  # a letter off
    assert gazetteer.resolve("Kharkiv obalst").place == region_places()[0]  # oblast misspelt
    assert place_of(gazetteer, "Kharkiv") == "test:kharkiv"  # a town's name stays the town
    resolution = gazetteer.resolve("Rossiia")
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:ru"
    assert resolution.reason.startswith("the query names a country")
    assert gazetteer.regions.match("Kharkv", fuzzy=False) == frozenset()
    assert gazetteer.regions.match("Xy") == frozenset()


def test_a_country_qualifier(gazetteer: Gazetteer) -> None:
    assert place_of(gazetteer, "Hroza, UA", nearby=(north(30, DONETSK),)) == "test:hroza-dn"
    # a country with no place of the name: the places of the name elsewhere still count
    assert place_of(gazetteer, "Kramatorsk, RU") == "test:kramatorsk"


# --- raions and regions named with the query ------------------------------------------------


def test_a_raion_named_with_the_query(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Vilkhivka, Kharkivskyi raion")
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:vilkhivka-kh"
    assert "raion named (Kharkivskyi raion)" in resolution.reason
    assert place_of(gazetteer, "Vilkhivka", within=("Kramatorsk district",)) == \
        "test:vilkhivka-dn"
    resolution = gazetteer.resolve("Hroza, Kharkivskyi raion")  # not in it: nearest to it
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:hroza-kh"
    assert "none in Kharkivskyi raion; nearest to it" in resolution.reason
    resolution = gazetteer.resolve("Nowhere, Kharkivskyi raion")
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:raion-kh"
    assert resolution.reason.startswith("'Nowhere' not found in Kharkiv Oblast")


def test_a_region_named_with_the_query_and_a_town_as_anchor(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Vilkhivka, Donetsk Oblast")
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:vilkhivka-dn"
    assert resolution.reason.startswith("region named with it (Donetsk Oblast)")
    resolution = gazetteer.resolve("Hroza, near Kramatorsk")
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:hroza-dn"
    assert "region named with it (Donetsk Oblast)" in resolution.reason


def test_names_a_letter_or_two_off(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Zalisne, Donetsk Oblast")
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:zalizne"
    assert resolution.reason.startswith("spelling one letter off")
    assert place_of(gazetteer, "Zaliz, Donetsk Oblast") != "test:zalizne"  # too short to guess
    resolution = gazetteer.resolve("Obolonsky")
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:obolonsk"
    assert resolution.reason.startswith("spelling one letter off")
    resolution = gazetteer.resolve("Qwertyuiop")
    assert (resolution.place, resolution.reason) == (None, "name not in the gazetteer")
    assert resolution.matched_name == "Qwertyuiop"


def test_type_words_and_parts_of_a_head(gazetteer: Gazetteer) -> None:
    assert place_of(gazetteer, "village of Zalizne") == "test:zalizne"
    assert place_of(gazetteer, "Zalizne village") == "test:zalizne"
    assert place_of(gazetteer, "Zalizne/Foobar") == "test:zalizne"
    assert place_of(gazetteer, "Zalizne (Foobar)") == "test:zalizne"
    resolution = gazetteer.resolve("12 km north of Zalizne")
    assert "the query gives a position relative to this place" in resolution.reason


# --- the document's regions -----------------------------------------------------------------


def test_a_region_named_beside_or_elsewhere(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Hroza", PlaceContext(local_admin1=("Donetsk Oblast",)))
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:hroza-dn"
    assert "region named beside it (Donetsk Oblast)" in resolution.reason
    resolution = gazetteer.resolve("Hroza", PlaceContext(admin1=("Kharkiv Oblast",),
                                                         local_admin1=("Donetsk Oblast",)))
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:hroza-dn"
    resolution = gazetteer.resolve("Hroza", PlaceContext(admin1=("Kharkiv",)))
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:hroza-kh"
    assert "region named in the document (Kharkiv Oblast)" in resolution.reason


def test_a_raion_named_in_the_document(gazetteer: Gazetteer) -> None:
    resolution = gazetteer.resolve("Vilkhivka", PlaceContext(admin1=("Kramatorskyi",)))
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:vilkhivka-dn"
    assert "region named in the document (Kramatorskyi raion)" in resolution.reason
    resolution = gazetteer.resolve("Hroza, Donetsk Oblast",
                                   PlaceContext(local_admin1=("Kramatorskyi",)))
    assert resolution.place is not None and resolution.place.gazetteer_id == "test:hroza-dn"


# --- a document as running text -------------------------------------------------------------


def test_a_document_read_as_running_text(gazetteer: Gazetteer) -> None:
    text = ("Shelling hit Vilkhivka, Kharkivskyi raion, on Monday.\n\n"
            "In Kramatorsk a school burned. Vilkhivka was hit again.\n\n"
            "Hroza, Donetsk Oblast, buried its dead. Hroza mourned for days.")
    mentions = gazetteer.find_toponyms(text)
    written = [(m.text, m.locates) for m in mentions]
    assert ("Vilkhivka", None) in written and ("Kharkivskyi raion", 0) in written
    results = gazetteer.resolve_mentions(mentions)
    by_text: dict[str, list[str | None]] = {}
    for mention, resolution in zip(mentions, results, strict=True):
        by_text.setdefault(mention.text, []).append(
            resolution.place.gazetteer_id if resolution.place else None)
    assert by_text["Kharkivskyi raion"] == ["test:raion-kh"]
    assert by_text["Vilkhivka"] == ["test:vilkhivka-kh", "test:vilkhivka-kh"]  # one sense
    assert by_text["Hroza"] == ["test:hroza-dn", "test:hroza-dn"]
    assert by_text["Kramatorsk"] == ["test:kramatorsk"]
    locator = results[written.index(("Kharkivskyi raion", 0))]
    assert locator.reason == "locates 'Vilkhivka'"
    assert results[written.index(("Donetsk Oblast", 4))].reason == "locates 'Hroza'"


def test_a_lone_region_and_a_country_in_running_text(gazetteer: Gazetteer) -> None:
    mentions = gazetteer.find_toponyms("Troops from Rossiia entered Donetsk Oblast.")
    results = gazetteer.resolve_mentions(mentions)
    assert [r.reason for r in results] == ["named as such in the text"] * 2
    assert gazetteer.country_of(mentions[0]) is not None
    assert gazetteer.country("ru") is not None and gazetteer.country("zz") is None


def test_nearby_places_of_the_paragraph_choose(gazetteer: Gazetteer) -> None:
    """A later place of the paragraph counts too (the second pass): Hroza is near Zalizne."""
    text = "Hroza and Zalizne were shelled."
    mentions = gazetteer.find_toponyms(text)
    results = gazetteer.resolve_mentions(mentions)
    assert results[0].place is not None and results[0].place.gazetteer_id == "test:hroza-dn"
    assert "nearest to the places named beside it" in results[0].reason


def test_the_regions_of_the_made_up_gazetteer() -> None:
    assert [r.name for r in REGIONS] == [p.name for p in region_places()]
    assert ORIGIN
