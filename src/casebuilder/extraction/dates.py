"""Date expressions in report text, resolved against the report's publication date.

Extraction stage. The incident extractor calls :meth:`DateResolver.find` on each sentence of a
document's text (with ``base`` set to the sentence's offset in the document, so that every
returned span is an offset into the document text), and :func:`find_relative_events` for the
"a day after ..." markers it resolves itself against another event's date. Nothing here reads
the clock, the network or a global: the publication date is passed in, the conflicts come from
``vocab/wars.toml`` through a :class:`WarCalendar`.

A :class:`DateMention` keeps the exact words, the :class:`PartialDate` they allow, whether the
words date the act of reporting ("said on Sunday") or an event, and the rule that fired, so an
analyst can see why a date was given.

Choices an analyst should know (each is the reading news copy usually means):

* A weekday names the most recent such day up to and including the publication day ("on
  Wednesday" in a Wednesday's paper is that Wednesday); after "last" it is strictly before the
  publication day; after "next" or "coming", or near a future marker ("will", "is due to"), it
  is the next such day after it. A part of the day ("Friday morning", "late on Sunday",
  "Saturday night") keeps day precision: it is the calendar day the words name.
* "overnight" is the night that ends on the publication day, given as the publication day (day
  precision): overnight reports are written the morning after and the harm is counted on the
  day it is reported. "last night" is the evening before the publication day. "overnight into
  Friday" is that Friday.
* "the day before", "a day earlier", "the previous evening" with nothing after them to anchor
  them count back from the publication day. The same words followed by an event ("the day
  before the strike") are left to :func:`find_relative_events`, as are "a day after",
  "two days later", "the next day", which count from another event, never from publication.
* A day and month without a year take the publication year, unless that puts the date more
  than about two months after publication (then the year before) or more than ten months
  before it (then the year after); a month alone is placed the same way by its middle day.
* "early March" is 1-10 March, "mid-March" 11-20, "late March" 21 to the month's end (a range);
  "early 2022" is January-April, "mid-2022" May-August, "late 2022" September-December.
* "this week", "last week" are Monday-to-Sunday weeks; "earlier this week/month/year" runs
  from the start of that week/month/year to publication; "since X" runs from the start of X to
  publication; "over the past day" ("in the past 24 hours") is the day before publication and
  the publication day, "over the past week" the seven days before it and that day.
* "N days ago" is a day; "N weeks ago" the week holding the day N*7 days before; "a month ago"
  the month before. Vague spans ("for weeks", "in recent days", "a few days ago") are not
  returned: a guess would look like a fact.
* Without a publication date only what needs none is returned: dates with a year, ISO and
  dotted dates, and "the Nth day of the war".

Months and weekdays must be capitalised ("may be", "a march" are not dates), "May" and other
months stand alone only after a cue ("in May", "since May", "mid-May"), a weekday followed by
a capitalised name ("Sunday Times") or after one ("Bloody Sunday") is taken for a name, and
numbers count as dates only inside a date form (so "10:00", "2,400", "Article 438" are not).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, NamedTuple

from casebuilder.errors import CasebuilderError
from casebuilder.extraction.date_roles import (
    DROPPED,
    PASSING,
    TOKEN,
    DateContext,
    load_date_roles,
)
from casebuilder.extraction.rules import Decision, RuleTable
from casebuilder.model.lexicon import Lexicon
from casebuilder.model.partial_date import PartialDate

if TYPE_CHECKING:  # vocabulary.py reads the war calendar from here
    from casebuilder.extraction.vocabulary import Vocabulary

Role = Literal["event", "report"]
Direction = Literal["before", "after"]

WARS_FILE: Final = "wars.toml"

# -- the date lexicon ------------------------------------------------------------------------

# Date forms that count days and months ("March 16", "16.03.2022"): numbers, not words.
_DAY: Final = r"(?<![\d,.:/])(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?\b(?![.,:/]\d|\s*%)"
_YEAR: Final = r"(?:19|20)\d\d(?!\w|[.,/\-–]\d)"
_NUMBER: Final = re.compile(r"\d+")


def _alternatives(words: Iterable[str]) -> str:
    """A regex alternation of words, longest first (so no word stops at a shorter one)."""
    return "|".join(re.escape(word) for word in sorted(set(words), key=lambda w: (-len(w), w)))


def _numbers_of(lexicon: Lexicon, name: str) -> dict[str, int]:
    return {word: int(number) for word, number in lexicon.mapping(name).items()}


class DateWords:
    """The word classes of ``vocab/lexicon/dates.toml`` read once, and the pieces of the date
    forms built from them (weekday and month names, counts, ordinals, parts of the day)."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.weekdays = _numbers_of(lexicon, "weekday_numbers")
        full_months = _numbers_of(lexicon, "month_numbers")
        short_months = _numbers_of(lexicon, "month_abbreviations")
        self.months = {**full_months, **short_months}
        self.counts = _numbers_of(lexicon, "date_count_words")
        self.ordinal_units = _numbers_of(lexicon, "ordinal_units")
        self.ordinal_teens = _numbers_of(lexicon, "ordinal_teens")
        self.ordinal_tens = _numbers_of(lexicon, "ordinal_tens")
        self.tens = _numbers_of(lexicon, "number_tens")
        self.future_cues = lexicon.words("future_cues")
        self.relative_units = _numbers_of(lexicon, "relative_units")
        self.relative_the_units = _numbers_of(lexicon, "relative_the_units")
        self.relative_sequence_units = _numbers_of(lexicon, "relative_sequence_units")
        self.relative_directions = lexicon.mapping("relative_directions")
        self.relative_sequence = lexicon.mapping("relative_sequence")
        self.clock = lexicon.pattern("clock_time")
        self.zones = lexicon.mapping("time_zones")
        zones = _alternatives(self.zones)
        self.zone = re.compile(rf"\s*(?:\(\s*(?P<z1>{zones})\s*\)|(?P<z2>{zones})\b)", re.I)
        self.time_gap = lexicon.pattern("time_date_gap")

        self.weekday = rf"(?:{_alternatives(self.weekdays)})\b"
        # An abbreviation's full stop belongs to the date only before the day: "Mar. 16".
        self.month = (rf"(?:(?:{_alternatives(full_months)})\b"
                      rf"|(?:{_alternatives(short_months)})\b(?:\.(?=\s*\d))?)")
        self.part_of_day = rf"(?:{_alternatives(lexicon.words('parts_of_day'))})\b"
        self.count = rf"(?:\d{{1,3}}|{_alternatives(self.counts)})\b"
        simple = _alternatives([*self.ordinal_tens, *self.ordinal_teens, *self.ordinal_units])
        ordinal_words = (rf"(?:(?:{_alternatives(self.tens)})[\s-]"
                         rf"(?:{_alternatives(self.ordinal_units)})|{simple})\b")
        self.ordinal = rf"(?:\d{{1,4}}(?:st|nd|rd|th)\b|{ordinal_words})"
        self.dash = lexicon.pattern("date_range_dash").pattern
        self.since_before = lexicon.pattern("since_before")
        self.leading_preposition = re.compile(
            rf"(?:(?:{_alternatives(lexicon.words('date_prepositions'))})\s+)+", re.I)
        self.name_word = re.compile(
            rf"\b(?:{_alternatives([*self.weekdays, *self.months])})\b", re.I)
        self.month_word = re.compile(rf"\b({_alternatives(self.months)})\b", re.I)
        self.weekday_word = re.compile(rf"\b({_alternatives(self.weekdays)})\b", re.I)
        self.relative_event = re.compile(
            rf"\b(?:(?:(?P<n>{self.count})\s+)?(?P<unit>{_alternatives(self.relative_units)})"
            rf"|the\s+(?P<the>{_alternatives(self.relative_the_units)}))\s+"
            rf"(?P<dir>{_alternatives(self.relative_directions)})\b"
            rf"(?!\s+(?:{_alternatives(lexicon.words('relative_marker_blockers'))})\b)"
            rf"|\bthe\s+(?P<adj>{_alternatives(self.relative_sequence)})\s+"
            rf"(?P<unit2>{_alternatives(self.relative_sequence_units)})\b", re.I)

    def count_of(self, word: str) -> int | None:
        word = word.lower()
        if word.isdigit():
            return int(word)
        return self.counts.get(word)

    def ordinal_of(self, text: str) -> int | None:
        text = text.lower().strip()
        digits = re.match(r"(\d+)(?:st|nd|rd|th)$", text)
        if digits:
            return int(digits.group(1))
        words = re.split(r"[\s\-]+", text)
        if len(words) == 2:
            tens, unit = self.tens.get(words[0]), self.ordinal_units.get(words[1])
            return tens + unit if tens is not None and unit is not None else None
        single = words[0]
        return (self.ordinal_units.get(single) or self.ordinal_teens.get(single)
                or self.ordinal_tens.get(single))

    def weekday_index(self, expression: str) -> int | None:
        match = self.weekday_word.search(expression)
        return self.weekdays[match.group(1).lower()] if match else None

    def month_numbers(self, expression: str) -> list[int]:
        return [self.months[m.group(1).lower()] for m in self.month_word.finditer(expression)]

    def time_of(self, match: re.Match[str]) -> str | None:
        """"HH:MM" for a match of the clock-time pattern, or None (a word such as "noon"
        without a cue before it is a part of the day, not a time)."""
        if match.group("word"):
            if not match.group("cue"):
                return None
            return "00:00" if match.group("word").lower() == "midnight" else "12:00"
        hour = int(match.group("h") or match.group("h2"))
        minute = int(match.group("m") or 0)
        half = (match.group("ap") or match.group("ap2") or "").lower()[:1]
        if half and not 1 <= hour <= 12:
            return None
        if half == "p" and hour != 12:
            hour += 12
        elif half == "a" and hour == 12:
            hour = 0
        return f"{hour:02d}:{minute:02d}"

    def future_before(self, before: str) -> bool:
        tokens = TOKEN.findall(before[-60:])
        return any(word.lower() in self.future_cues for word in tokens[-5:])


