"""The ranking of a name's candidates, one figure of data/ranking.toml at a time.

Each test builds a small gazetteer by hand (no GeoNames, no KATOTTG: these tests take
milliseconds) and puts a pair of candidates on either side of one threshold, so that moving
the figure in the data file (the first distance band from 30 to 50 km, a village placed by its
hromada ranked like a located town, ...) fails a test. They are also the fast tests the
mutation testing of resolver.py runs (see the report of issue 9).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest

from casebuilder.gazetteer import (
    RANKING,
    Candidate,
    Gazetteer,
    GazetteerIndex,
    Place,
    PlaceContext,
    ToponymMention,
    distance_km,
    fold_toponym,
    normalise_toponym,
    precision_rank,
    same_place,
    thresholds,
)
from casebuilder.gazetteer.build import Region
from casebuilder.gazetteer.ranking import Situation, explain, rank, tied, undecided

KM_PER_DEGREE = 111.19  # of latitude, on the sphere distance_km uses
ORIGIN = (49.0, 36.0)  # a point in Kharkiv Oblast of the made-up gazetteer

REGIONS = [
    Region("Kharkiv Oblast", "07", "Харківська", "Kharkiv", 50.0, 36.23, (), ("Kharkivska",)),
    Region("Donetsk Oblast", "05", "Донецька", "Kramatorsk", 48.72, 37.56, (), ()),
    Region("Luhansk Oblast", "14", "Луганська", "Sievierodonetsk", 48.95, 38.49, (), ()),
]


def north(km: float, of: tuple[float, float] = ORIGIN) -> tuple[float, float]:
    """The point ``km`` north of ``of``."""
    return (of[0] + km / KM_PER_DEGREE, of[1])


def town(name: str, at: tuple[float, float], *, population: int | None = None,
         admin1: str = "Kharkiv Oblast", gid: str = "", **changes: object) -> Place:
    place = Place(name, at[0], at[1], admin1, "UA", gid or f"test:{name.lower()}-{at[0]:.4f}",
                  "settlement", "settlement", population, 3.0)
    return dataclasses.replace(place, **changes)  # type: ignore[arg-type]


def region_places() -> list[Place]:
    return [Place(r.name, r.lat, r.lon, r.name, "UA", f"test:region-{r.geonames_admin1}",
                  "region", "region", None, 150.0) for r in REGIONS]


def build(places: Sequence[Place], alternates: dict[int, list[str]] | None = None,
          figures_file: Path | None = None, own: dict[int, list[str]] | None = None
          ) -> Gazetteer:
    """A gazetteer of ``places`` (the regions are added first), each known by its own name,
    the other own names and the alternates given (by position in ``places``)."""
    every = [*region_places(), *places]
    shift = len(every) - len(places)
    names: list[tuple[str, str, str, int, int]] = []

    def add(raw: str, number: int, primary: int) -> None:
        key = normalise_toponym(raw)
        names.append((raw, key, fold_toponym(key), number, primary))

    for number, place in enumerate(every):
        for raw in sorted({place.name, place.local_name} - {""}):
            add(raw, number, 1)
    for position, extra in (own or {}).items():
        for raw in extra:
            add(raw, position + shift, 1)
    for position, extra in (alternates or {}).items():
        for raw in extra:
            add(raw, position + shift, 0)
    index = GazetteerIndex(every, sorted(names), list(REGIONS), frozenset())
    figures = None
    if figures_file is not None:
        from casebuilder.gazetteer.ranking import load_thresholds

        figures = load_thresholds(figures_file)
    return Gazetteer(index, figures)


def chosen(gazetteer: Gazetteer, query: str, **context: object) -> Place | None:
    return gazetteer.resolve(query, PlaceContext(**context)).place  # type: ignore[arg-type]


# --- distance bands -------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [30.0, 80.0, 200.0])
def test_distance_bands(limit: float) -> None:
    """A candidate just inside a band's limit beats a larger one just outside it; two
    candidates inside one band are equally near, and the larger is taken."""
    near = town("Foo", north(limit - 1), population=100)
    far = town("Foo", north(limit + 1), population=5_000)
    gazetteer = build([near, far])
    assert distance_km(near, ORIGIN) < limit < distance_km(far, ORIGIN)
    resolution = gazetteer.resolve("Foo", PlaceContext(nearby=(ORIGIN,)))
    assert resolution.place == near
    assert resolution.reason.startswith("nearest to other places in the document")
    # both inside the band: the larger one
    both = build([town("Foo", north(limit - 2), population=100),
                  town("Foo", north(limit - 1), population=5_000)])
    assert chosen(both, "Foo", nearby=(ORIGIN,)).population == 5_000  # type: ignore[union-attr]


def test_beyond_every_band_is_no_nearer() -> None:
    a = town("Foo", north(201), population=100)
    b = town("Foo", north(400), population=5_000)
    assert chosen(build([a, b]), "Foo", nearby=(ORIGIN,)) == b


def test_places_named_beside_weigh_before_the_documents() -> None:
    """Nearness to the mention's own paragraph comes before nearness to the document."""
    by_paragraph = town("Foo", north(10, (47.0, 36.0)), population=100)
    by_document = town("Foo", north(10), population=100)
    gazetteer = build([by_paragraph, by_document])
    resolution = gazetteer.resolve("Foo", PlaceContext(nearby=(ORIGIN,),
                                                       local_nearby=((47.0, 36.0),)))
    assert resolution.place == by_paragraph
    assert resolution.reason.startswith("nearest to the places named beside it (10 km)")


