"""Speaker cues: the local decisions of attribution, written as rule tables in
``vocab/rules/speaker_*.toml``.

Finding who speaks in a sentence takes six small decisions, each an ordered table whose first
firing rule wins (see :mod:`casebuilder.extraction.rules`):

========================  =======================================================  ==========
table                     decides                                                  about
========================  =======================================================  ==========
``speaker_cues``          is this reporting word a verb with a speaker before it?  the verb
``speaker_before``        where that speaker starts, and which comma-separated     the verb
                          segment is its name and which its role
``speaker_after``         after a quotation, is the phrase after the verb the      the verb
                          speaker, or a role and then the speaker?
``speaker_phrases``       can this phrase be a speaker at all?                     the phrase
``speaker_shapes``        is the phrase a speaker named before, a maker ("images   the phrase
                          taken by X"), a person and a workplace, or as written?
``speaker_references``    does this phrase refer to that earlier speaker?          the phrase
========================  =======================================================  ==========

This module builds what each table's predicates look at (the ``*Context`` classes), offers the
predicates, and reads the tables once per vocabulary (:func:`speaker_rules`). The token-level
reading they share (where a phrase stops, dropping a leading "on Monday") lives here too, so
that :mod:`casebuilder.extraction.attribution` only strings the decisions together.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from casebuilder.extraction.rules import Predicate, RuleTable, flag, load_rule_table
from casebuilder.extraction.text import Token
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.model.lexicon import Lexicon

C = TypeVar("C")


@dataclass(frozen=True)
class SpeakerWords:
    """The word classes of ``vocab/lexicon/speakers.toml`` the code reads directly, looked up
    once per vocabulary rather than once per token. Field ``x`` is class ``speaker_x``."""

    pronouns: frozenset[str]
    person_pronouns: frozenset[str]
    skipped_before_verb: frozenset[str]
    breaks: frozenset[str]
    time_words: frozenset[str]
    leading_words: frozenset[str]
    clause_openers: frozenset[str]
    possessive_endings: frozenset[str]
    report_nouns: frozenset[str]
    report_noun_openers: frozenset[str]
    passive_auxiliaries: frozenset[str]
    naming_verbs: frozenset[str]
    naming_particles: frozenset[str]
    closing_quotes: frozenset[str]
    relative_pronouns: frozenset[str]
    definite_openers: frozenset[str]
    determiners: frozenset[str]
    aside_stops: frozenset[str]
    after_verb_openers: frozenset[str]
    after_verb_stops: frozenset[str]
    after_verb_places: frozenset[str]
    place_prepositions: frozenset[str]
    role_words: frozenset[str]

    @classmethod
    def of(cls, lexicon: Lexicon) -> SpeakerWords:
        return cls(**{f.name: lexicon.words(f"speaker_{f.name}") for f in fields(cls)})


# -- reading tokens ---------------------------------------------------------------------------
def is_name_token(token: Token) -> bool:
    return token.is_title and not token.is_punct


def clean(tokens: list[Token], words: SpeakerWords) -> list[Token]:
    """Without punctuation or a conjunction in front and punctuation behind (a possessive
    ending stays: "the governor's")."""
    while tokens and (tokens[0].is_punct or (tokens[0].lower in words.clause_openers
                                             and len(tokens) > 1)):
        tokens = tokens[1:]
    while tokens and tokens[-1].is_punct and tokens[-1].lower not in words.possessive_endings:
        tokens = tokens[:-1]
    return tokens


def strip_time(tokens: list[Token], words: SpeakerWords) -> list[Token]:
    """"By Tuesday morning the State Emergency Service": drop the time before the speaker."""
    i = 0
    while i < len(tokens) - 1 and (tokens[i].lower in words.leading_words or
                                   tokens[i].lower in words.time_words or
                                   tokens[i].lower.isdigit()):
        i += 1
    return tokens[i:] if i and i < len(tokens) else tokens


def breaks(tokens: list[Token], i: int, words: SpeakerWords) -> bool:
    """Does token ``i`` end a speaker phrase? A hyphen inside a word ("the Moscow-appointed
    head", "self-proclaimed") does not; a dash between words does."""
    if tokens[i].lower not in words.breaks:
        return False
    attached = 0 < i < len(tokens) - 1 and tokens[i - 1].end == tokens[i].start and \
        tokens[i].end == tokens[i + 1].start
    return not (tokens[i].lower == "-" and attached)


def subject_ending(tokens: list[Token], end: int, reach: int, words: SpeakerWords
                   ) -> list[Token]:
    """The phrase ending before token ``end``, back to a comma or a clause word, at most
    ``reach`` tokens long, without leading times ("By Tuesday the ministry")."""
    k = end
    while k > 0 and not breaks(tokens, k - 1, words) and tokens[k - 1].lower != "," and \
            end - k < reach:
        k -= 1
    return strip_time(clean(tokens[k:end], words), words)


def phrase_after(tokens: list[Token], start: int, words: SpeakerWords) -> list[Token]:
    """The phrase from token ``start`` up to a comma, clause word or quotation mark, at most
    twelve tokens ("said [the governor of the region], who ...")."""
    out: list[Token] = []
    if start < len(tokens) and tokens[start].lower in words.after_verb_openers:
        return out
    for token in tokens[start:]:
        if token.lower in words.after_verb_stops or (
                token.lower in words.after_verb_places and out and not out[-1].is_title):
            break
        out.append(token)
        if len(out) >= 12:
            break
    return out


def span(tokens: list[Token]) -> tuple[int, int]:
    return tokens[0].start, tokens[-1].end



def _in(read: Callable[[C], str]) -> Callable[[C, Any], bool]:
    return lambda c, words: read(c) in words


def _table(predicates: tuple[Predicate[C], ...]) -> dict[str, Predicate[C]]:
    return {p.name: p for p in predicates}


# -- speaker_cues: a reporting verb with its speaker before it --------------------------------
@dataclass(frozen=True)
class VerbContext:
    """A reporting word of the sentence (``tokens[index]``, never the first) and its
    neighbours."""

    tokens: list[Token]
    index: int

    @property
    def verb(self) -> str:
        return self.tokens[self.index].lower

    @property
    def before(self) -> Token:
        return self.tokens[self.index - 1]

    def after(self, n: int = 1) -> Token | None:
        i = self.index + n
        return self.tokens[i] if i < len(self.tokens) else None


def _word_after(c: VerbContext, words: frozenset[str]) -> bool:
    after = c.after()
    return after is not None and after.lower in words


def _name_after(c: VerbContext, wanted: bool) -> bool:
    after = c.after()
    return (after is not None and is_name_token(after)) is wanted


def _second_word_after(c: VerbContext, words: frozenset[str]) -> bool:
    after = c.after(2)
    return after is not None and after.lower in words


def _opened_within(c: VerbContext, words: frozenset[str]) -> bool:
    """One of ``words`` stands at most three tokens before the reporting word, with no
    punctuation between ("what officials said")."""
    for i in range(c.index - 1, max(-1, c.index - 4), -1):
        token = c.tokens[i]
        if token.is_punct:
            return False
        if token.lower in words:
            return True
    return False


def _only_name_after(c: VerbContext, wanted: bool) -> bool:
    """After the reporting word, to the end of the sentence, only capitalised words (at most
    five) and closing punctuation ("..., says Reuters.")."""
    rest = c.tokens[c.index + 1 :]
    names = [t for t in rest if not t.is_punct]
    found = 0 < len(names) <= 5 and all(is_name_token(t) for t in names) and \
        all(not t.is_punct for t in rest[: len(names)])
    return found is wanted


def _followed_by(c: VerbContext, phrases: frozenset[str]) -> bool:
    one, two = c.after(), c.after(2)
    return one is not None and (one.lower in phrases or (
        two is not None and f"{one.lower} {two.lower}" in phrases))


CUE_OUTCOMES = ("cue", "not_a_cue")
CUE_PREDICATES: dict[str, Predicate[VerbContext]] = _table((
    Predicate("verb", "the reporting word is one of", "words", _in(lambda c: c.verb)),
    Predicate("word_before", "the token just before the reporting word is one of", "words",
              _in(lambda c: c.before.lower)),
    Predicate("word_after", "the token just after the reporting word is one of", "words",
              _word_after),
    Predicate("second_word_after", "the second token after the reporting word is one of",
              "words", _second_word_after),
    Predicate("name_after", "a capitalised word follows the reporting word", "bool",
              _name_after),
    Predicate("followed_by", "the word after the reporting word, or the two words after it "
              "joined by a space, are one of", "words", _followed_by),
    Predicate("only_name_after", "only a name of up to five capitalised words follows the "
              "reporting word, to the end of the sentence", "bool", _only_name_after),
    Predicate("opened_within", "one of these stands at most three tokens before the reporting "
              "word, with no punctuation between ('what officials said')", "words",
              _opened_within),
))


# -- speaker_after: the inverted order, '"...," said X' -------------------------------------
@dataclass(frozen=True)
class AfterContext(VerbContext):
    """A reporting word and the phrase after it ("..., said the governor")."""

    words: SpeakerWords

    @cached_property
    def first(self) -> list[Token]:
        """The phrase right after the verb."""
        return phrase_after(self.tokens, self.index + 1, self.words)

    @property
    def comma_after_first(self) -> bool:
        follow = self.index + 1 + len(self.first)
        return bool(self.first) and follow < len(self.tokens) and \
            self.tokens[follow].lower == ","

    @cached_property
    def second(self) -> list[Token]:
        """The phrase after the comma that closes the first ("said X, [the governor]")."""
        if not self.comma_after_first:
            return []
        return phrase_after(self.tokens, self.index + 2 + len(self.first), self.words)

    def take(self, outcome: str) -> tuple[list[Token], list[Token]]:
        """The speaker and role the outcome names, as written (not yet cleaned)."""
        if outcome == "role_then_speaker":
            return self.second, self.first
        if outcome == "speaker_then_role":
            return self.first, self.second
        return self.first, []


AFTER_OUTCOMES = ("speaker_after", "role_then_speaker", "speaker_then_role", "not_a_cue")
AFTER_PREDICATES: dict[str, Predicate[AfterContext]] = _table((
    Predicate("punctuation_before", "a punctuation mark is just before the reporting word",
              "bool", flag(lambda c: c.before.is_punct)),
    Predicate("word_before", "the token just before the reporting word is one of", "words",
              _in(lambda c: c.before.lower)),
    Predicate("name_first", "the phrase after the reporting word opens with a capitalised "
              "word", "bool", flag(lambda c: bool(c.first) and is_name_token(c.first[0]))),
    Predicate("comma_after_phrase", "a comma closes the phrase after the reporting word "
              "(\"explained his daughter, Kristina\")", "bool",
              flag(lambda c: c.comma_after_first)),
    Predicate("after_comma_has", "one of these is in the phrase after that comma", "words",
              lambda c, words: any(t.lower in words for t in c.second)),
))


# -- speaker_phrases: can a phrase be a speaker? ----------------------------------------------
@dataclass(frozen=True)
class PhraseContext:
    """A candidate speaker phrase, and whether it follows its verb ("said the governor")."""

    phrase: list[Token]
    after_verb: bool

    @cached_property
    def lowered(self) -> list[str]:
        return [t.lower for t in self.phrase]


def _only(c: PhraseContext, words: frozenset[str]) -> bool:
    return all(w in words or w.isdigit() for w in c.lowered)


def _single_word(c: PhraseContext, words: frozenset[str]) -> bool:
    return len(c.lowered) == 1 and c.lowered[0] in words


def _first_word(c: PhraseContext, words: frozenset[str]) -> bool:
    return bool(c.lowered) and c.lowered[0] in words


PHRASE_OUTCOMES = ("speaker", "not_a_speaker")
PHRASE_PREDICATES: dict[str, Predicate[PhraseContext]] = _table((
    Predicate("after_verb", "the phrase follows its reporting verb (\"said the governor\")",
              "bool", flag(lambda c: c.after_verb)),
    Predicate("first_is_name", "the phrase opens with a capitalised word", "bool",
              flag(lambda c: bool(c.phrase) and is_name_token(c.phrase[0]))),
    Predicate("first_word", "the phrase opens with one of", "words", _first_word),
    Predicate("only", "every word of the phrase is one of these or a number", "words", _only),
    Predicate("single_word", "the phrase is one word, one of", "words", _single_word),
    Predicate("longer_than", "the phrase has more words than this", "int",
              lambda c, n: len(c.phrase) > n),
    Predicate("has_name", "a capitalised word is in the phrase", "bool",
              flag(lambda c: any(is_name_token(t) for t in c.phrase))),
    Predicate("has", "one of these is a word of the phrase", "words",
              lambda c, words: any(w in words for w in c.lowered)),
))


# -- speaker_before: where the speaker before the verb starts ---------------------------------
@dataclass(frozen=True)
class Scan:
    """Up to three comma-separated segments before the verb, read back from it."""

    segments: list[list[Token]]
    relative: bool  # the verb belongs to a ", who" or ", which" clause
    which_subject: list[Token]  # "Moscow, which denies": the names before the clause


@dataclass(frozen=True)
class BeforeContext:
    """The words before a reporting verb, up to ``tokens[end]`` (the verb, or the first of
    the words skipped before it: "the ministry [later] said")."""

    tokens: list[Token]
    end: int
    words: SpeakerWords
    is_speaker: Callable[[list[Token]], bool]  # the speaker_phrases table, before a verb

    @property
    def closed_by_comma(self) -> bool:
        return self.end > 0 and self.tokens[self.end - 1].lower == ","

    @cached_property
    def who_subject(self) -> list[Token]:
        """"A woman who was evacuated in January and now lives in Dnipro said": the speaker
        before a "who" clause that runs, with no comma, up to the verb."""
        tokens, end = self.tokens, self.end
        if end < 3 or self.closed_by_comma:
            return []
        for j in range(end - 2, max(0, end - 25), -1):
            word = tokens[j].lower
            if word in self.words.aside_stops or word == ",":
                return []
            if word == "who":
                subject = subject_ending(tokens, j, 8, self.words)
                return subject if subject and self.is_speaker(subject) else []
        return []

    @cached_property
    def aside_subject(self) -> list[Token]:
        """"President Zelenskiy, who was in Granada, Spain, for a summit, called ...": the
        speaker before a relative clause that runs over several commas up to the verb."""
        tokens, end = self.tokens, self.end
        if end < 2 or not self.closed_by_comma:
            return []
        j = end - 2
        while j > 1 and end - j < 30:
            word = tokens[j].lower
            if word in self.words.aside_stops:
                return []
            if word in self.words.relative_pronouns and tokens[j - 1].lower == ",":
                subject = subject_ending(tokens, j - 1, 14, self.words)
                return subject if subject and self.is_speaker(subject) else []
            j -= 1
        return []

    @cached_property
    def scan(self) -> Scan:
        tokens, words = self.tokens, self.words
        segments: list[list[Token]] = []
        relative = False
        i = self.end - 1 if self.closed_by_comma else self.end
        while len(segments) < 3:
            k = i
            while k > 0 and not breaks(tokens, k - 1, words) and \
                    tokens[k - 1].lower != "," and i - k < 18:
                k -= 1
            if i - k >= 18:
                break
            segment = tokens[k:i]
            if segment:
                segments.insert(0, segment)
            if k > 1 and tokens[k - 1].lower in words.relative_pronouns and \
                    tokens[k - 2].lower == ",":
                relative = True
                if segment:
                    segments.pop(0)  # "X, who walked out of the city, told": an aside
                else:
                    names = self._names_before(k - 2)
                    if names:
                        return Scan(segments, relative, names)
                i = k - 2
                continue
            if k > 0 and tokens[k - 1].lower == ",":
                i = k - 1
                continue
            break
        return Scan(segments, relative, [])

    def _names_before(self, comma: int) -> list[Token]:
        """"no comment from Moscow, which denies ...": the verb is the relative clause's own,
        and its subject the run of up to five names just before the comma."""
        tokens, j = self.tokens, comma
        while j > 0 and is_name_token(tokens[j - 1]) and comma - j < 5:
            j -= 1
        if j < comma and (j == 0 or not is_name_token(tokens[j - 1])):
            return tokens[j:comma]
        return []

    def _segment(self, back: int) -> list[Token]:
        segments = self.scan.segments
        if len(segments) < back:
            return []
        return strip_time(clean(segments[-back], self.words), self.words)

    @cached_property
    def last(self) -> list[Token]:
        """The segment just before the verb."""
        return self._segment(1)

    @cached_property
    def previous(self) -> list[Token]:
        """The segment before that, across a comma."""
        return self._segment(2)

    def names(self, segment: list[Token]) -> bool:
        return bool(segment) and len(segment) <= 5 and all(
            is_name_token(t) or t.lower in self.words.possessive_endings for t in segment)

    def opening_subject(self) -> list[Token]:
        """The name (with a title) the sentence opens with: "President Volodymyr Zelensky"."""
        run: list[Token] = []
        for token in self.tokens[:7]:
            if is_name_token(token) or (run and token.lower in self.words.possessive_endings):
                run.append(token)
            else:
                break
        return run if len(run) >= 2 or (run and run[0].lower in self.words.role_words) else []

    def take(self, outcome: str) -> tuple[list[Token], list[Token]]:
        """The speaker and role the outcome names."""
        chosen: dict[str, Callable[[], tuple[list[Token], list[Token]]]] = {
            "who_subject": lambda: (self.who_subject, []),
            "aside_subject": lambda: (self.aside_subject, []),
            "which_subject": lambda: (self.scan.which_subject, []),
            "opening_subject": lambda: (self.opening_subject(), []),
            "last_with_role": lambda: (self.last, self.previous),
            "last": lambda: (self.last, []),
            "previous_with_role": lambda: (self.previous, self.last),
            "previous": lambda: (self.previous, []),
        }
        return chosen[outcome]() if outcome in chosen else ([], [])


def _has(read: Callable[[BeforeContext], list[Token]]
         ) -> Callable[[BeforeContext, frozenset[str]], bool]:
    return lambda c, words: any(t.lower in words for t in read(c))


BEFORE_OUTCOMES = ("who_subject", "aside_subject", "which_subject", "opening_subject",
                   "last_with_role", "last", "previous_with_role", "previous", "none")
BEFORE_PREDICATES: dict[str, Predicate[BeforeContext]] = _table((
    Predicate("who_clause_subject", "a speaker ends just before a 'who' clause that runs "
              "without a comma up to the verb", "bool", flag(lambda c: bool(c.who_subject))),
    Predicate("aside_subject", "a comma closes a ', who ...' or ', which ...' aside before "
              "the verb, and a speaker ends just before the aside", "bool",
              flag(lambda c: bool(c.aside_subject))),
    Predicate("which_subject", "the verb is that of a ', which' clause right after a run of "
              "names (\"Moscow, which denies\")", "bool",
              flag(lambda c: bool(c.scan.which_subject))),
    Predicate("word_before", "the token before the speaker's end is one of", "words",
              _in(lambda c: c.tokens[c.end - 1].lower if c.end else "")),
    Predicate("closed_by_comma", "a comma stands between the segments and the verb",
              "bool", flag(lambda c: c.closed_by_comma)),
    Predicate("relative", "the verb belongs to a ', who' or ', which' clause", "bool",
              flag(lambda c: c.scan.relative)),
    Predicate("segments", "this many comma-separated segments were read", "int",
              lambda c, n: len(c.scan.segments) == n),
    Predicate("last_is_name", "the segment before the verb is one to five capitalised "
              "words", "bool", flag(lambda c: c.names(c.last))),
    Predicate("previous_is_name", "the segment before that is one to five capitalised words",
              "bool", flag(lambda c: c.names(c.previous))),
    Predicate("last_has", "one of these is in the segment before the verb", "words",
              _has(lambda c: c.last)),
    Predicate("previous_has", "one of these is in the segment before that", "words",
              _has(lambda c: c.previous)),
    Predicate("last_is_speaker", "speaker_phrases takes the segment before the verb for a "
              "speaker", "bool", flag(lambda c: c.is_speaker(c.last))),
    Predicate("previous_is_speaker", "speaker_phrases takes the segment before that for a "
              "speaker", "bool", flag(lambda c: c.is_speaker(c.previous))),
    Predicate("previous_longer_than", "the segment before that has more words than this",
              "int", lambda c, n: len(c.previous) > n),
))


# -- speaker_shapes: what the phrase found stands for -----------------------------------------
@dataclass(frozen=True)
class ShapeContext:
    """A speaker phrase as found, its role, and the speaker named earlier it refers to."""

    phrase: list[Token]
    role: list[Token]
    earlier: str | None  # the earlier speaker speaker_references matched, if any

    @cached_property
    def lowered(self) -> list[str]:
        return [t.lower for t in self.phrase]

    def first(self, word: str) -> int | None:
        return next((i for i, w in enumerate(self.lowered) if w == word), None)

    def split_by(self) -> tuple[list[Token], list[Token]]:
        """"Satellite images taken by Maxar Technologies": the maker, and what it made."""
        by = self.first("by")
        assert by is not None
        names = self.phrase[by + 1 :]
        cut = next((i for i, t in enumerate(names) if not is_name_token(t)), len(names))
        return names[:cut], self.phrase[:by]

    def split_of(self) -> tuple[list[Token], list[Token]]:
        """"Kyrylo Tymoshenko of the Ukrainian presidential office": the person, and where
        they work."""
        of = self.first("of")
        assert of is not None
        return self.phrase[:of], self.phrase[of:]


def _name_after_by(c: ShapeContext, wanted: bool) -> bool:
    by = c.first("by")
    found = by is not None and by + 1 < len(c.phrase) and is_name_token(c.phrase[by + 1])
    return found is wanted


def _names_then_of(c: ShapeContext, wanted: bool) -> bool:
    of = c.first("of")
    found = of is not None and 2 <= of <= 4 and all(is_name_token(t) for t in c.phrase[:of])
    return found is wanted


def _after_of_has(c: ShapeContext, words: frozenset[str]) -> bool:
    of = c.first("of")
    return of is not None and any(t.lower in words for t in c.phrase[of + 1 :])


SHAPE_OUTCOMES = ("earlier_speaker", "maker_after_by", "person_and_workplace", "as_written")
SHAPE_PREDICATES: dict[str, Predicate[ShapeContext]] = _table((
    Predicate("names_earlier", "speaker_references matched the phrase to a speaker named "
              "earlier in the document", "bool", flag(lambda c: c.earlier is not None)),
    Predicate("words_at_most", "the phrase has at most this many words", "int",
              lambda c, n: len(c.phrase) <= n),
    Predicate("first_word", "the phrase opens with one of", "words",
              lambda c, words: c.lowered[0] in words),
    Predicate("shorter_than_earlier", "the phrase has fewer words than the earlier speaker's "
              "name", "bool", flag(lambda c: c.earlier is not None and
                                    len(c.phrase) < len(c.earlier.split()))),
    Predicate("name_after_by", "'by' and then a capitalised word are in the phrase", "bool",
              _name_after_by),
    Predicate("names_then_of", "two to four capitalised words and then 'of' open the phrase",
              "bool", _names_then_of),
    Predicate("after_of_has", "one of these is in the phrase after its first 'of'", "words",
              _after_of_has),
    Predicate("has_role", "a role came with the phrase (\"X, the governor, said\")", "bool",
              flag(lambda c: bool(c.role))),
))


# -- speaker_references: does a phrase name a speaker named before? ---------------------------
@dataclass(frozen=True)
class ReferenceContext:
    """A phrase's words, lower case, and one speaker named earlier in the document."""

    words: list[str]
    speaker: str
    role: str
    lexicon: SpeakerWords

    @cached_property
    def speaker_words(self) -> list[str]:
        return self.speaker.lower().split()

    @cached_property
    def foreign(self) -> bool:
        """A word that is neither the earlier speaker's, nor a determiner, nor a role word:
        "the United Nations human rights office" is not "... of the presidential office"."""
        known = set(self.speaker_words) | set(self.role.lower().split())
        return any(w not in known and w not in self.lexicon.determiners and
                   w not in self.lexicon.role_words for w in self.words)


def _same_role_head(c: ReferenceContext) -> bool:
    roles = c.lexicon.role_words
    mine = next((w for w in c.words if w in roles), None)
    theirs = next((w for w in c.role.lower().split() if w in roles), None)
    return mine is not None and mine == theirs


def looks_like_person(speaker: str) -> bool:
    parts = speaker.split()
    return 2 <= len(parts) <= 4 and all(p[:1].isupper() for p in parts)


REFERENCE_OUTCOMES = ("same", "other")
REFERENCE_PREDICATES: dict[str, Predicate[ReferenceContext]] = _table((
    Predicate("pronoun", "the phrase is one word, one of", "words",
              lambda c, words: len(c.words) == 1 and c.words[0] in words),
    Predicate("earlier_is_person", "the earlier speaker is two to four capitalised words",
              "bool", flag(lambda c: looks_like_person(c.speaker))),
    Predicate("first_word", "the phrase opens with one of", "words",
              lambda c, words: c.words[0] in words),
    Predicate("words_at_most", "the phrase has at most this many words", "int",
              lambda c, n: len(c.words) <= n),
    Predicate("word_count", "the phrase has exactly this many words", "int",
              lambda c, n: len(c.words) == n),
    Predicate("foreign_word", "a word of the phrase is neither the earlier speaker's (name "
              "or role), nor a determiner, nor a role word", "bool", flag(lambda c: c.foreign)),
    Predicate("same_last_word", "the phrase ends with the earlier speaker's last word",
              "bool", flag(lambda c: bool(c.speaker_words) and
                            c.speaker_words[-1] == c.words[-1])),
    Predicate("shorter_than_earlier", "the phrase has fewer words than the earlier speaker's "
              "name", "bool", flag(lambda c: len(c.words) < len(c.speaker_words))),
    Predicate("last_word_in_earlier", "the phrase's last word is a word of the earlier "
              "speaker's name", "bool", flag(lambda c: c.words[-1] in c.speaker_words)),
    Predicate("same_role_head", "the first role word (@speaker_role_words) of the phrase is "
              "the first of the earlier speaker's role: 'the head of the administration' and "
              "'the head of the regional administration', not 'the rail company' and 'the head "
              "of the rail company'", "bool", flag(_same_role_head)),
))


# -- loading ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class SpeakerRules:
    """The six tables and the word classes of attribution, read once per vocabulary."""

    cues: RuleTable[VerbContext]
    before: RuleTable[BeforeContext]
    after: RuleTable[AfterContext]
    phrases: RuleTable[PhraseContext]
    shapes: RuleTable[ShapeContext]
    references: RuleTable[ReferenceContext]
    words: SpeakerWords


def load_speaker_rules(vocabulary: Vocabulary) -> SpeakerRules:
    """Read and check every speaker table against its predicates and outcomes."""
    rules = vocabulary.directory / "rules"
    lexicon = vocabulary.lexicon

    def load(name: str, predicates: Mapping[str, Predicate[C]], outcomes: tuple[str, ...]
             ) -> RuleTable[C]:
        return load_rule_table(rules / f"{name}.toml", predicates, outcomes, lexicon)

    return SpeakerRules(
        cues=load("speaker_cues", CUE_PREDICATES, CUE_OUTCOMES),
        before=load("speaker_before", BEFORE_PREDICATES, BEFORE_OUTCOMES),
        after=load("speaker_after", AFTER_PREDICATES, AFTER_OUTCOMES),
        phrases=load("speaker_phrases", PHRASE_PREDICATES, PHRASE_OUTCOMES),
        shapes=load("speaker_shapes", SHAPE_PREDICATES, SHAPE_OUTCOMES),
        references=load("speaker_references", REFERENCE_PREDICATES, REFERENCE_OUTCOMES),
        words=SpeakerWords.of(lexicon),
    )


#: Tables already read, by vocabulary folder and digest: an Attributor is made for every
#: document, and the digest changes whenever a table or a word class does.
_READ: dict[tuple[Path, str], SpeakerRules] = {}


def speaker_rules(vocabulary: Vocabulary) -> SpeakerRules:
    key = (vocabulary.directory, vocabulary.digest)
    if key not in _READ:
        _READ[key] = load_speaker_rules(vocabulary)
    return _READ[key]
