"""What a sentence's dates, figures, place names and targets are, decided by rule tables.

Before a sentence's values go to any mention, nine small decisions may set one aside or give
it another role, each an ordered rule table in vocab/rules/ whose rules are named, with
examples and counterexamples:

- ``count_dates.toml``: a date dates the event, or the day a toll was counted ("By Tuesday
  morning, officials said 18 had died") and so the report;
- ``attack_days.toml``: an event date names the attack's own day ("the April 24 attack",
  "the attack on Kyiv on April 24"), which then dates the mention before any other date of
  it (a look-back report's "overnight" counted from its publication, say);
- ``look_back_days.toml``: a relative day ("overnight") told just after a sentence that named
  an earlier attack's own day counts from that attack, not from the report's publication;
- ``stamp_days.toml``: a weekday counts back from the report's day, or, in a report stamped
  late in the evening, is the day after the stamp (the day has begun where the war is);
- ``counted_back_days.toml``: days counted from an attack the report names ("four days
  after the strike") date that attack, counted back from the day the sentence tells of;
- ``running_totals.toml``: the figures are one attack's toll, or a running or joint total
  ("Since 1 March, shelling has killed 40");
- ``place_names.toml``: a name the gazetteer found is a place, or part of a weapon's name
  ("Vilkha rockets") or half of a hyphenated surname;
- ``place_lists.toml``: a place joined to the one before it by "and" or a comma plays the
  same part ("fired from Krasnohorivka and Kurakhove");
- ``care_places.toml``: a hospital named is what was hit, or where victims were cared for.

This module builds what the tables' predicates look at and offers those predicates; the
tables are read by :mod:`casebuilder.extraction.mentions`.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from casebuilder.extraction.dates import DateMention, RelativeEventMention
from casebuilder.extraction.facts import clause_before
from casebuilder.extraction.phrases import PhraseMatch
from casebuilder.extraction.rules import Predicate, RuleTable, flag, load_rule_table
from casebuilder.extraction.text import Sentence, Token
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.gazetteer import ToponymMention
from casebuilder.model.lexicon import Lexicon
from casebuilder.model.partial_date import PartialDate

DATE_TABLE = "count_dates"
DATE_OUTCOMES = ("as_found", "report")
ATTACK_DAY_TABLE = "attack_days"
ATTACK_DAY_OUTCOMES = ("as_found", "attack_day")
LOOK_BACK_TABLE = "look_back_days"
LOOK_BACK_OUTCOMES = ("as_found", "named_attack")
STAMP_TABLE = "stamp_days"
STAMP_OUTCOMES = ("as_found", "next_day")
COUNT_BACK_TABLE = "counted_back_days"
COUNT_BACK_OUTCOMES = ("as_found", "counted_back")
TOTAL_TABLE = "running_totals"
TOTAL_OUTCOMES = ("as_found", "running_total")
NAME_TABLE = "place_names"
NAME_OUTCOMES = ("place", "not_a_place")
LIST_TABLE = "place_lists"
LIST_OUTCOMES = ("own", "shared")
CARE_TABLE = "care_places"
CARE_OUTCOMES = ("hit", "care")



def _sentence_matches(c: Any, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.search(c.sentence.text))


# -- dates: the event, or the day of a count ------------------------------------------------

@dataclass(slots=True)
class DateContext:
    sentence: Sentence
    date: DateMention
    before: str  # the sentence up to the date, lower-cased, without the spaces before it
    after: str  # the sentence after the date

    @classmethod
    def of(cls, sentence: Sentence, date: DateMention) -> DateContext:
        text, base = sentence.text, sentence.start
        return cls(sentence, date, text[: date.start - base].rstrip().lower(),
                   text[date.end - base :])


DATE_PREDICATES: dict[str, Predicate[DateContext]] = {p.name: p for p in (
    Predicate("sentence_matches", "the sentence matches the pattern", "pattern",
              _sentence_matches),
    Predicate("role", "the role the date was found with (dates.py) is one of", "words",
              lambda c, words: c.date.role in words),
    Predicate("possessive_after", "the date is followed by a possessive ending "
              "('Saturday's strike')", "words",
              lambda c, marks: c.after.startswith(tuple(marks))),
    Predicate("last_word_before", "the last word before the date is one of", "words",
              lambda c, words: any(c.before == w or c.before.endswith(" " + w)
                                   for w in words)),
    Predicate("text_before_ends_with", "the text before the date ends with one of", "phrases",
              lambda c, ends: c.before.endswith(tuple(ends))),
    Predicate("before_matches", "the text before the date, lower-cased, matches the pattern",
              "pattern", lambda c, pattern: bool(pattern.search(c.before))),
    Predicate("after_matches", "the text after the date matches the pattern (anchor it with "
              "^ to read on from the date)", "pattern",
              lambda c, pattern: bool(pattern.search(c.after))),
)}


# -- relative days: from publication, or from the attack the text just named ---------------

@dataclass(slots=True)
class NamedAttack:
    """An attack's own day a sentence named ("the April 24 attack"), earlier than the day
    the report's relative dates count from, and where it was named."""

    day: PartialDate
    paragraph: int
    index: int


