"""Finding gazetteer names in running text.

Part of the gazetteer, the reference layer below the stages. The extractor calls
:meth:`casebuilder.gazetteer.Gazetteer.find_toponyms` on a document's text to get the spans
that name places, each with its candidate places, and then resolves them with the document's
context. The scanner only finds; it does not choose between candidates.

How it avoids the usual false alarms:

* A name must start with a capital letter in the text, and the longest name wins
  ("Nova Kakhovka", not "Nova"; "Sea of Azov", not "Azov"). Words are joined across spaces and
  hyphens only. A possessive "'s" is left out of the span ("Ukraine's" -> "Ukraine").
* Names of one or two letters, all-capital words of three letters or fewer ("UN"), and
  numbers are never names. Demonyms and adjectives ("Ukrainian", "Russians", "British", see
  ``data/demonyms.txt``) are never places by themselves.
* A name that is also a common word, such as those in ``data/stoplist.txt`` ("Sunday",
  "Victory", "Peace", "Mission"), counts only in a place context: after "in", "near", "at",
  "village of", ..., or before "oblast", "region", "district", "village", ... A name that the
  same text also uses in lower case ("bread" ... "Bread") needs that context too, unless it is
  well known (a country, a region, a water body, or a town of 10,000+ people): a careless
  "kyiv" somewhere in a text does not hide every "Kyiv" in it.
* A name next to a word for a body of water ("the Irpin River", "the river Irpin", "the Sea of
  Marmara", "Lake Sasyk") is a water body, never the settlement of the same name: it is
  reported as the water body when the gazetteer knows it, and skipped otherwise.
* "Kharkiv region", "Donetsk oblast" are reported as one span naming the region, and "Kharkiv"
  in "Kharkiv regional governor" as the region.
* Candidates are ordered: places whose own name this is before places that only have it as an
  alternate name; a country before anything else of its name; places in Ukraine, and large
  places abroad (100,000+ people), before small places abroad; then the kind of place and the
  population.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

from casebuilder.gazetteer.model import Place, ToponymMention
from casebuilder.gazetteer.normalise import normalise_toponym

_WORD = re.compile(r"[^\W\d_]+(?:['’ʼ][^\W\d_]+)*")
_JOIN = re.compile(r"[ \t\u00a0]*[-‐‑][ \t\u00a0]*|[ \t\u00a0]+")
_POSSESSIVE = re.compile(r"['’]s$")
_SPACES = re.compile(r"[ \t\u00a0]+")
_PRE_CUES = frozenset({
    "in", "near", "at", "from", "to", "into", "towards", "toward", "outside", "of", "village",
    "town", "city", "settlement", "district", "oblast", "region", "hromada", "outskirts",
    "around", "across", "struck", "hit", "shelled",
})  # fmt: skip
_POST_CUES = frozenset({
    "oblast", "region", "province", "raion", "district", "village", "town", "city",
    "settlement", "hromada", "community", "area",
})  # fmt: skip
_REGION_WORDS = frozenset(["oblast", "region", "province", "regional"])
_SPEECH = frozenset({
    "said", "says", "told", "added", "wrote", "stated", "noted", "explained", "claimed",
    "announced", "reported", "tweeted",
})  # fmt: skip
_AREA_WORDS = frozenset({
    "north", "south", "east", "west", "northern", "southern", "eastern", "western", "central",
    "greater", "upper", "lower", "occupied", "liberated", "downtown",
})  # fmt: skip
_WATER_AFTER = frozenset({
    "river", "reservoir", "sea", "lake", "estuary", "lagoon", "bay", "strait", "straits", "canal",
})  # fmt: skip
_WATER_BEFORE: dict[tuple[str, ...], str] = {
    ("river",): "river",
    ("lake",): "lake",
    ("sea", "of"): "sea",
    ("gulf", "of"): "gulf",
    ("bay", "of"): "bay",
    ("strait", "of"): "strait",
    # "river" in Ukrainian and Russian, in every case form (річка, річки, річці, ...)
    **{(word,): "river" for word in ("richka", "richky", "richtsi", "richku", "richkoiu")},
    **{(word,): "river" for word in ("reka", "reky", "reke", "reku", "rekoi")},
}
"""Words before a name that make it a water body, with the English word for its kind."""
_MAX_WORDS = 6

Rank = Callable[[int, str], tuple[int | str, ...]]
"""Sort key of a candidate place (by number) for a name (by normalised key), best first."""


class ToponymScanner:
    """A first-word table over every gazetteer name, for fast longest-match scanning."""

    def __init__(
        self,
        names: Mapping[str, Sequence[int]],
        places: Sequence[Place],
        stoplist: frozenset[str],
        region_of: Callable[[str], Place | None],
        rank: Rank,
        *,
        demonyms: frozenset[str] = frozenset(),
        well_known: frozenset[str] = frozenset(),
    ) -> None:
        self._places = places
        self._names = names
        self._stoplist = stoplist
        self._demonyms = demonyms
        self._well_known = well_known
        self._region_of = region_of
        self._rank = rank
        first: dict[str, set[int]] = defaultdict(set)
        for key in names:
            words = key.split()
            if len(words) <= _MAX_WORDS and len(key) >= 3:
                first[words[0]].add(len(words))
        # first word -> word counts of names starting with it, longest first
        self._lengths = {w: tuple(sorted(n, reverse=True)) for w, n in first.items()}

    def find(self, text: str) -> list[ToponymMention]:
        words = [
            (m.start(), m.end() - (2 if _POSSESSIVE.search(m.group()) else 0))
            for m in _WORD.finditer(text)
        ]
        keys = [normalise_toponym(text[start:end]) for start, end in words]
        lower_words = {
            key for key, (start, _end) in zip(keys, words, strict=True) if text[start].islower()
        }
        mentions: list[ToponymMention] = []
        index = 0
        while index < len(words):
            found = self._match_at(text, words, keys, index, lower_words)
            if found is None:
                index += 1
                continue
            mention, used = found
            if mention is not None:
                mentions.append(mention)
            index += used
        return mentions

    def _match_at(
        self,
        text: str,
        words: list[tuple[int, int]],
        keys: list[str],
        index: int,
        lower_words: set[str],
    ) -> tuple[ToponymMention | None, int] | None:
        """The mention starting at word ``index`` and the number of words it takes; a mention
        of None means the words are read and skipped (a water body the gazetteer lacks)."""
        start, end = words[index]
        token = text[start:end]
        if not token[0].isupper() or len(token) < 3 or (token.isupper() and len(token) <= 3):
            return None
        lengths = self._lengths.get(keys[index])
        if not lengths:
            return None
        reach = 1  # how many following words are joined to this one by a space or hyphen
        while index + reach < len(words) and reach < _MAX_WORDS:
            if not self._joined(text, words, index + reach):
                break
            reach += 1
        for length in lengths:
            if length > reach:
                continue
            key = " ".join(keys[index : index + length])
            numbers = self._names.get(key)
            if not numbers:
                continue
            if length == 1 and key in self._demonyms:
                return None
            candidates = self._sorted(numbers, key)
            last = index + length - 1
            if candidates[0].feature_kind != "water_body":
                water = self._water_context(text, words, keys, index, last, reach)
                if water is not None:
                    return water
            if length == 1 and not self._plausible(keys, index, lower_words):
                return None
            if length == 1 and self._surname(text, words, keys, index, candidates):
                return None
            span_end = words[last][1]
            region = self._region_after(text, words, keys, index, last, reach)
            if region is not None:
                place, span_end, length = region
                return ToponymMention(start, span_end, text[start:span_end], (place,)), length
            return ToponymMention(start, span_end, text[start:span_end], candidates), length
        return None

    def _sorted(self, numbers: Sequence[int], key: str) -> tuple[Place, ...]:
        ordered = sorted(numbers, key=lambda number: self._rank(number, key))
        return tuple(self._places[number] for number in ordered)

    @staticmethod
    def _joined(text: str, words: list[tuple[int, int]], position: int) -> bool:
        """Whether word ``position`` follows the one before it across a space or hyphen."""
        return _JOIN.fullmatch(text[words[position - 1][1] : words[position][0]]) is not None

    def _water_context(
        self,
        text: str,
        words: list[tuple[int, int]],
        keys: list[str],
        index: int,
        last: int,
        reach: int,
    ) -> tuple[ToponymMention | None, int] | None:
        """A name beside a word for a body of water: the water body, or a skip (see the
        module doc); None when there is no such word."""
        name = " ".join(keys[index : last + 1])
        following = last + 1
        if following < index + reach and keys[following] in _WATER_AFTER:
            water = keys[following]
            span = (words[index][0], words[following][1])
            return self._water_mention(text, span, (f"{name} {water}", f"{water} {name}")), (
                following - index + 1
            )
        for cue, kind in _WATER_BEFORE.items():
            first = index - len(cue)
            if first < 0 or tuple(keys[first:index]) != cue:
                continue
            if not all(self._joined(text, words, p) for p in range(first + 1, index + 1)):
                continue
            phrase = " ".join(cue)
            span = (words[first][0], words[last][1])
            variants = (f"{phrase} {name}", f"{name} {kind}", f"{kind} of {name}")
            return self._water_mention(text, span, variants), last - index + 1
        return None

    def _water_mention(
        self, text: str, span: tuple[int, int], phrases: Sequence[str]
    ) -> ToponymMention | None:
        for phrase in phrases:
            numbers = self._names.get(phrase, ())
            water = [n for n in numbers if self._places[n].feature_kind == "water_body"]
            if water:
                start, end = span
                return ToponymMention(start, end, text[start:end], self._sorted(water, phrase))
        return None

    def _plausible(self, keys: list[str], index: int, lower_words: set[str]) -> bool:
        """A one-word name that is also a common word needs a place context."""
        key = keys[index]
        if key not in self._stoplist and (key not in lower_words or key in self._well_known):
            return True
        before = keys[index - 1] if index > 0 else ""
        after = keys[index + 1] if index + 1 < len(keys) else ""
        return before in _PRE_CUES or after in _POST_CUES

    def _surname(
        self,
        text: str,
        words: list[tuple[int, int]],
        keys: list[str],
        index: int,
        candidates: tuple[Place, ...],
    ) -> bool:
        """Whether a one-word name reads as a person's surname: right after another capitalised
        word ("Vyacheslav Chaus", "Deputy mayor Serhiy Orlov", "Oleksandr Kamyshin") with no
        place word after it, or right before "said", "told", ... ("Chaus said"), unless it is
        the name of a town of Ukraine of 10,000+ people, a region or a country ("Kyiv said")."""
        best = candidates[0]
        if keys[index] in self._well_known and (
            best.country == "UA" or best.feature_kind in ("country", "region")
        ):
            return False
        after = keys[index + 1] if index + 1 < len(keys) else ""
        if after in _SPEECH and _SPACES.fullmatch(text[words[index][1] : words[index + 1][0]]):
            return True
        if index == 0 or after in _POST_CUES or after in _REGION_WORDS:
            return False
        previous_start, previous_end = words[index - 1]
        if not _SPACES.fullmatch(text[previous_end : words[index][0]]):
            return False  # a hyphen, a line break or punctuation between them
        return text[previous_start].isupper() and keys[index - 1] not in _PRE_CUES | _AREA_WORDS

    def _region_after(
        self,
        text: str,
        words: list[tuple[int, int]],
        keys: list[str],
        index: int,
        last: int,
        reach: int,
    ) -> tuple[Place, int, int] | None:
        following = last + 1
        if following >= index + reach or keys[following] not in _REGION_WORDS:
            return None
        name = text[words[index][0] : words[last][1]]
        if keys[following] == "regional":  # "the Kharkiv regional governor": the name only
            place = self._region_of(f"{name} region")
            return None if place is None else (place, words[last][1], last - index + 1)
        span_end = words[following][1]
        place = self._region_of(text[words[index][0] : span_end])
        if place is None:
            return None
        return place, span_end, following - index + 1
