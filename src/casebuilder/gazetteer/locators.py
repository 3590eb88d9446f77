"""Locators: the names a text attaches to a place name only to say where that place lies.

Part of the gazetteer, the reference layer below the stages. After the scanner has found the
names in a text, :meth:`casebuilder.gazetteer.Gazetteer.find_toponyms` calls
:func:`link_locators` to mark each mention that only locates another one
(:attr:`ToponymMention.locates`), so that the extractor neither takes "Kharkiv" in
"Vilkhivka (Kharkivskyi, Kharkiv)" for a second place where something happened nor resolves
"Vilkhivka" without it. The patterns, with the located name first:

* ``Town (Raion, Oblast)``, ``Town (Oblast)``, ``District (City)``: every name in a
  parenthesis right after a name, when the parenthesis holds nothing but names (and words such
  as "raion", "oblast");
* ``Town, Oblast``, ``Town, Raion district, Oblast region``, ``Town, Oblast Donetsk``: names
  after a comma that name an oblast or raion, either with a word saying so ("Kharkiv Oblast",
  "Kupianskyi district"), or bare ("Vilkhivka, Kharkiv") when the town has a candidate in that
  region, the town is not itself one item of a list ("Bucha, Irpin, Hostomel"), and the bare
  name ends the clause;
* ``village of X in the Y district of the Z region``, ``X in Kharkiv Oblast``: an oblast or
  raion named with its word after "in" or "of";
* ``Shevchenkivskyi district of Kyiv``, ``Svobody Square in Kherson``: a city after a city
  district or site, joined by "of" or "in";
* ``Kyiv's Obolon district``: a city in the possessive before a city district or site.

Locators chain: in "Hroza in the Kupianskyi district of the Kharkiv region" both the raion and
the region locate Hroza.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from casebuilder.gazetteer.geo import distance_km
from casebuilder.gazetteer.lexicon import alternatives, gazetteer_lexicon
from casebuilder.gazetteer.model import Place, ToponymMention
from casebuilder.gazetteer.normalise import normalise_toponym

_LEXICON = gazetteer_lexicon()  # the word classes named below: data/lexicon/locators.toml
_ADMIN = _LEXICON.pattern("admin_unit").pattern
_ADMIN_WORDS = _LEXICON.words("admin_unit_words")
_CONJUNCTION = alternatives(_LEXICON.words("list_conjunctions"))
_OPEN = re.compile(r"\s*\(\s*")
_COMMA = re.compile(r"\s*,\s*")
_PREPOSITION = _LEXICON.pattern("locator_preposition")
_CITY_OF = _LEXICON.pattern("city_of")
_POSSESSIVE_GAP = re.compile(r"['’]s\s+(?:the\s+)?")  # "Kyiv's (the) Obolon district"
_ITEM_END = re.compile(rf"\s*(?:(?:{_ADMIN})\s*)?[,)]", re.IGNORECASE)
_CLAUSE_END = re.compile(r"\s*(?:$|[.;:!?)\]\n–—]|,)")
_LIST_GAP = re.compile(rf"\s*(?:,|,?\s*{_CONJUNCTION})\s*", re.IGNORECASE)
_LIST_NEXT = re.compile(rf"\s*,?\s*{_CONJUNCTION}\b", re.IGNORECASE)
_NEXT_WORD = re.compile(r"\s+(\w+)")
_LONGEST_GAP = 30  # no pattern joins names further apart
_DISTRICT_KINDS = frozenset({"city_district", "feature"})
_DISTRICT_WORDS = _LEXICON.words("district_like_words")

Readings = Callable[[ToponymMention], tuple[Place, ...]]
"""The oblasts and raions a mention may name, oblast or raion first ("Kharkiv" -> Kharkiv
Oblast; "Kharkivskyi" -> Kharkivskyi raion); empty when it names none."""
LiesIn = Callable[[Place, Place], bool]
"""Whether a place lies in an oblast or raion."""


def link_locators(
    text: str,
    mentions: Sequence[ToponymMention],
    readings: Readings,
    lies_in: LiesIn,
) -> list[ToponymMention]:
    """The mentions with :attr:`ToponymMention.locates` set (see the module doc); a locator
    that names an oblast or raion gets that reading as its first candidate."""
    found = list(mentions)
    locates: list[int | None] = [None] * len(found)
    cities = [False] * len(found)  # the locator is the city of a district or site
    target: int | None = None
    mode = ""
    for k in range(1, len(found)):
        previous, mention = found[k - 1], found[k]
        gap = text[previous.end : mention.start]
        if len(gap) > _LONGEST_GAP:
            target = None
            continue
        areas = readings(mention)
        if (
            target is not None
            and locates[k - 1] is not None
            and _continues(text, mode, gap, mention, areas, found[target], lies_in)
        ):
            locates[k] = target
            continue
        target = None
        if locates[k - 1] is not None or previous.kind in ("country", "water_body"):
            continue
        j = k - 1
        how = _locator(text, found, j, k, gap, areas, lies_in)
        if how == "possessive":
            if locates[j] is None:
                locates[j], cities[j] = k, True
            continue
        if how:
            locates[k] = j
            cities[k] = how == "city"
            target, mode = j, how
    result: list[ToponymMention] = []
    for k, mention in enumerate(found):
        host = locates[k]
        if host is None:
            result.append(mention)
            continue
        candidates = mention.candidates
        areas = readings(mention)
        of_city = cities[k] or (
            found[host].kind in _DISTRICT_KINDS and mention.kind == "settlement"
        )
        if areas and not of_city:  # "Kharkiv" of "(Kharkivskyi, Kharkiv)": the oblast
            candidates = areas + tuple(c for c in candidates if c not in areas)
        result.append(replace(mention, candidates=candidates, locates=host))
    for mention in list(result):
        if mention.locates is None or mention.kind != "settlement":
            continue
        district = result[mention.locates]
        if _district_like(text, district):  # "Kyiv's Obolon district": Kyiv's Obolon first
            town = mention.place
            ordered = sorted(district.candidates, key=lambda p: not _inside_city(p, town))
            result[mention.locates] = replace(district, candidates=tuple(ordered))
    return result


def _locator(
    text: str,
    found: Sequence[ToponymMention],
    j: int,
    k: int,
    gap: str,
    areas: tuple[Place, ...],
    lies_in: LiesIn,
) -> str:
    """How mention ``k`` locates mention ``j`` ("paren", "comma", "prep", or "city" for the
    city of a district or site), "possessive" when ``j`` (a city) locates ``k``, or "" when
    it does not."""
    located, mention = found[j], found[k]
    if located.kind == "region" and not located.place.is_raion:
        return ""  # an oblast is not located further (a raion may be: "..., Kharkiv Oblast")
    if _OPEN.fullmatch(gap) and _ITEM_END.match(text, mention.end):
        if areas or mention.kind in ("settlement", "city_district"):
            return "paren"
        return ""
    explicit = bool(areas) and _explicit(mention)
    if _COMMA.fullmatch(gap):
        if explicit and not _region_list(text, found, k):
            return "comma"
        if areas and _bare_ok(text, found, j, k, areas, lies_in):
            return "comma"
        return ""
    if _PREPOSITION.fullmatch(gap) and explicit:
        return "prep"
    if (
        _CITY_OF.fullmatch(gap)
        and _district_like(text, located)
        and mention.kind == "settlement"
        and not located.place.is_raion
    ):
        return "city"
    if (
        _POSSESSIVE_GAP.fullmatch(text, located.end, mention.start)
        and located.kind == "settlement"
        and _district_like(text, mention)
    ):
        return "possessive"
    return ""


def _continues(
    text: str,
    mode: str,
    gap: str,
    mention: ToponymMention,
    areas: tuple[Place, ...],
    located: ToponymMention,
    lies_in: LiesIn,
) -> bool:
    """Whether ``mention`` carries on a chain of locators of ``located``."""
    if mode == "paren":
        return _COMMA.fullmatch(gap) is not None and _ITEM_END.match(text, mention.end) is not None
    if not areas:
        return False
    if _explicit(mention):
        return _COMMA.fullmatch(gap) is not None or _PREPOSITION.fullmatch(gap) is not None
    # "Vilkhivka, Kharkivskyi, Kharkiv": a bare oblast after a raion
    return (
        _COMMA.fullmatch(gap) is not None
        and _CLAUSE_END.match(text, mention.end) is not None
        and any(lies_in(c, area) for c in located.candidates for area in areas)
    )


def _bare_ok(
    text: str,
    found: Sequence[ToponymMention],
    j: int,
    k: int,
    areas: tuple[Place, ...],
    lies_in: LiesIn,
) -> bool:
    """A bare region or raion name after a comma ("Vilkhivka, Kharkiv") locates the name
    before it when that name has a candidate inside, is not an item of a list, and the bare
    name ends the clause (no "and", no further place of a list after it)."""
    located, mention = found[j], found[k]
    if not any(lies_in(c, area) for c in located.candidates for area in areas):
        return False
    if j > 0 and _LIST_GAP.fullmatch(text[found[j - 1].end : located.start]):
        return False  # "Bucha, Irpin, Kyiv": a list
    end = _CLAUSE_END.match(text, mention.end)
    if end is None:
        return False
    if end.group().strip() == "," and k + 1 < len(found):
        following = found[k + 1]
        if _COMMA.fullmatch(text[mention.end : following.start]) and not readings_like(following):
            return False  # "Merefa, Kharkiv, Izium": a list
    return not _LIST_NEXT.match(text, mention.end)


def _region_list(text: str, found: Sequence[ToponymMention], k: int) -> bool:
    """Whether mention ``k`` is followed by "and" or "or" and another region: "Kharkiv Oblast
    and Sumy Oblast" is a list of regions, not a locator."""
    joined = _LIST_NEXT.match(text, found[k].end)
    if joined is None or k + 1 >= len(found):
        return False
    following = found[k + 1]
    return following.kind == "region" and not text[joined.end() : following.start].strip(" ,")


