"""Dates known only to a day, a week, a month, a year or a span of days.

A typed value of the model layer, used by every stage above it. Reports rarely give an exact
date: "last week", "in March", "since the start of the war" are what sources say, and an
analyst must keep what was said, not a guess at a day. A :class:`PartialDate` is the closed
interval of calendar days the expression allows, with the precision it was stated at (as
followthemoney's dates keep their precision by truncation).

Every value has exactly one text form (:meth:`PartialDate.iso`) and
:meth:`PartialDate.parse_iso` reads it back:

========= ======================== ============================================
precision interval                 text form
========= ======================== ============================================
day       one day                  ``2022-03-16``
week      Monday to Sunday         ``2022-03-14/2022-03-20``
month     first to last day        ``2022-03``
year      1 January to 31 December ``2022``
range     any other span           ``2022-03-11/2022-03-20``
========= ======================== ============================================

A week and a range share the interval notation, so a range that covers exactly one Monday to
Sunday is a week: :meth:`PartialDate.range` returns it as one, and a ``"range"`` spelled out
for such a span is refused, so that equal intervals written alike are equal values.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Final, Literal

from casebuilder.errors import CasebuilderError

Precision = Literal["day", "week", "month", "year", "range"]
PRECISIONS: Final[tuple[Precision, ...]] = ("day", "week", "month", "year", "range")

_ISO_DAY: Final = r"\d{4}-\d{2}-\d{2}"
_ISO_FORM: Final = re.compile(
    rf"(?P<a>{_ISO_DAY})/(?P<b>{_ISO_DAY})|(?P<day>{_ISO_DAY})"
    r"|(?P<month>\d{4}-\d{2})|(?P<year>\d{4})"
)


class InvalidPartialDate(CasebuilderError, ValueError):
    """A partial date whose bounds or precision do not agree, or text that is not one."""


def _last_day_of_month(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _is_week(start: date, end: date) -> bool:
    return start.isoweekday() == 1 and end - start == timedelta(days=6)


@dataclass(frozen=True, slots=True)
class PartialDate:
    """The days from ``start`` to ``end`` (both included), stated at ``precision``."""

    start: date
    end: date
    precision: Precision

    def __post_init__(self) -> None:
        if self.precision not in PRECISIONS:
            raise InvalidPartialDate(f"unknown precision {self.precision!r}")
        if self.start > self.end:
            raise InvalidPartialDate(f"start {self.start} is after end {self.end}")
        if not self._bounds_fit_precision():
            raise InvalidPartialDate(
                f"{self.start}..{self.end} is not a whole {self.precision}"
                if self.precision != "range"
                else f"{self.start}..{self.end} is one Monday-to-Sunday week: use week_of()"
            )

    def _bounds_fit_precision(self) -> bool:
        start, end = self.start, self.end
        match self.precision:
            case "day":
                return start == end
            case "week":
                return _is_week(start, end)
            case "month":
                return start.day == 1 and end == _last_day_of_month(start.year, start.month)
            case "year":
                return (start.month, start.day) == (1, 1) and end == date(start.year, 12, 31)
            case _:
                return not _is_week(start, end)

    # -- constructors ------------------------------------------------------------------------

    @classmethod
    def day(cls, d: date) -> PartialDate:
        return cls(d, d, "day")

    @classmethod
    def week_of(cls, d: date) -> PartialDate:
        """The Monday-to-Sunday (ISO) week holding ``d``."""
        monday = d - timedelta(days=d.isoweekday() - 1)
        return cls(monday, monday + timedelta(days=6), "week")

    @classmethod
    def month(cls, year: int, month: int) -> PartialDate:
        return cls(date(year, month, 1), _last_day_of_month(year, month), "month")

    @classmethod
    def year(cls, year: int) -> PartialDate:
        return cls(date(year, 1, 1), date(year, 12, 31), "year")

    @classmethod
    def range(cls, start: date, end: date) -> PartialDate:
        """Any span of days; one that is exactly a Monday-to-Sunday week comes back as it."""
        if start > end:
            raise InvalidPartialDate(f"start {start} is after end {end}")
        if _is_week(start, end):
            return cls(start, end, "week")
        return cls(start, end, "range")

    # -- text form ---------------------------------------------------------------------------

    def iso(self) -> str:
        match self.precision:
            case "day":
                return self.start.isoformat()
            case "month":
                return f"{self.start.year:04d}-{self.start.month:02d}"
            case "year":
                return f"{self.start.year:04d}"
            case _:
                return f"{self.start.isoformat()}/{self.end.isoformat()}"

    @classmethod
    def parse_iso(cls, text: str) -> PartialDate:
        """Read back what :meth:`iso` writes; anything else raises :class:`InvalidPartialDate`."""
        match = _ISO_FORM.fullmatch(text.strip())
        if match is None:
            raise InvalidPartialDate(f"not a partial date: {text!r}")
        try:
            if match["a"] is not None:
                return cls.range(date.fromisoformat(match["a"]), date.fromisoformat(match["b"]))
            if match["day"] is not None:
                return cls.day(date.fromisoformat(match["day"]))
            if match["month"] is not None:
                year, month = match["month"].split("-")
                return cls.month(int(year), int(month))
            return cls.year(int(match["year"]))
        except ValueError as exc:  # out-of-range month or day, year 0
            if isinstance(exc, InvalidPartialDate):
                raise
            raise InvalidPartialDate(f"not a partial date: {text!r} ({exc})") from exc

    def __str__(self) -> str:
        return self.iso()

    # -- comparisons -------------------------------------------------------------------------

    @property
    def days(self) -> int:
        """How many calendar days the value spans (1 for a day)."""
        return (self.end - self.start).days + 1

    def contains(self, other: PartialDate | date) -> bool:
        """Whether every day ``other`` allows is also allowed by this value."""
        start, end = (other, other) if isinstance(other, date) else (other.start, other.end)
        return self.start <= start and end <= self.end

    def overlaps(self, other: PartialDate | date) -> bool:
        """Whether the two can be the same day: they share at least one day."""
        start, end = (other, other) if isinstance(other, date) else (other.start, other.end)
        return self.start <= end and start <= self.end

    def shifted(self, days: int) -> PartialDate:
        """The same span moved by ``days``; a day stays a day, a week moved by whole weeks
        stays a week, anything else becomes a range (a month moved by ten days is no month)."""
        delta = timedelta(days=days)
        start, end = self.start + delta, self.end + delta
        if self.precision == "day":
            return PartialDate.day(start)
        return PartialDate.range(start, end)


def within_dates(first: date | None, last: date | None, since: date | None,
                 until: date | None) -> bool:
    """Whether an incident that can lie anywhere from ``first`` to ``last`` falls within
    ``since``..``until``: any overlap admits it (an attack dated only to a week or a siege is
    not left out of the days it may belong to); an undated one is admitted only by no dates.
    The one reading of a date filter, for ``incidents``, ``patterns``, ``elements``, reports."""
    if since is None and until is None:
        return True
    if first is None or last is None:
        return False
    return (since is None or last >= since) and (until is None or first <= until)