@dataclass(slots=True)
class LookBackContext:
    sentence: Sentence
    date: DateMention
    named: NamedAttack | None

    @property
    def named_near(self) -> bool:
        named, s = self.named, self.sentence
        return named is not None and named.index < s.index and (
            named.paragraph == s.paragraph or s.index - named.index <= 1)


LOOK_BACK_PREDICATES: dict[str, Predicate[LookBackContext]] = {p.name: p for p in (
    Predicate("rule", "the resolver's rule for the date is one of (extraction/dates.py: "
              "overnight, last-night, today, yesterday, weekday, ...)", "words",
              lambda c, words: c.date.rule in words),
    Predicate("role", "the role the date was found with is one of", "words",
              lambda c, words: c.date.role in words),
    Predicate("named_attack_near", "an earlier sentence of this paragraph, or the sentence "
              "just before, named an attack's own day (attack_days.toml) earlier than the day "
              "the report's relative dates count from", "bool", flag(lambda c: c.named_near)),
    Predicate("agrees_with_named_attack", "the date overlaps the day of the attack named",
              "bool", flag(lambda c: c.named is not None and c.named.day.overlaps(
                  c.date.value))),
)}


# -- weekdays: from the report's day, or the day after a late stamp ---------------------------

@dataclass(slots=True)
class StampContext:
    """An event date, and the time the report is stamped with (its dateline's, "30 May 2023
    22:11"), when one was read before it."""

    sentence: Sentence
    date: DateMention
    stamp_day: datetime.date | None
    stamp_time: str | None  # "HH:MM", as written

    @property
    def next_day(self) -> datetime.date | None:
        """The day after the stamp's, when the date as read is that weekday counted back
        from the stamp (six days before it): "on Wednesday" in a report stamped late on a
        Tuesday."""
        day, value = self.stamp_day, self.date.value
        if day is None or value.precision != "day":
            return None
        after = day + datetime.timedelta(days=1)
        return after if (day - value.start).days == 6 else None


def _stamped_at_or_after(c: StampContext, hour: int) -> bool:
    return c.stamp_time is not None and int(c.stamp_time[:2]) >= hour


STAMP_PREDICATES: dict[str, Predicate[StampContext]] = {p.name: p for p in (
    Predicate("rule", "the resolver's rule for the date is one of (extraction/dates.py: "
              "weekday, weekday-part, ...)", "words", lambda c, words: c.date.rule in words),
    Predicate("role", "the role the date was found with is one of", "words",
              lambda c, words: c.date.role in words),
    Predicate("first_word", "the first word of the date's words, lower-cased, is one of",
              "words", lambda c, words: c.date.expression.split()[0].lower() in words),
    Predicate("weekday_of_the_day_after_the_stamp", "the date is a weekday read as six days "
              "before the report's stamp: the weekday of the day after the stamp", "bool",
              flag(lambda c: c.next_day is not None)),
    Predicate("stamped_at_or_after", "the report's stamp gives a time of day at or after this "
              "hour (as written)", "int", _stamped_at_or_after),
)}


