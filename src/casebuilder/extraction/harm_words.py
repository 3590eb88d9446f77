"""Which harm words of a sentence report harm here, decided by two rule tables.

A category word (vocab/categories.toml) found in a sentence does not always report harm: "in
retaliation for the attack" gives a motive, "explosions were heard" a sound, "Moscow might
launch strikes" a fear, "killed" beside a missile strike the strike's toll. Two ordered rule
tables decide, each rule named, with examples and counterexamples:

- ``vocab/rules/military_actions.toml``, for each category word first: a military action
  or an alert told with no harm to civilians ("troops were encircled", "forces fled", "the
  town was captured by troops", "sirens warned of missile strikes") is ``not_harm``;
- ``vocab/rules/category_filters.toml``, for each category word: ``harm`` or ``not_harm``;
- ``vocab/rules/sentence_categories.toml``, for each category the words left give the
  sentence (and an explosive attack an explosive weapon gives without a harm word): the
  sentence as a whole may still tell no harm to civilians ("a destroyed tank column").

This module builds what the tables' predicates look at (:class:`WordContext`,
:class:`CategoryContext`, both reading one :class:`SentenceSignals`) and offers those
predicates. Harm words are one step of :mod:`casebuilder.extraction.mentions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from casebuilder.extraction.facts import NotTaken, clause_before
from casebuilder.extraction.figures import CasualtyFigure
from casebuilder.extraction.phrases import PhraseMatch, PhraseMatcher
from casebuilder.extraction.reading import DocumentReading
from casebuilder.extraction.rules import Predicate, RuleTable, flag, load_rule_table
from casebuilder.extraction.text import TextAnalyser, Token
from casebuilder.extraction.vocabulary import Vocabulary
from casebuilder.model.claim_values import NotTakenCategory
from casebuilder.model.lexicon import Lexicon

#: The outcomes of both tables.
OUTCOMES = ("harm", "not_harm")
WORD_TABLE = "category_filters"
MILITARY_TABLE = "military_actions"
SENTENCE_TABLE = "sentence_categories"
#: The category of attacks with explosive weapons (a weapon named as used makes one).
EXPLOSIVE = "explosive_attack"


@dataclass
class SentenceSignals:
    """What the harm-word predicates read about one sentence (see :meth:`of`)."""

    tokens: Sequence[Token]
    weapons: list[PhraseMatch[str]]
    targets: list[PhraseMatch[str]]
    figures: list[CasualtyFigure]
    matches: list[PhraseMatch[str]]  # the category words, not overlapping
    words: HarmWords
    lexicon: Lexicon
    lowered: frozenset[str]  # the sentence's words, lower-cased
    harm: bool  # a figure says someone was killed, injured or hurt (more than none)
    victims: bool  # harm, or a civilian word
    killed: list[CasualtyFigure]  # figures of more than none killed
    civilian_targets: list[PhraseMatch[str]]
    explosive: list[PhraseMatch[str]]  # the explosive weapons named
    strong: frozenset[str]  # the categories a strong (not weak) word of the sentence names
    #: The categories whose words the word table kept, by category (see the sentence table).
    kept: dict[str, list[PhraseMatch[str]]] = field(default_factory=dict)

    @classmethod
    def of(cls, tokens: Sequence[Token], weapons: list[PhraseMatch[str]],
           targets: list[PhraseMatch[str]], figures: list[CasualtyFigure],
           matches: list[PhraseMatch[str]], words: HarmWords) -> SentenceSignals:
        lexicon = words.lexicon
        lowered = frozenset(t.lower for t in tokens)
        measures = lexicon.words("harm_measures")
        harm = any(f.measure in measures and (f.low or 0) > 0 for f in figures)
        other = lexicon.words("targets_not_civilian")
        kinds = words.vocabulary.weapons
        return cls(tokens, weapons, targets, figures, matches, words, lexicon, lowered, harm,
                   harm or not lowered.isdisjoint(lexicon.words("civilian_words")),
                   [f for f in figures if f.measure == "killed" and (f.low or 0) > 0],
                   [t for t in targets if t.payload.lower() not in other],
                   [w for w in weapons if kinds[w.payload].category == EXPLOSIVE],
                   frozenset(m.payload for m in matches if not words.weak(m)))

    # Only the sentence table asks these, and only for a sentence with harm words left.
    @cached_property
    def military_objects(self) -> bool:
        return bool(self.words.military_objects(self.tokens))

    @cached_property
    def remnants(self) -> bool:
        return bool(self.words.remnants.find(self.tokens))


@dataclass(slots=True)
class WordContext:
    """One category word of a sentence, for the word table (see :meth:`of`)."""

    sentence: SentenceSignals
    match: PhraseMatch[str]
    category: str
    weak: bool
    other_strong: bool  # a strong word of another category is in the sentence
    four_before: frozenset[str]  # the four tokens before the word
    clause_before: frozenset[str]  # the six words before it, within its clause

    @classmethod
    def of(cls, sentence: SentenceSignals, match: PhraseMatch[str]) -> WordContext:
        tokens, first = sentence.tokens, match.first
        return cls(sentence, match, match.payload, sentence.words.weak(match),
                   bool(sentence.strong - {match.payload}),
                   frozenset(t.lower for t in tokens[max(0, first - 4) : first]),
                   frozenset(clause_before(tokens, first, 6, sentence.lexicon)))


@dataclass(slots=True)
class CategoryContext:
    """One category a sentence's words give (or an explosive weapon alone), for the sentence
    table. ``matches`` are the words kept for it, or the weapon's words (``by_weapon``)."""

    sentence: SentenceSignals
    category: str
    matches: list[PhraseMatch[str]]
    by_weapon: bool = False



