"""Merging rules on hand-made mentions: what joins, what stays apart, and why."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casebuilder.model.partial_date import PartialDate
from casebuilder.resolution.merge import MergeCandidate, merge

KRAMATORSK = (48.7231, 37.5563)
STATION = (48.7307, 37.5466)
MARIUPOL = (47.0971, 37.5434)


def m(key, where, *, day=None, basis="event", situation=False, categories=("explosive_attack",),
      precision="settlement", place_id=None, targets=(), tolls=(), reported=None, order=None,
      span=None):
    when = span or (PartialDate.parse_iso(day) if day else None)
    return MergeCandidate(
        key=key, lat=where[0], lon=where[1], precision=precision, uncertainty_km=2.0,
        place_id=place_id or f"p{where}", admin1="Donetsk Oblast", situation=situation,
        categories=frozenset(categories), when=when, basis=basis,
        reported=date.fromisoformat(reported) if reported else None,
        targets=frozenset(targets), tolls=frozenset(tolls), label=key,
        order=order or key)


def groups(clusters):
    return sorted(sorted(c.key for c in cluster.members) for cluster in clusters)


def test_reports_of_one_strike_merge_with_reasons():
    clusters = merge([
        m("a", KRAMATORSK, day="2022-04-08", order="1"),
        m("b", STATION, precision="point", basis="report", day="2022-04-08", order="2",
          targets=["railway station"]),
        m("c", STATION, precision="point", day="2022-04-08", order="3", tolls=[50]),
    ])
    assert groups(clusters) == [["a", "b", "c"]]
    reasons = " | ".join(clusters[0].reasons)
    assert "first report" in reasons and "km apart" in reasons and "shared category" in reasons


def test_theatre_strike_stays_apart_from_the_siege_of_the_same_city():
    siege = m("siege", MARIUPOL, situation=True, categories=("siege",), basis="situation",
              span=PartialDate.range(date(2022, 2, 24), date(2022, 4, 3)), order="1")
    theatre = m("theatre", MARIUPOL, day="2022-03-16", targets=["theatre"], order="2")
    assert groups(merge([siege, theatre])) == [["siege"], ["theatre"]]


def test_attacks_on_different_days_or_targets_in_one_city_stay_apart():
    assert groups(merge([m("x", KRAMATORSK, day="2022-04-08"),
                         m("y", KRAMATORSK, day="2022-04-12")])) == [["x"], ["y"]]
    assert groups(merge([m("x", KRAMATORSK, day="2022-04-08", targets=["market"]),
                         m("y", KRAMATORSK, day="2022-04-08", targets=["school"])])) == \
        [["x"], ["y"]]


def test_a_report_dated_only_by_publication_joins_a_recent_attack_only():
    recent = [m("x", KRAMATORSK, day="2022-04-08", order="1"),
              m("late", KRAMATORSK, basis="report", day="2022-04-09", order="2")]
    assert groups(merge(recent)) == [["late", "x"]]
    old = [m("x", KRAMATORSK, day="2022-04-08", order="1"),
           m("late", KRAMATORSK, basis="report", day="2022-04-20", order="2")]
    assert groups(merge(old)) == [["late"], ["x"]]


def test_far_apart_places_never_merge():
    kyiv = (50.45, 30.52)
    assert groups(merge([m("k", KRAMATORSK, day="2022-04-08"),
                         m("v", kyiv, day="2022-04-08")])) == [["k"], ["v"]]


def test_analyst_constraints_win_over_the_rules():
    a = m("a", KRAMATORSK, day="2022-04-08", order="1")
    b = m("b", KRAMATORSK, day="2022-04-08", order="2")
    far = m("far", (50.45, 30.52), day="2022-04-08", order="3")
    assert groups(merge([a, b, far], apart=[("a", "b")])) == [["a"], ["b"], ["far"]]
    assert groups(merge([a, b, far], together=[["a", "far"]])) == [["a", "b", "far"]]


def test_merging_is_deterministic_whatever_the_input_order():
    mentions = [m(f"k{i}", (48.7 + (i % 3) * 0.3, 37.5), day=f"2022-04-{8 + i % 4:02d}",
                  order=f"{i:03d}") for i in range(40)]
    expected = groups(merge(mentions))
    for seed in range(5):
        shuffled = list(mentions)
        random.Random(seed).shuffle(shuffled)
        assert groups(merge(shuffled)) == expected


def test_the_spatial_index_never_hides_a_compatible_incident():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from merge_scaling import synthetic

    mentions = synthetic(1500, places=40, seed=3)
    assert groups(merge(mentions)) == groups(merge(mentions, exhaustive=True))


def test_a_region_level_mention_joins_only_when_exactly_one_incident_fits():
    kupiansk = m("kupiansk", (49.71, 37.61), day="2022-05-01", order="1", tolls=[2])
    chuhuiv = m("chuhuiv", (49.84, 36.69), day="2022-05-01", order="2", tolls=[4])
    region = m("region", (49.99, 36.23), day="2022-05-01", order="3", precision="region",
               tolls=[4])
    assert groups(merge([kupiansk, chuhuiv, region])) == [["chuhuiv"], ["kupiansk"],
                                                          ["region"]]
    assert groups(merge([kupiansk, region])) == [["kupiansk", "region"]]


def test_two_different_settlements_never_merge_however_coarsely_placed():
    city = m("city", (46.64, 32.61), day="2023-05-09", order="1", place_id="kherson")
    village = MergeCandidate(
        key="village", lat=46.70, lon=32.90, precision="district", uncertainty_km=37.0,
        place_id="posad", admin1="Kherson Oblast", situation=False,
        categories=frozenset({"explosive_attack"}), when=PartialDate.parse_iso("2023-05-09"),
        basis="event", reported=None, label="village", order="2", feature_kind="settlement")
    city = MergeCandidate(**{**city.__dict__, "feature_kind": "settlement"})
    assert groups(merge([city, village])) == [["city"], ["village"]]


# -- region- and country-level mentions never depend on when the finer reports arrived ---------

KHARKIV_REGION = (49.5, 36.5)


def region(key, day, categories, order="", admin1="Kharkiv Oblast"):
    return MergeCandidate(
        key=key, lat=KHARKIV_REGION[0], lon=KHARKIV_REGION[1], precision="region",
        uncertainty_km=100.0, place_id=f"region-{admin1}", admin1=admin1, situation=False,
        categories=frozenset(categories), when=PartialDate.parse_iso(day), basis="event",
        reported=None, label=key, feature_kind="region", order=order or key)


def town(key, where, day, categories, order="", place_id=None, feature_kind="settlement"):
    return MergeCandidate(
        key=key, lat=where[0], lon=where[1], precision="settlement", uncertainty_km=0.0,
        place_id=place_id or key, admin1="Kharkiv Oblast", situation=False,
        categories=frozenset(categories), when=PartialDate.parse_iso(day), basis="event",
        reported=None, label=key, feature_kind=feature_kind, order=order or key)


def test_a_region_mention_is_placed_the_same_whenever_the_town_reports_arrived():
    """The reviewer's case: the Izium report at 11:00 or at 09:30 must not decide whether the
    Kharkiv-region report joins Chuhuiv (two towns fit it, so it stays on its own)."""
    chuhuiv = town("chuhuiv", (49.83, 36.68), "2022-03-03", ["explosive_attack"],
                   order="2022-03-03T09")
    whole_region = region("region", "2022-03-03", ["explosive_attack"], order="2022-03-03T10")
    for izium_at in ("2022-03-03T11", "2022-03-03T09:30"):
        izium = town("izium", (49.21, 37.26), "2022-03-03", ["explosive_attack"],
                     order=izium_at)
        assert groups(merge([chuhuiv, izium, whole_region])) == \
            [["chuhuiv"], ["izium"], ["region"]]
    # With one town only, the region report joins it, whether it came first or last.
    for region_at in ("2022-03-03T08", "2022-03-03T12"):
        assert groups(merge([chuhuiv, replace(whole_region, order=region_at)])) == \
            [["chuhuiv", "region"]]


DAYS = ["2022-03-01", "2022-03-02", "2022-03-04"]
CATEGORIES = ["explosive_attack", "killing", "destruction"]


@st.composite
def towns_and_regions(draw, *, distinct_towns: bool):
    """Town-level mentions and Kharkiv- or Donetsk-region mentions. With ``distinct_towns`` the
    towns are all different settlements (never merged with each other) and each region mention
    has one category, so no rule leaves a choice to report order at all."""
    n_towns = draw(st.integers(0, 7))
    n_regions = draw(st.integers(1, 5))
    spots = [(49.2 + 0.15 * i, 36.0 + 0.2 * (i % 4)) for i in range(6)]
    towns = []
    for i in range(n_towns):
        spot = draw(st.integers(0, len(spots) - 1))
        towns.append(town(
            f"t{i}", spots[spot], draw(st.sampled_from(DAYS)),
            draw(st.sets(st.sampled_from(CATEGORIES), min_size=1)),
            place_id=f"t{i}" if distinct_towns else f"spot{spot}",
            feature_kind="settlement" if distinct_towns else ""))
    regions = []
    for i in range(n_regions):
        categories = [draw(st.sampled_from(CATEGORIES))] if distinct_towns else \
            draw(st.sets(st.sampled_from(CATEGORIES), min_size=1))
        regions.append(region(f"r{i}", draw(st.sampled_from(DAYS)), categories,
                              admin1=draw(st.sampled_from(["Kharkiv Oblast", "Kharkiv Oblast",
                                                           "Donetsk Oblast"]))))
    return towns, regions


@settings(max_examples=300, deadline=None)
@given(towns_and_regions(distinct_towns=True), st.randoms(use_true_random=False))
def test_merging_towns_and_regions_does_not_depend_on_the_order_of_reports(drawn, rng):
    towns, regions = drawn
    mentions = towns + regions
    expected = groups(merge(mentions))
    times = [f"2022-03-05T{i:02d}" for i in range(len(mentions))]
    rng.shuffle(times)
    reordered = [replace(m, order=t) for m, t in zip(mentions, times, strict=True)]
    rng.shuffle(reordered)
    assert groups(merge(reordered)) == expected
    assert groups(merge(reordered, exhaustive=True)) == expected


@settings(max_examples=300, deadline=None)
@given(towns_and_regions(distinct_towns=False), st.data())
def test_when_region_reports_arrive_among_town_reports_changes_nothing(drawn, data):
    """Town reports keep their order among themselves, and region reports theirs; only how the
    two are interleaved changes, which must not change any incident."""
    towns, regions = drawn

    def interleaved(slots):
        at_region = sorted(slots[:len(regions)])
        at_town = sorted(slots[len(regions):])
        return [replace(m, order=f"{p:03d}") for m, p in zip(regions, at_region, strict=True)] + \
            [replace(m, order=f"{p:03d}") for m, p in zip(towns, at_town, strict=True)]

    n = len(towns) + len(regions)
    first = interleaved(list(range(n)))  # every region report before every town report
    other = interleaved(data.draw(st.permutations(range(n))))
    assert groups(merge(other)) == groups(merge(first))
    assert groups(merge(other, exhaustive=True)) == groups(merge(first))


HROZA_KHARKIV = (49.6238, 37.3132)
HROZA_DNIPRO = (48.2374, 34.7853)


def undecided(key, day, order, alternatives):
    """A 'Hroza' its document did not place: the gazetteer's first pick, and its namesakes."""
    first = town(key, HROZA_DNIPRO, day, ["explosive_attack"], order=order, place_id="hroza-d")
    options = tuple(replace(first, lat=lat, lon=lon, place_id=pid) for pid, (lat, lon) in
                    alternatives)
    return replace(first, alternatives=options)