#: The words of each lexicon read once (by identity: a lexicon is not hashable).
_READ: dict[int, tuple[Lexicon, DateWords]] = {}


def date_words(lexicon: Lexicon) -> DateWords:
    """The date words of ``lexicon``, read on first use and kept."""
    kept = _READ.get(id(lexicon))
    if kept is None or kept[0] is not lexicon:
        kept = _READ[id(lexicon)] = (lexicon, DateWords(lexicon))
    return kept[1]


class WarCalendarError(CasebuilderError):
    """The conflicts file is missing or malformed."""


# -- values ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DateMention:
    """One date expression: its span in the document text, its value and what it dates."""

    start: int
    end: int
    expression: str
    value: PartialDate
    role: Role
    rule: str
    #: The rule of ``vocab/rules/date_roles.toml`` that gave the role ("default": none did).
    role_rule: str = "default"
    #: The time of day the words give ("14:10"), and its zone as written ("EDT", "local
    #: time"; "" when none is); None when no time is given.
    time: str | None = None
    zone: str = ""
    #: The rule of ``vocab/rules/attack_days.toml`` that read the words as naming the
    #: attack's own day ("the April 24 attack"); "" when none did.
    attack_day_rule: str = ""


class DateTrace(NamedTuple):
    """One decision of the date-role table on a matched date form: kept or dropped, and by
    which rule (a dropped date leaves only this)."""

    start: int
    end: int
    expression: str
    decision: Decision