@pytest.mark.parametrize(("km", "inside_region"), [(29.0, False), (31.0, True)])
def test_a_place_beside_the_mention_outweighs_a_region_named_elsewhere(
    km: float, inside_region: bool
) -> None:
    """Within [distance] beside_km of a place named beside it, a candidate outside the
    region named elsewhere in the document is not ruled out by that region."""
    beside = (48.0, 40.0)
    in_donetsk = town("Foo", (48.5, 37.5), admin1="Donetsk Oblast", population=100)
    near = town("Foo", north(km, beside), admin1="Luhansk Oblast", population=100)
    gazetteer = build([in_donetsk, near])
    resolution = gazetteer.resolve("Foo", PlaceContext(admin1=("Donetsk Oblast",),
                                                       local_nearby=(beside,)))
    assert resolution.place == (in_donetsk if inside_region else near)
    if not inside_region:
        assert "nearer to the places named beside it" in resolution.reason
    else:
        assert "region named in the document (Donetsk Oblast)" in resolution.reason


# --- well-known towns and prominent cities --------------------------------------------------


@pytest.mark.parametrize(("population", "big_wins"), [(10_000, True), (9_999, False)])
def test_a_well_known_town_before_hamlets_of_its_name(population: int, big_wins: bool) -> None:
    """A town of [population] well_known people, its own name written exactly, outranks a
    village that matches only up to romanisation, even where the village is the nearer."""
    big = town("Sumy", north(300), population=population)
    hamlet = town("Sumi", north(5), population=300)  # "Sumy" only up to romanisation
    resolution = build([big, hamlet]).resolve("Sumy", PlaceContext(nearby=(ORIGIN,)))
    assert resolution.place == (big if big_wins else hamlet)
    if big_wins:
        assert f"a town of {population:,} people before hamlets" in resolution.reason


@pytest.mark.parametrize(("population", "outranked"), [(9_999, True), (10_000, False)])
def test_a_town_of_well_known_size_is_no_hamlet(population: int, outranked: bool) -> None:
    big = town("Sumy", north(300), population=50_000)
    other = town("Sumi", north(5), population=population)
    resolution = build([big, other]).resolve("Sumy", PlaceContext(nearby=(ORIGIN,)))
    assert resolution.place == (big if outranked else other)