@pytest.mark.parametrize("order", ["0", "9"])
def test_a_name_its_document_left_undecided_joins_the_namesake_another_report_placed(order):
    placed = town("placed", HROZA_KHARKIV, "2023-10-05", ["explosive_attack"], order="5",
                  place_id="hroza-k")
    vague = undecided("vague", "2023-10-05", order, [("hroza-k", HROZA_KHARKIV)])
    clusters = merge([placed, vague])
    # whether the undecided report came first or last, it joins the placed one
    assert groups(clusters) == [["placed", "vague"]]
    (cluster,) = clusters
    assert "only this one fits" in " ".join(cluster.reasons)
    assert {m.place_id for m in cluster.members} == {"hroza-k"}


def test_an_undecided_name_that_fits_two_incidents_stays_at_its_own_place():
    here = town("here", HROZA_KHARKIV, "2023-10-05", ["explosive_attack"], order="1",
                place_id="hroza-k")
    there = town("there", (47.0, 33.0), "2023-10-05", ["explosive_attack"], order="2",
                 place_id="hroza-x")
    vague = undecided("vague", "2023-10-05", "3",
                      [("hroza-k", HROZA_KHARKIV), ("hroza-x", (47.0, 33.0))])
    assert groups(merge([here, there, vague])) == [["here"], ["there"], ["vague"]]


