"""PartialDate: constructors, text form, validation, interval comparisons."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casebuilder.errors import CasebuilderError
from casebuilder.model.partial_date import InvalidPartialDate, PartialDate

D = date.fromisoformat


@pytest.mark.parametrize(("value", "iso", "precision", "days"), [
    (PartialDate.day(D("2022-03-16")), "2022-03-16", "day", 1),
    (PartialDate.week_of(D("2022-03-16")), "2022-03-14/2022-03-20", "week", 7),
    (PartialDate.week_of(D("2022-03-14")), "2022-03-14/2022-03-20", "week", 7),
    (PartialDate.week_of(D("2022-03-20")), "2022-03-14/2022-03-20", "week", 7),
    (PartialDate.month(2022, 3), "2022-03", "month", 31),
    (PartialDate.month(2024, 2), "2024-02", "month", 29),
    (PartialDate.year(2022), "2022", "year", 365),
    (PartialDate.range(D("2022-03-11"), D("2022-03-20")), "2022-03-11/2022-03-20", "range", 10),
    (PartialDate.range(D("2022-02-24"), D("2022-04-03")), "2022-02-24/2022-04-03", "range", 39),
])
def test_constructors_and_text_form(value, iso, precision, days):
    assert value.iso() == iso
    assert str(value) == iso
    assert value.precision == precision
    assert value.days == days
    assert PartialDate.parse_iso(iso) == value


def test_a_range_that_is_exactly_one_week_is_that_week():
    # Both are written 2022-03-14/2022-03-20, so they must be one value.
    assert PartialDate.range(D("2022-03-14"), D("2022-03-20")) == PartialDate.week_of(
        D("2022-03-17"))
    with pytest.raises(InvalidPartialDate):
        PartialDate(D("2022-03-14"), D("2022-03-20"), "range")
    # Seven days not starting on a Monday stay a range.
    assert PartialDate.range(D("2022-03-15"), D("2022-03-21")).precision == "range"


@pytest.mark.parametrize(("start", "end", "precision"), [
    ("2022-03-17", "2022-03-16", "range"),    # backwards
    ("2022-03-16", "2022-03-17", "day"),      # a day is one day
    ("2022-03-15", "2022-03-21", "week"),     # weeks run Monday to Sunday
    ("2022-03-02", "2022-03-31", "month"),    # a month starts on the 1st
    ("2022-03-01", "2022-03-30", "month"),    # ... and ends on its last day
    ("2022-01-01", "2022-12-30", "year"),
    ("2022-03-16", "2022-03-16", "fortnight"),
])
def test_inconsistent_values_are_refused(start, end, precision):
    with pytest.raises(InvalidPartialDate):
        PartialDate(D(start), D(end), precision)


@pytest.mark.parametrize("text", [
    "", "March 2022", "2022-13", "2022-02-30", "2022-03-20/2022-03-14", "22-03-16",
    "2022-03-16/", "2022/03/16", "0000",
])
def test_parse_iso_refuses_what_iso_never_writes(text):
    with pytest.raises(InvalidPartialDate):
        PartialDate.parse_iso(text)


def test_the_error_is_a_casebuilder_error_and_a_value_error():
    with pytest.raises(CasebuilderError):
        PartialDate.parse_iso("nonsense")
    with pytest.raises(ValueError, match="after"):
        PartialDate.range(D("2022-03-17"), D("2022-03-16"))


def test_contains_and_overlaps():
    march = PartialDate.month(2022, 3)
    week = PartialDate.week_of(D("2022-03-16"))
    day = PartialDate.day(D("2022-03-16"))
    straddle = PartialDate.range(D("2022-03-28"), D("2022-04-03"))
    assert march.contains(week) and march.contains(day) and week.contains(day)
    assert not day.contains(week)
    assert march.contains(D("2022-03-31")) and not march.contains(D("2022-04-01"))
    assert march.overlaps(straddle) and straddle.overlaps(march)
    assert not march.contains(straddle)
    assert not week.overlaps(straddle)
    assert day.overlaps(D("2022-03-16")) and not day.overlaps(D("2022-03-17"))


def test_shifted_keeps_precision_only_when_it_can():
    assert PartialDate.day(D("2022-04-08")).shifted(-1) == PartialDate.day(D("2022-04-07"))
    week = PartialDate.week_of(D("2022-03-16"))
    assert week.shifted(7) == PartialDate.week_of(D("2022-03-23"))
    assert week.shifted(1).precision == "range"
    assert PartialDate.month(2022, 3).shifted(1).iso() == "2022-03-02/2022-04-01"


days = st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 12, 31))
partial_dates = st.one_of(
    days.map(PartialDate.day),
    days.map(PartialDate.week_of),
    days.map(lambda d: PartialDate.month(d.year, d.month)),
    days.map(lambda d: PartialDate.year(d.year)),
    st.tuples(days, days).map(lambda pair: PartialDate.range(min(pair), max(pair))),
)


@given(partial_dates)
def test_iso_round_trips(value):
    assert PartialDate.parse_iso(value.iso()) == value


@given(partial_dates, partial_dates)
def test_interval_laws(a, b):
    assert a.contains(a) and a.overlaps(a)
    assert a.overlaps(b) == b.overlaps(a)
    if a.contains(b):
        assert a.overlaps(b) and a.days >= b.days
    assert a.days == (a.end - a.start).days + 1 >= 1
