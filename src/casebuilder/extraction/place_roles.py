"""The role a place name plays in its sentence, decided by the rule table
``vocab/rules/place_roles.toml``.

Only a place in the role ``event`` (or one of the roles that still say where something was)
can be where harm happened; a dateline, a speaker's own name, a reference point ("40 km north
of Kyiv"), a place people fled from or a venue of talks cannot. This module builds what the
table's predicates look at (:class:`PlaceContext`) and offers those predicates; the table says,
in order, which conditions give which role. Place roles are one step of
:mod:`casebuilder.extraction.mentions`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from casebuilder.extraction.attribution import Attribution
from casebuilder.extraction.rules import Predicate, RuleTable, flag, load_rule_table
from casebuilder.extraction.text import Token
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.gazetteer import Place, ToponymMention
from casebuilder.model.lexicon import Lexicon

#: The roles a place can have; mentions.py says what each means for an incident.
ROLES = ("event", "locator", "dateline", "entity", "person", "speaker", "government",
         "modifier", "venue", "reference", "motive", "origin", "motion", "region",
         "institution")


@dataclass(slots=True)
class PlaceContext:
    """What the place-role predicates may look at: the sentence's tokens around the name
    (made by :meth:`of`)."""

    tokens: list[Token]
    toponym: ToponymMention
    attribution: Attribution
    lexicon: Lexicon
    place: Place | None  # what the name was resolved to, if it was
    known_person: bool  # named elsewhere in the document as a person
    government: bool  # a capital standing for its government (capital_as_government)
    index: int | None  # the first token of the name
    rest: list[Token]  # the two tokens after the name
    raw_before: str  # the token just before the name
    #: The word before the name, looking past one article or "occupied": the motion or
    #: preposition word ("across the Dnipro", "in occupied Melitopol").
    before: str
    after: list[str]  # the two words after the name, hyphens skipped

    @classmethod
    def of(cls, tokens: list[Token], toponym: ToponymMention, attribution: Attribution,
           lexicon: Lexicon, place: Place | None = None, known_person: bool = False,
           government: bool = False) -> PlaceContext:
        index = next((i for i, t in enumerate(tokens) if t.start >= toponym.start), None)
        following = [t for t in tokens if t.start >= toponym.end]
        raw_before = tokens[index - 1].lower if index else ""
        before = raw_before
        if index and index >= 2 and raw_before in lexicon.words("place_articles"):
            before = tokens[index - 2].lower
        return cls(tokens, toponym, attribution, lexicon, place, known_person, government,
                   index, following[:2], raw_before, before,
                   [t.lower for t in following if t.lower != "-"][:2])

    def window(self, reach: int) -> set[str]:
        i = self.index or 0
        return {t.lower for t in self.tokens[max(0, i - reach) : i]}

    def recent(self, reach: int) -> list[str]:
        i = self.index or 0
        return [t.lower for t in self.tokens[max(0, i - reach) : i]]

    def clause_before(self, reach: int) -> list[str]:
        """Up to ``reach`` words before the name, not past a comma, semicolon or dash."""
        i = self.index or 0
        stops = self.lexicon.words("clause_stops")
        words: list[str] = []
        for token in reversed(self.tokens[max(0, i - reach) : i]):
            if token.lower in stops:
                break
            words.append(token.lower)
        return words


def _in_attribution(c: PlaceContext) -> bool:
    a, t = c.attribution, c.toponym
    return a.start is not None and a.end is not None and a.start <= t.start and t.end <= a.end


def _is_speaker(c: PlaceContext, wanted: bool) -> bool:
    return _in_attribution(c) is wanted


def _is_whole_speaker(c: PlaceContext, wanted: bool) -> bool:
    whole = _in_attribution(c) and (c.toponym.start, c.toponym.end) == (
        c.attribution.start, c.attribution.end)
    return whole is wanted


def _hyphen_modifier(c: PlaceContext, wanted: bool) -> bool:
    rest = c.rest
    found = len(rest) == 2 and rest[0].text == "-" and rest[0].start == c.toponym.end and \
        rest[1].start == rest[0].end and rest[1].text[:1].islower()
    return found is wanted


def _comma_then_speaker(c: PlaceContext, wanted: bool) -> bool:
    rest, a = c.rest, c.attribution
    found = bool(rest) and rest[0].lower == "," and a.start is not None and \
        0 <= a.start - rest[0].end <= 2
    return found is wanted


def _next_words(c: PlaceContext, phrases: frozenset[str]) -> bool:
    return " ".join(t.lower for t in c.rest) in phrases


def _locates_by_layout(c: PlaceContext, wanted: bool) -> bool:
    """"Shebekino (Shebekinskiy, Belgorod)", "Stepanivka, a village on the northern edge of
    Kherson city": the name only says where the place before it is."""
    recent = c.recent(8)
    opened = max((i for i, w in enumerate(recent) if w == "("), default=None)
    found = False
    if opened is not None and len(recent) - opened <= 4 and ")" not in recent[opened:]:
        found = True
    else:
        comma = max((i for i, w in enumerate(recent) if w == ","), default=None)
        if comma is not None:
            apposition = recent[comma + 1 :]
            words = c.lexicon.words
            found = len(apposition) >= 2 and apposition[0] in words("apposition_articles") and \
                apposition[1] in words("settlement_kinds") and \
                apposition[-1] in words("apposition_ends")
    return found is wanted