def test_crimes_of_one_occupation_merge_whatever_their_categories():
    """A killing told by one report and a detention by another, both dated by the occupation
    of one village: one incident ("crimes of the same occupation"). Two such reports of
    another village, or a shelling of the same village, stay apart."""
    village = (48.10, 37.20)
    other = (48.60, 36.30)
    period = PartialDate.range(date(2022, 2, 24), date(2022, 3, 30))
    killing = replace(m("killing", village, span=period, basis="occupation",
                        categories=("killing",), place_id="v", order="1"), occupation=True)
    detention = replace(m("detention", village, day="2022-03-12", categories=("detention",),
                          place_id="v", order="2"), occupation=True)
    elsewhere = replace(m("elsewhere", other, span=period, basis="occupation",
                          categories=("detention",), order="3"), occupation=True)
    shelling = m("shelling", village, day="2022-03-12", place_id="v", order="4")
    clusters = merge([killing, detention, elsewhere, shelling])
    assert groups(clusters) == [["detention", "killing"], ["elsewhere"], ["shelling"]]
    assert any("crimes of the same occupation" in r for c in clusters for r in c.reasons)


def _settlement(key, where, **kw):
    return replace(m(key, where, **kw), feature_kind="settlement")


def test_one_attack_on_neighbouring_villages_is_one_incident():
    """Two villages 4 km apart (radii 2 km each): the same day and the same toll make one
    attack told at either; another toll, or another day, keeps them apart."""
    west, east = (48.500, 37.000), (48.500, 37.054)  # about 4 km apart
    assert groups(merge([_settlement("w", west, day="2022-05-07", tolls=[3], order="1"),
                         _settlement("e", east, day="2022-05-07", tolls=[3], order="2")])) \
        == [["e", "w"]]
    assert groups(merge([_settlement("w", west, day="2022-05-07", tolls=[3], order="1"),
                         _settlement("e", east, day="2022-05-07", tolls=[5], order="2")])) \
        == [["e"], ["w"]]
    assert groups(merge([_settlement("w", west, day="2022-05-07", tolls=[3], order="1"),
                         _settlement("e", east, day="2022-05-08", tolls=[3], order="2")])) \
        == [["e"], ["w"]]
    reasons = merge([_settlement("w", west, day="2022-05-07", targets=["school"], order="1"),
                     _settlement("e", east, day="2022-05-07", targets=["school"], order="2")]
                    )[0].reasons
    assert "neighbouring settlements" in reasons[1] and "same target (school)" in reasons[1]