def _within_4_before(c: WordContext, words: frozenset[str]) -> bool:
    return not c.four_before.isdisjoint(words)


def _word_before(c: WordContext, words: frozenset[str]) -> bool:
    return c.match.first > 0 and c.sentence.tokens[c.match.first - 1].lower in words


def _clause_before(c: WordContext, words: frozenset[str]) -> bool:
    return not c.clause_before.isdisjoint(words)


def _strong_situation(c: WordContext, wanted: bool) -> bool:
    situations = c.sentence.lexicon.words("situation_categories")
    return bool(c.sentence.strong & situations) is wanted


def _explosive(c: WordContext, wanted: bool) -> bool:
    found = bool(c.sentence.explosive) or EXPLOSIVE in c.sentence.strong
    return found is wanted


def _killed_only_military(c: WordContext, wanted: bool) -> bool:
    killed = c.sentence.killed
    found = bool(killed) and all(f.population == "military" for f in killed)
    return found is wanted


def _person_follows(c: WordContext, wanted: bool) -> bool:
    return c.sentence.words.person_follows(c.sentence.tokens, c.match) is wanted


def _military_patient(c: WordContext, wanted: bool) -> bool:
    """Military people or their supply lines undergo the word: named in the four tokens after
    it, before any "by" ("encirclement of the garrison", "cut off the land bridge"; not
    "encircled by Russian forces"), or before it in its clause
    when a passive or a word of undergoing stands just before ("troops were encircled",
    "units face encirclement")."""
    lexicon, tokens, match = c.sentence.lexicon, c.sentence.tokens, c.match
    military = lexicon.words("military_people")
    supply = frozenset(lexicon.phrases("military_supply"))
    after = _clause_after(c, 4)
    if "by" in after:  # "encircled by Russian forces": who acts, not who undergoes it
        after = after[: after.index("by")]
    found = not military.isdisjoint(after) or _has_phrase(after, supply)
    if not found:
        near = [t.lower for t in tokens[max(0, match.first - 2) : match.first]]
        undergoing = lexicon.words("passive_auxiliaries") | lexicon.words("undergoing_words")
        found = any(w in undergoing for w in near) and not military.isdisjoint(
            c.clause_before)
    return found is wanted


def _military_subject(c: WordContext, wanted: bool) -> bool:
    lexicon = c.sentence.lexicon
    found = not lexicon.words("military_people").isdisjoint(c.clause_before) and \
        not _people_named(lexicon, c.clause_before)
    return found is wanted


def _person_in_clause_before(c: WordContext, wanted: bool) -> bool:
    return _people_named(c.sentence.lexicon, c.clause_before) is wanted


def _military_agent_after(c: WordContext, wanted: bool) -> bool:
    """"captured by Russian troops": 'by' in the two tokens after the word, then a word of
    military people within three more."""
    after = _clause_after(c, 5)
    military = c.sentence.lexicon.words("military_people")
    found = "by" in after[:2] and not military.isdisjoint(after[after.index("by") + 1 :][:3])
    return found is wanted


def _phrase_in_sentence(c: WordContext, phrases: frozenset[str]) -> bool:
    return _has_phrase([t.lower for t in c.sentence.tokens], phrases)


def _harm_besides_military(c: WordContext, wanted: bool) -> bool:
    measures = c.sentence.lexicon.words("harm_measures")
    found = any(f.measure in measures and (f.low or 0) > 0 and f.population != "military"
                for f in c.sentence.figures)
    return found is wanted