@pytest.mark.parametrize(("population", "city_wins"), [(100_000, True), (99_999, False)])
def test_another_spelling_of_a_prominent_city_before_hamlets(population: int,
                                                             city_wins: bool) -> None:
    """A city of [population] prominent people written in another of its own spellings
    ("Kharkov") comes before a hamlet whose name is that spelling exactly."""
    city = town("Kharkiv", north(300), population=population)
    hamlet = town("Kharkov", north(5), population=200)
    gazetteer = build([city, hamlet], own={0: ["Kharkov"]})  # the city's other spelling
    assert chosen(gazetteer, "Kharkov", nearby=(ORIGIN,)) == (city if city_wins else hamlet)


@pytest.mark.parametrize(("population", "abroad"), [(100_000, True), (99_999, False)])
def test_a_prominent_city_abroad_outweighs_villages_of_its_name(population: int,
                                                                abroad: bool) -> None:
    kursk = town("Kursk", (51.73, 36.19), population=population, admin1="", country="RU")
    village = town("Kursk", north(5), population=300)
    assert chosen(build([kursk, village]), "Kursk") == (kursk if abroad else village)


@pytest.mark.parametrize(("population", "abroad"), [(9_999, True), (10_000, False)])
def test_a_well_known_town_at_home_keeps_its_name(population: int, abroad: bool) -> None:
    kursk = town("Kursk", (51.73, 36.19), population=400_000, admin1="", country="RU")
    home = town("Kursk", north(5), population=population)
    assert chosen(build([kursk, home]), "Kursk") == (kursk if abroad else home)


def test_an_oblast_centre_by_its_own_name_before_hamlets() -> None:
    """The administrative centre (the regions' ``centre``, within [places] city_bound_km of
    the region's point) written exactly outranks a hamlet of that name spelt so too."""
    centre = town("Kharkiv", (50.0, 36.23), population=50_000)
    hamlet = town("Kharkiv", north(5), population=200)
    assert chosen(build([centre, hamlet]), "Kharkiv", nearby=(ORIGIN,)) == centre
    moved = town("Kharkiv", (50.0 + 26 / KM_PER_DEGREE, 36.23), population=50_000)
    assert chosen(build([moved, hamlet]), "Kharkiv", nearby=(ORIGIN,)) == hamlet


# --- kinds of place -------------------------------------------------------------------------


def test_a_village_placed_by_its_hromada_ranks_after_a_located_town() -> None:
    """A village known only from KATOTTG, placed at its hromada's centre, comes after a
    located settlement of its name whatever the populations: it does not rank like a
    located town ([kind] village_placed_coarsely)."""
    located = town("Hroza", north(40), population=100)
    by_hromada = town("Hroza", north(60), population=5_000, precision="district",
                      uncertainty_km=17.0, placed_at="centre of Foo hromada")
    resolution = build([located, by_hromada]).resolve("Hroza")
    assert resolution.place == located
    assert resolution.reason.endswith("the best-located kind of place")


def test_a_settlement_before_a_city_district_of_its_name() -> None:
    settlement = town("Obolon", north(5), gid="test:z-settlement")
    district = town("Obolon", north(8), gid="test:a-district", feature_kind="city_district",
                    precision="district", parent="Kyiv")
    assert chosen(build([settlement, district]), "Obolon") == settlement


@pytest.mark.parametrize("kind", ["feature", "water_body"])
def test_a_site_or_water_body_before_a_city_district_of_its_name(kind: str) -> None:
    """Sites and water bodies rank with located settlements ([kind] feature, water_body)."""
    site = town("Foo", north(5), gid="test:z-site", feature_kind=kind,
                precision="point" if kind == "feature" else "region")
    district = town("Foo", north(8), gid="test:a-district", feature_kind="city_district",
                    precision="district", parent="Kyiv")
    resolution = build([site, district]).resolve("Foo")
    assert resolution.place == site
    assert resolution.reason == "2 candidates; the best-located kind of place"