def readings_like(mention: ToponymMention) -> bool:
    """Whether a mention names an oblast or raion by its form (a region span)."""
    return mention.kind == "region"


def _explicit(mention: ToponymMention) -> bool:
    """Whether the mention carries a word saying it is an oblast or raion ("Kharkiv Oblast",
    "Oblast Donetsk", "Kupianskyi district"), or is one by its form (a region span)."""
    words = normalise_toponym(mention.text).split()
    return bool(words) and (
        words[-1] in _ADMIN_WORDS or words[0] in _ADMIN_WORDS or mention.kind == "region"
    )


def _district_like(text: str, mention: ToponymMention) -> bool:
    """Something a city locates: a city district or a site (by any of its readings), or a name
    with "district" in it or after it ("Kyiv's Obolon district")."""
    words = normalise_toponym(mention.text).split()
    after = _NEXT_WORD.match(text, mention.end)
    return (
        any(p.feature_kind in ("city_district", "feature") for p in mention.candidates)
        or bool(words and words[-1] in _DISTRICT_WORDS)
        or (after is not None and after.group(1).lower() in _DISTRICT_WORDS)
    )


def _inside_city(place: Place, city: Place) -> bool:
    """Whether a district or site lies inside a city (within their radii, plus 5 km)."""
    return distance_km(place, city) <= city.uncertainty_km + place.uncertainty_km + 5.0