def _motive_before(c: PlaceContext, words: frozenset[str]) -> bool:
    recent = c.recent(8)
    motive = max((i for i, w in enumerate(recent) if w in words), default=None)
    return motive is not None and not c.lexicon.words("clause_separators") & set(recent[motive:])


def _from_area_of(c: PlaceContext, words: frozenset[str]) -> bool:
    window = c.window(4)
    return c.before == "of" and "from" in window and bool(window & words)


def _launched_from(c: PlaceContext, words: frozenset[str]) -> bool:
    clause = c.clause_before(8)
    return "from" in clause and bool(words & set(clause[clause.index("from") + 1 :]))


def _third_word_before(c: PlaceContext, words: frozenset[str]) -> bool:
    i = c.index or 0
    return i >= 3 and c.tokens[i - 3].lower in words


def _second_token_before(c: PlaceContext, words: frozenset[str]) -> bool:
    i = c.index or 0
    return i >= 2 and c.tokens[i - 2].lower in words


def _title_word_before(c: PlaceContext, wanted: bool) -> bool:
    """"Vyacheslav Chaus": a capitalised word (not the sentence's first) just before."""
    i = c.index or 0
    found = i - 1 > 0 and c.tokens[i - 1].is_title and not c.tokens[i - 1].is_punct
    return found is wanted


def _small_settlement(c: PlaceContext, population: int) -> bool:
    """Its likeliest place is no region and has fewer inhabitants than the argument."""
    top = c.toponym.candidates[0] if c.toponym.candidates else None
    return top is not None and top.feature_kind != "region" and (top.population or 0) < population


def _resolved_small(c: PlaceContext, population: int) -> bool:
    """The place it was resolved to is no region and has fewer inhabitants than this."""
    p = c.place
    return p is not None and p.feature_kind != "region" and (p.population or 0) < population


def _office_before(c: PlaceContext, words: frozenset[str]) -> bool:
    """"the head of the Cherkasy regional administration": an office word in the four words
    before, and "of" just before (past an article)."""
    return c.before == "of" and bool(c.window(4) & words)


def _text_before_matches(c: PlaceContext, pattern: re.Pattern[str]) -> bool:
    """The sentence's words before the name, joined by single spaces, match the pattern."""
    i = c.index or 0
    return bool(pattern.search(" ".join(t.text for t in c.tokens[:i])))


def _clause_earlier_has(c: PlaceContext, words: frozenset[str]) -> bool:
    return bool(words & set(c.clause_before(15)))


def _words_after_below(c: PlaceContext, count: int) -> bool:
    return len(c.after) < count



def _in(read: Callable[[PlaceContext], str]) -> Callable[[PlaceContext, Any], bool]:
    return lambda c, words: read(c) in words


