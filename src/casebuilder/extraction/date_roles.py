"""What a date expression dates, decided by the rule table ``vocab/rules/date_roles.toml``.

Extraction stage, one step of :meth:`casebuilder.extraction.dates.DateResolver.find`. Once a
date form has matched and been resolved, the table says what the words are: the date of an
event (``event``), the date of a statement about it (``report``: "said on Thursday"), or no
date at all (``not-a-date``: "the Sunday Times", "Bloody Sunday", "USA Today", or "the day
before the strike", which the relative-event markers date from the strike), or the date of
something else named in passing (``passing``: "a girl born in 2011", "the deadliest strike
since 2022", "the blackouts of autumn 2022"), which never dates an incident. This module builds
what the table's predicates look at (:class:`DateContext`) and offers those predicates; the
table says, in order, which conditions give which outcome. The rule that decided travels with
the date (``DateMention.role_rule``) or, for a dropped one, in the resolver's trace, so a date
that was re-roled or dropped can say why.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Final

from casebuilder.extraction.rules import Predicate, RuleTable, flag, load_rule_table
from casebuilder.model.lexicon import Lexicon

#: What a date expression can be; ``not-a-date`` is dropped (and traced). ``passing`` is a
#: real date of something else, named in passing (a year of birth, "the deadliest since
#: 2022", "the blackouts of autumn 2022"): it dates no incident, and the extractor keeps it as
#: a negative trace (``not_taken``) of the rule that said so.
OUTCOMES: Final = ("event", "report", "not-a-date", "passing")
DROPPED: Final = "not-a-date"
PASSING: Final = "passing"
TABLE: Final = Path("rules") / "date_roles.toml"

#: A word (letters and digits, with inner apostrophes) or one mark of punctuation.
TOKEN: Final = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|[^\w\s]")
_DATELINE_CLOSE: Final = re.compile(r"\)\s*[-–—]")
#: "(Reuters) –" after a wire dateline's date: a short bracketed name, then a dash.
_AGENCY_DASH: Final = re.compile(r"\s*\([^()\n]{1,40}\)\s*[-–—]")
#: How far around a date its neighbouring words are looked for, in characters.
_REACH_AROUND: Final = 40
_REACH_BACK_TO_VERB: Final = 90
_TOKENS_BACK_TO_VERB: Final = 9
#: How many tokens before a date ``near_before`` looks at ("the deadliest attack on the city
#: since 2022").
_TOKENS_NEAR_BEFORE: Final = 8
#: Punctuation that ends the clause a date stands in, looking back from the date.
_CLAUSE_STOP: Final = re.compile(r"[,;:—–.!?]")
#: How far back ``clause_before_matches`` reads, in characters.
_REACH_BACK_IN_CLAUSE: Final = 160


def sentence_start(text: str, position: int) -> bool:
    """Whether ``position`` opens a sentence (past quotes and brackets)."""
    head = text[:max(position, 0)].rstrip(" \t\"'“‘(")
    return not head or head[-1] in ".!?\n:;"


@dataclass  # not frozen: one is made per number or date, and frozen ones are slower to make
class DateContext:
    """What the date-role predicates may look at: the matched words and their neighbours.

    ``start``/``end`` are the span the date form matched; ``role_start`` is where the quoted
    expression starts once a leading preposition is trimmed and a "since" before it joined
    (the statement rules look back from there)."""

    text: str
    start: int
    end: int
    form: str  # the date form that matched: "weekday", "day_before", "md", ...
    role_start: int
    names_capitalised: bool
    weekdays: frozenset[str]
    months: frozenset[str]
    reporting_verbs: frozenset[str]

    @cached_property
    def expression(self) -> str:
        return self.text[self.start:self.end]

    @cached_property
    def words(self) -> list[str]:
        return self.expression.lower().split()

    @cached_property
    def tokens_before(self) -> list[re.Match[str]]:
        return list(TOKEN.finditer(self.text, max(0, self.start - _REACH_AROUND), self.start))

    @cached_property
    def previous(self) -> str:
        return self.tokens_before[-1].group() if self.tokens_before else ""

    @cached_property
    def following(self) -> str:
        found = TOKEN.search(self.text[self.end:self.end + _REACH_AROUND])
        return found.group() if found else ""

    def statement_before(self, setting: frozenset[str]) -> bool:
        """A verb of saying shortly before the date, with only ``setting`` words and
        capitalised names between ("told German newspaper Bild on Monday")."""
        start = self.role_start
        tokens = TOKEN.findall(self.text[max(0, start - _REACH_BACK_TO_VERB):start])
        for word in reversed(tokens[-_TOKENS_BACK_TO_VERB:]):
            lowered = word.lower()
            if lowered in self.reporting_verbs:
                return True
            if not (lowered in setting or word[:1].isupper()):
                return False
        return False

    @cached_property
    def bracketed_before_a_dash(self) -> bool:
        """"KYIV (March 16) —": a dateline's date in brackets."""
        start = self.role_start
        return self.text[max(0, start - 2):start].strip() == "(" and bool(
            _DATELINE_CLOSE.match(self.text, self.end))

    def near_before(self, words: frozenset[str]) -> bool:
        """One of the few words before the date is one of ``words``."""
        tokens = TOKEN.findall(self.text[max(0, self.start - 2 * _REACH_AROUND):self.start])
        return any(t.lower() in words for t in tokens[-_TOKENS_NEAR_BEFORE:])

    def alone_on_its_line(self, words: frozenset[str]) -> bool:
        """Nothing but the words, numbers (a time), punctuation and ``words`` on their line."""
        line_start = self.text.rfind("\n", 0, self.start) + 1
        line_end = self.text.find("\n", self.end)
        rest = self.text[line_start:self.start] + " " + self.text[
            self.end:len(self.text) if line_end < 0 else line_end]
        return all(t.isdigit() or not t[0].isalnum() or t.lower() in words
                   for t in TOKEN.findall(rest))

    def text_before_ends_with(self, phrases: frozenset[str]) -> bool:
        before = " ".join(TOKEN.findall(
            self.text[max(0, self.start - _REACH_AROUND):self.start].lower()))
        return any(before == p or before.endswith(" " + p) for p in phrases)

    @cached_property
    def clause_before(self) -> str:
        """The words of the date's clause before it, lower-cased: back to the last comma,
        semicolon, colon, dash or full stop (at most ``_REACH_BACK_IN_CLAUSE`` characters)."""
        before = self.text[max(0, self.role_start - _REACH_BACK_IN_CLAUSE):self.role_start]
        stops = list(_CLAUSE_STOP.finditer(before))
        return " ".join(before[stops[-1].end() if stops else 0:].lower().split())

    @cached_property
    def after_since(self) -> bool:
        opens = bool(self.words) and self.words[0] in {"since", "ever"}
        return opens or self.previous.lower() == "since"

    @cached_property
    def noun_of(self) -> str:
        """The word before an "of" that opens the date or stands just before it ("the
        strikes of [autumn 2022]", "the floods [of 2019]"), lower-cased; "" when there is
        none."""
        before = self.tokens_before
        if self.words and self.words[0] == "of":
            return before[-1].group().lower() if before else ""
        if len(before) >= 2 and before[-1].group().lower() == "of":
            return before[-2].group().lower()
        return ""

    @cached_property
    def capitalised_before(self) -> bool:
        """The word before is capitalised and does not open the sentence ("Bloody Sunday")."""
        before = self.tokens_before
        return bool(before) and self.previous[:1].isupper() and not sentence_start(
            self.text, before[-1].start())



