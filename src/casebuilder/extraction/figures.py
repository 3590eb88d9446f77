"""Casualty figures in a sentence: how many were killed, injured, missing or affected, as stated.

Extraction stage. The incident extractor calls :func:`find_figures` on each sentence of a
document's text, with ``base`` set to the sentence's offset in the document, so every returned
span is an offset into the document text. The words and patterns come from the lexicon
(``vocab/lexicon/figures.toml``, read once into a :class:`FigureGrammar`), and which cue makes
a number a figure from the rule table ``vocab/rules/figure_cues.toml``
(:mod:`casebuilder.extraction.figure_cues`); each figure names the table rule that took it
(``cue_rule``) and the cue that made it cumulative or an earlier report's (``flag_rule``).
Figures are kept as the text states them (PRIMER section 4: tolls are ranges with their
sources and dates, and they rise over days): "at least 50" is a lower bound, "about 300" an
estimate, "dozens" a vague lower bound. Choosing between figures of several reports, or
several sentences, is the caller's work.

How a figure is recognised: a quantity (digits, number words, "a dozen", "dozens", "between A
and B", with its qualifier: "at least", "more than", "about", "up to") is taken only when a
casualty word governs it: a verb before it ("killing at least ten people", "wounding 25"), a
predicate after it ("ten civilians were killed", "21 dead", "59 taken to hospital"), a toll
("the death toll rose to 50", "gave a death toll of 27", "put the number of dead at about 30"),
a count of bodies, or "dozens of dead and injured". Anything else with a number ("more than 20
strikes", "thousands of people waited", "70% of the city", "eight-storey", "Article 438",
"10:00", "a four-year-old" on its own) is not a figure.

Choices an analyst should know:

* Being taken to hospital, hospitalised, or in hospital counts as injured.
* Trapped, sheltering, hiding, sought refuge, displaced, evacuated, rescued or left homeless is
  measure ``"affected"``: people at the scene or forced out, not casualties.
* A count of "casualties" or "victims", or "killed or injured", does not split dead from
  injured: it is measure ``"casualties"``. "Dead and injured" names both, so a vague count of
  them ("dozens of dead and injured") gives one figure for each, as a text that says dozens of
  both is read.
* "No casualties", "no one was harmed" give zero killed and zero injured; "no one was killed"
  zero killed only. "No reports of casualties" is no figure: absence of news is not zero.
* Vague quantities give a lower bound and no upper one: "several" 3, "a few" 2, "a handful" 2,
  "dozens" 24, "scores" 40, "hundreds" 200, "thousands" 2,000, "tens of thousands" 20,000.
  "A dozen" is about 12.
* "More than 30" has low 30 (the number stated, with qualifier "more than"), not 31.
* A part of another figure ("including five children", "six of them children", "five children
  were among the dead") has ``subgroup`` True; its measure is the one it names or, failing
  that, that of the figure before it in the sentence.
* ``cumulative`` is True for totals over a period ("since the start of the war", "in total",
  "so far this year"), and ``rule`` is ``"reported-earlier"`` for figures the text attributes to
  earlier reports ("Initial reports had put the number of dead at about 30"), so the caller can
  treat them as superseded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Final, Literal, NamedTuple, TypeVar, get_args

from casebuilder.extraction.figure_cues import (
    NOT_A_FIGURE,
    FigureContext,
    load_figure_cues,
)
from casebuilder.extraction.rules import Decision, RuleTable
from casebuilder.model.claim_values import Measure
from casebuilder.model.lexicon import Lexicon, LexiconError

Qualifier = Literal["exact", "at least", "more than", "about", "up to", "between", "vague",
                    "none"]
Population = Literal["civilians", "children", "military", "prisoners of war", "people"]
MEASURES: Final[tuple[Measure, ...]] = get_args(Measure)
QUALIFIERS: Final[tuple[Qualifier, ...]] = get_args(Qualifier)
POPULATIONS: Final[tuple[Population, ...]] = get_args(Population)
T = TypeVar("T", bound=str)


@dataclass(frozen=True, slots=True)
class CasualtyFigure:
    """One stated figure; ``low``/``high`` are the bounds the text states (None: unstated)."""

    start: int
    end: int
    text: str
    measure: Measure
    low: int | None
    high: int | None
    qualifier: Qualifier
    population: Population | None
    subgroup: bool
    cumulative: bool
    rule: str
    #: The rule of ``vocab/rules/figure_cues.toml`` that took the number ("" for figures
    #: found otherwise: none, single victims, record fields).
    cue_rule: str = ""
    #: The cue that marked it cumulative or an earlier report's ("" when neither did):
    #: "cumulative-cue", "joined-to-a-total", "earlier-report-cue",
    #: "joined-to-an-earlier-report" (see :func:`_context_flags`).
    flag_rule: str = ""


# -- the figure lexicon ----------------------------------------------------------------------

_HYPHEN: Final = r"[\-‐‑]"
# "2,400", "1 200", "1.5 million": digits, with thousands separators (the multiplier words
# are added from the lexicon).
_DIGIT_RUN: Final = (r"(?<![\w.,:/$€£])(?:\d{1,3}(?:(?:,|[\u00a0\u202f\u2009]|\s(?=\d{3}(?!\d)))"
                     r"\d{3})+|\d+)")
_ASIDE: Final = r"(?:\s*,[^,.;:]{1,80},|\s*[–—][^.;:–—]{1,80}[–—])"
# No count of people reaches a billion; a longer number is a code, a sum of money or noise.
_LARGEST_COUNT: Final = 10**9
_EARLIER_REACH: Final = 60
_VOCAB_DIR: Final = Path(__file__).parent / "vocab"


def _alternatives(words: Iterable[str]) -> str:
    """A regex alternation of phrases, longest first, any whitespace between words."""
    items = sorted(set(words), key=lambda w: (-len(w), w))
    return "|".join(re.escape(item).replace(r"\ ", r"\s+") for item in items)


def _numbers_of(lexicon: Lexicon, name: str) -> dict[str, int]:
    return {word: int(number) for word, number in lexicon.mapping(name).items()}


def _typed(lexicon: Lexicon, name: str, allowed: tuple[T, ...]) -> dict[str, T]:
    """A map class whose values must be among ``allowed`` (a qualifier, a population, a
    measure): a misspelt value is refused when the lexicon is read, not met as a stray
    value in an export."""
    mapping = lexicon.mapping(name)
    known = {str(value): value for value in allowed}
    wrong = sorted(v for v in mapping.values() if v not in known)
    if wrong:
        raise LexiconError(f"{lexicon.classes[name].source}: [{name}] value {wrong[0]!r} is "
                           f"none of {', '.join(known)}")
    return {word: known[value] for word, value in mapping.items()}


class FigureGrammar:
    """The word classes and patterns of ``vocab/lexicon/figures.toml`` read once, the
    patterns of quantities and people built from them, and the figure-cue table."""

    def __init__(self, lexicon: Lexicon, cues: RuleTable[FigureContext]) -> None:
        self.cues = cues
        p = lexicon.pattern
        self.units = _numbers_of(lexicon, "number_units")
        self.teens = _numbers_of(lexicon, "number_teens")
        self.tens = _numbers_of(lexicon, "number_tens")
        self.multipliers = _numbers_of(lexicon, "number_multipliers")
        self.dozens = {w: float(n) for w, n in lexicon.mapping("dozen_counts").items()}
        self.vague_words = _numbers_of(lexicon, "vague_quantities")
        self.qualifiers: dict[str, Qualifier] = _typed(lexicon, "quantity_qualifiers",
                                                       QUALIFIERS)
        self.population_nouns: dict[str, Population] = _typed(lexicon, "population_nouns",
                                                              POPULATIONS)
        self.toll_heads: dict[str, Measure] = _typed(lexicon, "toll_head_measures", MEASURES)
        link = "|".join(sorted(lexicon.words("figure_link_words")))
        large = _alternatives(w for w, n in self.multipliers.items() if n >= 1000)
        hundred = _alternatives(w for w, n in self.multipliers.items() if n == 100)

        below_100 = (rf"(?:(?:{_alternatives(self.tens)})(?:(?:\s+|{_HYPHEN})"
                     rf"(?:{_alternatives(self.units)}))?|{_alternatives(self.teens)}"
                     rf"|{_alternatives(self.units)})")
        below_1000 = (rf"(?:(?:a|one|{_alternatives(self.units)})\s+(?:{hundred})"
                      rf"(?:\s+(?:and\s+)?{below_100})?|{below_100})")
        word_number = (rf"(?:{below_1000}(?:\s+(?:{large})(?:\s+(?:and\s+)?{below_1000})?)?"
                       rf"|a\s+(?:{large}))\b(?!{_HYPHEN}[^\W\d_])")
        digits = (rf"{_DIGIT_RUN}(?:\.\d+(?=\s+(?:{large})))?(?:\s+(?:{large}))?"
                  rf"(?!\w|[.,:/]\d|{_HYPHEN}[^\W\d_])")
        number = rf"(?:{digits}|{word_number})"
        dozen = rf"(?:(?:{_alternatives(self.dozens)}|{_alternatives(self.units)})\s+dozen)\b"
        qualifier = rf"(?:{_alternatives(self.qualifiers)})"
        quantity = (rf"(?<![\w\-‐‑])(?:{qualifier}\s+)?(?:between\s+{number}\s+and\s+{number}"
                    rf"|{dozen}|{number}(?:\s*[\-–—]\s*{number}|\s+(?:to|or)\s+{number})?"
                    rf"|(?:{_alternatives(self.vague_words)})\b)")
        age_units = _alternatives(lexicon.words("age_units"))
        age = rf"(?:\d{{1,3}}|{below_100})(?:\s+|{_HYPHEN})(?:{age_units})s?(?:\s+|{_HYPHEN})olds?"
        noun = rf"(?:{_alternatives(self.population_nouns)})\b"
        stops = "|".join(sorted(lexicon.words("modifier_stops")))
        modifier = (rf"(?!(?:{link}|{stops}|{p('casualty_words').pattern})\b)"
                    r"[^\W_][\w'’\-‐‑]*")
        population = rf"(?:{modifier}\s+){{0,3}}(?:{noun}|{age})"
        singles = "|".join(sorted(lexicon.words("single_person_nouns")))
        singular = rf"(?:{modifier}\s+){{0,3}}(?:(?:{singles})\b|{age})"
        predicate = p("casualty_predicate").pattern
        pronouns = "|".join(sorted(lexicon.words("relative_pronouns")))
        copulas = "|".join(sorted(lexicon.words("copulas")))
        breaks = "|".join(sorted(lexicon.words("toll_clause_breaks")))

        self.digits_value = re.compile(
            rf"([\d,\u00a0\u202f\u2009 ]+(?:\.\d+)?)\s*({large})?$", re.I)
        self.quantity = re.compile(quantity, re.I)
        self.qualifier_head = re.compile(rf"({qualifier})\s+", re.I)
        self.range = re.compile(
            rf"(?:between\s+(?P<a>{number})\s+and\s+(?P<b>{number})"
            rf"|(?P<c>{number})(?:\s*[\-–—]\s*|\s+(?:to|or)\s+)(?P<d>{number}))$", re.I)
        self.to_number = re.compile(rf"(.*?)\s+to\s+({number})$", re.I)
        self.from_before = re.compile(r"\bfrom\s+$", re.I)
        self.age = re.compile(rf"(?P<n>\d{{1,3}}|{below_100})(?:\s+|{_HYPHEN})"
                              rf"(?P<u>{age_units})s?(?:\s+|{_HYPHEN})olds?", re.I)
        self.noun = re.compile(noun, re.I)
        self.singular = re.compile(rf"(?<![\w\-])an?\s+(?={singular})", re.I)
        self.population_after = re.compile(rf"\s+(?:of\s+(?:the\s+)?)?{population}\b", re.I)
        self.predicate_after = re.compile(
            rf"(?P<pop>\s+(?:of\s+(?:the\s+)?)?{population})?(?P<aside>{_ASIDE})?"
            rf"(?:\s+(?:{pronouns}))?(?:\s+(?:{link})){{0,6}}\s+(?P<m>{predicate})\b", re.I)
        self.verb_before = p("casualty_verb_before")
        self.toll = re.compile(
            rf"\b(?P<m>{p('toll_head').pattern})(?:\s+of|(?:\s+(?!(?:{breaks})\b)"
            rf"[^\s\d.;:!?]+|\s+{p('month_and_day').pattern}){{0,16}}?"
            rf"(?:\s+from\s+{quantity})?\s+{p('toll_verb').pattern})\s+$", re.I)
        self.of_the_dead = p("of_the_dead_after")
        self.bodies_after = p("bodies_after")
        self.bodies_before = p("bodies_before")
        self.part_cue_before = p("part_cue_before")
        self.of_them = re.compile(
            rf"{p('of_them_head').pattern}(?:\s+(?:{p('of_them_copula').pattern})?"
            rf"(?P<pop>{population})\b|(?:\s+(?:{link})){{0,4}}\s+(?P<m2>{predicate})\b)", re.I)
        self.of_those_before = p("of_those_before")
        self.were_population = re.compile(rf"\s+(?:{copulas})\s+(?P<pop>{population})\b", re.I)
        self.among = re.compile(rf"(?P<pop>\s+{population})\s+{p('among_the_dead').pattern}",
                                re.I)
        self.nobody = re.compile(
            rf"\b{p('nobody').pattern}(?:\s+(?:{link}))*\s+{p('nobody_harm').pattern}"
            rf"|{p('no_casualties').pattern}", re.I)
        self.ages = p("ages_aged")
        self.not_a_count_before = p("not_a_count_before")
        self.not_a_count_after = p("not_a_count_after")
        self.coordination = p("figure_coordination")
        self.combatant_verb_before = p("combatant_verb_before")
        self.combatants_after = p("combatants_after")
        self.combatants_eliminated_after = p("combatants_eliminated_after")
        self.cumulative = p("cumulative_cue")
        self.earlier = p("earlier_report_cue")
        self.and_another = p("second_person_joined")
        self.person_before = p("person_joined_before")
        self.joined_pair = p("victims_joined_pair")
        self.counted_nouns = _numbers_of(lexicon, "counted_person_nouns")
        self.counted_after = re.compile(
            rf"\s+(?:{modifier}\s+){{0,2}}?(?P<noun>{_alternatives(self.counted_nouns)})\b",
            re.I)
        self.single_victim = p("single_victim_named")
        self.one_body = p("single_body")
        self.killing_one = p("killing_one")
        self.fields: tuple[tuple[re.Pattern[str], Measure], ...] = (
            (p("record_field_killed"), "killed"), (p("record_field_injured"), "injured"),
            (p("record_shorthand_killed"), "killed"), (p("record_shorthand_injured"),
                                                       "injured"))


#: The grammar of each lexicon, built on first use and kept (by identity: a lexicon is not
#: hashable).
_BUILT: dict[int, tuple[Lexicon, FigureGrammar]] = {}


def figure_grammar(lexicon: Lexicon) -> FigureGrammar:
    """The figure grammar of ``lexicon``, with the figure-cue table of the vocabulary folder
    the lexicon was read from (the shipped one for a lexicon read from nowhere)."""
    kept = _BUILT.get(id(lexicon))
    if kept is None or kept[0] is not lexicon:
        folder = lexicon.files[0].parent.parent if lexicon.files else _VOCAB_DIR
        kept = _BUILT[id(lexicon)] = (
            lexicon, FigureGrammar(lexicon, load_figure_cues(folder, lexicon)))
    return kept[1]


# -- quantities ------------------------------------------------------------------------------


class _Quantity(NamedTuple):
    start: int
    end: int
    low: int | None
    high: int | None
    qualifier: Qualifier


def _word_number(g: FigureGrammar, text: str) -> int | None:
    total, current = 0, 0
    for word in re.split(r"[\s\-‐‑]+", text.lower()):
        if word in {"and", ""}:
            continue
        if word == "a":
            current = current or 1
        elif word in g.units or word in g.teens or word in g.tens:
            current += g.units.get(word) or g.teens.get(word) or g.tens[word]
        elif word in g.multipliers and g.multipliers[word] < 1000:  # "two hundred"
            current = (current or 1) * g.multipliers[word]
        elif word in g.multipliers:  # "three thousand", "two hundred thousand"
            total += (current or 1) * g.multipliers[word]
            current = 0
        else:
            return None
    return total + current


def _number(g: FigureGrammar, text: str) -> int | None:
    text = text.strip()
    if not text[:1].isdigit():
        return _word_number(g, text)
    match = g.digits_value.match(text)
    if match is None:
        return None
    # Decimal, not float: "1.5 million" is exact, and no run of digits overflows.
    value = Decimal(re.sub(r"[,\u00a0\u202f\u2009 ]", "", match.group(1)))
    if match.group(2):
        value *= g.multipliers[match.group(2).lower()]
    return int(value)


def _parse_quantity(g: FigureGrammar, text: str
                    ) -> tuple[int | None, int | None, Qualifier] | None:
    """The bounds and qualifier of a matched quantity phrase."""
    rest = " ".join(text.split())
    qualifier: Qualifier = "exact"
    head = g.qualifier_head.match(rest)
    if head is not None:
        qualifier = g.qualifiers[" ".join(head.group(1).lower().split())]
        rest = rest[head.end():]
    lowered = rest.lower()
    if lowered in g.vague_words:
        return g.vague_words[lowered], None, "vague"
    if lowered.endswith("dozen"):
        count = g.dozens.get(lowered[:-6].strip())
        if count is None:
            words = _word_number(g, lowered[:-6])
            count = float(words) if words is not None else None
        if count is None:
            return None
        if lowered.startswith("several"):
            return 24, None, "vague"
        number = int(count * 12)
        qualifier = "about" if qualifier == "exact" else qualifier
    else:
        span = g.range.match(rest)
        if span is not None:
            low = _number(g, span.group("a") or span.group("c"))
            high = _number(g, span.group("b") or span.group("d"))
            if low is None or high is None or low >= high:
                return None
            return low, high, "between"
        parsed = _number(g, rest)
        if parsed is None:
            return None
        number = parsed
    if qualifier in {"at least", "more than"}:
        return number, None, qualifier
    if qualifier == "up to":
        return None, number, qualifier
    return number, number, qualifier


def _quantities(g: FigureGrammar, text: str, blocked: list[tuple[int, int]]
                ) -> list[_Quantity]:
    found: list[_Quantity] = []
    for match in g.quantity.finditer(text):
        start, end = match.span()
        if any(a <= start < b for a, b in blocked):
            continue  # the "one" of "no one"
        phrase = match.group()
        ranged = g.to_number.match(phrase)
        if ranged and g.from_before.search(text[max(0, start - 8):start]):
            # "rose from 27 to 50": two figures in a row, not a range; the toll rule takes 50.
            start = end - len(ranged.group(2))
            phrase = text[start:end]
        if g.not_a_count_before.search(text, max(0, start - 16), start):
            continue
        if g.not_a_count_after.match(text, end):
            continue
        parsed = _parse_quantity(g, phrase)
        if parsed is None or max(parsed[0] or 0, parsed[1] or 0) > _LARGEST_COUNT:
            continue
        found.append(_Quantity(start, end, *parsed))
    for match in g.singular.finditer(text):
        if not any(q.start <= match.start() < q.end for q in found):
            found.append(_Quantity(match.start(), match.start() + len(match.group().rstrip()),
                                   1, 1, "exact"))
    return sorted(found)


# -- classification --------------------------------------------------------------------------


def _measures(phrase: str) -> tuple[Measure, ...]:
    """The measure(s) a casualty word names."""
    words = " ".join(phrase.lower().split())
    if " or " in words:
        return ("casualties",)
    if " and " in words and not words.startswith("shot"):
        return ("killed", "injured")
    if words.endswith(("refuge", "shelter")):
        return ("affected",)
    if "lives" in words or words.startswith((
            "kill", "dead", "die", "death", "fatal", "perish", "slain", "murder", "execut", "shot",
            "bod", "corps", "toll", "the killing", "the death", "the murder", "the execution")):
        return ("killed",)
    if words.startswith(("injur", "wound", "hurt", "hospital", "taken to", "in hospital",
                         "received", "sustained", "suffered")):
        return ("injured",)
    if words.startswith(("missing", "unaccounted")):
        return ("missing",)
    if words.startswith(("casualt", "victim", "harmed")):
        return ("casualties",)
    return ("affected",)


def _toll_measures(g: FigureGrammar, head: str) -> tuple[Measure, ...]:
    words = head.lower()
    for key, measure in g.toll_heads.items():
        if key in words:
            return (measure,)
    return ("killed",)


def _population(g: FigureGrammar, phrase: str | None) -> Population | None:
    if not phrase:
        return None
    nouns = list(g.noun.finditer(phrase))
    population = (g.population_nouns[" ".join(nouns[-1].group().lower().split())]
                  if nouns else None)
    age = g.age.search(phrase)
    if age is not None:
        number = _number(g, age.group("n"))
        child = age.group("u").lower() != "year" or (number is not None and number < 18)
        if child and population in {None, "people", "civilians"}:
            return "children"
        return population or "people"
    return population


class FigureTrace(NamedTuple):
    """One decision of the figure-cue table on a number: taken as a figure, or not, and by
    which rule."""

    start: int
    end: int
    quantity: str
    decision: Decision


class _Draft(NamedTuple):
    start: int
    end: int
    measures: tuple[Measure, ...]
    quantity: _Quantity
    population: Population | None
    subgroup: bool
    rule: str
    cue_rule: str = ""


def _classify(g: FigureGrammar, text: str, q: _Quantity, drafts: list[_Draft],
              cues: RuleTable[FigureContext], trace: list[FigureTrace] | None,
              base: int) -> _Draft | None:
    """The figure a quantity is, or None when no casualty word governs it: the figure-cue
    table names the cue, :data:`_BUILDERS` makes the figure of it."""
    c = FigureContext(
        text, q.start, q.end, article=q.low == 1 and text[q.start:q.end].lower() in {"a", "an"},
        vague=q.qualifier == "vague", whole_known=bool(_inherited(drafts)),
        previous_end=drafts[-1].end if drafts else None, cues=g)
    decision = cues.decide(c)
    if trace is not None:
        trace.append(FigureTrace(base + q.start, base + q.end, text[q.start:q.end], decision))
    if decision.outcome == NOT_A_FIGURE:
        return None
    return _BUILDERS[decision.outcome](g, c, q, drafts)._replace(cue_rule=decision.rule)


def _people_after(g: FigureGrammar, c: FigureContext) -> tuple[int, Population | None]:
    """Where the people after the number end, and who they are."""
    after = c.population_after
    return (after.end(), _population(g, after.group())) if after else (c.end, None)


def _part_measures(match: re.Match[str], drafts: list[_Draft]) -> tuple[Measure, ...]:
    named = match.group("m") or match.group("m2")
    return _measures(named) if named else _inherited(drafts)


def _part_before(g: FigureGrammar, c: FigureContext, q: _Quantity,
                 drafts: list[_Draft]) -> _Draft:
    cue = _found(c.part_cue_before)
    end, population = _people_after(g, c)
    return _Draft(cue.start(), end, _part_measures(cue, drafts), q, population, True,
                  "subgroup")


def _part_of_them(g: FigureGrammar, c: FigureContext, q: _Quantity,
                  drafts: list[_Draft]) -> _Draft:
    cue = _found(c.of_them)
    return _Draft(q.start, cue.end(), _part_measures(cue, drafts), q,
                  _population(g, cue.group("pop")), True, "subgroup")


def _part_of_those(g: FigureGrammar, c: FigureContext, q: _Quantity,
                   _drafts: list[_Draft]) -> _Draft:
    cue, were = _found(c.of_those_before), _found(c.were_population)
    return _Draft(cue.start(), were.end(), _measures(cue.group("m")), q,
                  _population(g, were.group("pop")), True, "subgroup")


def _part_among(g: FigureGrammar, c: FigureContext, q: _Quantity,
                _drafts: list[_Draft]) -> _Draft:
    cue = _found(c.among)
    return _Draft(q.start, cue.end(), _measures(cue.group("m")), q,
                  _population(g, cue.group("pop")), True, "subgroup")


def _toll(g: FigureGrammar, c: FigureContext, q: _Quantity, _drafts: list[_Draft]) -> _Draft:
    cue = _found(c.toll)
    end, population = _people_after(g, c)
    return _Draft(cue.start(), end, _toll_measures(g, cue.group("m")), q, population, False,
                  "toll")


def _bodies_of(g: FigureGrammar, c: FigureContext, q: _Quantity,
               _drafts: list[_Draft]) -> _Draft:
    end, population = _people_after(g, c)
    return _Draft(_found(c.bodies_before).start(), end, ("killed",), q, population, False,
                  "bodies")


def _of_the_dead(_g: FigureGrammar, c: FigureContext, q: _Quantity,
                 _drafts: list[_Draft]) -> _Draft:
    cue = _found(c.of_the_dead)
    named = cue.group("m") + (f" and {cue.group('m2')}" if cue.group("m2") else "")
    return _Draft(q.start, cue.end(), _measures(named), q, None, False, "of-the-dead")


def _bodies(_g: FigureGrammar, c: FigureContext, q: _Quantity, _drafts: list[_Draft]
            ) -> _Draft:
    return _Draft(q.start, _found(c.bodies_after).end(), ("killed",), q, None, False, "bodies")


def _verb_before(g: FigureGrammar, c: FigureContext, q: _Quantity,
                 _drafts: list[_Draft]) -> _Draft:
    cue = _found(c.verb_before)
    end, population = _people_after(g, c)
    return _Draft(cue.start(), end, _measures(cue.group("m")), q, population, False,
                  "verb-before")


def _predicate_after(g: FigureGrammar, c: FigureContext, q: _Quantity,
                     _drafts: list[_Draft]) -> _Draft:
    cue = _found(c.predicate_after)
    return _Draft(q.start, cue.end(), _measures(cue.group("m")), q,
                  _population(g, cue.group("pop")), False, "predicate-after")


def _coordinated(g: FigureGrammar, c: FigureContext, q: _Quantity,
                 drafts: list[_Draft]) -> _Draft:
    previous = drafts[-1]
    end, population = _people_after(g, c)
    return _Draft(q.start, end, previous.measures, q, population, previous.subgroup,
                  "coordinated")


def _combatants(_g: FigureGrammar, c: FigureContext, q: _Quantity, _drafts: list[_Draft]
                ) -> _Draft:
    """"destroyed up to 200 militants", "30 soldiers were eliminated": combatants a
    belligerent says it killed (population military: a claim, never an attack's toll)."""
    before, after = c.combatant_verb_before, c.combatants_eliminated_after
    start = before.start() if before is not None and after is None else q.start
    end = (after or _found(c.combatants_after)).end()
    return _Draft(start, end, ("killed",), q, "military", False, "combatants")


def _found(match: re.Match[str] | None) -> re.Match[str]:
    if match is None:  # pragma: no cover - a table rule names a cue it has not checked
        raise LexiconError("vocab/rules/figure_cues.toml: a rule gives a cue without the "
                           "predicate that finds it")
    return match


_Builder = Callable[[FigureGrammar, FigureContext, _Quantity, list[_Draft]], _Draft]
#: How each outcome of the figure-cue table makes its figure (the figure's ``rule``, as
#: claims record it, is the builder's: "subgroup", "toll", "bodies", ...).
_BUILDERS: Final[dict[str, _Builder]] = {
    "part-before": _part_before, "part-of-them": _part_of_them,
    "part-of-those": _part_of_those, "part-among": _part_among, "toll": _toll,
    "bodies-of": _bodies_of, "of-the-dead": _of_the_dead, "bodies": _bodies,
    "verb-before": _verb_before, "predicate-after": _predicate_after,
    "coordinated": _coordinated, "combatants": _combatants,
}


def _inherited(drafts: list[_Draft]) -> tuple[Measure, ...]:
    for draft in reversed(drafts):
        if not draft.subgroup:
            return draft.measures
    return ()


def _none_figures(g: FigureGrammar, text: str) -> tuple[list[_Draft], list[tuple[int, int]]]:
    drafts, spans = [], []
    for match in g.nobody.finditer(text):
        spans.append(match.span())
        if match.group("n"):
            noun = match.group("n").lower()
            measures: tuple[Measure, ...] = (
                ("injured",) if noun == "injuries"
                else ("killed",) if noun in {"deaths", "fatalities", "dead"} or "life" in noun
                else ("killed", "injured"))
            population: Population | None = (
                "civilians" if (match.group("pop") or "").lower().startswith("civilian")
                else None)
        else:
            named = [match.group("m").lower(), (match.group("m2") or "").lower()]
            if "harmed" in named or ({"killed", "died", "dead"} & set(named)
                                     and {"injured", "hurt", "wounded"} & set(named)):
                measures = ("killed", "injured")
            elif {"killed", "died", "dead"} & set(named):
                measures = ("killed",)
            else:
                measures = ("injured",)
            population = None
        quantity = _Quantity(match.start(), match.end(), 0, 0, "none")
        drafts.append(_Draft(match.start(), match.end(), measures, quantity, population, False,
                             "none"))
    return drafts, spans


# -- entry point -----------------------------------------------------------------------------


def find_figures(text: str, lexicon: Lexicon, *, base: int = 0,
                 cues: RuleTable[FigureContext] | None = None,
                 trace: list[FigureTrace] | None = None) -> list[CasualtyFigure]:
    """Casualty figures stated in one sentence, read with ``lexicon`` (and the figure-cue
    table beside it, or ``cues``); spans are offsets into ``text`` plus ``base``. Every
    decision of the table on a number, on those taken and those left ("not-a-figure"), is
    added to ``trace`` when one is given."""
    g = figure_grammar(lexicon)
    table = cues if cues is not None else g.cues
    original = text
    text = g.ages.sub(lambda m: " " * len(m.group()), text)  # offsets stay the same
    none_drafts, blocked = _none_figures(g, text)
    drafts: list[_Draft] = []
    for quantity in _quantities(g, text, blocked):
        draft = _classify(g, text, quantity, drafts, table, trace, base)
        if draft is not None:
            drafts.append(draft)
    drafts = sorted([*drafts, *none_drafts], key=lambda d: (d.start, d.quantity.start))

    # A part of a figure takes its cues from that figure; one with none before it ("Five
    # children were among the dead.") stands for itself.
    heads: list[_Draft] = []
    parents: list[_Draft] = []
    for draft in drafts:
        if not draft.subgroup or not heads:
            heads.append(draft)
        parents.append(heads[-1])
    flags = _context_flags(g, text, heads)
    figures: list[CasualtyFigure] = []
    covered = 0  # where the people joined to the figure before end
    for draft, parent in zip(drafts, parents, strict=True):
        if draft.rule == "coordinated" and draft.quantity.start < covered:
            continue  # "killing a man and a woman": the woman is counted with the man
        cumulative, earlier = flags[id(parent)]
        start, low, high, end = _counted_people(g, text, draft)
        covered = max(covered, end)
        q = draft.quantity
        for measure in draft.measures:
            figures.append(CasualtyFigure(
                start=base + start, end=base + end,
                text=original[start:end], measure=measure, low=low, high=high,
                qualifier=q.qualifier, population=draft.population, subgroup=draft.subgroup,
                cumulative=bool(cumulative), rule="reported-earlier" if earlier else draft.rule,
                cue_rule=draft.cue_rule, flag_rule=cumulative or earlier,
            ))
    return figures


def _counted_people(g: FigureGrammar, text: str, draft: _Draft
                    ) -> tuple[int, int | None, int | None, int]:
    """The span and bounds of a figure with the people counted by name joined to it: "an
    elderly couple" is two, "killing the driver and a paramedic" two, "a woman and her two
    children were killed" three (the joined person before the number is one more)."""
    q = draft.quantity
    start, low, high, end = draft.start, q.low, q.high, draft.end
    if (low, high) == (1, 1):
        counted = g.counted_after.match(text, q.end)
        if counted is not None:
            low = high = g.counted_nouns[counted.group("noun").lower()]
        # not after a predicate: "a man was killed and his wife" names her in another clause
        pair = None if draft.rule == "predicate-after" else g.and_another.match(text, draft.end)
        if pair is not None and counted is None:
            # "killing a 31-year-old woman and her two-year-old daughter": two people
            low = high = 1 + _joined_count(g, pair)
            end = pair.end()
    if draft.rule == "predicate-after" and not draft.subgroup and low is not None:
        lead = g.person_before.search(text, max(0, draft.start - 80), draft.start)
        if lead is not None:
            # "a man and [a woman were wounded]": the man is one more
            start, low, high = lead.start(), low + 1, None if high is None else high + 1
    return start, low, high, end


def _joined_count(g: FigureGrammar, pair: re.Match[str]) -> int:
    """How many people "and her two children" or "and a paramedic" joins (one unless a
    number is given)."""
    return (_number(g, pair.group("n")) or 1) if pair.group("n") else 1


def _context_flags(g: FigureGrammar, text: str, leading: list[_Draft]
                   ) -> dict[int, tuple[str, str]]:
    """For each figure that is not a part of another: the rule that makes it cumulative and
    the rule that gives it as an earlier report's ("" for neither). A figure's cues are those
    in its own stretch of the sentence ("cumulative-cue", "earlier-report-cue"); figures
    joined by "and" share them ("9,177 deaths and 16,384 injuries since February 2022":
    "joined-to-a-total", "joined-to-an-earlier-report")."""
    flags: list[tuple[str, str]] = []
    for draft in leading:
        window_start, window_end = _window(draft, leading, len(text))
        # Only a cue close to the figure says the figure is an earlier report's: "contradicting
        # earlier accounts" at the far end of the sentence may be about something else.
        near = text[max(window_start, draft.start - _EARLIER_REACH):
                    min(window_end, draft.end + _EARLIER_REACH)]
        flags.append(("cumulative-cue" if g.cumulative.search(text, window_start, window_end)
                      else "", "earlier-report-cue" if g.earlier.search(near) else ""))
    for _ in range(2):  # forwards, then backwards, along chains of joined figures
        for index in range(1, len(leading)):
            previous, current = leading[index - 1], leading[index]
            if g.coordination.match(text[previous.end:current.start]):
                flags[index - 1], flags[index] = _joined(flags[index - 1], flags[index])
    return {id(draft): flag for draft, flag in zip(leading, flags, strict=True)}


def _joined(first: tuple[str, str], second: tuple[str, str]
            ) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two joined figures share their flags; a flag one has only through the other names
    the joining."""
    def share(mine: str, theirs: str, joining: str) -> str:
        return mine or (joining if theirs else "")

    return ((share(first[0], second[0], "joined-to-a-total"),
             share(first[1], second[1], "joined-to-an-earlier-report")),
            (share(second[0], first[0], "joined-to-a-total"),
             share(second[1], first[1], "joined-to-an-earlier-report")))


def _window(draft: _Draft, leading: list[_Draft], length: int) -> tuple[int, int]:
    """The stretch of the sentence that belongs to a figure: from the end of the figure before
    it to the start of the one after it, so cues near another figure stay with that one."""
    start, end = 0, length
    for other in leading:
        if other is draft:
            continue
        if other.end <= draft.start:
            start = max(start, other.end)
        elif other.start >= draft.end:
            end = min(end, other.start)
    return start, end


def find_single_victims(text: str, lexicon: Lexicon, *, base: int = 0
                        ) -> list[CasualtyFigure]:
    """One named or pronoun victim: "he was shot and killed", "a woman was wounded", "a dead
    body", "bodies of civilians (3)" as monitors caption them.

    Counted figures miss these, yet a single killing is an incident in its own right.
    """
    g = figure_grammar(lexicon)
    out = []
    for match in g.killing_one.finditer(text):
        how = match.group("how").lower()
        who = match.group("who").lower()
        count, end = g.counted_nouns.get(who, 1), match.end()
        pair = g.and_another.match(text, end) if count == 1 else None
        if pair is not None:
            # "killing the driver and a paramedic": two people
            count, end = 1 + _joined_count(g, pair), pair.end()
        out.append(CasualtyFigure(
            start=base + match.start(), end=base + end, text=text[match.start():end],
            measure="killed" if how.startswith("kill") else "injured", low=count, high=count,
            qualifier="exact",
            population="children" if who in {"child", "boy", "girl"} else "people",
            subgroup=False, cumulative=False, rule="single-victim"))
    for match in g.one_body.finditer(text):
        n = int(match.group("n")) if match.group("n") else 1
        out.append(CasualtyFigure(
            start=base + match.start(), end=base + match.end(), text=match.group(0),
            measure="killed", low=n, high=n, qualifier="exact", population="people",
            subgroup=False, cumulative=False, rule="bodies"))
    for match in g.joined_pair.finditer(text):
        how = match.group("how").lower()
        out.append(CasualtyFigure(
            start=base + match.start(), end=base + match.end(), text=match.group(0),
            measure="killed" if how == "killed" else "injured", low=2, high=2,
            qualifier="exact", population="people", subgroup=False, cumulative=False,
            rule="single-victim"))
    paired = [(f.start - base, f.end - base) for f in out if f.low == 2]
    for match in g.single_victim.finditer(text):
        if any(a <= match.start() < b for a, b in paired):
            continue
        how = match.group("how").lower()
        measure: Measure = "injured" if how in {"wounded", "injured", "hurt"} else "killed"
        who = match.group("who").lower()
        population: Population = "children" if who in {"a child", "a boy", "a girl"} \
            else "people"
        out.append(CasualtyFigure(
            start=base + match.start(), end=base + match.end(), text=match.group(0),
            measure=measure, low=1, high=1, qualifier="exact", population=population,
            subgroup=False, cumulative=False, rule="single-victim"))
    return out


def find_fatality_fields(text: str, lexicon: Lexicon, *, base: int = 0
                         ) -> list[CasualtyFigure]:
    """Monitoring records state tolls as fields or shorthand: "Fatalities: 3", "Killed: 2",
    "2 civ KIA, 3 WIA"."""
    out = []
    for pattern, measure in figure_grammar(lexicon).fields:
        for match in pattern.finditer(text):
            n = int(match.group("n").replace(",", ""))
            civilian = "civ" in match.groupdict() and match.group("civ")
            out.append(CasualtyFigure(
                start=base + match.start(), end=base + match.end(), text=match.group(0),
                measure=measure, low=n, high=n, qualifier="exact",
                population="civilians" if civilian else None, subgroup=False,
                cumulative=False, rule="record-field"))
    return out