PREDICATES: dict[str, Predicate[PlaceContext]] = {p.name: p for p in (
    Predicate("locates", "the gazetteer found the name only locates the one before it "
              "(\"Vilkhivka (Kharkivskyi, Kharkiv)\")", "bool",
              flag(lambda c: c.toponym.locates is not None)),
    Predicate("dateline", "the name opens a dateline (\"KYIV, June 16 —\")", "bool",
              flag(lambda c: c.toponym.dateline)),
    Predicate("known_person", "the document names a person so (and the place is small)",
              "bool", flag(lambda c: c.known_person)),
    Predicate("resolved_small", "the place the name was resolved to is no region and has "
              "fewer inhabitants than this", "int", _resolved_small),
    Predicate("government", "a capital standing for its government (capital_as_government)",
              "bool", flag(lambda c: c.government)),
    Predicate("next_words", "the two tokens after the name, joined by a space, are one of",
              "words", _next_words),
    Predicate("in_speaker", "the name lies inside the speaker phrase of the sentence", "bool",
              _is_speaker),
    Predicate("is_speaker", "the name is the whole speaker phrase (\"Chaus said\")", "bool",
              _is_whole_speaker),
    Predicate("hyphen_modifier", "a hyphen and a lower-case word follow at once "
              "(\"Moscow-appointed\")", "bool", _hyphen_modifier),
    Predicate("first_token", "the name opens the sentence", "bool",
              flag(lambda c: not c.index)),
    Predicate("word_before", "the token just before the name is one of", "words",
              _in(lambda c: c.raw_before)),
    Predicate("word_before_article", "the word before the name, past one article or "
              "\"occupied\", is one of", "words", _in(lambda c: c.before)),
    Predicate("comma_then_speaker", "a comma follows and the speaker phrase starts right "
              "after it (\"In Moscow, the spokeswoman said\")", "bool", _comma_then_speaker),
    Predicate("within_4_before", "one of these is among the four tokens before", "words",
              lambda c, words: bool(c.window(4) & words)),
    Predicate("layout_locator", "the way it is written makes it locate the place before "
              "(a bracket, \", a village near\")", "bool", _locates_by_layout),
    Predicate("motive_before", "one of these is in the eight tokens before, with no comma, "
              "semicolon, 'and' or 'but' after it", "words", _motive_before),
    Predicate("from_area_of", "\"from the <word> of\" just before, <word> one of", "words",
              _from_area_of),
    Predicate("launched_from", "the clause before holds 'from' and then one of", "words",
              _launched_from),
    Predicate("third_word_before", "the third token before the name is one of", "words",
              _third_word_before),
    Predicate("second_token_before", "the second token before the name is one of", "words",
              _second_token_before),
    Predicate("clause_before_has", "one of these is in the seven words before, within the "
              "clause", "words", lambda c, words: bool(words & set(c.clause_before(7)))),
    Predicate("word_after", "the word after the name (hyphens skipped) is one of", "words",
              _in(lambda c: c.after[0] if c.after else "")),
    Predicate("second_word_after", "the second word after the name is one of", "words",
              lambda c, words: len(c.after) > 1 and c.after[1] in words),
    Predicate("words_after_below", "fewer than this many words follow the name", "int",
              _words_after_below),
    Predicate("title_word_before", "a capitalised word, not the sentence's first, just "
              "before", "bool", _title_word_before),
    Predicate("small_settlement", "its likeliest place is no region and has fewer "
              "inhabitants than this", "int", _small_settlement),
    Predicate("text_before_matches", "the sentence's words before the name, joined by "
              "single spaces, match the pattern (anchor it with $ to end at the name)",
              "pattern", _text_before_matches),
    Predicate("clause_earlier_has", "one of these is in the fifteen words before, within "
              "the clause", "words", _clause_earlier_has),
    Predicate("office_before", "\"of\" just before and one of these in the four tokens "
              "before (\"the head of the ... administration\")", "words", _office_before),
)}


def capital_as_government(tokens: list[Token], toponym: ToponymMention,
                          vocabulary: Vocabulary) -> bool:
    """"Moscow said", "Kyiv has denied": a capital standing for its government, which
    speaks or acts, is not where anything happened (the ``government`` predicate)."""
    name = toponym.text.lower()
    if not any(name in p.state_words for p in vocabulary.parties.values()):
        return False
    words = vocabulary.lexicon.words
    index = next((i for i, t in enumerate(tokens) if t.start >= toponym.start), 0)
    before = tokens[index - 1].lower if index > 0 else ""
    following = [t for t in tokens if t.start >= toponym.end]
    after = following[0].lower if following else ""
    possessive = words("possessive_marks")
    if before in words("event_before") | words("motion_before") and not (
            after in possessive and before in words("possessive_places_before")):
        return False  # "in Moscow", "missiles hit Kyiv" (but "at Moscow's request")
    if before in words("address_verbs"):
        return True  # "It accused Kyiv of using civilians as a shield"
    if after in possessive:
        return len(following) > 1 and following[1].lower in words("government_nouns")
    if after == "and" and len(following) > 2 and following[1].is_title:
        after = following[2].lower  # "Moscow and Kyiv trade blame"
    return after in vocabulary.evidentiality_verbs or after in words("government_verbs") or (
        after.endswith("ed") and len(after) > 3)  # "Moscow pulled out of the deal"


def load_place_roles(vocabulary: Vocabulary) -> RuleTable[PlaceContext]:
    return load_rule_table(vocabulary.directory / "rules" / "place_roles.toml", PREDICATES,
                           ROLES, vocabulary.lexicon)