def test_a_city_district_of_the_city_named_with_it_ranks_as_a_settlement() -> None:
    kyiv = town("Kyiv", north(5), population=2_000_000)
    settlement = town("Obolon", north(7), gid="test:z-settlement")
    district = town("Obolon", north(6), gid="test:a-district", feature_kind="city_district",
                    precision="district", parent="Kyiv")
    resolution = build([kyiv, settlement, district]).resolve("Obolon, Kyiv")
    assert resolution.place == district
    assert "ambiguous: 2 candidates" in resolution.reason  # kind 0 against kind 0


def test_a_village_placed_coarsely_before_a_raion() -> None:
    village = town("Foo", north(5), gid="test:z-village", precision="district",
                   uncertainty_km=20.0)
    raion = Place("Foo raion", *north(6), "Kharkiv Oblast", "UA", "test:a-raion", "region",
                  "region", None, 40.0, parent="Kharkiv Oblast")
    resolution = build([village, raion], own={1: ["Foo"]}).resolve("Foo")
    assert resolution.place == village
    assert resolution.reason == "2 candidates; the best-located kind of place"


def test_a_raion_first_when_the_query_says_raion() -> None:
    raion = Place("Foo raion", *north(6), "Kharkiv Oblast", "UA", "test:z-raion", "region",
                  "region", None, 40.0, parent="Kharkiv Oblast")
    district = town("Foo district", north(5), gid="test:a-district",
                    feature_kind="city_district", precision="district", parent="Kyiv")
    resolution = build([raion, district], own={0: ["Foo district"]}).resolve("Foo district")
    assert resolution.place == raion
    assert resolution.reason == "2 candidates; the query names a raion"


def test_lookup_puts_a_country_after_a_settlement_of_its_name() -> None:
    country = Place("Jordan", 31.95, 35.93, "", "JO", "test:country-jo", "country", "country",
                    10_000_000, 200.0)
    village = town("Jordan", north(5), population=100)
    assert build([country, village]).lookup("Jordan") == [village, country]


# --- own names, population and ties ---------------------------------------------------------


def test_own_name_before_an_alternate_name() -> None:
    own = town("Foo", north(5), population=100)
    merged = town("Bar", north(6), population=5_000)
    gazetteer = build([own, merged], alternates={1: ["Foo"]})
    resolution = gazetteer.resolve("Foo")
    assert resolution.place == own
    assert resolution.reason == "2 candidates; the only one with this name as its own"


def test_population_then_a_tie_left_undecided() -> None:
    big = town("Foo", north(5), population=5_000)
    small = town("Foo", north(6), population=100)
    resolution = build([big, small]).resolve("Foo")
    assert resolution.place == big
    assert resolution.reason == "2 candidates; largest population (5,000)"
    assert resolution.undecided == ()
    a = town("Foo", north(5), population=100, gid="test:a")
    b = town("Foo", north(6), population=100, gid="test:b")
    c = town("Foo", north(7), population=50, gid="test:c")
    resolution = build([b, a, c]).resolve("Foo")
    assert resolution.place == a
    assert resolution.reason == ("ambiguous: 2 candidates equally likely, first by gazetteer id "
                                 "taken")
    assert resolution.undecided == (b,)


def test_a_single_candidate_is_decided() -> None:
    only = town("Foo", north(5))
    resolution = build([only]).resolve("Foo")
    assert resolution.place == only
    assert (resolution.reason, resolution.undecided) == ("only candidate", ())


def test_the_reason_names_the_criterion_that_decided() -> None:
    """Sorting, reason and tie come from one list: for every criterion but the tie-break,
    a pair that differs only on it is sorted by it and explained by it."""
    near = Candidate(town("Foo", north(5), population=1), "Foo", "exact")
    far = Candidate(town("Foo", north(100), population=2), "Foo", "exact")
    situation = Situation(anchors=(ORIGIN,))
    ranked = rank([far, near], situation)
    assert ranked == [near, far]
    assert explain(ranked, situation).startswith("nearest to other places in the document")
    assert tied(near, ranked, situation) == [near]
    assert undecided(ranked, situation) == []
    assert [c.name for c in RANKING] == ["spelling", "well_known_town", "near_beside",
                                         "near_document", "own_name", "kind", "population",
                                         "gazetteer_id"]
    assert [c.evidence for c in RANKING].count(False) == 1 and not RANKING[-1].evidence