def _in(read: Callable[[DateContext], str]) -> Callable[[DateContext, Any], bool]:
    return lambda c, words: read(c) in words


PREDICATES: dict[str, Predicate[DateContext]] = {p.name: p for p in (
    Predicate("form", "the date form that matched is one of (see DateResolver: weekday, "
              "day_before, day_word, md, dm, month_in, ...)", "words", _in(lambda c: c.form)),
    Predicate("names_capitalised", "every weekday and month name in the words is "
              "capitalised", "bool", flag(lambda c: c.names_capitalised)),
    Predicate("bare_weekday", "the words are a weekday name and nothing else", "bool",
              flag(lambda c: c.expression.lower() in c.weekdays)),
    Predicate("capitalised", "the words start with a capital letter", "bool",
              flag(lambda c: c.expression[:1].isupper())),
    Predicate("first_word", "the first of the words is one of", "words",
              _in(lambda c: c.words[0] if c.words else "")),
    Predicate("last_word", "the last of the words is one of", "words",
              _in(lambda c: c.words[-1] if c.words else "")),
    Predicate("opens_sentence", "the words open their sentence", "bool",
              flag(lambda c: sentence_start(c.text, c.start))),
    Predicate("word_before", "the token just before is one of", "words",
              _in(lambda c: c.previous.lower())),
    Predicate("after_reporting_verb", "the token just before is a verb of saying (the "
              "stated, alleged and denied verbs of vocab/attribution.toml)", "bool",
              flag(lambda c: c.previous.lower() in c.reporting_verbs)),
    Predicate("capitalised_before", "the token before is capitalised and does not open the "
              "sentence", "bool", flag(lambda c: c.capitalised_before)),
    Predicate("word_after", "the token just after is one of", "words",
              _in(lambda c: c.following.lower())),
    Predicate("capitalised_after", "the token just after starts with a capital letter",
              "bool", flag(lambda c: c.following[:1].isupper())),
    Predicate("month_after", "the token just after is a month name", "bool",
              flag(lambda c: c.following.lower() in c.months)),
    Predicate("word_follows", "a word (not punctuation) follows", "bool",
              flag(lambda c: c.following[:1].isalnum())),
    Predicate("in_brackets_before_a_dash", "the words stand in brackets just before a dash "
              "(a dateline: \"KYIV (March 16) —\")", "bool",
              flag(lambda c: c.bracketed_before_a_dash)),
    Predicate("before_an_agency_dash", "the words are followed by a name in brackets and a "
              "dash (a wire dateline: 'KYIV, March 16 (Reuters) -')", "bool",
              flag(lambda c: bool(_AGENCY_DASH.match(c.text, c.end)))),
    Predicate("alone_on_its_line", "the words stand on a line of their own, with only a time, "
              "punctuation and these words beside them (a dateline: 'Published 31 May 2023, "
              "22:11')", "words", lambda c, words: c.alone_on_its_line(words)),
    Predicate("text_before_ends_with", "the text just before the words ends with one of these "
              "phrases (whole words)", "phrases", lambda c, ends: c.text_before_ends_with(ends)),
    Predicate("after_since", "the words open with 'since' or follow it ('since 2022', 'ever "
              "since March')", "bool", flag(lambda c: c.after_since)),
    Predicate("near_before", "one of the eight tokens before the words is one of", "words",
              lambda c, words: c.near_before(words)),
    Predicate("noun_of", "the words follow 'NOUN of' (or open with 'of' after NOUN), and "
              "NOUN is one of", "words", lambda c, words: c.noun_of in words),
    Predicate("clause_before_matches", "the words of the date's clause before it (back to a "
              "comma, semicolon, colon, dash or full stop), lower-cased, match the pattern",
              "pattern", lambda c, pattern: bool(pattern.search(c.clause_before))),
    Predicate("statement_before", "a verb of saying comes shortly before (at most nine "
              "tokens), with only these words or capitalised names between", "words",
              lambda c, words: c.statement_before(words)),
)}


def load_date_roles(directory: Path, lexicon: Lexicon) -> RuleTable[DateContext]:
    """The shipped table (``directory`` is the vocabulary folder), checked against the
    predicates and outcomes above."""
    return load_rule_table(directory / TABLE, PREDICATES, OUTCOMES, lexicon)