def _combatants_only(c: WordContext, wanted: bool) -> bool:
    """Figures of people killed are given (a bound above none, "up to 200" too), and all of
    them count the military."""
    killed = [f for f in c.sentence.figures
              if f.measure == "killed" and max(f.low or 0, f.high or 0) > 0]
    found = bool(killed) and all(f.population == "military" for f in killed)
    return found is wanted


def _civilians_named(c: WordContext, wanted: bool) -> bool:
    found = not c.sentence.lowered.isdisjoint(c.sentence.lexicon.words("civilian_words"))
    return found is wanted


def _clause_after(c: WordContext, reach: int) -> list[str]:
    """Up to ``reach`` words after the word, not reaching past a clause stop."""
    stops = c.sentence.lexicon.words("clause_stops")
    words: list[str] = []
    for token in c.sentence.tokens[c.match.last : c.match.last + reach]:
        if token.lower in stops:
            break
        words.append(token.lower)
    return words


def _has_phrase(words: Sequence[str], phrases: frozenset[str]) -> bool:
    padded = f" {' '.join(words)} "
    return any(f" {phrase} " in padded for phrase in phrases)


def _people_named(lexicon: Lexicon, words: frozenset[str]) -> bool:
    people = lexicon.words("civilian_words") | lexicon.words("person_words")
    return not people.isdisjoint(words)


def _all_weak(c: CategoryContext, wanted: bool) -> bool:
    return all(c.sentence.words.weak(m) for m in c.matches) is wanted


def _no_single_attack_kill_figure(c: CategoryContext, wanted: bool) -> bool:
    figures = c.sentence.figures
    found = bool(figures) and all(f.cumulative for f in figures if f.measure == "killed")
    return found is wanted


def _only_explosive_kept(c: CategoryContext, wanted: bool) -> bool:
    return (set(c.sentence.kept) <= {EXPLOSIVE}) is wanted


def _strong_besides_explosive(c: CategoryContext, wanted: bool) -> bool:
    return bool(c.sentence.strong - {EXPLOSIVE}) is wanted


WORD_PREDICATES: dict[str, Predicate[WordContext]] = {p.name: p for p in (
    Predicate("category", "the word's category is one of", "words",
              lambda c, words: c.category in words),
    Predicate("weak", "the word is one of its category's weak words (categories.toml)",
              "bool", flag(lambda c: c.weak)),
    Predicate("requires_harm", "its category needs harm told beside it (categories.toml "
              "requires_harm)", "bool",
              flag(lambda c: c.category in c.sentence.words.requires_harm)),
    Predicate("phrase", "the word (or phrase) itself is one of", "words",
              lambda c, words: c.match.phrase in words),
    Predicate("harm", "a figure says someone was killed, injured or hurt", "bool",
              flag(lambda c: c.sentence.harm)),
    Predicate("victims", "harm is told, or a civilian word is in the sentence", "bool",
              flag(lambda c: c.sentence.victims)),
    Predicate("weapons", "the sentence names a weapon", "bool",
              flag(lambda c: c.sentence.weapons)),
    Predicate("targets", "the sentence names a target type", "bool",
              flag(lambda c: c.sentence.targets)),
    Predicate("other_strong", "a strong word of another category is in the sentence", "bool",
              flag(lambda c: c.other_strong)),
    Predicate("strong_situation", "a strong word of a situation category is in the "
              "sentence", "bool", _strong_situation),
    Predicate("explosive", "an explosive weapon, or a strong word of an explosive attack, "
              "is in the sentence", "bool", _explosive),
    Predicate("killed_only_military", "figures of people killed are given, and all of them "
              "are of the military", "bool", _killed_only_military),
    Predicate("person_follows", "a person is the one held: a person word or a number in the "
              "five tokens after, or a person before a passive ('two men were held')", "bool",
              _person_follows),
    Predicate("in_sentence", "one of these is a word of the sentence", "words",
              lambda c, words: bool(c.sentence.lowered & words)),
    Predicate("within_4_before", "one of these is among the four tokens before the word",
              "words", _within_4_before),
    Predicate("word_before", "the token just before the word is one of", "words",
              _word_before),
    Predicate("clause_before_6", "one of these is in the six words before, within the "
              "clause", "words", _clause_before),
)}