def test_villages_further_apart_stay_apart_whatever_they_share():
    west, far = (48.500, 37.000), (48.500, 37.150)  # about 11 km apart
    assert groups(merge([_settlement("w", west, day="2022-05-07", tolls=[3], order="1"),
                         _settlement("f", far, day="2022-05-07", tolls=[3], order="2")])) \
        == [["f"], ["w"]]


def test_the_anchor_is_the_most_precisely_placed_member_before_the_earliest():
    """A cluster's anchor ranks its members by the gazetteer's precision rank first: a
    settlement reported later anchors over a region reported first, and a village placed at
    its hromada's centre (a district over 5 km uncertain) ranks below a located town."""
    from dataclasses import replace

    from casebuilder.resolution.merge import Cluster

    region = m("a-region", KRAMATORSK, day="2022-04-08", precision="region", order="1")
    town = m("b-town", KRAMATORSK, day="2022-04-08", precision="settlement", order="2")
    assert Cluster(members=[region, town]).anchor is town
    cluster = Cluster(members=[region])
    cluster.add(town)
    assert cluster.anchor is town
    hromada = replace(m("a-village", KRAMATORSK, day="2022-04-08", precision="district",
                        order="1"), uncertainty_km=12.0)
    assert Cluster(members=[hromada, town]).anchor is town