def test_exact_before_fuzzy() -> None:
    exact = Candidate(town("Foo", north(5), population=1), "Foo", "exact")
    fuzzy = Candidate(town("Fooo", north(6), population=9_000), "Fooo", "fuzzy")
    ranked = rank([fuzzy, exact], Situation())
    assert ranked == [exact, fuzzy]
    assert explain(ranked, Situation()) == "2 candidates; the only one spelt as written"


# --- regions named with the query -----------------------------------------------------------


@pytest.mark.parametrize(("km", "town_found"), [(149.0, True), (151.0, False)])
def test_a_town_just_outside_the_named_region(km: float, town_found: bool) -> None:
    """A well-known town within [places] outside_region_km of the named region's centre is
    meant ("Lysychansk, Donetsk Oblast"); farther, the region itself is returned."""
    donetsk = (48.72, 37.56)
    lysychansk = town("Lysychansk", north(km, donetsk), admin1="Luhansk Oblast",
                      population=90_000)
    resolution = build([lysychansk]).resolve("Lysychansk, Donetsk Oblast")
    assert resolution.place is not None
    if town_found:
        assert resolution.place == lysychansk
        assert "nearest town of that name" in resolution.reason
    else:
        assert resolution.place.name == "Donetsk Oblast"
        assert "not found in Donetsk Oblast" in resolution.reason


def test_a_village_outside_the_named_region_gives_the_region() -> None:
    village = town("Foo", north(20, (48.72, 37.56)), admin1="Luhansk Oblast", population=200)
    resolution = build([village]).resolve("Foo, Donetsk Oblast")
    assert resolution.place is not None and resolution.place.name == "Donetsk Oblast"
    assert "only a smaller place of that name elsewhere" in resolution.reason


def test_the_region_named_with_the_query_keeps_its_candidates() -> None:
    here = town("Foo", (48.5, 37.5), admin1="Donetsk Oblast", population=100)
    bigger = town("Foo", north(5), population=5_000)
    resolution = build([here, bigger]).resolve("Foo, Donetsk Oblast")
    assert resolution.place == here
    assert resolution.reason.startswith("region named with it (Donetsk Oblast)")


# --- generic squares and districts ----------------------------------------------------------


@pytest.mark.parametrize(("beyond", "kept"), [(-1.0, True), (1.0, False)])
def test_a_generic_square_far_from_the_documents_places(beyond: float, kept: bool) -> None:
    """A square many cities have is placed only when some candidate lies within [places]
    city_bound_km beyond its own radius of a place of the document."""
    square = town("Svobody Square", ORIGIN, feature_kind="feature", precision="point",
                  uncertainty_km=1.0, parent="Kharkiv")
    other = town("Svobody Square", (46.6, 32.6), feature_kind="feature", precision="point",
                 uncertainty_km=1.0, parent="Kherson", admin1="Donetsk Oblast")
    anchor = north(25.0 + 1.0 + beyond)
    resolution = build([square, other]).resolve("Svobody Square", PlaceContext(nearby=(anchor,)))
    assert (resolution.place is not None) == kept
    if not kept:
        assert "known only far from the document's places" in resolution.reason


@pytest.mark.parametrize(("gap", "kept"), [(4.5, True), (5.5, False)])
def test_a_generic_square_in_a_text_that_names_towns(gap: float, kept: bool) -> None:
    """In a text that names towns, a square many cities have is kept only when it lies within
    [places] named_town_gap_km beyond the radii of one of them."""
    kharkiv = town("Kharkiv", ORIGIN, population=1_000_000, uncertainty_km=10.0)
    square = town("Svobody Square", north(10.0 + 1.0 + gap), feature_kind="feature",
                  precision="point", uncertainty_km=1.0, parent="Chuhuiv")
    gazetteer = build([kharkiv, square])
    mentions = [ToponymMention(0, 7, "Kharkiv", (kharkiv,)),
                ToponymMention(20, 34, "Svobody Square", (square,))]
    kept_mentions = gazetteer._in_named_towns(mentions)
    assert (len(kept_mentions) == 2) == kept


