"""Normalisation and romanisation of toponyms: the keys the gazetteer is indexed by.

Part of the gazetteer, the reference layer below the stages: extraction and the ``geocode``
command look names up through keys made here, and the index is built from the same keys, so a
query and a stored name meet whatever their spelling.

Three levels, each coarser than the last:

* :func:`romanise_ukrainian` writes Cyrillic in Latin letters with the Ukrainian national
  transliteration of 2010 (Cabinet of Ministers resolution No. 55 of 27 January 2010): the
  system of Ukrainian passports and road signs, and the one in which official names such as
  *Hroza*, *Kharkiv*, *Zaporizhzhia* are written today. The table is written out below. Letters
  only Russian has (ы, э, ъ, ё) get their usual English-press values, so Russian spellings in
  GeoNames' alternate names romanise too.
* :func:`normalise_toponym` is the exact lookup key: romanised, case-folded, diacritics and
  apostrophes (’ ' ʼ ` ´) dropped, hyphens and punctuation turned into single spaces. Its output
  holds only ``a-z``, ``0-9`` and single spaces, so it is idempotent.
* :func:`fold_toponym` goes further and merges the letters that romanisation systems disagree
  on (Russian-style, Ukrainian 1996/2010, BGN/PCGN, German and Polish spellings): ``y``/``j`` ->
  ``i``, ``h``/``g``/``kh`` -> ``h``, ``ts``/``ch``/``cz`` -> ``c``, ``zh`` -> ``z``, ``w`` ->
  ``v``, doubled letters, Russian adjective endings (*Malaya* -> *Mala*). It is the second-tier
  key: *Vinnitsa*, *Vinnytsia* and *Vinnytsya* share one fold, as do *Izyum* and *Izium*.

Both keys are pure functions of the text and are memoised (the last 131,072 texts each, and
the fold word by word as well): the scanner and the resolver ask for the same words again and
again.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from rapidfuzz.distance import OSA

# Ukrainian national transliteration (2010). Values for a letter at the start of a word, where
# they differ, are in _UK_INITIAL. Soft sign and apostrophe are not written.
_UK_TABLE: dict[str, str] = {
    "а": "a", "б": "b", "в": "v", "г": "h", "ґ": "g", "д": "d", "е": "e", "є": "ie",
    "ж": "zh", "з": "z", "и": "y", "і": "i", "ї": "i", "й": "i", "к": "k", "л": "l",
    "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u",
    "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ь": "", "ю": "iu",
    "я": "ia",
    # Letters of Russian (and Belarusian) only, as English-language sources write them.
    "ё": "yo", "ы": "y", "э": "e", "ъ": "", "ў": "u",
}  # fmt: skip
_UK_INITIAL: dict[str, str] = {"є": "ye", "ї": "yi", "й": "y", "ю": "yu", "я": "ya"}
_APOSTROPHES = "'’ʼ`´‘ʹʻ′"
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")

# Latin letters that do not decompose into a base letter and a combining mark.
_LATIN_SPECIAL = str.maketrans(
    {"ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i", "þ": "th",
     "ð": "d", "ŀ": "l", "ħ": "h"}
)  # fmt: skip
_NOT_KEY = re.compile(r"[^a-z0-9]+")
_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _translation(table: dict[str, str]) -> dict[int, str]:
    """A str.translate table for lower- and upper-case letters (``Щ`` -> ``Shch``)."""
    result: dict[int, str] = {}
    for lower, value in table.items():
        result[ord(lower)] = value
        upper = lower.upper()
        if upper != lower:
            result[ord(upper)] = value[:1].upper() + value[1:]
    return result


_UK_TRANSLATE = _translation(_UK_TABLE)
_UK_INITIAL_TRANSLATE = _translation(_UK_INITIAL)
_WORD_INITIAL = re.compile(
    r"(?<![\w"
    + re.escape(_APOSTROPHES)
    + r"])["
    + "".join(_UK_INITIAL)
    + "".join(_UK_INITIAL).upper()
    + r"]"
)
_ZG = re.compile(r"(?<=[зЗ])(?=[гГ])")


def romanise_ukrainian(text: str) -> str:
    """Romanise the Cyrillic letters in ``text`` with the Ukrainian national system of 2010.

    Case is kept (first letter only, for multi-letter values: ``Щ`` -> ``Shch``); other
    characters pass through. ``є ї й ю я`` are written ``ye yi y yu ya`` at the start of a
    word and ``ie i i iu ia`` elsewhere; ``зг`` is written ``zgh`` as the standard requires,
    so that it is not read as ``ж``.
    """
    if not _CYRILLIC.search(text):
        return text
    text = _WORD_INITIAL.sub(lambda m: m.group(0).translate(_UK_INITIAL_TRANSLATE), text)
    text = _ZG.sub("\x00", text)  # marks з|г; the mark becomes the "g" of "zgh"
    text = text.translate(_UK_TRANSLATE)
    return text.replace("\x00h", "gh").replace("\x00H", "gH").replace("\x00", "")


@functools.lru_cache(maxsize=1 << 17)
def normalise_toponym(text: str) -> str:
    """The exact lookup key of a name: ``"Zaporizhzhia"``, ``"ZAPORIZHZHIA"`` and
    ``"Запоріжжя"`` all give ``"zaporizhzhia"``; ``"Mariupol'"`` gives ``"mariupol"``.

    Never raises; the result holds only ``a-z``, ``0-9`` and single spaces (letters of other
    scripts are dropped), so normalising twice changes nothing.
    """
    if text.isascii():
        text = text.lower()
        for mark in "'`":
            text = text.replace(mark, "")
        return _NOT_KEY.sub(" ", text).strip()
    text = unicodedata.normalize("NFKC", text).casefold()
    for mark in _APOSTROPHES:
        text = text.replace(mark, "")
    text = romanise_ukrainian(text)
    text = _COMBINING.sub("", unicodedata.normalize("NFKD", text))
    text = text.translate(_LATIN_SPECIAL)
    return _NOT_KEY.sub(" ", text).strip()


# Rewrites applied in order to each word of a normalised name by fold_toponym.
_FOLD_STEPS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"szcz|shch|sch", "s"),
        (r"sz|sh", "s"),
        (r"cz|tch|ch|tz|ts", "c"),
        (r"zh", "z"),
        (r"kh|gh", "h"),
        (r"g", "h"),
        (r"w", "v"),
        (r"x", "ks"),
        (r"[yj]", "i"),
        (r"(.)\1+", r"\1"),
        # Russian adjective endings against Ukrainian ones: Malaya/Mala, Novoye/Nove,
        # Velikiy/Velykyi, -skoye/-ske.
        (r"(?<=\w\w)aia$", "a"),
        (r"(?<=\w\w)oie$|(?<=\w\w)oe$", "e"),
        (r"(?<=\w\w)ii$", "i"),
        # A glide i before a vowel: ia/a, iu/u, ie/e (Vinnitsa/Vinnytsia, Izium/Izyum).
        (r"(?<=[^aeiou])i(?=[aeou])", ""),
        (r"(.)\1+", r"\1"),
    )
)


@functools.lru_cache(maxsize=1 << 17)
def fold_toponym(text: str) -> str:
    """The coarse key that merges romanisation variants of one name (see the module doc).

    Accepts any text (it normalises first). Different places can share a fold, so a fold
    match is a weaker match than a :func:`normalise_toponym` match.
    """
    return " ".join(map(_fold_word, normalise_toponym(text).split()))


@functools.lru_cache(maxsize=1 << 17)
def _fold_word(word: str) -> str:
    """The fold of one word of a normalised name: the steps work within a word, so a name
    new as a whole ("Mala Rohan, Kharkiv") is folded from words folded before."""
    for pattern, replacement in _FOLD_STEPS:
        word = pattern.sub(replacement, word)
    return word


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (Levenshtein plus transposition of neighbours),
    cut short: any value above ``limit`` is returned as ``limit + 1``.

    RapidFuzz computes it in C: the pure-Python table this replaced cost a tenth of the
    geocoder's time on a real data set's place strings, for the same values (a property test
    compares it with a plain implementation of the definition).
    """
    return int(OSA.distance(a, b, score_cutoff=limit))