@st.composite
def pairs_to_compare(draw):
    """Two mentions in every arrangement the rules tell apart: places from the same point to
    tens of kilometres apart (many near the edges of a reach), each precision and kind, dates
    by the event or by the report, shared or different categories, targets and tolls."""
    def one(key: str, lat: float, lon: float) -> MergeCandidate:
        precision = draw(st.sampled_from(["point", "district", "settlement", "region"]))
        kind = {"point": "feature", "district": "city_district", "settlement": "settlement",
                "region": "region"}[precision]
        day = date(2022, 3, draw(st.integers(1, 3)))
        days = draw(st.sampled_from([1, 1, 1, 3]))
        when = PartialDate.range(day, date(2022, 3, day.day + days - 1)) if days > 1 \
            else PartialDate.parse_iso(day.isoformat())
        return MergeCandidate(
            key=key, lat=lat, lon=lon, precision=precision,
            uncertainty_km=draw(st.floats(0.5, 8.0)),
            place_id=draw(st.sampled_from(["", "p1", "p2"])),
            admin1=draw(st.sampled_from(["Kharkiv Oblast", "Sumy Oblast"])),
            situation=draw(st.sampled_from([False, False, True])),
            categories=frozenset(draw(st.sets(st.sampled_from(["killing", "destruction",
                                                                "explosive_attack"])))),
            when=draw(st.sampled_from([when, when, None])), basis=draw(st.sampled_from(
                ["event", "event", "report", "situation"])),
            reported=day, targets=frozenset(draw(st.sets(st.sampled_from(
                ["hospital", "school", "residential building"]), max_size=1))),
            tolls=frozenset(draw(st.sets(st.integers(1, 4), max_size=1))), label=key,
            feature_kind=kind, order=key, occupation=draw(st.booleans()),
            tally=draw(st.booleans()))

    lat, lon = 49.99, 36.23
    km_north = draw(st.floats(0.0, 40.0))
    # due north half the time: the edge of the cheap test from latitudes
    km_east = draw(st.one_of(st.just(0.0), st.floats(0.0, 40.0)))
    first = one("a", lat, lon)
    second = one("b", lat + km_north / 111.2, lon + km_east / 71.5)
    return first, second


@settings(max_examples=600, deadline=None)
@given(pairs_to_compare())
def test_comparing_without_reasons_gives_the_same_answer(pair):
    """merge() compares without writing out reasons and asks for them only when a mention
    joins: both must agree on every pair, the cheap rejections from latitude included."""
    from casebuilder.resolution.merge import Cluster, compatible

    a, b = pair
    for candidate, other in ((a, b), (b, a)):
        quick, _ = compatible(candidate, Cluster(members=[other]), explain=False)
        full, why = compatible(candidate, Cluster(members=[other]))
        assert quick == full, why