# --- spelling of alternate names abroad -----------------------------------------------------


@pytest.mark.parametrize(("alternate", "accepted"), [("Bordanukil", True), ("Bordanukel", False)])
def test_a_spelling_of_a_towns_own_name_abroad(alternate: str, accepted: bool) -> None:
    """An alternate name of a small town abroad stands in running text when it is at most
    [names] spelling_share of its letters from the town's own name (3 of 10 letters here)."""
    abroad = town("Bardenokil", (51.0, 35.0), population=5_000, admin1="", country="RU")
    gazetteer = build([abroad], alternates={0: [alternate]})
    key = normalise_toponym(alternate)
    assert gazetteer._alias_ok(len(REGIONS), key, alternate) == accepted


def test_a_prominent_citys_exonyms_stand_in_running_text() -> None:
    """A city abroad of [population] prominent people is named by any of its alternate names
    (a well-known exonym: "Cologne"), a smaller town only by a spelling of its own."""
    city = town("Koln", (50.94, 6.96), population=100_000, admin1="", country="DE")
    gazetteer = build([city], alternates={0: ["Cologne"]})
    assert gazetteer._alias_ok(len(REGIONS), "cologne", "Cologne")
    smaller = build([dataclasses.replace(city, population=99_999)], alternates={0: ["Cologne"]})
    assert not smaller._alias_ok(len(REGIONS), "cologne", "Cologne")


# --- precision rank and the same place ------------------------------------------------------


@pytest.mark.parametrize(("uncertainty", "rank_value"), [(5.0, 1.0), (5.1, 2.5)])
def test_precision_rank_of_a_district(uncertainty: float, rank_value: float) -> None:
    """A "district" place more than [precision] coarse_district_km uncertain is a village
    placed by its hromada: it ranks as 2.5, after a located town (2), before a region (3)."""
    district = town("Foo", ORIGIN, precision="district", uncertainty_km=uncertainty)
    assert district.precision_rank == rank_value
    settlement = town("Bar", ORIGIN)
    region = region_places()[0]
    assert settlement.precision_rank == 2.0 and region.precision_rank == 3.0
    assert (district.precision_rank > settlement.precision_rank) == (uncertainty > 5.0)
    assert district.precision_rank < region.precision_rank


def test_precision_ranks_in_order() -> None:
    assert [precision_rank(p, 1.0) for p in ("point", "district", "settlement", "region",
                                             "country")] == [0, 1, 2, 3, 4]
    assert precision_rank("unknown", 1.0) == 9.0


@pytest.mark.parametrize(("km", "same"), [(4.9, True), (5.1, False)])
def test_same_place(km: float, same: bool) -> None:
    """A site and a district whose radii are under 5 km are one place within the floor of
    5 km; two settlements never are, nor an area and a place in it."""
    theatre = town("Theatre", ORIGIN, feature_kind="feature", precision="point",
                   uncertainty_km=0.5, parent="Kyiv")
    district = town("Obolon", north(km), feature_kind="city_district", precision="district",
                    uncertainty_km=2.0, parent="Kyiv")
    assert same_place(theatre, district) == same
    assert not same_place(theatre, district, floor_km=1.0)
    kyiv = town("Kyiv", north(km + 10), population=2_900_000, uncertainty_km=19.0)
    assert same_place(theatre, kyiv) and same_place(kyiv, kyiv)
    assert not same_place(town("Foo", north(1)), town("Bar", ORIGIN))  # two settlements
    assert not same_place(region_places()[0], kyiv)  # an area contains, it is not the place


# --- the data file --------------------------------------------------------------------------


