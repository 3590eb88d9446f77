"""Finding gazetteer names in running text.

Part of the gazetteer, the reference layer below the stages. The extractor calls
:meth:`casebuilder.gazetteer.Gazetteer.find_toponyms` on a document's text to get the spans
that name places, each with its candidate places, and then resolves them with the document's
context. The scanner only finds; it does not choose between candidates (the gazetteer then
marks locators, see :mod:`.locators`, and drops squares and districts of cities the text does
not name, see :func:`generic_city_name`).

How it avoids the usual false alarms:

* A name must start with a capital letter in the text, and the longest name wins
  ("Nova Kakhovka", not "Nova"; "Sea of Azov", not "Azov"). Words are joined across spaces and
  hyphens only. A possessive "'s" is left out of the span ("Ukraine's" -> "Ukraine").
* Names of one or two letters, all-capital words of three letters or fewer ("UN"), and
  numbers are never names. Demonyms and adjectives ("Ukrainian", "Russians", "British", see
  ``data/demonyms.txt``) are never places by themselves.
* A name that is also a common word, such as those in ``data/stoplist.txt`` ("Sunday",
  "Victory", "Peace", "Mission", "Split", "Reading", and the words that end the names of
  institutions: "Home", "House", "Hall", "Park", "Hospital", "Station", "Bridge"; so the
  "Kherson Regional Children's Home" is no Homyel'), counts only in a place context: after
  "in", "near", "at", "village of", ..., or before "oblast", "region", "district", "village",
  ... A name that the same text also uses in lower case ("bread" ... "Bread") needs that
  context too, unless it is well known (a country, a region, a water body, or a town of Ukraine
  of 10,000+ people): a careless "kyiv" somewhere in a text does not hide every "Kyiv" in it.
* A town abroad (in a neighbouring country too) is found by its own name, by a well-known
  exonym (an alternate name of a city of 100,000+ people: "Gomel", "Kishinev", "Cologne") or
  by a spelling of its own name ("Tyotkino" for Tëtkino), never by another alternate name (a
  former name, a name in another language), by one that is a stoplist word ("Home", "Part",
  "Center", "Blast"), or by the romanisation of one GeoNames writes in another script (the
  Serbian "Гомељ" reads "Home"; "Гомель" in a Cyrillic text still finds Homyel'), whatever
  the context. A city outside Ukraine and its neighbours needs a place context besides when
  the word is only one of its alternate names or the text also writes it in lower case.
* A small place's name that opens many longer names ("Nova", "Velyka", "Verkhnia", "Stara",
  "Novyi") directly followed by another capitalised word is the first word of a name the
  gazetteer does not know ("Nova Foobarivka"): both words are skipped, not read as the village
  "Nova" (except on a headline in title case, and before "Village", "Oblast", ...).
* A name before "Street", "Square", "Park", "Avenue", "highway", ... or after "vulytsia",
  "prospekt", ... names a street, square or park ("Pushkin Street", "Gorky Park", "Zhytomyr
  highway"), not the place, and is skipped; so is a name before "agreements", "Memorandum",
  "Patriarchate", "format", "talks", ... ("the Minsk agreements", "the Budapest Memorandum",
  "the Moscow Patriarchate"): an agreement or a church body, not where something happened.
* A name next to a word for a body of water ("the Irpin River", "the river Irpin", "the Sea of
  Marmara", "Lake Sasyk") is a water body, never the settlement of the same name: it is
  reported as the water body when the gazetteer knows it, and skipped otherwise. So is a
  river's name after "the" ("across the Dnipro", "the Dnipro's left bank") unless a word for a
  city follows ("the Dnipro city council", "the Dnipro mayor"), and one before "bank" or
  "left bank" ("Dnipro left bank").
* "Kharkiv region", "Donetsk oblast", "Oblast Donetsk" are reported as one span naming the
  region, and "Kharkiv" in "Kharkiv regional governor" as the region.
* Candidates are ordered: places whose own name this is before places that only have it as an
  alternate name; a country before anything else of its name; places in Ukraine, and large
  places abroad (100,000+ people), before small places abroad; then the kind of place and the
  population. Places whose name matches only up to romanisation ("Shliakhove" for
  "Shlyakhove") follow, so that a name has as many candidates as :meth:`Gazetteer.resolve`
  considers.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

from casebuilder.gazetteer.lexicon import gazetteer_lexicon
from casebuilder.gazetteer.model import Place, ToponymMention
from casebuilder.gazetteer.normalise import normalise_toponym

_WORD = re.compile(r"[^\W\d_]+(?:['’ʼ][^\W\d_]+)*")
_JOIN = re.compile(r"[ \t\u00a0]*[-‐‑][ \t\u00a0]*|[ \t\u00a0]+")
_POSSESSIVE = re.compile(r"['’]s$")
_SPACES = re.compile(r"[ \t\u00a0]+")
_LEXICON = gazetteer_lexicon()  # the word classes named below: data/lexicon/scanner.toml
_PRE_CUES = _LEXICON.words("place_cues_before")
_POST_CUES = _LEXICON.words("place_cues_after")
_REGION_WORDS = _LEXICON.words("region_words_after")
_SPELLING_BEFORE = _LEXICON.words("spelling_cues_before")
_SPELLING_AFTER = _LEXICON.words("spelling_cues_after")
_SPEECH = _LEXICON.words("surname_speech_verbs")
_AREA_WORDS = _LEXICON.words("name_area_adjectives")
_HONORIFICS = _LEXICON.words("honorifics")
_AFTER_HONORIFIC = re.compile(r"\.?[ \t\u00a0]+")
_WATER_AFTER = _LEXICON.words("water_words_after")
_WATER_BEFORE: dict[tuple[str, ...], str] = {
    tuple(cue.split()): kind for cue, kind in _LEXICON.mapping("water_words_before").items()
}
"""Words before a name that make it a water body, with the English word for its kind."""
_MAX_WORDS = 6
_STREET_AFTER = _LEXICON.words("street_words_after")
_STREET_BEFORE = _LEXICON.words("street_words_before")
_NOT_A_PLACE_AFTER = _LEXICON.words("not_a_place_after")
_CALENDAR = _LEXICON.words("calendar_words")
_CITY_WORDS = _LEXICON.words("city_words_after_river")
_BANK_WORDS = _LEXICON.words("bank_words")
_RIVER_SIDE = _LEXICON.words("river_sides")
_OBLAST_BEFORE = _LEXICON.words("oblast_words_before")

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
        folds: Mapping[str, Sequence[int]] | None = None,
        fold_of: Callable[[str], str] | None = None,
        own_name: Callable[[int, str], bool] | None = None,
        home: str = "UA",
        neighbours: frozenset[str] = frozenset(),
        alias_ok: Callable[[int, str, str], bool] | None = None,
        large_abroad: int = 100_000,
    ) -> None:
        self._places = places
        self._large_abroad = large_abroad  # a city this large abroad is well known
        self._alias_ok = alias_ok
        self._names = names
        self._folds = folds or {}
        self._fold_of = fold_of
        self._own_name = own_name
        self._home = home
        self._near_countries = neighbours | {home}
        self._stoplist = stoplist
        self._demonyms = demonyms
        self._well_known = well_known
        self._region_of = region_of
        self._rank = rank
        first: dict[str, set[int]] = defaultdict(set)
        openings: dict[str, int] = defaultdict(int)
        for key in names:
            words = key.split()
            if len(words) <= _MAX_WORDS and len(key) >= 3:
                first[words[0]].add(len(words))
            if len(words) > 1:
                openings[words[0]] += 1
        # words that open many longer names ("nova", "velyka", "verkhnia", "novoselivka"),
        # which alone are also the names of small places
        self._openers = frozenset(w for w, n in openings.items() if n >= _OPENER_NAMES)
        # first word -> word counts of names starting with it, longest first
        self._lengths = {w: tuple(sorted(n, reverse=True)) for w, n in first.items()}

    @functools.cached_property
    def _fold_lengths(self) -> dict[str, tuple[int, ...]]:
        """First word of a fold key -> word counts of the fold keys starting with it, longest
        first (for :meth:`find` with ``loose``)."""
        first: dict[str, set[int]] = defaultdict(set)
        for key in self._folds:
            words = key.split()
            if len(words) <= _MAX_WORDS and len(key) >= 3:
                first[words[0]].add(len(words))
        return {w: tuple(sorted(n, reverse=True)) for w, n in first.items()}

    def find(self, text: str, *, loose: bool = False) -> list[ToponymMention]:
        """The gazetteer names in ``text`` (see the module doc). With ``loose``, a capitalised
        name that matches no name exactly may match one up to romanisation ("Malaya Rohan" for
        Mala Rohan, "Gulyaipole" for Huliaipole), as the fold key merges them: for short
        free-text place strings (``casebuilder geocode``), not for documents, where a fold
        match of a capitalised word is more often a word than a place."""
        words = [
            (m.start(), m.end() - (2 if _POSSESSIVE.search(m.group()) else 0))
            for m in _WORD.finditer(text)
        ]
        keys = [normalise_toponym(text[start:end]) for start, end in words]
        lower_words = {
            key for key, (start, _end) in zip(keys, words, strict=True) if text[start].islower()
        }
        titled = _title_case_words(text, words)
        mentions: list[ToponymMention] = []
        index = 0
        while index < len(words):
            free_from = mentions[-1].end if mentions else 0
            found = self._match_at(text, words, keys, index, lower_words, titled, free_from)
            if found is None and self._fold_of is not None and (
                loose or _settlement_cued(keys, index)
            ):
                found = self._match_at(text, words, keys, index, lower_words, titled, free_from,
                                       by_fold=True, abroad=not loose)  # fmt: skip
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
        titled: set[int] | frozenset[int] = frozenset(),
        free_from: int = 0,
        by_fold: bool = False,
        abroad: bool = False,
    ) -> tuple[ToponymMention | None, int] | None:
        """The mention starting at word ``index`` and the number of words it takes; a mention
        of None means the words are read and skipped (a water body the gazetteer lacks, the
        first word of a name the gazetteer does not know, a street's name)."""
        start, end = words[index]
        token = text[start:end]
        if not token[0].isupper() or len(token) < 3 or (token.isupper() and len(token) <= 3):
            return None
        fold_of = self._fold_of
        if by_fold and fold_of is not None:
            lengths = self._fold_lengths.get(fold_of(keys[index]))
        else:
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
            numbers: Sequence[int] = (
                self._loose(text, words, keys, index, length, key, fold_of(key), abroad)
                if by_fold and fold_of is not None else self._names.get(key, ())
            )  # fmt: skip
            if not numbers:
                continue
            if length == 1 and key in self._demonyms:
                return None
            last = index + length - 1
            written = text[start : words[last][1]]
            numbers = self._cued(numbers, key, keys, index, last, lower_words, written)
            if not numbers:
                continue
            candidates = self._sorted(numbers, key)
            if candidates[0].feature_kind != "water_body":
                water = self._water_context(text, words, keys, index, last, reach)
                if water is None:
                    water = self._river_after_the(text, words, keys, index, last, reach)
                if water is not None:
                    return water
            if self._street(keys, index, last, reach):
                return None, last - index + 2  # "Pushkin Street", "Gorky Park"
            if length == 1:
                refused, run = self._one_word_refused(text, words, keys, index, reach,
                                                      candidates, titled, lower_words)
                if refused:
                    return (None, run) if run else None
            span_end = words[last][1]
            region = self._region_after(text, words, keys, index, last, reach)
            if region is not None:
                place, span_end, length = region
                return ToponymMention(start, span_end, text[start:span_end], (place,)), length
            region_place = self._oblast_before(text, words, keys, index, last, free_from)
            if region_place is not None:
                first = words[index - 1][0]
                return ToponymMention(first, span_end, text[first:span_end], (region_place,)), (
                    length
                )
            candidates += self._fold_candidates(numbers, key)
            return ToponymMention(start, span_end, text[start:span_end], candidates), length
        return None

    def _one_word_refused(self, text: str, words: list[tuple[int, int]], keys: list[str],
                          index: int, reach: int, candidates: tuple[Place, ...],
                          titled: set[int] | frozenset[int], lower_words: set[str]
                          ) -> tuple[bool, int]:
        """Whether a one-word name is no place here, and how many words to skip with it (0:
        only the word): an implausible word, a surname, or the first word of a name the
        gazetteer does not know ("Nova Foobarivka", "Anna Kovalenko")."""
        if not self._plausible(keys, index, lower_words):
            return True, 0
        if self._surname(text, words, keys, index, candidates):
            return True, 0
        run = self._unknown_name(text, words, keys, index, reach, candidates, titled)
        return bool(run), run

    def _loose(self, text: str, words: list[tuple[int, int]], keys: list[str], index: int,
               length: int, key: str, folded: str, abroad: bool = False) -> Sequence[int]:
        """The places a name matches only up to romanisation (``find`` with ``loose``, or a
        name a word such as "village of" announces): places of the home country whose own
        name it is (with ``abroad``, of the border regions abroad too: "the village of
        Graivoron" in Belgorod Oblast), and for one word, only a word of six letters or more
        not followed by another capitalised word ("School No. 5", "Mass grave", "Velikye
        Artakovo" are no fold matches)."""
        if length == 1:
            following = index + 1
            if len(folded) < _LOOSE_WORD or (
                following < len(words) and text[words[following][0]].isupper()
                and self._joined(text, words, following)
            ):
                return ()
        own = self._own_name
        return [
            number for number in self._folds.get(folded, ())
            if (self._places[number].country == self._home or (
                abroad and bool(self._places[number].admin1)
                and self._places[number].country in self._near_countries))
            and self._places[number].feature_kind not in ("country", "region", "water_body")
            and (own is None or own(number, key))
        ]  # fmt: skip

    def _cued(
        self,
        numbers: Sequence[int],
        key: str,
        keys: list[str],
        index: int,
        last: int,
        lower_words: set[str],
        written: str = "",
    ) -> Sequence[int]:
        """The candidates left once places abroad known by this name only as an obscure
        alternate name are dropped, and far-away places that need a place cue and lack one.

        A town abroad (neighbours included) counts by an alternate name only when the
        gazetteer's ``alias_ok`` accepts it: not a word of the stoplist ("Home" for Homyel',
        "Part" for Perth), written in the script of the name GeoNames gives (the Serbian
        "Гомељ" romanised is "Home", which is not how an English text writes Homyel'), and
        either a city of 100,000+ people (a well-known exonym: "Gomel", "Kishinev") or a
        spelling of the place's own name ("Tyotkino" for Tëtkino, not a former name); no cue
        makes up for that. A city outside Ukraine and its neighbours known by the word only
        as an alternate name, or whose name the same text also writes in lower case ("split",
        "mobile"), needs a place cue besides."""
        before = keys[index - 1] if index > 0 else ""
        after = keys[last + 1] if last + 1 < len(keys) else ""
        cued = before in _PRE_CUES or after in _POST_CUES
        kept = []
        for number in numbers:
            place = self._places[number]
            if place.country != self._home and place.feature_kind == "settlement":
                own = self._own_name is None or self._own_name(number, key)
                if not own and self._alias_ok is not None and not self._alias_ok(
                    number, key, written
                ):
                    continue
                far = place.country not in self._near_countries
                if far and not cued and (not own or key in lower_words):
                    continue
            kept.append(number)
        return kept

    def _fold_candidates(self, numbers: Sequence[int], key: str) -> tuple[Place, ...]:
        """Places whose name matches only up to romanisation ("Shliakhove" for
        "Shlyakhove"), after the exact ones: the mention's other possible readings."""
        if self._fold_of is None:
            return ()
        exact = set(numbers)
        extra = [n for n in self._folds.get(self._fold_of(key), ()) if n not in exact]
        extra = [n for n in extra if self._places[n].feature_kind not in ("country", "water_body")]
        return self._sorted(extra, key) if extra else ()

    @staticmethod
    def _street(keys: list[str], index: int, last: int, reach: int) -> bool:
        """Whether the name is part of a street's, square's or park's name, or of the name
        of an agreement, talks or a church body ("the Minsk agreements", "the Moscow
        Patriarchate")."""
        after = keys[last + 1] if last + 1 < index + reach else ""
        before = keys[index - 1] if index > 0 else ""
        return after in _STREET_AFTER or after in _NOT_A_PLACE_AFTER or before in _STREET_BEFORE

    def _unknown_name(
        self,
        text: str,
        words: list[tuple[int, int]],
        keys: list[str],
        index: int,
        reach: int,
        candidates: tuple[Place, ...],
        titled: set[int] | frozenset[int],
    ) -> int:
        """How many words to skip when a one-word name is only the first word of a longer
        name the gazetteer does not know: a small place's name that opens many longer names
        ("Nova", "Verkhnia", "Velyka", "Stara", "Novyi") directly followed by another
        capitalised word ("Nova Foobarivka", "Velyka Qwertivka"). 0 when it is not: the name
        opens few names ("Millerovo Airbase"), the next word is lower case or a place word
        ("Hroza Village"), the name is well known (a town of Ukraine of 10,000+ people, a large
        city abroad, a region or country), or the line is a headline in title case."""
        following = index + 1
        if following >= index + reach or index in titled or keys[index] not in self._openers:
            return 0
        if any(p.feature_kind not in ("settlement", "city_district") for p in candidates):
            return 0  # "Azovstal Iron Works", "Kyiv Oblast": a site or region and what it has
        start, _end = words[following]
        key = keys[following]
        if not text[start].isupper() or key in _NOT_A_NAME_AFTER or key in self._demonyms:
            return 0
        if key in self._stoplist or (keys[index] in self._well_known) or any(
            p.feature_kind in ("country", "region", "water_body")
            or (p.population or 0) >= self._large_abroad
            for p in candidates
        ):
            return 0
        run = 2
        while index + run < index + reach and text[words[index + run][0]].isupper():
            run += 1
        return run

    def _river_after_the(
        self,
        text: str,
        words: list[tuple[int, int]],
        keys: list[str],
        index: int,
        last: int,
        reach: int,
    ) -> tuple[ToponymMention | None, int] | None:
        """A river's name after "the" ("across the Dnipro", "the Dnipro's left bank") or before
        "bank", "left bank" ("Dnipro left bank"): the river, when the gazetteer knows a river of
        that name and no word for a city follows ("the Dnipro city council")."""
        name = " ".join(keys[index : last + 1])
        phrases = (f"{name} river", f"river {name}")
        nxt = keys[last + 1] if last + 1 < len(keys) else ""
        joined_next = last + 1 < index + reach
        after_next = keys[last + 2] if last + 2 < len(keys) else ""
        bank = joined_next and (
            nxt in _BANK_WORDS or (nxt in _RIVER_SIDE and after_next in _BANK_WORDS)
        )
        the = index > 0 and keys[index - 1] == "the" and self._joined(text, words, index)
        if not bank and not the:
            return None
        if not bank and joined_next and (
            nxt in _CITY_WORDS or "-" in text[words[last][1] : words[last + 1][0]]
        ):
            return None  # "the Dnipro city council", "the Dnipro-based"
        water = self._water_mention(text, (words[index][0], words[last][1]), phrases)
        return None if water is None else (water, last - index + 1)

    def _oblast_before(
        self,
        text: str,
        words: list[tuple[int, int]],
        keys: list[str],
        index: int,
        last: int,
        free_from: int,
    ) -> Place | None:
        """The region of "Oblast Donetsk", "oblast Kharkiv" (the word before the name)."""
        if index == 0 or keys[index - 1] not in _OBLAST_BEFORE:
            return None
        if words[index - 1][0] < free_from or not self._joined(text, words, index):
            return None
        return self._region_of(text[words[index - 1][0] : words[last][1]])

    def _sorted(self, numbers: Sequence[int], key: str) -> tuple[Place, ...]:
        """The places, most likely first."""
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
        word ("Vyacheslav Chaus", "Deputy mayor Serhiy Orlov", "Oleksandr Kamyshin") or a title
        ("Ms. Semenko", "Mr Petrenko") with no place word after it, or right before "said",
        "told", ... ("Chaus said"), unless it is the name of a town of Ukraine of 10,000+
        people, a region or a country ("Kyiv said")."""
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
        if keys[index - 1] in _HONORIFICS and _AFTER_HONORIFIC.fullmatch(
            text[previous_end : words[index][0]]
        ):
            return True  # "Ms. Semenko", "Mr Petrenko"
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


_NOT_A_NAME_AFTER = (
    _POST_CUES | _REGION_WORDS | _WATER_AFTER | _STREET_AFTER | _CALENDAR
    | _LEXICON.words("not_a_name_after")
)
_OPENER_NAMES = 3
_LOOSE_WORD = 6  # the fewest letters of one word matched only up to romanisation
_HEADLINE_CHARS = 160


def _settlement_cued(keys: list[str], index: int) -> bool:
    """Whether words around the name say a settlement is named ("the village of X", "the
    town X", "the X village"): there a name may match a place only up to romanisation."""
    before = keys[index - 1] if index > 0 else ""
    if before == "of" and index > 1:
        before = keys[index - 2]
    after = keys[index + 1] if index + 1 < len(keys) else ""
    return before in _SPELLING_BEFORE or after in _SPELLING_AFTER


def _title_case_words(text: str, words: list[tuple[int, int]]) -> set[int]:
    """Indexes of the words on lines written in title case or capitals (headlines), where a
    capitalised word says nothing about being a name."""
    lines: dict[int, list[int]] = defaultdict(list)
    breaks = [m.start() for m in re.finditer("\n", text)]
    for position, (start, _end) in enumerate(words):
        lines[bisect.bisect_left(breaks, start)].append(position)
    titled: set[int] = set()
    for line in lines.values():
        long = [i for i in line if words[i][1] - words[i][0] >= 4]
        if (
            words[line[-1]][1] - words[line[0]][0] <= _HEADLINE_CHARS
            and len(long) >= 3
            and sum(text[words[i][0]].isupper() for i in long) >= 0.7 * len(long)
        ):
            titled.update(line)
    return titled


_GENERIC_WORDS = _LEXICON.words("generic_city_words")
_DISTRICT_WORDS = _LEXICON.words("district_name_words")
_ADJECTIVE_END = _LEXICON.pattern("district_adjective_endings")


def city_bound(place: Place) -> bool:
    """A city district or a site inside a city (its ``parent`` names the city)."""
    return (
        place.feature_kind in ("city_district", "feature")
        and bool(place.parent)
        and place.precision in ("point", "district")
    )


def generic_city_name(name: str, places: Sequence[Place]) -> bool:
    """Whether ``name`` is a name that many cities give to a square, market or district, so
    that a place of that name the gazetteer knows in one city says nothing about another:
    all ``places`` lie inside cities, the name does not contain their city's name, and either
    they lie in several cities, or the name has a word such as "square", "market",
    "district" ("Svobody Square", "Left Bank"), or it is one adjective, as most city districts
    of Ukraine are called ("Tsentralnyi", "Livoberezhnyi", "Shevchenkivskyi district")."""
    if not places or not all(city_bound(p) for p in places):
        return False
    words = normalise_toponym(name).split()
    padded = f" {' '.join(words)} "
    if any(f" {normalise_toponym(p.parent)} " in padded for p in places):
        return False  # "Kharkiv Freedom Square", "Mariupol Drama Theatre"
    if len({(p.admin1, p.parent) for p in places}) > 1:
        return True
    if any(word in _GENERIC_WORDS for word in words):
        return True
    core = [word for word in words if word not in _DISTRICT_WORDS]
    return len(core) == 1 and _ADJECTIVE_END.search(core[0]) is not None