#: The military-action table reads what the word table reads, and more.
MILITARY_PREDICATES: dict[str, Predicate[WordContext]] = {**WORD_PREDICATES, **{
    p.name: p for p in (
        Predicate("phrase_in_sentence", "one of these phrases is in the sentence", "phrases",
                  _phrase_in_sentence),
        Predicate("military_patient", "military people or their supply lines undergo the word "
                  "(@military_people, @military_supply in the four words after it; or before it "
                  "in its clause, with a passive or one of @undergoing_words just before)", "bool",
                  _military_patient),
        Predicate("military_subject", "a word of @military_people is in the six words before, "
                  "within the clause, and no civilian or person word is", "bool",
                  _military_subject),
        Predicate("person_in_clause_before", "a civilian or person word is in the six words "
                  "before, within the clause", "bool", _person_in_clause_before),
        Predicate("military_agent_after", "'by' in the two words after, then a word of "
                  "@military_people ('captured by Russian troops')", "bool",
                  _military_agent_after),
        Predicate("harm_besides_military", "a figure says someone not of the military was "
                  "killed, injured or hurt", "bool", _harm_besides_military),
        Predicate("combatants_only", "figures of people killed are given (an upper bound "
                  "is enough), and all of them count the military", "bool", _combatants_only),
        Predicate("civilians_named", "a civilian word is in the sentence (@civilian_words)",
                  "bool", _civilians_named),
)}}

SENTENCE_PREDICATES: dict[str, Predicate[CategoryContext]] = {p.name: p for p in (
    Predicate("category", "the category is one of", "words",
              lambda c, words: c.category in words),
    Predicate("by_weapon", "no harm word gives the category: an explosive weapon named does",
              "bool", flag(lambda c: c.by_weapon)),
    Predicate("all_weak", "every word kept for the category is a weak one", "bool", _all_weak),
    Predicate("harm", "a figure says someone was killed, injured or hurt", "bool",
              flag(lambda c: c.sentence.harm)),
    Predicate("victims", "harm is told, or a civilian word is in the sentence", "bool",
              flag(lambda c: c.sentence.victims)),
    Predicate("civilian_targets", "a target type other than those of @targets_not_civilian "
              "is named", "bool", flag(lambda c: c.sentence.civilian_targets)),
    Predicate("populated", "a word for a populated place is in the sentence "
              "(@populated_place_words)", "bool",
              lambda c, wanted: bool(c.sentence.lowered & c.sentence.lexicon.words(
                  "populated_place_words")) is wanted),
    Predicate("military_objects", "military things are named as harmed, not as the ones "
              "who act (categories.toml military_objects)", "bool",
              flag(lambda c: c.sentence.military_objects)),
    Predicate("remnants", "words of a weapon's remains are in the sentence (categories.toml "
              "remnants)", "bool", flag(lambda c: c.sentence.remnants)),
    Predicate("only_explosive_kept", "the word table kept no word of a category other than "
              "an explosive attack", "bool", _only_explosive_kept),
    Predicate("strong_besides_explosive", "a strong word of a category other than an "
              "explosive attack is in the sentence", "bool", _strong_besides_explosive),
    Predicate("no_single_attack_kill_figure", "figures are given, and every figure of "
              "people killed among them is a running total", "bool",
              _no_single_attack_kill_figure),
    Predicate("in_sentence", "one of these is a word of the sentence", "words",
              lambda c, words: bool(c.sentence.lowered & words)),
)}


def load_harm_tables(vocabulary: Vocabulary) -> dict[str, RuleTable[Any]]:
    rules = vocabulary.directory / "rules"
    return {
        MILITARY_TABLE: load_rule_table(rules / f"{MILITARY_TABLE}.toml", MILITARY_PREDICATES,
                                        OUTCOMES, vocabulary.lexicon),
        WORD_TABLE: load_rule_table(rules / f"{WORD_TABLE}.toml", WORD_PREDICATES, OUTCOMES,
                                    vocabulary.lexicon),
        SENTENCE_TABLE: load_rule_table(rules / f"{SENTENCE_TABLE}.toml", SENTENCE_PREDICATES,
                                        OUTCOMES, vocabulary.lexicon),
    }


def _category_set_aside(table: str, rule: str, match: PhraseMatch[str]) -> NotTaken:
    return NotTaken.by(table, rule, match.start, match.end,
                       NotTakenCategory(words=match.phrase, category=match.payload))