# -- days counted from an attack the report names ---------------------------------------------

@dataclass(slots=True)
class CountBackContext:
    """A relative marker ("four days after") and what its clause (up to the next comma,
    semicolon, colon or dash) and its sentence tell."""

    sentence: Sentence
    marker: RelativeEventMention
    after: str  # the sentence right after the marker
    attack_named: bool  # an attack noun follows the marker (@attack_after_a_marker)
    attack_dated: bool  # a date of the sentence lies in the marker's clause
    dated: bool  # the sentence gives a day-precise date outside the marker's clause
    harm_besides: bool  # a weapon or a strong harm word outside the marker's clause


COUNT_BACK_PREDICATES: dict[str, Predicate[CountBackContext]] = {p.name: p for p in (
    Predicate("direction", "the marker counts 'after' or 'before' the event it names",
              "words", lambda c, words: c.marker.direction in words),
    Predicate("attack_named", "an attack noun follows the marker ('four days after the missile "
              "strike', @attack_after_a_marker)", "bool", flag(lambda c: c.attack_named)),
    Predicate("attack_dated", "a date of the sentence stands in the marker's clause, after the "
              "marker ('a week after the attack on May 26')", "bool",
              flag(lambda c: c.attack_dated)),
    Predicate("dated", "the sentence gives a day-precise date of its own, outside the marker's "
              "clause", "bool", flag(lambda c: c.dated)),
    Predicate("harm_besides", "a weapon, or a harm word of @categories_of_another_attack that "
              "is not one of its category's weak words, stands outside the marker's clause: "
              "the sentence tells another attack", "bool", flag(lambda c: c.harm_besides)),
    Predicate("sentence_matches", "the sentence matches the pattern", "pattern",
              _sentence_matches),
)}


# -- figures: one attack's toll, or a total ----------------------------------------------------

@dataclass(slots=True)
class FiguresContext:
    sentence: Sentence
    #: An earlier sentence of the document (not page furniture) told harm.
    harm_told: bool = False
    #: The sentence names a place the gazetteer knows, or gives a date.
    placed: bool = False
    dated: bool = False


TOTAL_PREDICATES: dict[str, Predicate[FiguresContext]] = {p.name: p for p in (
    Predicate("sentence_matches", "the sentence matches the pattern", "pattern",
              _sentence_matches),
    Predicate("harm_told_before", "an earlier sentence of the document (not page furniture) "
              "told harm", "bool", flag(lambda c: c.harm_told)),
    Predicate("placed_or_dated", "the sentence names a place the gazetteer knows or gives a "
              "date", "bool", flag(lambda c: c.placed or c.dated)),
)}


# -- place names: a place at all? ----------------------------------------------------------------

@dataclass(slots=True)
class NameContext:
    sentence: Sentence
    toponym: ToponymMention
    weapons: list[PhraseMatch[str]]


def _in_weapon_name(c: NameContext, wanted: bool) -> bool:
    t = c.toponym
    found = any(w.start <= t.start < w.end or t.start <= w.start < t.end for w in c.weapons)
    return found is wanted


def _hyphenated(c: NameContext, wanted: bool) -> bool:
    text, base = c.sentence.text, c.sentence.start
    start, end = c.toponym.start - base, c.toponym.end - base
    before = text[max(0, start - 2) : start]
    after = text[end : end + 2]
    found = (len(before) == 2 and before[1] == "-" and before[0].isalpha()) or (
        len(after) == 2 and after[0] == "-" and after[1].isupper())
    return found is wanted


NAME_PREDICATES: dict[str, Predicate[NameContext]] = {p.name: p for p in (
    Predicate("in_weapon_name", "the name overlaps a weapon's name the sentence gives", "bool",
              _in_weapon_name),
    Predicate("hyphenated", "a letter and a hyphen just before, or a hyphen and a capital just "
              "after: the name is half of a hyphenated word", "bool", _hyphenated),
)}


# -- lists of places ----------------------------------------------------------------------------