def test_the_shipped_figures() -> None:
    figures = thresholds()
    assert figures.bands_km == (30.0, 80.0, 200.0)
    assert figures.kinds["village_placed_coarsely"] > figures.kinds["settlement"]
    assert figures.coarse_district_rank == 2.5 and figures.coarse_district_km == 5.0


def test_another_ranking_file_moves_the_first_band(tmp_path: Path) -> None:
    """The figures are read from the file: with a first band of 50 km the two candidates of
    test_distance_bands are equally near, and the larger wins."""
    from casebuilder.gazetteer.model import RANKING_FILE

    text = RANKING_FILE.read_text(encoding="utf-8").replace(
        "bands_km = [30.0, 80.0, 200.0]", "bands_km = [50.0, 80.0, 200.0]")
    path = tmp_path / "ranking.toml"
    path.write_text(text, encoding="utf-8")
    near = town("Foo", north(29), population=100)
    far = town("Foo", north(31), population=5_000)
    assert chosen(build([near, far]), "Foo", nearby=(ORIGIN,)) == near
    assert chosen(build([near, far], figures_file=path), "Foo", nearby=(ORIGIN,)) == far


def test_a_misspelt_key_in_the_ranking_file_is_refused(tmp_path: Path) -> None:
    from casebuilder.gazetteer.model import RANKING_FILE
    from casebuilder.gazetteer.ranking import load_thresholds
    from casebuilder.model.lexicon import LexiconError

    text = RANKING_FILE.read_text(encoding="utf-8").replace("well_known =", "wel_known =")
    path = tmp_path / "ranking.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LexiconError, match=r"ranking\.toml:\d+: \[population\] unknown key "
                                           r"'wel_known'"):
        load_thresholds(path)
    path.write_text(RANKING_FILE.read_text(encoding="utf-8").replace(
        "bands_km = [30.0, 80.0, 200.0]", "bands_km = [80.0, 30.0]"), encoding="utf-8")
    with pytest.raises(LexiconError, match="rising list"):
        load_thresholds(path)


# --- criteria one by one (the survivors of the first mutation run) --------------------------


def test_a_band_includes_its_limit() -> None:
    from casebuilder.gazetteer.ranking import band

    figures = thresholds()
    assert [band(d, figures) for d in (0.0, 30.0, 30.001, 80.0, 200.0, 200.001)] == \
        [0, 0, 1, 1, 2, 3]
    assert band(float("inf"), figures) == 3


def test_nearness_beside_explains_only_when_it_decided() -> None:
    """Two candidates in one band beside the mention: nearness did not choose."""
    a = Candidate(town("Foo", north(5), population=5_000), "Foo", "exact")
    b = Candidate(town("Foo", north(10), population=100), "Foo", "exact")
    situation = Situation(beside=(ORIGIN,))
    ranked = rank([b, a], situation)
    assert ranked == [a, b]
    assert explain(ranked, situation) == "2 candidates; largest population (5,000)"


def test_the_reason_names_the_towns_of_the_query() -> None:
    kyiv = town("Kyiv", north(5))
    bucha = town("Bucha", north(6))
    near = Candidate(town("Foo", north(7)), "Foo", "exact")
    far = Candidate(town("Foo", north(300)), "Foo", "exact")
    situation = Situation(anchors=(kyiv.coordinates,), anchor_places=(kyiv, bucha))
    assert explain(rank([far, near], situation), situation) == "nearest to Kyiv, Bucha (2 km)"


def test_a_city_district_of_another_city_is_no_settlement() -> None:
    from casebuilder.gazetteer.ranking import kind_rank

    kyiv = town("Kyiv", ORIGIN, parent="Kyiv Oblast")
    district = town("Obolon", ORIGIN, feature_kind="city_district", precision="district",
                    parent="Kharkiv")
    assert kind_rank(district, (kyiv,), thresholds()) == 1
    assert kind_rank(dataclasses.replace(district, parent="Kyiv"), (kyiv,), thresholds()) == 0
    sibling = dataclasses.replace(district, parent="Kyiv Oblast")  # beside the city
    assert kind_rank(sibling, (kyiv,), thresholds()) == 0