class HarmWords:
    """The harm words of the vocabulary and the tests on them. Build once, reuse."""

    def __init__(self, analyser: TextAnalyser, vocabulary: Vocabulary) -> None:
        v = vocabulary
        self.vocabulary = vocabulary
        self.lexicon = vocabulary.lexicon
        ignored = [(phrase, "") for phrase in v.ignore_phrases]
        self.matcher = PhraseMatcher(
            analyser, [(t, c.key) for c in v.categories.values() for t in c.triggers] + ignored)
        self._weak = {c.key: c.weak for c in v.categories.values()}
        self.requires_harm = frozenset(c.key for c in v.categories.values() if c.requires_harm)
        self._military = PhraseMatcher(analyser, [(p, p) for p in v.military_objects])
        self.remnants = PhraseMatcher(analyser, [(p, p) for p in v.remnants])

    def weak(self, match: PhraseMatch[str]) -> bool:
        """Is the word one its category counts only beside other signs of harm?"""
        return match.phrase in self._weak.get(match.payload, frozenset())

    def weak_phrase(self, category: str, phrase: str) -> bool:
        return phrase in self._weak.get(category, frozenset())

    def find(self, tokens: Sequence[Token]) -> list[PhraseMatch[str]]:
        """Every category word of the tokens (phrases to ignore are left out)."""
        return [m for m in self.matcher.find(tokens, overlapping=False) if m.payload]

    def categories_of(self, tokens: Sequence[Token], weapons: list[PhraseMatch[str]],
                      targets: list[PhraseMatch[str]], figures: list[CasualtyFigure],
                      reading: DocumentReading,
                      matches: list[PhraseMatch[str]] | None = None,
                      not_taken: list[NotTaken] | None = None,
                      ) -> dict[str, list[PhraseMatch[str]]]:
        """The categories of harm the sentence reports, each with the words that say so;
        the words set aside go to ``not_taken`` with the rule that set them aside."""
        signals = SentenceSignals.of(tokens, weapons, targets, figures,
                                     self.find(tokens) if matches is None else matches, self)
        set_aside = [] if not_taken is None else not_taken
        # A military action or an alert first: a word it sets aside ("forces fled") lends
        # no strength to the other words of the sentence.
        military = [(match, reading.decide(MILITARY_TABLE, WordContext.of(signals, match),
                                           match.start, match.end))
                    for match in signals.matches]
        signals.strong = frozenset(m.payload for m, d in military
                                   if d.outcome == "harm" and not self.weak(m))
        for match, decision in military:
            table = MILITARY_TABLE
            if decision.outcome == "harm":
                table = WORD_TABLE
                decision = reading.decide(WORD_TABLE, WordContext.of(signals, match),
                                          match.start, match.end)
            if decision.outcome == "harm":
                signals.kept.setdefault(match.payload, []).append(match)
            else:
                set_aside.append(_category_set_aside(table, decision.rule, match))
        candidates = [CategoryContext(signals, category, kept)
                      for category, kept in signals.kept.items()]
        if signals.explosive and EXPLOSIVE not in signals.kept:
            # A weapon used on something ("a drone dropped an explosive on a civilian", "MLRS
            # hit Orikhiv") may be an explosive attack even without one of the trigger words.
            w = signals.explosive[0]
            candidates.append(CategoryContext(signals, EXPLOSIVE, [PhraseMatch(
                w.first, w.last, w.start, w.end, w.phrase, EXPLOSIVE)], by_weapon=True))
        found: dict[str, list[PhraseMatch[str]]] = {}
        for candidate in candidates:
            decision = reading.decide(SENTENCE_TABLE, candidate, candidate.matches[0].start,
                                      candidate.matches[-1].end)
            if decision.outcome == "harm":
                found[candidate.category] = candidate.matches
            else:
                set_aside += [_category_set_aside(SENTENCE_TABLE, decision.rule, m)
                              for m in candidate.matches]
        return found

    def military_objects(self, tokens: Sequence[Token]) -> list[PhraseMatch[str]]:
        """Military things named as harmed, not as the ones who act ("abducted by Russian
        soldiers", "troops opened fire"): the actors are not what was attacked."""
        agency = self.vocabulary.agency_verbs
        out = []
        for match in self._military.find(tokens):
            before = [t.lower for t in tokens[max(0, match.first - 3) : match.first]]
            after = [t.lower for t in tokens[match.last : match.last + 3]]
            if "by" in before or any(w in agency for w in after):
                continue
            out.append(match)
        return out

    def person_follows(self, tokens: Sequence[Token], match: PhraseMatch[str]) -> bool:
        """"held at least 15 civilian men", "captured two residents": a person is the object."""
        people = self.lexicon.words("civilian_words") | self.lexicon.words("person_words")
        after = tokens[match.last : match.last + 5]
        # "villagers were taken away", "two men were being held": a person before a passive
        before = tokens[max(0, match.first - 4) : match.first]
        passive = any(t.lower in self.lexicon.words("passive_auxiliaries") for t in before)
        return any(t.lower in people or t.lower.isdigit() for t in after) or (
            passive and any(t.lower in people for t in before))
