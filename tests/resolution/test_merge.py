"""Merging rules on hand-made mentions: what joins, what stays apart, and why."""

from __future__ import annotations

import random
from datetime import date

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
