"""The likely-duplicates queue, rule by rule, on listing lines made here."""

from __future__ import annotations

import pytest

from casebuilder.resolution.duplicates import NEAR_DAYS, NEAR_KM, likely_duplicates

KHARKIV = (49.9935, 36.2304)


def line(id_, day="2022-03-01", lat=KHARKIV[0], lon=KHARKIV[1], place="Kharkiv",
         categories=("explosive_attack",), weapon="missile", situation=False):  # type: ignore[no-untyped-def]
    return {"id": id_, "date_start": day, "date_earliest": day, "lat": lat, "lon": lon,
            "place": place, "admin1": "Kharkiv Oblast", "categories": list(categories),
            "weapon": weapon, "situation": situation}


NORTH_3KM = KHARKIV[0] + 0.027  # about 3 km north
NORTH_30KM = KHARKIV[0] + 0.27


@pytest.mark.parametrize("other, offered", [
    (line("b", lat=NORTH_3KM), True),                       # 3 km, same day
    (line("b", lat=NORTH_30KM), False),                      # beyond NEAR_KM
    (line("b", day="2022-03-04"), True),                      # NEAR_DAYS apart
    (line("b", day="2022-03-05"), False),                     # one day more
    (line("b", situation=True), False),                       # a situation is not an attack
    (line("b", lat=None, lon=None), True),                    # no point, same place name
    (line("b", lat=None, lon=None, place="Izium"), False),    # no point, another place
    (line("b", day=None), False),                             # undated: nothing to compare
])
def test_what_is_offered(other, offered):
    assert bool(likely_duplicates([line("a"), other])) is offered


def test_the_limits_are_the_documented_ones():
    assert (NEAR_KM, NEAR_DAYS) == (25.0, 3)


def test_closer_and_more_alike_pairs_rank_first_and_say_why():
    lines = [line("a"), line("b", lat=NORTH_3KM),
             line("c", day="2022-03-03", lat=NORTH_30KM - 0.15, weapon="shelling",
                  categories=("shelling",)),
             line("d", day="2022-03-03", lat=NORTH_30KM - 0.15, weapon="shelling",
                  categories=("shelling",))]
    pairs = likely_duplicates(lines)
    assert [(p.first, p.second) for p in pairs][:1] == [("c", "d")]  # same spot, same words
    ab = next(p for p in pairs if (p.first, p.second) == ("a", "b"))
    assert ab.km is not None and 2.5 < ab.km < 3.5 and ab.days == 0
    assert ab.reasons().startswith(f"{ab.km:.1f} km apart, same day; share ")
    assert "missile" in ab.shared and "explosive_attack" in ab.shared
    assert all(p.score <= 1 for p in pairs)
    assert pairs == sorted(pairs, key=lambda p: -p.score)


def test_a_dismissed_pair_leaves_the_queue_whichever_way_round_it_was_named():
    lines = [line("a"), line("b", lat=NORTH_3KM)]
    assert likely_duplicates(lines, [("b", "a")]) == []
    assert likely_duplicates(lines, [("a", "c")]) != []