@dataclass(slots=True)
class ListContext:
    """A place name and the one named just before it in the sentence, with their roles."""

    sentence: Sentence
    previous: ToponymMention
    previous_role: str
    toponym: ToponymMention
    role: str
    between: str  # what stands between the two names, lower-cased

    @classmethod
    def of(cls, sentence: Sentence, previous: ToponymMention, previous_role: str,
           toponym: ToponymMention, role: str) -> ListContext:
        base = sentence.start
        between = sentence.text[previous.end - base : toponym.start - base].strip().lower()
        return cls(sentence, previous, previous_role, toponym, role, between)


def _role(c: ListContext, words: frozenset[str]) -> bool:
    return c.role in words


LIST_PREDICATES: dict[str, Predicate[ListContext]] = {p.name: p for p in (
    Predicate("role", "the place's own role is one of", "words", _role),
    Predicate("previous_role", "the role of the place named just before is one of", "words",
              lambda c, words: c.previous_role in words),
    Predicate("joined_by", "what stands between the two names is one of", "phrases",
              lambda c, joiners: c.between in joiners),
)}


# -- hospitals: hit, or where victims were cared for --------------------------------------------

@dataclass(slots=True)
class TargetContext:
    tokens: list[Token]
    target: PhraseMatch[str]
    lexicon: Lexicon
    before: list[str]  # up to eight words back from the target, nearest first, in its clause
    #: Where the nearest preposition of care stands among the four words before (the
    #: preposition may stand a few words back: "flown to two city hospitals").
    preposition: int | None

    @classmethod
    def of(cls, tokens: list[Token], target: PhraseMatch[str], lexicon: Lexicon
           ) -> TargetContext:
        before = clause_before(tokens, target.first, 8, lexicon)
        prepositions = lexicon.words("care_prepositions")
        at = next((i for i, w in enumerate(before[:4]) if w in prepositions), None)
        return cls(tokens, target, lexicon, before, at)


def _preposition_just_before(c: TargetContext, words: frozenset[str]) -> bool:
    return c.preposition == 0 and c.before[0] in words


def _care_word_before_preposition(c: TargetContext, words: frozenset[str]) -> bool:
    at = c.preposition
    return at is not None and bool(words & set(c.before[at + 1 : at + 5]))


CARE_PREDICATES: dict[str, Predicate[TargetContext]] = {p.name: p for p in (
    Predicate("target_type", "the target type is one of", "words",
              lambda c, words: c.target.payload.lower() in words),
    Predicate("target_word", "the first word of the target's words is one of", "words",
              lambda c, words: c.tokens[c.target.first].lower in words),
    Predicate("preposition_just_before", "the word just before is one of (and one of "
              "@care_prepositions)", "words", _preposition_just_before),
    Predicate("care_word_before_preposition", "one of these is among the four words before "
              "the nearest of @care_prepositions in the four words before the target", "words",
              _care_word_before_preposition),
)}


def load_value_tables(vocabulary: Vocabulary) -> dict[str, RuleTable[Any]]:
    rules = vocabulary.directory / "rules"
    tables: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
        (DATE_TABLE, DATE_PREDICATES, DATE_OUTCOMES),
        (ATTACK_DAY_TABLE, DATE_PREDICATES, ATTACK_DAY_OUTCOMES),
        (LOOK_BACK_TABLE, LOOK_BACK_PREDICATES, LOOK_BACK_OUTCOMES),
        (STAMP_TABLE, STAMP_PREDICATES, STAMP_OUTCOMES),
        (COUNT_BACK_TABLE, COUNT_BACK_PREDICATES, COUNT_BACK_OUTCOMES),
        (TOTAL_TABLE, TOTAL_PREDICATES, TOTAL_OUTCOMES),
        (NAME_TABLE, NAME_PREDICATES, NAME_OUTCOMES),
        (LIST_TABLE, LIST_PREDICATES, LIST_OUTCOMES),
        (CARE_TABLE, CARE_PREDICATES, CARE_OUTCOMES),
    ]
    return {name: load_rule_table(rules / f"{name}.toml", predicates, outcomes,
                                  vocabulary.lexicon)
            for name, predicates, outcomes in tables}
