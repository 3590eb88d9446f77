"""Casualty figures in a sentence: how many were killed, injured, missing or affected, as stated.

Extraction stage. The incident extractor calls :func:`find_figures` on each sentence of a
document's text, with ``base`` set to the sentence's offset in the document, so every returned
span is an offset into the document text. Figures are kept as the text states them (PRIMER
section 4: tolls are ranges with their sources and dates, and they rise over days): "at least
50" is a lower bound, "about 300" an estimate, "dozens" a vague lower bound. Choosing between
figures of several reports, or several sentences, is the caller's work.

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
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Final, Literal, NamedTuple

Measure = Literal["killed", "injured", "missing", "affected", "casualties"]
Qualifier = Literal["exact", "at least", "more than", "about", "up to", "between", "vague",
                    "none"]
Population = Literal["civilians", "children", "military", "prisoners of war", "people"]


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


# -- vocabulary ------------------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_UNITS: Final[dict[str, int]] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9,
}
_TEENS: Final[dict[str, int]] = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS: Final[dict[str, int]] = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
_MULTIPLIERS: Final[dict[str, int]] = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
# Lower bounds for quantities that state none; "a dozen" and its kin are estimates instead.
_VAGUE: Final[dict[str, int]] = {
    "tens of thousands": 20_000, "hundreds of thousands": 200_000, "dozens": 24,
    "scores": 40, "hundreds": 200, "thousands": 2_000, "millions": 2_000_000,
    "several dozen": 24, "a handful": 2, "several": 3, "a few": 2,
}
_QUALIFIERS: Final[dict[str, Qualifier]] = {
    "at least another": "at least", "at least": "at least", "no fewer than": "at least",
    "no less than": "at least", "not less than": "at least", "a minimum of": "at least",
    "more than": "more than", "over": "more than", "upwards of": "more than",
    "in excess of": "more than", "greater than": "more than",
    "about": "about", "around": "about", "approximately": "about", "approx.": "about",
    "roughly": "about", "some": "about", "nearly": "about", "almost": "about",
    "close to": "about", "an estimated": "about", "estimated": "about",
    "up to": "up to", "as many as": "up to", "at most": "up to", "no more than": "up to",
    "fewer than": "up to", "less than": "up to", "under": "up to", "a maximum of": "up to",
    "a total of": "exact", "another": "exact", "a further": "exact", "only": "exact",
    "just": "exact",
}
_POPULATION_NOUNS: Final[dict[str, Population]] = {
    **dict.fromkeys(_words(
        "civilians civilian residents resident inhabitants inhabitant locals local villagers "
        "villager passengers passenger pedestrians pedestrian shoppers shopper patients patient "
        "worshippers worshipper commuters commuter customers customer non-combatants "
        "noncombatants journalists journalist citizens citizen townspeople passers-by"),
        "civilians"),
    **dict.fromkeys(_words(
        "children child kids kid minors minor boys boy girls girl babies baby infants infant "
        "toddlers toddler teenagers teenager teens schoolchildren schoolboys schoolboy "
        "schoolgirls schoolgirl newborns newborn pupils pupil"), "children"),
    **dict.fromkeys(_words(
        "soldiers soldier servicemen serviceman servicemembers servicewomen troops fighters "
        "fighter combatants combatant marines marine paratroopers paratrooper conscripts "
        "conscript mercenaries mercenary guardsmen sailors sailor personnel"),
        "military"),
    **dict.fromkeys(["prisoners of war", "prisoner of war", "pows", "pow"], "prisoners of war"),
    **dict.fromkeys(_words(
        "people persons person individuals others adults adult women woman men man elderly "
        "pensioners pensioner workers worker employees employee staff volunteers volunteer "
        "rescuers rescuer firefighters firefighter medics medic doctors doctor nurses nurse "
        "policemen policeman officers officer prisoners prisoner detainees detainee inmates "
        "students student teachers teacher relatives members family neighbours neighbour neighbors "
        "neighbor evacuees evacuee refugees refugee crew guards guard miners miner farmers "
        "farmer"), "people"),
}
_SINGULAR_PERSONS: Final = _words(
    "child kid minor boy girl baby infant toddler teenager schoolboy schoolgirl newborn pupil "
    "civilian resident inhabitant local villager passenger pedestrian shopper patient "
    "journalist soldier serviceman servicewoman fighter marine conscript sailor person adult "
    "woman man pensioner worker employee volunteer rescuer firefighter medic doctor nurse "
    "neighbour neighbor evacuee refugee guard miner farmer "
    "policeman officer prisoner detainee student teacher"
)
_AUX_WORDS: Final = _words(
    "have has had are is were was will would may might could must be been being to all also "
    "reportedly allegedly now already still later probably likely possibly confirmed "
    "officially feared believed thought said reported known presumed understood estimated "
    "found declared pronounced left remain remained remains so far since then subsequently "
    "seriously critically badly severely lightly slightly fatally mortally either both "
    "instantly immediately initially themselves"
)

# -- regular expression pieces ---------------------------------------------------------------


def _alternatives(words: Iterable[str]) -> str:
    """A regex alternation of phrases, longest first, any whitespace between words."""
    items = sorted(set(words), key=len, reverse=True)
    return "|".join(re.escape(item).replace(r"\ ", r"\s+") for item in items)


_HYPHEN: Final = r"[\-‐‑]"
_BELOW_100: Final = (
    rf"(?:(?:{_alternatives(_TENS)})(?:(?:\s+|{_HYPHEN})(?:{_alternatives(_UNITS)}))?"
    rf"|{_alternatives(_TEENS)}|{_alternatives(_UNITS)})"
)
_BELOW_1000: Final = (
    rf"(?:(?:a|one|{_alternatives(_UNITS)})\s+hundred(?:\s+(?:and\s+)?{_BELOW_100})?"
    rf"|{_BELOW_100})"
)
_WORD_NUMBER: Final = (
    rf"(?:{_BELOW_1000}(?:\s+(?:thousand|million)(?:\s+(?:and\s+)?{_BELOW_1000})?)?"
    rf"|a\s+(?:thousand|million))\b(?!{_HYPHEN}[^\W\d_])"
)
_DIGITS: Final = (
    r"(?<![\w.,:/$€£])(?:\d{1,3}(?:(?:,|[\u00a0\u202f\u2009]|\s(?=\d{3}(?!\d)))\d{3})+|\d+)"
    r"(?:\.\d+(?=\s+(?:thousand|million)))?(?:\s+(?:thousand|million))?"
    rf"(?!\w|[.,:/]\d|{_HYPHEN}[^\W\d_])"
)
_NUMBER: Final = rf"(?:{_DIGITS}|{_WORD_NUMBER})"
_DOZEN: Final = rf"(?:(?:a|half\s+a|several|{_alternatives(_UNITS)})\s+dozen)\b"
_VAGUE_WORDS: Final = rf"(?:{_alternatives(_VAGUE)})\b"
_QUALIFIER: Final = rf"(?:{_alternatives(_QUALIFIERS)})"
_QUANTITY: Final = (
    rf"(?<![\w\-‐‑])(?:{_QUALIFIER}\s+)?(?:between\s+{_NUMBER}\s+and\s+{_NUMBER}"
    rf"|{_DOZEN}|{_NUMBER}(?:\s*[\-–—]\s*{_NUMBER}|\s+(?:to|or)\s+{_NUMBER})?|{_VAGUE_WORDS})"
)
_AGE: Final = (
    rf"(?:\d{{1,3}}|{_BELOW_100})(?:\s+|{_HYPHEN})(?:year|month|week)s?(?:\s+|{_HYPHEN})olds?"
)
_NOUN: Final = rf"(?:{_alternatives(_POPULATION_NOUNS)})\b"
_MEASURE_WORDS: Final = (
    r"killed|dead|died|wounded|injured|hurt|missing|trapped|displaced|casualties|victims|"
    r"deaths|bodies"
)
_MODIFIER: Final = (
    rf"(?!(?:{'|'.join(_AUX_WORDS)}|and|or|of|in|on|at|who|which|that|{_MEASURE_WORDS})\b)"
    r"[^\W_][\w'’\-‐‑]*"
)
_POPULATION: Final = rf"(?:{_MODIFIER}\s+){{0,3}}(?:{_NOUN}|{_AGE})"
_SINGULAR: Final = rf"(?:{_MODIFIER}\s+){{0,3}}(?:(?:{'|'.join(_SINGULAR_PERSONS)})\b|{_AGE})"

_MEASURE_AFTER: Final = (
    r"(?:killed|dead)\s+or\s+(?:injured|wounded|hurt)|(?:injured|wounded)\s+or\s+killed"
    r"|(?:killed|dead)\s+and\s+(?:injured|wounded)|(?:injured|wounded)\s+and\s+(?:killed|dead)"
    r"|shot\s+(?:dead|and\s+killed)|killed|dead|died|perished|slain|murdered|executed"
    r"|lost\s+their\s+lives|deaths|fatalities|injured|wounded|hurt|hospitali[sz]ed"
    r"|taken\s+to\s+(?:a\s+|the\s+)?hospitals?|in\s+hospital"
    r"|(?:received|sustained|suffered)\s+(?:\w+\s+)?(?:injuries|wounds)|injuries"
    r"|missing|unaccounted\s+for|trapped|displaced|sheltering|sheltered|hiding"
    r"|(?:sought|seeking|taken|took|taking)\s+(?:refuge|shelter)|evacuated|rescued"
    r"|(?:left\s+)?homeless|casualties|victims"
)
_ASIDE: Final = r"(?:\s*,[^,.;:]{1,80},|\s*[–—][^.;:–—]{1,80}[–—])"

_QUANTITY_RE: Final = re.compile(_QUANTITY, re.I)
_AFTER_RE: Final = re.compile(
    rf"(?P<pop>\s+(?:of\s+(?:the\s+)?)?{_POPULATION})?(?P<aside>{_ASIDE})?"
    rf"(?:\s+(?:who|that|which))?(?:\s+(?:{'|'.join(_AUX_WORDS)})){{0,6}}\s+"
    rf"(?P<m>{_MEASURE_AFTER})\b",
    re.I,
)
_POPULATION_AFTER_RE: Final = re.compile(rf"\s+(?:of\s+(?:the\s+)?)?{_POPULATION}\b", re.I)
_SINGULAR_RE: Final = re.compile(rf"(?<![\w\-])an?\s+(?={_SINGULAR})", re.I)
_BEFORE_RE: Final = re.compile(
    r"\b(?P<m>shot\s+(?:and\s+killed|dead)|kill(?:ing|ed|s)?|wound(?:ing|ed|s)?"
    r"|injur(?:ing|ed|es|e)|hurting|(?:claim|took|take|taking|claiming)(?:ed|s)?\s+the\s+lives"
    r"\s+of|(?:the\s+)?(?:killing|deaths?|murders?|executions?)\s+of|murder(?:ed|ing)"
    r"|execut(?:ed|ing)|hospitali[sz](?:ed|ing)|displac(?:ed|ing)|trapp(?:ed|ing)"
    r"|evacuat(?:ed|ing)|rescu(?:ed|ing))\s+$",
    re.I,
)
#: "June 27" or "27 June" inside a phrase ("killed in the June 27 strike has risen to 13").
_MONTH_DAY: Final = (
    r"(?:(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December)\s+\d{1,2}(?:st|nd|rd|th)?|\d{1,2}(?:st|nd|rd|th)?\s+(?:January|February|"
    r"March|April|May|June|July|August|September|October|November|December))")
_TOLL_RE: Final = re.compile(
    rf"\b(?P<m>(?:death|casualty|civilian)\s+tolls?|tolls?|(?:total\s+)?(?:number|count)\s+of"
    rf"\s+(?:the\s+)?(?:people\s+)?(?:dead|deaths|killed|fatalities|victims|injured|wounded|"
    rf"casualties|missing|bodies|those\s+killed)|(?:number|count)\s+(?:of\s+)?(?:people\s+)?"
    rf"killed)(?:\s+of|(?:\s+(?!(?:and|but|while|although)\b)[^\s\d.;:!?]+|"
    rf"\s+{_MONTH_DAY}){{0,16}}?"
    rf"(?:\s+from\s+{_QUANTITY})?\s+(?:to|at|reached|hit|passed|exceeded|topped|surpassed"
    rf"|is|was|stood\s+at|stands\s+at|now))\s+$",
    re.I,
)
_OF_THE_DEAD_RE: Final = re.compile(
    r"\s+of\s+(?:the\s+)?(?P<m>dead|killed|wounded|injured|casualties|victims|deaths|"
    r"fatalities|missing)(?:\s+(?:and|or)\s+(?:the\s+)?(?P<m2>dead|killed|wounded|injured|"
    r"missing))?\b",
    re.I,
)
_BODIES_AFTER_RE: Final = re.compile(
    r"\s+(?:(?:more|other|dead|unidentified|charred|mutilated)\s+)*(?:bodies|corpses)\b", re.I
)
_BODIES_BEFORE_RE: Final = re.compile(r"\b(?:bodies|corpses|remains)\s+of\s+$", re.I)
_SUBGROUP_BEFORE_RE: Final = re.compile(
    r"\b(?:including|among\s+(?:them|whom)|among\s+(?:the\s+)?(?P<m>dead|killed|victims|injured"
    r"|wounded|casualties|missing)|among\s+those\s+(?P<m2>killed|injured|wounded|hurt|"
    r"hospitali[sz]ed|missing))(?:\s+(?:were|was|are|is))?\s+$",
    re.I,
)
_OF_THEM_RE: Final = re.compile(
    rf"\s+of\s+(?:them|whom|those|the\s+(?P<m>dead|victims|killed|injured|wounded|casualties))"
    rf"(?:\s+(?:(?:were|are|was|being|are\s+believed\s+to\s+be)\s+)?(?P<pop>{_POPULATION})\b"
    rf"|(?:\s+(?:{'|'.join(_AUX_WORDS)})){{0,4}}\s+(?P<m2>{_MEASURE_AFTER})\b)",
    re.I,
)
_OF_THOSE_BEFORE_RE: Final = re.compile(
    r"\bof\s+(?:those|the)\s+(?P<m>killed|dead|injured|wounded|hurt|victims|missing)\s*,?\s+$",
    re.I,
)
_WERE_POPULATION_RE: Final = re.compile(rf"\s+(?:were|was|are|is)\s+(?P<pop>{_POPULATION})\b",
                                        re.I)
_AMONG_RE: Final = re.compile(
    rf"(?P<pop>\s+{_POPULATION})\s+(?:were|was|are|is)\s+(?:also\s+|reportedly\s+|believed\s+"
    rf"to\s+be\s+)?among\s+(?:the\s+)?(?:those\s+)?(?P<m>dead|killed|victims|injured|wounded|"
    rf"casualties|missing|hurt|hospitali[sz]ed)\b",
    re.I,
)
_NONE_RE: Final = re.compile(
    rf"\b(?:no[\s\-]one|nobody|none)(?:\s+(?:{'|'.join(_AUX_WORDS)}))*\s+(?P<m>killed|injured|"
    rf"hurt|wounded|died|dead|harmed)(?:\s+(?:or|and|nor)\s+(?P<m2>killed|injured|hurt|"
    rf"wounded|harmed))?\b"
    rf"|(?<!not\s)\b(?:no|zero|without)\s+(?P<pop>(?:immediate|civilian|human|reported|known|"
    rf"further|other|serious|major)\s+)?(?P<n>casualties|victims|deaths|fatalities|injuries|"
    rf"dead|loss\s+of\s+life)\b",
    re.I,
)
#: "aged 64 and 71": ages, blanked out before counting ("two women aged 64 and 71 were
#: injured" is two injured, not 71).
_AGES_RE: Final = re.compile(r"\baged\s+\d{1,3}(?:\s*(?:,|and|or|to|-)\s*\d{1,3})*\b", re.I)
_NOT_A_COUNT_BEFORE_RE: Final = re.compile(
    r"(?:\b(?:article|part|paragraph|section|clause|chapter|no|number|resolution|page|point|"
    r"item|brigade|battalion|regiment|division|route|highway|road|building|house|apartment|"
    r"flat|school|hospital|unit|block|bus|train|flight|platform|gate|st|street|avenue|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?|[#№$€£]|\bNo\.)\s*$",
    re.I,
)
_NOT_A_COUNT_AFTER_RE: Final = re.compile(
    r"\s*(?:%|per\s*cent|percent|km|kilomet|metres?\b|meters?\b|miles?\b|m\b|kg|tons?\b|"
    r"tonnes?\b|hours?\b|minutes?\b|seconds?\b|days?\b|weeks?\b|months?\b|years?\b|times\b|"
    r"a\.m\.|p\.m\.|am\b|pm\b|o['’]clock|:\d|storey|story|floor|"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b)",
    re.I,
)
_COORDINATION_RE: Final = re.compile(r"^\s*(?:,\s*)?(?:and|as\s+well\s+as|plus)\s+$", re.I)
_CUMULATIVE_RE: Final = re.compile(
    r"\bsince\s+(?:the\s+(?:start|beginning|outbreak|onset|war|invasion|conflict|full|first)"
    r"|(?:russia|moscow)\b|(?:early|mid|late|last|then)\b|\d|january|february|march|april|may"
    r"|june|july|august|september|october|november|december)"
    r"|\bin\s+(?:total|all)\b|\bso\s+far\s+(?:this|in)\b|\bto\s+date\b|\boverall\b"
    r"|\bthroughout\s+the\s+(?:war|conflict|invasion)\b|\bcumulative",
    re.I,
)
_EARLIER_RE: Final = re.compile(
    r"\b(?:initial|earlier|previous|first|early|original)\s+(?:reports?|figures?|estimates?|"
    r"tolls?|counts?|accounts?|information|data)\b|\binitially\b|\bpreviously\b"
    r"|\bhad\s+earlier\b|\bearlier\s+(?:said|reported|put|gave|stated)\b",
    re.I,
)
_EARLIER_REACH: Final = 60
# No count of people reaches a billion; a longer number is a code, a sum of money or noise.
_LARGEST_COUNT: Final = 10**9
_AGE_RE: Final = re.compile(rf"(?P<n>\d{{1,3}}|{_BELOW_100})(?:\s+|{_HYPHEN})(?P<u>year|month|"
                            rf"week)s?(?:\s+|{_HYPHEN})olds?", re.I)
_NOUN_RE: Final = re.compile(_NOUN, re.I)


# -- quantities ------------------------------------------------------------------------------


class _Quantity(NamedTuple):
    start: int
    end: int
    low: int | None
    high: int | None
    qualifier: Qualifier


def _word_number(text: str) -> int | None:
    total, current = 0, 0
    for word in re.split(r"[\s\-‐‑]+", text.lower()):
        if word in {"and", ""}:
            continue
        if word == "a":
            current = current or 1
        elif word in _UNITS or word in _TEENS or word in _TENS:
            current += _UNITS.get(word) or _TEENS.get(word) or _TENS[word]
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in _MULTIPLIERS:
            total += (current or 1) * _MULTIPLIERS[word]
            current = 0
        else:
            return None
    return total + current


def _number(text: str) -> int | None:
    text = text.strip()
    if not text[:1].isdigit():
        return _word_number(text)
    match = re.match(r"([\d,\u00a0\u202f\u2009 ]+(?:\.\d+)?)\s*(thousand|million)?$", text, re.I)
    if match is None:
        return None
    # Decimal, not float: "1.5 million" is exact, and no run of digits overflows.
    value = Decimal(re.sub(r"[,\u00a0\u202f\u2009 ]", "", match.group(1)))
    if match.group(2):
        value *= _MULTIPLIERS[match.group(2).lower()]
    return int(value)


_QUALIFIER_HEAD_RE: Final = re.compile(rf"({_QUALIFIER})\s+", re.I)
_RANGE_RE: Final = re.compile(
    rf"(?:between\s+(?P<a>{_NUMBER})\s+and\s+(?P<b>{_NUMBER})"
    rf"|(?P<c>{_NUMBER})(?:\s*[\-–—]\s*|\s+(?:to|or)\s+)(?P<d>{_NUMBER}))$",
    re.I,
)


def _parse_quantity(text: str) -> tuple[int | None, int | None, Qualifier] | None:
    """The bounds and qualifier of a matched quantity phrase."""
    rest = " ".join(text.split())
    qualifier: Qualifier = "exact"
    head = _QUALIFIER_HEAD_RE.match(rest)
    if head is not None:
        qualifier = _QUALIFIERS[" ".join(head.group(1).lower().split())]
        rest = rest[head.end():]
    lowered = rest.lower()
    if lowered in _VAGUE:
        return _VAGUE[lowered], None, "vague"
    if lowered.endswith("dozen"):
        count = {"a": 1, "half a": 0.5, "several": 2}.get(lowered[:-6].strip())
        if count is None:
            count = _word_number(lowered[:-6])
        if count is None:
            return None
        if lowered.startswith("several"):
            return 24, None, "vague"
        number = int(count * 12)
        qualifier = "about" if qualifier == "exact" else qualifier
    else:
        span = _RANGE_RE.match(rest)
        if span is not None:
            low = _number(span.group("a") or span.group("c"))
            high = _number(span.group("b") or span.group("d"))
            if low is None or high is None or low >= high:
                return None
            return low, high, "between"
        parsed = _number(rest)
        if parsed is None:
            return None
        number = parsed
    if qualifier in {"at least", "more than"}:
        return number, None, qualifier
    if qualifier == "up to":
        return None, number, qualifier
    return number, number, qualifier


def _quantities(text: str, blocked: list[tuple[int, int]]) -> list[_Quantity]:
    found: list[_Quantity] = []
    for match in _QUANTITY_RE.finditer(text):
        start, end = match.span()
        if any(a <= start < b for a, b in blocked):
            continue  # the "one" of "no one"
        phrase = match.group()
        ranged = re.match(rf"(.*?)\s+to\s+({_NUMBER})$", phrase, re.I)
        if ranged and re.search(r"\bfrom\s+$", text[max(0, start - 8):start], re.I):
            # "rose from 27 to 50": two figures in a row, not a range; the toll rule takes 50.
            start = end - len(ranged.group(2))
            phrase = text[start:end]
        if _NOT_A_COUNT_BEFORE_RE.search(text, max(0, start - 16), start):
            continue
        if _NOT_A_COUNT_AFTER_RE.match(text, end):
            continue
        parsed = _parse_quantity(phrase)
        if parsed is None or max(parsed[0] or 0, parsed[1] or 0) > _LARGEST_COUNT:
            continue
        found.append(_Quantity(start, end, *parsed))
    for match in _SINGULAR_RE.finditer(text):
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


_TOLL_HEADS: Final[tuple[tuple[str, Measure], ...]] = (
    ("injured", "injured"), ("wounded", "injured"), ("missing", "missing"),
    ("casualt", "casualties"), ("victim", "casualties"),
)


def _toll_measures(head: str) -> tuple[Measure, ...]:
    words = head.lower()
    for key, measure in _TOLL_HEADS:
        if key in words:
            return (measure,)
    return ("killed",)


def _population(phrase: str | None) -> Population | None:
    if not phrase:
        return None
    nouns = list(_NOUN_RE.finditer(phrase))
    population = (_POPULATION_NOUNS[" ".join(nouns[-1].group().lower().split())]
                  if nouns else None)
    age = _AGE_RE.search(phrase)
    if age is not None:
        number = _number(age.group("n"))
        child = age.group("u").lower() != "year" or (number is not None and number < 18)
        if child and population in {None, "people", "civilians"}:
            return "children"
        return population or "people"
    return population


class _Draft(NamedTuple):
    start: int
    end: int
    measures: tuple[Measure, ...]
    quantity: _Quantity
    population: Population | None
    subgroup: bool
    rule: str


def _classify(text: str, q: _Quantity, drafts: list[_Draft]) -> _Draft | None:
    """The figure a quantity is, or None when no casualty word governs it."""
    lo = max(0, q.start - 160)
    pop_after = _POPULATION_AFTER_RE.match(text, q.end)
    pop_end = pop_after.end() if pop_after else q.end
    population = _population(pop_after.group()) if pop_after else None
    article = q.low == 1 and text[q.start:q.end].lower() in {"a", "an"}
    if article and pop_after is None:
        return None

    before = _SUBGROUP_BEFORE_RE.search(text, lo, q.start)
    if before is not None and pop_after is not None:
        named = before.group("m") or before.group("m2")
        measures = _measures(named) if named else _inherited(drafts)
        if measures:
            return _Draft(before.start(), pop_end, measures, q, population, True, "subgroup")
    of_them = _OF_THEM_RE.match(text, q.end)
    if of_them is not None:
        named = of_them.group("m") or of_them.group("m2")
        measures = _measures(named) if named else _inherited(drafts)
        if measures:
            return _Draft(q.start, of_them.end(), measures, q, _population(of_them.group("pop")),
                          True, "subgroup")
    of_those = _OF_THOSE_BEFORE_RE.search(text, lo, q.start)
    were = _WERE_POPULATION_RE.match(text, q.end)
    if of_those is not None and were is not None:
        return _Draft(of_those.start(), were.end(), _measures(of_those.group("m")), q,
                      _population(were.group("pop")), True, "subgroup")
    among = _AMONG_RE.match(text, q.end)
    if among is not None:
        return _Draft(q.start, among.end(), _measures(among.group("m")), q,
                      _population(among.group("pop")), True, "subgroup")

    toll = _TOLL_RE.search(text, lo, q.start)
    if toll is not None and not article:
        return _Draft(toll.start(), pop_end, _toll_measures(toll.group("m")), q, population,
                      False, "toll")
    bodies_of = _BODIES_BEFORE_RE.search(text, lo, q.start)
    if bodies_of is not None:
        return _Draft(bodies_of.start(), pop_end, ("killed",), q, population, False, "bodies")
    if q.qualifier == "vague":
        of_dead = _OF_THE_DEAD_RE.match(text, q.end)
        if of_dead is not None:
            named = of_dead.group("m") + (f" and {of_dead.group('m2')}" if of_dead.group("m2")
                                          else "")
            return _Draft(q.start, of_dead.end(), _measures(named), q, None, False,
                          "of-the-dead")
    bodies = _BODIES_AFTER_RE.match(text, q.end)
    if bodies is not None and not article:
        return _Draft(q.start, bodies.end(), ("killed",), q, None, False, "bodies")
    verb = _BEFORE_RE.search(text, lo, q.start)
    if verb is not None:
        return _Draft(verb.start(), pop_end, _measures(verb.group("m")), q, population, False,
                      "verb-before")
    after = _AFTER_RE.match(text, q.end)
    if after is not None:
        return _Draft(q.start, after.end(), _measures(after.group("m")), q,
                      _population(after.group("pop")), False, "predicate-after")
    if pop_after is not None and drafts:
        previous = drafts[-1]
        if _COORDINATION_RE.match(text[previous.end:q.start]):
            return _Draft(q.start, pop_end, previous.measures, q, population, previous.subgroup,
                          "coordinated")
    return None


def _inherited(drafts: list[_Draft]) -> tuple[Measure, ...]:
    for draft in reversed(drafts):
        if not draft.subgroup:
            return draft.measures
    return ()


def _none_figures(text: str) -> tuple[list[_Draft], list[tuple[int, int]]]:
    drafts, spans = [], []
    for match in _NONE_RE.finditer(text):
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


def find_figures(text: str, *, base: int = 0) -> list[CasualtyFigure]:
    """Casualty figures stated in one sentence; spans are offsets into ``text`` plus
    ``base``."""
    original = text
    text = _AGES_RE.sub(lambda m: " " * len(m.group()), text)  # offsets stay the same
    none_drafts, blocked = _none_figures(text)
    drafts: list[_Draft] = []
    for quantity in _quantities(text, blocked):
        draft = _classify(text, quantity, drafts)
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
    flags = _context_flags(text, heads)
    figures: list[CasualtyFigure] = []
    for draft, parent in zip(drafts, parents, strict=True):
        cumulative, earlier = flags[id(parent)]
        q = draft.quantity
        low, high, end = q.low, q.high, draft.end
        pair = _AND_ANOTHER.match(text, draft.end) if (low, high) == (1, 1) else None
        if pair is not None:
            # "killing a 31-year-old woman and her two-year-old daughter": two people
            low, high, end = 2, 2, pair.end()
        for measure in draft.measures:
            figures.append(CasualtyFigure(
                start=base + draft.start, end=base + end,
                text=original[draft.start:end], measure=measure, low=low, high=high,
                qualifier=q.qualifier, population=draft.population, subgroup=draft.subgroup,
                cumulative=cumulative, rule="reported-earlier" if earlier else draft.rule,
            ))
    return figures


#: A second person joined to a single victim: "... and her two-year-old daughter".
_AND_ANOTHER: Final = re.compile(
    r"\s+and\s+(?:her|his|their|a|an|the|one)\s+(?:[\w-]+\s+){0,2}?(?:husband|wife|son|"
    r"daughter|father|mother|brother|sister|child|grandson|granddaughter|grandmother|"
    r"grandfather|man|woman|boy|girl|friend|neighbour|neighbor|colleague)\b",
    re.IGNORECASE)


def _context_flags(text: str, leading: list[_Draft]) -> dict[int, tuple[bool, bool]]:
    """For each figure that is not a part of another: whether it is cumulative, and whether
    the text gives it as an earlier report's. A figure's cues are those in its own stretch of
    the sentence; figures joined by "and" share them ("9,177 deaths and 16,384 injuries since
    February 2022")."""
    flags: list[tuple[bool, bool]] = []
    for draft in leading:
        window_start, window_end = _window(draft, leading, len(text))
        # Only a cue close to the figure says the figure is an earlier report's: "contradicting
        # earlier accounts" at the far end of the sentence may be about something else.
        near = text[max(window_start, draft.start - _EARLIER_REACH):
                    min(window_end, draft.end + _EARLIER_REACH)]
        flags.append((bool(_CUMULATIVE_RE.search(text, window_start, window_end)),
                      bool(_EARLIER_RE.search(near))))
    for _ in range(2):  # forwards, then backwards, along chains of joined figures
        for index in range(1, len(leading)):
            previous, current = leading[index - 1], leading[index]
            if _COORDINATION_RE.match(text[previous.end:current.start]):
                joined = (flags[index - 1][0] or flags[index][0],
                          flags[index - 1][1] or flags[index][1])
                flags[index - 1] = flags[index] = joined
    return {id(draft): flag for draft, flag in zip(leading, flags, strict=True)}


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


_SINGLE_VICTIM = re.compile(
    r"\b(?P<who>he|she|her husband|his wife|her son|his son|her daughter|his daughter|"
    r"her father|his father|her mother|his mother|a man|a woman|a child|a boy|a girl|"
    r"one person|one civilian|an elderly (?:man|woman))\b"
    r"(?:[^.;!?]{0,40}?)\b(?:was|had been|has been)\s+"
    r"(?P<how>shot and killed|shot dead|killed|shot|wounded|injured|hurt)\b",
    re.IGNORECASE,
)


_ONE_BODY = re.compile(
    r"\b(?:(?:a|one|the)\s+)?dead body\b|\bthe body of (?:a|an|one)\b|"
    r"\b(?:woman|man|child|boy|girl)['’]?s body\b|"
    r"\bbod(?:y|ies) of (?:civilians?|residents?|people)\s*\((?P<n>\d{1,4})\)",
    re.IGNORECASE,
)


_KILLING_ONE = re.compile(
    r"\b(?P<how>killing|killed|wounding|injuring)\s+(?:the|a|an|one|her|his)\s+"
    r"(?:elderly\s+|local\s+|young\s+)?(?P<who>driver|man|woman|child|boy|girl|resident|"
    r"civilian|farmer|passenger|pedestrian|volunteer|doctor|nurse|teacher|journalist|"
    r"husband|wife|son|daughter|father|mother|priest|firefighter|rescuer)\b",
    re.IGNORECASE,
)


def find_single_victims(text: str, *, base: int = 0) -> list[CasualtyFigure]:
    """One named or pronoun victim: "he was shot and killed", "a woman was wounded", "a dead
    body", "bodies of civilians (3)" as monitors caption them.

    Counted figures miss these, yet a single killing is an incident in its own right.
    """
    out = []
    for match in _KILLING_ONE.finditer(text):
        how = match.group("how").lower()
        who = match.group("who").lower()
        out.append(CasualtyFigure(
            start=base + match.start(), end=base + match.end(), text=match.group(0),
            measure="killed" if how.startswith("kill") else "injured", low=1, high=1,
            qualifier="exact",
            population="children" if who in {"child", "boy", "girl"} else "people",
            subgroup=False, cumulative=False, rule="single-victim"))
    for match in _ONE_BODY.finditer(text):
        n = int(match.group("n")) if match.group("n") else 1
        out.append(CasualtyFigure(
            start=base + match.start(), end=base + match.end(), text=match.group(0),
            measure="killed", low=n, high=n, qualifier="exact", population="people",
            subgroup=False, cumulative=False, rule="bodies"))
    for match in _SINGLE_VICTIM.finditer(text):
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


_FIELDS: Final[tuple[tuple[re.Pattern[str], Measure], ...]] = (
    (re.compile(r"\b(?:fatalities|killed|dead|deaths)\s*[:=]\s*(?P<n>\d[\d,]*)",
                re.IGNORECASE), "killed"),
    (re.compile(r"\b(?:injured|wounded|injuries)\s*[:=]\s*(?P<n>\d[\d,]*)", re.IGNORECASE),
     "injured"),
    # Monitors' shorthand: "2 civ KIA, 3 WIA", "1 KIA"
    (re.compile(r"\b(?P<n>\d{1,4})\s*(?P<civ>civ(?:ilians?)?\.?\s*)?KIA\b"), "killed"),
    (re.compile(r"\b(?P<n>\d{1,4})\s*(?P<civ>civ(?:ilians?)?\.?\s*)?WIA\b"), "injured"),
)


def find_fatality_fields(text: str, *, base: int = 0) -> list[CasualtyFigure]:
    """Monitoring records state tolls as fields or shorthand: "Fatalities: 3", "Killed: 2",
    "2 civ KIA, 3 WIA"."""
    out = []
    for pattern, measure in _FIELDS:
        for match in pattern.finditer(text):
            n = int(match.group("n").replace(",", ""))
            civilian = "civ" in match.groupdict() and match.group("civ")
            out.append(CasualtyFigure(
                start=base + match.start(), end=base + match.end(), text=match.group(0),
                measure=measure, low=n, high=n, qualifier="exact",
                population="civilians" if civilian else None, subgroup=False,
                cumulative=False, rule="record-field"))
    return out