def test_a_raion_without_raion_in_the_query_is_no_raion_reason() -> None:
    raion = Candidate(Place("Foo raion", *ORIGIN, "Kharkiv Oblast", "UA", "test:raion",
                            "region", "region", None, 40.0, parent="Kharkiv Oblast"),
                      "Foo", "exact")
    country = Candidate(Place("Foo", *ORIGIN, "", "XX", "test:country", "country", "country",
                              None, 400.0), "Foo", "exact")
    situation = Situation()
    assert explain(rank([country, raion], situation), situation) == \
        "2 candidates; the best-located kind of place"


def test_a_fuzzy_or_alternate_town_outranks_no_hamlet() -> None:
    from casebuilder.gazetteer.ranking import big_city, outranks

    big = Candidate(town("Sumy", north(300), population=50_000), "Sumy", "exact")
    hamlet = Candidate(town("Sumi", north(5), population=300), "Sumi", "fold")
    situation = Situation(head_key="sumy")
    assert big_city(big, thresholds()) and outranks(big, hamlet, situation)
    assert not big_city(dataclasses.replace(big, match="fuzzy"), thresholds())
    assert not outranks(dataclasses.replace(big, alternate=True), hamlet, situation)
    district = dataclasses.replace(hamlet, place=dataclasses.replace(
        hamlet.place, feature_kind="city_district", precision="district", parent="Foo"))
    assert outranks(big, district, situation)
    site = dataclasses.replace(hamlet, place=dataclasses.replace(hamlet.place,
                                                                 feature_kind="feature"))
    assert not outranks(big, site, situation)
    # the hamlet's population unknown: still a hamlet
    assert outranks(big, dataclasses.replace(hamlet, place=dataclasses.replace(
        hamlet.place, population=None)), situation)


def test_ties_and_decisions_with_a_well_known_town() -> None:
    """With the name as written (head_key) the well-known town's criterion counts in the
    reason, in the tie and in whether the choice was decided."""
    from casebuilder.gazetteer.ranking import decided

    big = Candidate(town("Sumy", north(300), population=50_000), "Sumy", "exact")
    hamlet = Candidate(town("Sumi", north(5), population=50_000, gid="test:a"), "Sumi", "fold")
    situation = Situation(anchors=(ORIGIN,), head_key="sumy")
    ranked = rank([hamlet, big], situation)
    assert ranked == [hamlet, big]  # the hamlet has 50,000 people: no hamlet, nearer
    assert decided(ranked, situation)
    twin = Candidate(town("Sumi", north(6), population=50_000, gid="test:b"), "Sumi", "fold")
    ranked = rank([twin, hamlet], situation)
    assert not decided(ranked, situation)
    assert undecided(ranked, situation) == [twin]
    assert tied(twin, ranked, situation) == [hamlet, twin]
    small = Candidate(town("Sumi", north(5), population=300), "Sumi", "fold")
    ranked = rank([small, big], situation)
    assert ranked == [big, small]
    assert tied(big, ranked, situation) == [big]  # the hamlet is told apart (outranked)
    assert undecided(ranked, situation) == []


def test_a_hamlet_a_well_known_town_outranks_is_not_tied_with_one_it_does_not() -> None:
    """Two villages of one size, equally near: one written exactly, one only up to
    romanisation, which the town of the name outranks. They are not tied."""
    big = Candidate(town("Sumy", north(300), population=50_000), "Sumy", "exact")
    exact = Candidate(town("Sumy", north(5), population=300, gid="test:b"), "Sumy", "exact")
    fold = Candidate(town("Sumi", north(6), population=300, gid="test:a"), "Sumi", "fold")
    situation = Situation(anchors=(ORIGIN,), head_key="sumy")
    ranked = rank([fold, big, exact], situation)
    assert ranked == [exact, big, fold]
    assert tied(exact, ranked, situation) == [exact]