class TimeOfDay(NamedTuple):
    """A time of day with no day beside it ("as of 11am", "at 09:30"): it names no date, but
    a report's own times order what it says within its day."""

    start: int
    end: int
    expression: str
    time: str  # "HH:MM"
    zone: str  # as written ("EDT", "local time"), or ""
    cue: str  # the word before it, lower-cased: "as of", "at", "by", ... or ""


class RelativeEventMention(NamedTuple):
    """A marker that dates an event from another one: "a day after", "two days before".

    ``days_offset`` is signed: the event the marker dates lies ``days_offset`` days from the
    event it points to (1 for "a day after", -2 for "two days earlier", 0 for "hours after").
    In "The strike came a day after an air attack", the strike is the air attack's date + 1,
    and so the air attack is the strike's date - 1."""

    start: int
    end: int
    expression: str
    days_offset: int
    direction: Direction


@dataclass(frozen=True, slots=True)
class War:
    id: str
    name: str
    start: date
    aliases: tuple[str, ...]


def _normalise_alias(text: str) -> str:
    words = re.sub(r"[\s\-‐‑]+", " ", text.lower().replace("’", "'")).strip().split(" ")
    if words and words[0] in {"the", "a", "an", "this"}:
        words = words[1:]
    return " ".join(words)


class WarCalendar:
    """Conflicts and their start dates, read from ``vocab/wars.toml`` or given directly."""

    def __init__(self, wars: Iterable[War]) -> None:
        self._wars = tuple(sorted(wars, key=lambda war: war.start))
        if not self._wars:
            raise WarCalendarError("a war calendar needs at least one conflict")
        by_alias: dict[str, list[War]] = {}
        for war in self._wars:
            for alias in war.aliases:
                by_alias.setdefault(_normalise_alias(alias), []).append(war)
        by_alias.pop("", None)
        self._by_alias = {alias: tuple(wars) for alias, wars in by_alias.items()}

    @classmethod
    def from_toml(cls, text: str, *, origin: str = WARS_FILE) -> WarCalendar:
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise WarCalendarError(f"{origin}: {exc}") from exc
        wars = []
        for index, entry in enumerate(raw.get("war", [])):
            where = f"{origin}: war #{index + 1}"
            if not isinstance(entry, dict):
                raise WarCalendarError(f"{where} is not a table")
            start = entry.get("start")
            aliases = entry.get("aliases", [])
            if not isinstance(start, date) or isinstance(start, datetime):
                raise WarCalendarError(f"{where}: start must be a TOML date such as 2022-02-24")
            if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
                raise WarCalendarError(f"{where}: aliases must be a list of strings")
            ident, name = entry.get("id"), entry.get("name")
            if not isinstance(ident, str) or not isinstance(name, str):
                raise WarCalendarError(f"{where}: id and name must be strings")
            wars.append(War(ident, name, start, tuple(aliases)))
        return cls(wars)

    @classmethod
    def load(cls, path: Path | None = None) -> WarCalendar:
        """The shipped conflicts file, or the one at ``path``."""
        try:
            if path is not None:
                return cls.from_toml(path.read_text(encoding="utf-8"), origin=str(path))
            package = resources.files("casebuilder.extraction")
            shipped = package.joinpath("vocab").joinpath(WARS_FILE)
            return cls.from_toml(shipped.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise WarCalendarError(f"cannot read the conflicts file: {exc}") from exc

    @property
    def wars(self) -> tuple[War, ...]:
        return self._wars

    def alias_pattern(self) -> str:
        """A regular expression (to be used case-insensitively) matching any alias, longest
        first, with an optional article and hyphens or spaces between words."""
        parts = []
        for alias in sorted(self._by_alias, key=len, reverse=True):
            words = [re.escape(word).replace("'", "['’]") for word in alias.split(" ")]
            parts.append(r"[\s\-‐‑]+".join(words))
        return r"(?:(?:the|a|an|this)\s+)?(?:" + "|".join(parts) + r")\b"

    def war_for(self, phrase: str, published: date | None) -> War | None:
        """The war a phrase names: of the wars it can name, the latest begun by ``published``
        (the latest of all when no date is known); None for a phrase naming none, or naming
        only wars that had not begun by then."""
        wars = self._by_alias.get(_normalise_alias(phrase))
        if not wars:
            return None
        if published is None:
            return wars[-1]
        begun = [war for war in wars if war.start <= published]
        return begun[-1] if begun else None


# -- resolver --------------------------------------------------------------------------------


class _Resolved(NamedTuple):
    value: PartialDate
    rule: str


_Handler = Callable[[str, str, date | None], _Resolved | None]


def _add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def _place_year(month: int, day: int, published: date, *, ahead: int = 7) -> date | None:
    """The year of ``day month`` in a report: within the year up to a week after publication.

    Reports are about the past: "On March 16" in a report of 14 January is last March, not
    two months ahead. The week of slack keeps announced dates ("talks on Monday 20th"); a
    future cue before the date ("a memorial is planned for January 10") allows two months.
    """
    for year in (published.year, published.year - 1, published.year + 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            continue
        if published - timedelta(days=365 - ahead) < candidate <= published + timedelta(
                days=ahead):
            return candidate
    return None










def _numbers(expression: str) -> tuple[list[int], list[int]]:
    """Day numbers and four-digit years in an expression, in order."""
    days: list[int] = []
    years: list[int] = []
    for m in _NUMBER.finditer(expression):
        (years if len(m.group()) == 4 else days).append(int(m.group()))
    return days, years


def _past_weekday(published: date, weekday: int, *, strictly: bool) -> date:
    back = (published.weekday() - weekday) % 7
    if strictly and back == 0:
        back = 7
    return published - timedelta(days=back)


def _next_weekday(published: date, weekday: int) -> date:
    ahead = (weekday - published.weekday()) % 7 or 7
    return published + timedelta(days=ahead)


def _part_of_month(word: str, year: int, month: int) -> PartialDate:
    last = PartialDate.month(year, month).end.day
    if word in {"early", "start", "beginning"}:
        return PartialDate.range(date(year, month, 1), date(year, month, 10))
    if word in {"mid", "middle"}:
        return PartialDate.range(date(year, month, 11), date(year, month, 20))
    if word == "first half":
        return PartialDate.range(date(year, month, 1), date(year, month, 15))
    if word == "second half":
        return PartialDate.range(date(year, month, 16), date(year, month, last))
    return PartialDate.range(date(year, month, 21), date(year, month, last))


def _part_of_year(word: str, year: int) -> PartialDate:
    spans = {"early": (1, 4), "start": (1, 4), "beginning": (1, 4), "mid": (5, 8),
             "middle": (5, 8), "first half": (1, 6), "second half": (7, 12)}
    first, last = spans.get(word, (9, 12))
    return PartialDate.range(date(year, first, 1), PartialDate.month(year, last).end)


class DateResolver:
    """Finds date expressions and resolves them; build one and reuse it (it compiles its
    pattern once, from the lexicon's date words and the calendar's aliases).

    ``reporting_verbs`` are the verbs of saying whose date is the statement's; ``roles`` is
    the date-role table (:mod:`casebuilder.extraction.date_roles`). :meth:`of` builds one
    from the extraction vocabulary, with the verbs of ``vocab/attribution.toml``."""

    def __init__(self, calendar: WarCalendar, lexicon: Lexicon, *,
                 reporting_verbs: frozenset[str], roles: RuleTable[DateContext]) -> None:
        self._calendar = calendar
        self._words = w = date_words(lexicon)
        self.reporting_verbs = reporting_verbs
        self.roles = roles
        self._weekday_names = frozenset(w.weekdays)
        self._month_names = frozenset(w.months)
        alias = calendar.alias_pattern()
        self._alias = re.compile(alias, re.I)
        # The pieces every form is built from (weekday, month, day, year, part of the day,
        # count, ordinal, the dash of a range).
        wd, mon, day, year, part, count, ordinal, dash = (
            w.weekday, w.month, _DAY, _YEAR, w.part_of_day, w.count, w.ordinal, w.dash)
        rules: list[tuple[str, str, _Handler]] = [
            ("iso", r"(?<![\w\-])(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
                    r"(?![\w\-])", self._iso),
            ("dotted", r"(?<![\w./])\d{1,2}(?P<sep>[./])\d{1,2}(?P=sep)(?:19|20)\d\d"
                       r"(?![\w/]|\.\d)", self._dotted),
            ("range_md", rf"(?:between\s+)?(?:{wd},?\s+)?{mon}\s+{day}{dash}(?:{mon}\s+)?"
                         rf"{day}(?:,?\s+{year})?", self._range_md),
            ("range_dm", rf"(?:between\s+)?(?:the\s+)?{day}(?:\s+(?:of\s+)?{mon})?{dash}"
                         rf"(?:the\s+)?{day}\s+(?:of\s+)?{mon}(?:,?\s+{year})?",
             self._range_dm),
            ("md", rf"(?:{wd},?\s+)?{mon}\s+{day}(?:,?\s+(?:of\s+)?{year})?", self._day_month),
            ("dm", rf"(?:{wd},?\s+)?(?:the\s+)?{day}\s+(?:of\s+)?{mon}(?:,?\s+{year})?",
             self._day_month),
            ("war_day", rf"(?:the\s+)?{ordinal}\s+day\s+(?:of|into)\s+{alias}"
                        rf"|\bday\s+\d{{1,4}}\s+of\s+{alias}|{alias}['’]s\s+{ordinal}\s+day",
             self._war_day),
            ("war_since", rf"(?:ever\s+)?since\s+(?:(?:the|its)\s+)?(?:very\s+)?(?:start|"
                          rf"beginning|outbreak|onset|launch|first\s+days?)\s+of\s+{alias}"
                          rf"|(?:ever\s+)?since\s+{alias}(?:\s+(?:began|started|was\s+launched"
                          rf"|broke\s+out|erupted))?", self._war_since),
            ("past_period", rf"(?:over|in|during|for|within|across)\s+the\s+(?:past|last|"
                            rf"previous|preceding)\s+(?:{count}\s+)?(?:days?|nights?|weeks?|"
                            rf"months?|years?|(?:24|48|72|twenty-four|forty-eight)\s+hours)\b",
             self._past_period),
            ("ago_to_the_day", rf"(?:exactly\s+)?{count}\s+(?:months?|years?)\s+ago(?:\s+"
                               rf"(?:today|to\s+the\s+day|on\s+this\s+(?:very\s+)?day)\b"
                               rf"|,?\s+to\s+the\s+day\b)|exactly\s+{count}\s+(?:months?|"
                               rf"years?)\s+ago\b|(?:on\s+)?this\s+(?:very\s+)?day\s+(?:last"
                               rf"\s+year|{count}\s+years?\s+ago)\b", self._ago_to_the_day),
            ("ago", rf"{count}\s+(?:days?|weeks?|months?|years?)\s+ago\b", self._ago),
            ("relative_span", r"(?:so\s+far\s+|(?:earlier|later)\s+)?(?:this|last|next|the\s+"
                              r"previous|the\s+past)\s+(?:weekend|week|month|year)\b"
                              r"(?!\s+of\b)", self._relative_span),
            ("month_part", rf"(?:(?:early|mid|late)[\s\-‐‑]*|(?:the\s+)?(?:start|beginning|end"
                           rf"|middle|first\s+half|second\s+half)\s+of\s+)(?:{mon}(?:,?\s+"
                           rf"(?:of\s+)?{year})?|{year})", self._month_part),
            ("month_year", rf"{mon},?\s+(?:of\s+)?{year}", self._month_alone),
            ("month_in", rf"(?:in|since|during|throughout|until|from|through|of|by)\s+(?:the\s+"
                         rf"month\s+of\s+)?{mon}(?:,?\s+(?:of\s+)?{year}|(?!\s*\d))",
             self._month_alone),
            ("year", rf"(?:in|since|during|throughout|of)\s+(?:the\s+year\s+)?{year}"
                     rf"|(?:spring|summer|autumn)\s+(?:of\s+)?{year}", self._year),
            ("weekday_night", rf"(?:on\s+)?(?:the\s+)?night\s+(?:of|from)\s+{wd}\s+(?:to|into"
                              rf"|and)\s+{wd}", self._weekday_night),
            ("weekday", rf"(?:(?:early|late)(?:\s+on)?\s+|(?:(?:on|in)\s+)?the\s+(?:early\s+"
                        rf"hours|small\s+hours|morning|afternoon|evening|night)\s+of\s+"
                        rf"|overnight\s+(?:into|to|on)\s+|(?:last|next|this|past|previous|"
                        rf"coming)\s+)?(?<!\bevery\s)(?<!\beach\s){wd}"
                        rf"(?:\s+(?:early\s+|late\s+)?(?:in\s+the\s+)?{part})?", self._weekday),
            ("day_word", rf"the\s+day\s+before\s+yesterday|(?:early\s+|late\s+|earlier\s+|"
                         rf"later\s+)?(?:today|tonight|tomorrow|yesterday(?:,?\s+(?:early\s+|"
                         rf"late\s+)?(?:in\s+the\s+)?{part})?|this\s+{part}|last\s+night|"
                         rf"overnight)\b", self._day_word),
            ("day_before", rf"the\s+(?:day|night|evening|morning)\s+(?:before|earlier)\b"
                           rf"|the\s+(?:previous|preceding)\s+(?:day|night|evening|morning|"
                           rf"afternoon)\b|{count}\s+(?:days?|weeks?)\s+(?:earlier|before)\b",
             self._day_before),
        ]
        self._handlers: dict[str, _Handler] = {name: handler for name, _, handler in rules}
        # Every form starts at the start of a word; saying so first lets the engine give up at
        # once inside words instead of trying each alternative there (about 3x faster).
        self._pattern = re.compile(
            r"\b(?=\w)(?:" + "|".join(rf"(?P<{name}>{source})" for name, source, _ in rules)
            + ")", re.I
        )

    # -- public ------------------------------------------------------------------------------

    @classmethod
    def of(cls, vocabulary: Vocabulary) -> DateResolver:
        """The resolver of the extraction vocabulary: its conflicts, its date words, its date
        roles, and as verbs of saying the stated, alleged and denied verbs of
        ``vocab/attribution.toml`` (one list for attribution and dates alike)."""
        saying = frozenset(verb for verb, kind in vocabulary.evidentiality_verbs.items()
                           if kind != "observed")  # "saw on Monday" dates what was seen
        return cls(vocabulary.wars, vocabulary.lexicon, reporting_verbs=saying,
                   roles=load_date_roles(vocabulary.directory, vocabulary.lexicon))

    def find(self, text: str, published: date | None, *, base: int = 0,
             trace: list[DateTrace] | None = None,
             times: list[TimeOfDay] | None = None) -> list[DateMention]:
        """Date expressions in ``text``, each resolved against ``published``; spans are
        offsets into ``text`` plus ``base``. Every decision of the role table, on the dates
        kept and the ones dropped, is added to ``trace`` when one is given. A time of day
        beside a date is that date's (:attr:`DateMention.time`); one that stands alone is
        added to ``times`` when that is given."""
        if isinstance(published, datetime):
            published = published.date()
        mentions: list[DateMention] = []
        position = 0
        while True:
            match = self._pattern.search(text, position)
            if match is None:
                return self._times_of_day(text, base, mentions, times)
            mention, passing = self._mention(text, match, published, base, trace)
            if mention is None:
                # Rejected (a name, a verb, an unresolvable form): a shorter date may start
                # inside what was matched. A date named in passing is a date all the same:
                # nothing inside it is read again ("born on 2 May 1950" is not "May 1950").
                position = match.end() if passing else match.start() + 1
                continue
            mentions.append(mention)
            position = match.end()

    # -- per match ---------------------------------------------------------------------------

    def _mention(self, text: str, match: re.Match[str], published: date | None,
                 base: int, trace: list[DateTrace] | None) -> tuple[DateMention | None, bool]:
        """The date the match gives, or None; and whether the words were a date named in
        passing (a date, though it dates nothing)."""
        name = match.lastgroup
        if name is None:  # pragma: no cover - every alternative is a named group
            return None, False
        start, end = match.span()
        expression = text[start:end]
        try:
            resolved = self._handlers[name](expression, text[max(0, start - 60):start],
                                            published)
        except (ValueError, OverflowError):
            # Counting far past the calendar's ends ("9999 years ago" in an old report) or a
            # day the month lacks: not a date this code can give.
            return None, False
        if resolved is None:
            return None, False
        value, rule = resolved

        quoted = start
        trimmed = self._words.leading_preposition.match(expression)
        if trimmed and trimmed.end() < len(expression) and name != "war_since":
            quoted += trimmed.end()
        since = text[quoted:end].lower().startswith(("since", "ever since"))
        before = self._words.since_before.search(text, max(0, quoted - 12), quoted)
        if before is not None and name not in {"war_since", "month_in", "year"}:
            since = True
            quoted = before.start()

        decision = self.roles.decide(DateContext(
            text, start, end, name, quoted, self._names_are_capitalised(expression),
            self._weekday_names, self._month_names, self.reporting_verbs))
        if trace is not None:
            trace.append(DateTrace(base + start, base + end, expression, decision))
        if decision.outcome in (DROPPED, PASSING):
            return None, decision.outcome == PASSING
        if since and name != "war_since":
            if published is None or value.start > published:
                return None, False
            value, rule = PartialDate.range(value.start, published), f"since-{rule}"
        role: Role = "report" if decision.outcome == "report" else "event"
        return DateMention(base + quoted, base + end, text[quoted:end], value, role, rule,
                           decision.rule), False

    def _times_of_day(self, text: str, base: int, mentions: list[DateMention],
                      times: list[TimeOfDay] | None) -> list[DateMention]:
        """Times of day in ``text``: one beside a date gives that date its time ("on Tuesday
        at 14:10", "as of 09:30 on 8 August", "30 May 2023 22:11"); one alone is no date (it
        names no day) and goes to ``times`` when that is given ("as of 11am")."""
        found = list(mentions)
        for match in self._words.clock.finditer(text):
            time = self._words.time_of(match)
            if time is None:
                continue
            start, end = match.start() + len(match.group("cue") or ""), match.end()
            zone = ""
            zoned = self._words.zone.match(text, end)
            if zoned is not None:
                zone, end = zoned.group("z1") or zoned.group("z2"), zoned.end()
            if any(m.start <= base + start < m.end for m in found):
                continue  # part of a date form already read
            beside = self._beside(text, start, end, found, base)
            if beside is not None:
                first, last = min(beside.start, base + start), max(beside.end, base + end)
                found[found.index(beside)] = replace(
                    beside, start=first, end=last, expression=text[first - base:last - base],
                    time=time, zone=zone)
            elif times is not None:
                cue = (match.group("cue") or "").strip().lower()
                times.append(TimeOfDay(base + start, base + end, text[start:end], time, zone,
                                       " ".join(cue.split())))
        return sorted(found, key=lambda m: m.start)

    def _beside(self, text: str, start: int, end: int, mentions: list[DateMention],
                base: int) -> DateMention | None:
        """The date a time stands beside, with at most a comma or "on"/"at" between."""
        for mention in mentions:
            if mention.time is not None:
                continue
            if mention.start - base >= end:
                gap = text[end:mention.start - base]
            elif mention.end - base <= start:
                gap = text[mention.end - base:start]
            else:
                continue
            if len(gap) <= 6 and self._words.time_gap.fullmatch(gap):
                return mention
        return None

    def _names_are_capitalised(self, expression: str) -> bool:
        return all(m.group()[0].isupper() for m in self._words.name_word.finditer(expression))

    # -- rules -------------------------------------------------------------------------------

    def _iso(self, expression: str, _before: str, _published: date | None) -> _Resolved | None:
        try:
            return _Resolved(PartialDate.day(date.fromisoformat(expression)), "iso-date")
        except ValueError:
            return None

    def _dotted(self, expression: str, _before: str,
                _published: date | None) -> _Resolved | None:
        first, second, year = (int(part) for part in re.split(r"[./]", expression))
        if "/" in expression:
            # Slashes are written day-first and month-first alike. An unambiguous one is read
            # as written; an ambiguous one (04/07/2022) day-first, as Ukrainian, Russian and
            # European sources and monitors write dates (rule "numeric-date-day-first").
            if second > 12 >= first:
                day, month = second, first
            else:
                day, month = first, second
        else:
            day, month = first, second
        try:
            return _Resolved(PartialDate.day(date(year, month, day)), "numeric-date")
        except ValueError:
            return None

    def _day_month(self, expression: str, _before: str,
                   published: date | None) -> _Resolved | None:
        months = self._words.month_numbers(expression)
        days, years = _numbers(expression)
        if not months or not days:
            return None
        try:
            if years:
                return _Resolved(PartialDate.day(date(years[0], months[0], days[0])),
                                 "day-month-year")
        except ValueError:
            return None
        if published is None:
            return None
        ahead = 61 if self._words.future_before(_before) else 7
        placed = _place_year(months[0], days[0], published, ahead=ahead)
        return _Resolved(PartialDate.day(placed), "day-month") if placed else None

    def _date_range(self, months: list[int], days: list[int], years: list[int],
                    published: date | None) -> _Resolved | None:
        if len(days) != 2 or not months:
            return None
        first_month = months[0]
        last_month = months[-1]
        try:
            if years:
                first = date(years[0], first_month, days[0])
                last = date(years[0], last_month, days[1])
            elif published is not None:
                placed = _place_year(last_month, days[1], published)
                if placed is None:
                    return None
                last = placed
                first = date(last.year if first_month <= last_month else last.year - 1,
                             first_month, days[0])
            else:
                return None
        except ValueError:
            return None
        if first >= last or (last - first).days > 62:
            return None
        return _Resolved(PartialDate.range(first, last), "date-range")

    def _range_md(self, expression: str, _before: str,
                  published: date | None) -> _Resolved | None:
        days, years = _numbers(expression)
        return self._date_range(self._words.month_numbers(expression), days, years, published)

    def _range_dm(self, expression: str, _before: str,
                  published: date | None) -> _Resolved | None:
        days, years = _numbers(expression)
        return self._date_range(self._words.month_numbers(expression), days, years, published)

    def _war_day(self, expression: str, _before: str,
                 published: date | None) -> _Resolved | None:
        alias = self._alias.search(expression)
        if alias is None:
            return None
        war = self._calendar.war_for(alias.group(), published)
        rest = expression[:alias.start()] + " " + expression[alias.end():]
        ordinal = re.search(rf"\bday\s+(\d{{1,4}})\b|({self._words.ordinal})", rest, re.I)
        if war is None or ordinal is None:
            return None
        number = (int(ordinal.group(1)) if ordinal.group(1)
                  else self._words.ordinal_of(ordinal.group(2)))
        if not number:
            return None
        try:
            day = war.start + timedelta(days=number - 1)
        except OverflowError:
            return None
        return _Resolved(PartialDate.day(day), "war-day")

    def _war_since(self, expression: str, _before: str,
                   published: date | None) -> _Resolved | None:
        alias = self._alias.search(expression)
        if alias is None or published is None:
            return None
        war = self._calendar.war_for(alias.group(), published)
        if war is None or war.start > published:
            return None
        return _Resolved(PartialDate.range(war.start, published), "since-war-start")

    def _past_period(self, expression: str, _before: str,
                     published: date | None) -> _Resolved | None:
        if published is None:
            return None
        words = expression.lower().split()
        unit = words[-1]
        if unit == "hours":
            span = {"24": 1, "twenty-four": 1, "48": 2, "forty-eight": 2, "72": 3}[words[-2]]
        else:
            count = self._words.count_of(words[-2]) if len(words) > 4 else 1
            if count is None or (unit.endswith("s") and len(words) <= 4):
                return None  # "in the past days": vague
            per = {"day": 1, "night": 1, "week": 7, "month": 30, "year": 365}[unit.rstrip("s")]
            span = count * per
        try:
            return _Resolved(PartialDate.range(published - timedelta(days=span), published),
                             "past-period")
        except OverflowError:
            return None

    def _ago(self, expression: str, _before: str, published: date | None) -> _Resolved | None:
        words = expression.lower().split()
        count = self._words.count_of(words[0])
        if published is None or count is None:
            return None
        unit = words[1].rstrip("s")
        try:
            if unit == "day":
                return _Resolved(PartialDate.day(published - timedelta(days=count)), "ago")
            if unit == "week":
                return _Resolved(PartialDate.week_of(published - timedelta(days=7 * count)),
                                 "ago")
            if unit == "month":
                year, month = _add_months(published.year, published.month, -count)
                return _Resolved(PartialDate.month(year, month), "ago")
            return _Resolved(PartialDate.year(published.year - count), "ago")
        except (OverflowError, ValueError):
            return None

    def _ago_to_the_day(self, expression: str, _before: str,
                        published: date | None) -> _Resolved | None:
        """"A year ago today", "exactly two years ago", "this day last year": the same
        calendar day that many months or years before publication (a look-back at an
        attack), not the whole year."""
        if published is None:
            return None
        words = expression.lower().replace(",", " ").split()
        unit = next((w.rstrip("s") for w in words if w.rstrip("s") in {"month", "year"}),
                    "year")
        counts = [n for w in words if (n := self._words.count_of(w)) is not None]
        count = counts[0] if counts and "last" not in words else 1
        months = count * (12 if unit == "year" else 1)
        year, month = _add_months(published.year, published.month, -months)
        day = min(published.day, PartialDate.month(year, month).end.day)
        return _Resolved(PartialDate.day(date(year, month, day)), "ago-to-the-day")

    def _relative_span(self, expression: str, _before: str,
                       published: date | None) -> _Resolved | None:
        if published is None:
            return None
        words = expression.lower().split()
        unit, which = words[-1], words[-2]
        earlier = words[0] == "earlier" or words[:2] == ["so", "far"]
        if words[0] == "later" or which == "next":
            return None  # plans, not events
        back = 0 if which == "this" else 1
        try:
            if unit == "weekend":
                # The weekend of the publication week, or the one before it.
                saturday = PartialDate.week_of(published).start + timedelta(days=5 - 7 * back)
                return _Resolved(PartialDate.range(saturday, saturday + timedelta(days=1)),
                                 f"{which}-weekend")
            if which == "past":
                span = {"week": 7, "month": 30, "year": 365}[unit]
                return _Resolved(PartialDate.range(published - timedelta(days=span),
                                                   published), "past-period")
            if unit == "week":
                week = PartialDate.week_of(published - timedelta(days=7 * back))
                if earlier:
                    return _Resolved(PartialDate.range(week.start, published), "earlier-this")
                return _Resolved(week, f"{which}-week")
            if unit == "month":
                year, month = _add_months(published.year, published.month, -back)
                if earlier:
                    return _Resolved(PartialDate.range(date(year, month, 1), published),
                                     "earlier-this")
                return _Resolved(PartialDate.month(year, month), f"{which}-month")
            if earlier:
                return _Resolved(PartialDate.range(date(published.year - back, 1, 1),
                                                   published), "earlier-this")
            return _Resolved(PartialDate.year(published.year - back), f"{which}-year")
        except (OverflowError, ValueError):
            return None

    def _month_part(self, expression: str, _before: str,
                    published: date | None) -> _Resolved | None:
        lowered = expression.lower()
        word = next((w for w in ("first half", "second half", "early", "mid", "late", "start",
                                 "beginning", "end", "middle") if w in lowered), "mid")
        months = self._words.month_numbers(expression)
        _days, years = _numbers(expression)
        try:
            if not months:
                return _Resolved(_part_of_year(word, years[0]), "part-of-year")
            if years:
                return _Resolved(_part_of_month(word, years[0], months[0]), "part-of-month")
            if published is None:
                return None
            placed = _place_year(months[0], 15, published)
            if placed is None:
                return None
            return _Resolved(_part_of_month(word, placed.year, months[0]), "part-of-month")
        except (IndexError, ValueError):
            return None

    def _month_alone(self, expression: str, _before: str,
                     published: date | None) -> _Resolved | None:
        months = self._words.month_numbers(expression)
        _days, years = _numbers(expression)
        if not months:
            return None
        try:
            if years:
                return _Resolved(PartialDate.month(years[0], months[0]), "month-year")
            if published is None:
                return None
            placed = _place_year(months[0], 15, published)
            return _Resolved(PartialDate.month(placed.year, months[0]), "month") if placed \
                else None
        except ValueError:
            return None

    def _year(self, expression: str, _before: str, _published: date | None) -> _Resolved | None:
        _days, years = _numbers(expression)
        if not years:
            return None
        lowered = expression.lower()
        for season, (first, last) in {"spring": (3, 5), "summer": (6, 8),
                                      "autumn": (9, 11)}.items():
            if lowered.startswith(season):
                return _Resolved(PartialDate.range(date(years[0], first, 1),
                                                   PartialDate.month(years[0], last).end),
                                 "season")
        return _Resolved(PartialDate.year(years[0]), "year")

    def _weekday_night(self, expression: str, _before: str,
                       published: date | None) -> _Resolved | None:
        days = [self._words.weekdays[m.group(1).lower()]
                for m in self._words.weekday_word.finditer(expression)]
        if published is None or len(days) != 2 or (days[0] + 1) % 7 != days[1]:
            return None
        second = _past_weekday(published, days[1], strictly=False)
        return _Resolved(PartialDate.range(second - timedelta(days=1), second), "night-of")

    def _weekday(self, expression: str, before: str,
                 published: date | None) -> _Resolved | None:
        weekday = self._words.weekday_index(expression)
        if published is None or weekday is None:
            return None
        words = expression.lower().split()
        first = words[0]
        if first in {"next", "coming"} or (first != "last" and self._words.future_before(before)):
            return _Resolved(PartialDate.day(_next_weekday(published, weekday)),
                             "weekday-future")
        strictly = first in {"last", "past", "previous"}
        rule = "weekday" if len(words) == 1 or first in {"this", "last", "past", "previous"} \
            else "weekday-part"
        return _Resolved(PartialDate.day(_past_weekday(published, weekday, strictly=strictly)),
                         rule)

    def _day_word(self, expression: str, _before: str,
                  published: date | None) -> _Resolved | None:
        if published is None:
            return None
        lowered = expression.lower()
        if "before yesterday" in lowered:
            return _Resolved(PartialDate.day(published - timedelta(days=2)), "day-before-yesterday")
        if "yesterday" in lowered or "last night" in lowered:
            rule = "yesterday" if "yesterday" in lowered else "last-night"
            return _Resolved(PartialDate.day(published - timedelta(days=1)), rule)
        if "tomorrow" in lowered:
            return _Resolved(PartialDate.day(published + timedelta(days=1)), "tomorrow")
        rule = "overnight" if "overnight" in lowered else "today"
        return _Resolved(PartialDate.day(published), rule)

    def _day_before(self, expression: str, _before: str,
                    published: date | None) -> _Resolved | None:
        if published is None:
            return None
        words = expression.lower().split()
        count = 1
        if words[0] != "the":
            number = self._words.count_of(words[0])
            if number is None:
                return None
            count = number * (7 if words[1].startswith("week") else 1)
        try:
            return _Resolved(PartialDate.day(published - timedelta(days=count)), "day-before")
        except OverflowError:
            return None


# -- relative-event markers ------------------------------------------------------------------


def find_relative_events(text: str, lexicon: Lexicon, base: int = 0
                         ) -> list[RelativeEventMention]:
    """Markers that date an event from another event: "a day after", "two days before",
    "the next day", "a week later", "the day before", "hours after" (their words are the
    ``relative_*`` classes of the date lexicon). The caller resolves them with
    :func:`resolve_anchor` against the date of the event they point to."""
    words = date_words(lexicon)
    markers = []
    for match in words.relative_event.finditer(text):
        if match.group("adj"):
            direction = _direction(words.relative_sequence[match.group("adj").lower()])
            count, per = 1, words.relative_sequence_units[match.group("unit2").lower()]
        else:
            direction = _direction(words.relative_directions[match.group("dir").lower()])
            if match.group("the"):
                count, per = 1, words.relative_the_units[match.group("the").lower()]
            else:
                per = words.relative_units[match.group("unit").lower()]
                if match.group("n") is None and per:
                    continue  # "days after": how many is not said ("hours after" is 0 days)
                number = words.count_of(match.group("n")) if match.group("n") else 0
                if number is None:
                    continue
                count = number
        offset = count * per * (1 if direction == "after" else -1)
        markers.append(RelativeEventMention(base + match.start(), base + match.end(),
                                            match.group(), offset, direction))
    return markers


def _direction(word: str) -> Direction:
    return "after" if word == "after" else "before"


def resolve_anchor(days_offset: int, anchor: PartialDate) -> PartialDate:
    """The date ``days_offset`` days from ``anchor``, at the precision the shift allows (see
    :meth:`PartialDate.shifted`). Pass ``marker.days_offset`` to date the marked event from the
    one it points to, or its negation to date the pointed-to event from the marked one."""
    return anchor.shifted(days_offset)

