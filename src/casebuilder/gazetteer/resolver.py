"""The gazetteer object: looks toponyms up and resolves place queries to one place.

Part of the gazetteer, the reference layer below the stages. Extraction and the ``geocode``
command call :meth:`Gazetteer.resolve`, :meth:`Gazetteer.lookup`,
:meth:`Gazetteer.find_toponyms` and :meth:`Gazetteer.resolve_mentions`; the text scanner
(:mod:`.scanner`) reads the same name tables, and :mod:`.locators` links the names a text
attaches to a place name. A :class:`Gazetteer` is built once by
:func:`casebuilder.gazetteer.load_gazetteer` and passed to whoever needs it; it holds no global
state and is never changed after it is built (its only cache memoises a pure function), so one
object may serve many threads.

How a query such as ``"Chuhuiv, south of Kharkiv"``, ``"Merefa, Kharkivska, Ukraine"`` or
``"Vilkhivka, Kharkivskyi, Kharkiv"`` is resolved:

1. The query is split at commas into a head (the toponym) and qualifiers;
   ``PlaceContext.within`` (the locators a text attaches to the name) adds qualifiers. Words of
   relative position ("south of", "near", "vicinity", "outskirts of") and of place type
   ("village of", "city", "district") are dropped. A qualifier may name a country, a raion
   ("Kharkivskyi", "Kupianskyi district", "Kramatorsk raion"; it also names its oblast), a
   region (any spelling :class:`RegionMatcher` knows), or a settlement, which then serves as an
   anchor.
2. Candidates for the head are the places whose normalised name equals the head's ("exact"),
   else whose fold key does ("fold": romanisation variants); if none lies in a named region,
   names one or two letters apart in that region are tried ("fuzzy"). A head with "raion",
   "district" or "rayon" that names a raion prefers the raion ("Kharkivskyi district").
3. Disambiguation, in this order: a region named in the query keeps only its candidates, and
   a raion named in the query keeps those inside it (when none is, nearness to the raion
   counts instead); else a region or raion named beside the mention, in its own sentence or
   paragraph (``PlaceContext.local_admin1``), does the same when it keeps any, else one named
   elsewhere in the document (``PlaceContext.admin1``), unless a candidate lies within 30 km
   of a place named beside the mention (``PlaceContext.local_nearby``) and none inside does.
   Neither of these makes a well-known town a hamlet of its name (see :func:`_outranks`):
   a town of 10,000+ people whose own name is written exactly, an oblast's centre by any of
   its own names, or a city of 100,000+ people written in another of its own spellings
   ("Zaporizhia", "Kharkov", "Nikolaev"), comes before villages of that name wherever the
   document's places lie. Then nearness to
   the places named beside the mention, then to anchors and to the document's other places
   (bands of 30, 80 and 200 km); then a match on the
   place's own name before one on an alternate name GeoNames lists (a former name, the name
   of a merged village); then the kind of place (a located settlement, district or feature
   before a village placed coarsely from KATOTTG, before a region); then population; then the
   gazetteer id, so the answer never depends on chance.
4. When the name is found only outside the named region, the nearest town of 10,000+ people
   of that name within 150 km of the region's centre is taken (the region was misnamed:
   "Lysychansk, Donetsk Oblast"); a smaller place of that name elsewhere is taken for another
   place the data lacks, and the named raion, else the region, is returned instead (precision
   "region"). A square or district known only in other cities than the city named with it
   ("Svobody Square, Kherson") gives that city.
5. A name that many cities give to a square or district ("Svobody Square", "Tsentralnyi
   district"; see :func:`.scanner.generic_city_name`) whose every candidate lies far from the
   document's places (``PlaceContext.nearby``) is left unresolved rather than put in a city the
   document does not mention.

Countries: a query that is a country's name ("Russia", "Britain") resolves to the country
(precision "country"). Other places are looked for in the country the query names, else in
``PlaceContext.country`` (Ukraine by default); but when the query names no country, a large
city abroad (100,000+ people) of that very name outweighs villages of Ukraine that share it
("Kursk", "Belgorod"), and a region named in the query outweighs the country ("Sudzha, Kursk
Oblast").
"""

from __future__ import annotations

import functools
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from casebuilder.gazetteer.build import HOME_COUNTRY, NEIGHBOUR_COUNTRIES, GazetteerIndex, Region
from casebuilder.gazetteer.geo import distance_km, nearest_distance_km
from casebuilder.gazetteer.layout import mark_region_lists, with_layout
from casebuilder.gazetteer.locators import link_locators
from casebuilder.gazetteer.model import (
    Candidate,
    Place,
    PlaceContext,
    Resolution,
    ToponymMention,
)
from casebuilder.gazetteer.normalise import (
    edit_distance,
    fold_toponym,
    normalise_toponym,
    romanise_ukrainian,
)
from casebuilder.gazetteer.scanner import ToponymScanner, city_bound, generic_city_name

_REGION_WORDS = frozenset({
    "oblast", "oblasti", "obl", "region", "regione", "province", "provincia", "provinz",
    "governorate", "gubernia", "oblys", "krai", "kray", "the", "of",
})  # fmt: skip
_REGION_MARKERS = re.compile(r"\b(?:oblast|obl|region|province|governorate)\b", re.IGNORECASE)
_COUNTRY_CODES = {"ua": "UA", "ru": "RU", "by": "BY", "md": "MD", "pl": "PL", "ro": "RO",
                  "uk": "GB", "us": "US", "usa": "US"}  # fmt: skip
_RELATIVE = re.compile(
    r"\b(?:\d+(?:[.,]\d+)?\s*(?:km|kilometers|kilometres|miles?|mi)\s+)?"
    r"(?:(?:north|south|east|west|north-?east|north-?west|south-?east|south-?west)(?:ern)?"
    r"(?:\s+(?:part|outskirts|suburbs?))?(?:\s+(?:of|from))?"
    r"|(?:in\s+the\s+)?vicinity(?:\s+of)?|outskirts(?:\s+of)?|suburbs?(?:\s+of)?|environs(?:\s+of)?"
    r"|not\s+far\s+from|close\s+to|near(?:by)?|outside(?:\s+of)?|around|direction)\b",
    re.IGNORECASE,
)
_TYPE_PREFIX = re.compile(
    r"^(?:the\s+)?(?:(?:urban[- ]type\s+)?(?:village|town|city|settlement|hamlet|selo|"
    r"selyshche|smt|s|m|v)\.?\s+(?:of\s+)?)",
    re.IGNORECASE,
)
_TYPE_SUFFIX = re.compile(
    r"\s+(?:village|town|city|settlement|hromada|community|raion|rayon|district|microdistrict|"
    r"neighbou?rhood|quarter|area)$",
    re.IGNORECASE,
)
_KIND_RANK = {
    "settlement": 0, "feature": 0, "water_body": 0, "city_district": 1, "region": 3, "country": 4,
}  # fmt: skip
_RAION_WORDS = frozenset({"raion", "rayon", "district"})
_RAION_WORD = re.compile(r"\b(?:raion|rayon|district)\b", re.IGNORECASE)
_CITY_BOUND_KM = 25.0  # a square or district this far beyond a place's own radius is elsewhere
_BANDS_KM = (30.0, 80.0, 200.0)
_OUTSIDE_REGION_KM = 150.0
_WELL_KNOWN_POPULATION = 10_000  # the scanner's lower-case rule spares names of such towns
_PROMINENT_POPULATION = 100_000  # a foreign city this large competes with places in Ukraine
_SPELLING_SHARE = 0.3  # an alternate name this close to a place's own name is a spelling of it


@dataclass(frozen=True, slots=True)
class _Query:
    head: str
    qualifiers: tuple[str, ...]
    relative: bool = False  # "12 km north of Kharkiv": a position relative to the head


class RegionMatcher:
    """Recognises a region in any spelling: ``"Kharkiv oblast"``, ``"Oblast Charkov"``,
    ``"Kharkivs'ka"``, ``"Donestk Oblast"`` (a letter or two off)."""

    def __init__(self, regions: Sequence[Region]) -> None:
        self.regions = {r.name: r for r in regions}
        self._keys: dict[str, set[str]] = defaultdict(set)
        for region in regions:
            short = re.sub(r"\s+(?:Oblast|City)$", "", region.name)
            for spelling in (region.name, short, region.katottg,
                             romanise_ukrainian(region.katottg), *region.variants):  # fmt: skip
                key = self._key(spelling)
                if key:
                    self._keys[key].add(region.name)

    @staticmethod
    def _key(text: str) -> str:
        """The fold of ``text`` without the words that mark a region ("oblast", "region"),
        and without a misspelt "oblast" ("Obalst", "Olast") after the name."""
        words = [w for w in normalise_toponym(text).split() if w not in _REGION_WORDS]
        if (
            len(words) > 1
            and 4 <= len(words[-1]) <= 7
            and edit_distance(words[-1], "oblast", 2) <= 2
        ):
            words.pop()
        return fold_toponym(" ".join(words))

    def match(self, text: str, *, fuzzy: bool = True) -> frozenset[str]:
        """Region names (with the regions each one also covers) that ``text`` names; with
        ``fuzzy``, a spelling a letter or two off (one for short names) is accepted too."""
        key = self._key(text)
        if not key:
            return frozenset()
        found = self._keys.get(key)
        if not found and fuzzy and len(key) >= 5:
            limit = 1 if len(key) < 7 else 2
            scored = sorted((edit_distance(key, other, limit), other) for other in self._keys)
            if (
                scored
                and scored[0][0] <= limit
                and (
                    len(scored) == 1
                    or scored[1][0] > scored[0][0]
                    or self._keys[scored[1][1]] == self._keys[scored[0][1]]
                )
            ):
                found = self._keys[scored[0][1]]
        if not found:
            return frozenset()
        names = set(found)
        for name in found:
            names.update(self.regions[name].also)
        return frozenset(names)

    def centre(self, name: str) -> tuple[float, float]:
        region = self.regions[name]
        return (region.lat, region.lon)


class Gazetteer:
    """Look-up and resolution of place names, over one :class:`GazetteerIndex`."""

    def __init__(self, index: GazetteerIndex) -> None:
        self.index = index
        self.places: tuple[Place, ...] = tuple(index.places)
        self.regions = RegionMatcher(index.regions)
        exact: dict[str, set[int]] = defaultdict(set)
        fold: dict[str, set[int]] = defaultdict(set)
        by_region: dict[str, set[tuple[str, str, int]]] = defaultdict(set)
        self._names: dict[int, dict[str, str]] = defaultdict(dict)
        self._own_folds: dict[int, set[str]] = defaultdict(set)
        # own names of countries, regions, water bodies and towns of 10,000+ people: the
        # scanner takes them as places even where the text also writes them in lower case
        well_known: set[str] = set()
        for raw, key, folded, number, primary in index.names:
            exact[key].add(number)
            fold[folded].add(number)
            self._names[number].setdefault(key, raw)
            place = self.places[number]
            if primary:
                self._own_folds[number].add(folded)
                if _well_known(place) and (
                    place.country == HOME_COUNTRY or place.feature_kind != "settlement"
                ) and not place.is_raion:
                    well_known.add(key)
            if place.feature_kind in ("settlement", "city_district", "feature") and not (
                place.feature_kind == "city_district" and place.gazetteer_id.startswith("katottg:")
            ):  # a KATOTTG city district is an adjective: no name is a misspelling of it
                by_region[place.admin1 or place.country].add((key, folded, number))
        self._exact = {k: tuple(sorted(v)) for k, v in exact.items()}
        self._fold = {k: tuple(sorted(v)) for k, v in fold.items()}
        self._by_region = {region: tuple(sorted(rows)) for region, rows in by_region.items()}
        self.stoplist = index.stoplist
        self._region_places = {
            p.admin1: p for p in self.places if p.feature_kind == "region" and not p.is_raion
        }
        # the administrative centres of the oblasts (and Kyiv, Sevastopol): a name written as
        # one of their own is the centre, not a hamlet of that name (see _outranks)
        self._capitals = frozenset(
            place.gazetteer_id
            for region in index.regions
            if region.country == HOME_COUNTRY
            for place in self.places
            if place.feature_kind == "settlement"
            and place.precision == "settlement"
            and place.name == region.centre
            and distance_km(place, (region.lat, region.lon)) <= _CITY_BOUND_KM
        )
        self._countries: dict[str, Place] = {}
        self._country_keys: dict[str, str] = dict(_COUNTRY_CODES)
        for number, place in enumerate(self.places):
            if place.feature_kind == "country":
                self._countries.setdefault(place.country, place)
                for key in self._names[number]:
                    self._country_keys.setdefault(key, place.country)
        self._fold_of = functools.lru_cache(maxsize=1 << 16)(fold_toponym)
        # alternate names of towns abroad that GeoNames writes in Latin letters (the others
        # are romanised by the Ukrainian rules, which suit no foreign language)
        self._latin_alternates: frozenset[tuple[int, str]] = frozenset(
            (number, key)
            for raw, key, _folded, number, primary in index.names
            if not primary
            and self.places[number].country != HOME_COUNTRY
            and self.places[number].feature_kind == "settlement"
            and _latin(raw)
        )
        self.scanner = ToponymScanner(
            self._exact,
            self.places,
            self.stoplist,
            self._region_place,
            self._scan_rank,
            demonyms=index.demonyms,
            well_known=frozenset(well_known),
            folds=self._fold,
            fold_of=self._fold_of,
            own_name=lambda number, key: self._fold_of(key) in self._own_folds.get(number, ()),
            home=HOME_COUNTRY,
            neighbours=NEIGHBOUR_COUNTRIES,
            alias_ok=self._alias_ok,
        )

    def _alias_ok(self, number: int, key: str, written: str) -> bool:
        """Whether running text may name a town abroad by ``key``, one of its alternate names
        (see :meth:`.scanner.ToponymScanner._cued`): a well-known exonym or a spelling of its
        own name, not a common word, and written in the script GeoNames gives it in."""
        if key in self.stoplist:
            return False
        if _latin(written) and (number, key) not in self._latin_alternates:
            return False
        if (self.places[number].population or 0) >= _PROMINENT_POPULATION:
            return True
        folded = self._fold_of(key)
        limit = max(1, round(len(folded) * _SPELLING_SHARE))
        return any(
            edit_distance(folded, own, limit) <= limit for own in self._own_folds.get(number, ())
        )

    def _region_place(self, text: str) -> Place | None:
        regions = self.regions.match(text)
        if not regions:
            return None
        return self._region_places.get(_primary(regions))

    def _scan_rank(self, number: int, key: str) -> tuple[int | str, ...]:
        place = self.places[number]
        return (
            0 if self._fold_of(key) in self._own_folds.get(number, ()) else 1,
            0 if place.feature_kind == "country" else 1,
            0 if place.country == HOME_COUNTRY or _prominent(place) else 1,
            _kind_rank(place, ()),
            -(place.population or 0),
            place.gazetteer_id,
        )

    def find_toponyms(self, text: str) -> list[ToponymMention]:
        """Spans of ``text`` that name places, each with its candidates (most likely first:
        see :mod:`casebuilder.gazetteer.scanner`). ``mention.kind`` tells a country, region
        (oblast or raion), settlement, city district, site or water body apart, and
        ``mention.locates`` marks a name that only locates another one ("Kharkiv" in
        "Vilkhivka (Kharkivskyi, Kharkiv)"; see :mod:`casebuilder.gazetteer.locators`).

        Across the whole text: a square or district whose name many cities share ("Svobody
        Square", "Tsentralnyi district") is left out when the text names towns and it lies in
        none of them, and otherwise lists the candidates in the towns named first; a raion's
        bare adjective ("Kharkivskyi") counts only as a locator; every item of a list of
        regions ("the Kyiv, Cherkasy and Zhytomyr regions", "the regions of Kyiv and
        Chernihiv") is the oblast. Each mention carries its sentence and paragraph, and
        ``dateline`` for the name of a dateline ("KYIV —"; see :mod:`.layout`)."""
        mentions = self._in_named_towns(self.scanner.find(text))
        mentions = mark_region_lists(text, mentions, self._oblast_of)
        mentions = link_locators(text, mentions, self._readings, self._lies_in)
        return with_layout(text, _without_bare_raions(mentions))

    def resolve_mentions(
        self, mentions: Sequence[ToponymMention], context: PlaceContext | None = None
    ) -> list[Resolution]:
        """Resolve every mention of one document, as :meth:`find_toponyms` returned them, in
        order; one Resolution per mention (its place None where nothing fits).

        Each mention is resolved with the names that locate it as ``PlaceContext.within`` (an
        oblast or raion by its full name: "Donetsk" in "Mykolaivka, Donetsk" is passed as
        "Donetsk Oblast"), the regions and raions the document names (``context.admin1`` and
        every region or raion mention, locators included) as ``admin1``, and the places
        already resolved as ``nearby`` (after ``context.nearby``). Local context weighs first
        (see :attr:`ToponymMention.sentence`): the regions and raions named in the mention's
        own sentence, else its own paragraph or record, as ``local_admin1`` when one of its
        candidates lies in them ("Province: Zaporizhzhia Oblast. Town/city: Zaporizhia."), and
        the other places of its paragraph, those named after it included, as
        ``local_nearby``. A dateline is no local context. Names with a single
        candidate are resolved too, so that a locator can overrule a lone candidate elsewhere
        ("Xivka, Kherson Oblast" gives Kherson Oblast when the only Xivka known is a village
        of Odesa Oblast). A Resolution whose place is None (a square of a city the document
        does not name) means the name is not to be placed. A locator resolves
        to its own first candidate (the oblast or raion it names, or the city of a district),
        with a reason saying which mention it locates. Countries, regions and water bodies the
        scanner found are taken as they are."""
        context = context or PlaceContext()
        within: dict[int, list[str]] = defaultdict(list)
        for mention in mentions:
            if mention.locates is not None:
                # an oblast or raion by its full name ("Donetsk" of "Mykolaivka, Donetsk" is
                # Donetsk Oblast, not also the city of Donetsk nearby), a city as written
                area = mention.kind == "region"
                within[mention.locates].append(mention.place.name if area else mention.text)
        named = [(m, m.place.name) for m in mentions if m.kind == "region"]
        regions = tuple(context.admin1) + tuple(name for _m, name in named)
        nearby = list(context.nearby)
        # places resolved so far in each paragraph (datelines left out: they say where the
        # report was filed, not where its paragraph's events happened)
        nearby_in: dict[int, list[tuple[int, tuple[float, float]]]] = defaultdict(list)
        asked: dict[int, PlaceContext] = {}  # the context each mention was resolved with
        cache: dict[tuple[object, ...], Resolution] = {}
        results: list[Resolution] = []
        for number, mention in enumerate(mentions):
            if mention.locates is not None:
                place = mention.place
                located = mentions[mention.locates].text
                results.append(Resolution(mention.text, place, mention.text, (),
                                          f"locates {located!r}"))  # fmt: skip
                if city_bound(mentions[mention.locates].place) and not _coarse(place):
                    nearby.append(place.coordinates)
                    if mention.paragraph >= 0:
                        nearby_in[mention.paragraph].append((number, place.coordinates))
                continue
            if mention.kind in ("country", "water_body") or (
                mention.kind == "region" and not mention.place.is_raion
            ):
                results.append(Resolution(mention.text, mention.place, mention.text, (),
                                          "named as such in the text"))  # fmt: skip
                continue
            local_nearby = tuple(c for _n, c in nearby_in[mention.paragraph])
            asked[number] = PlaceContext(
                admin1=regions, nearby=tuple(nearby), country=context.country,
                within=tuple(within[number]), local_admin1=self._local_regions(mention, named),
                local_nearby=local_nearby if mention.paragraph >= 0 else (),
            )  # fmt: skip
            resolution = self._resolve_cached(mention.text, asked[number], cache)
            results.append(resolution)
            if resolution.place is not None and not _coarse(resolution.place):
                nearby.append(resolution.place.coordinates)
                if mention.paragraph >= 0 and not mention.dateline:
                    nearby_in[mention.paragraph].append((number, resolution.place.coordinates))
        # once more with every other place of the paragraph, those named after it too
        # ("Kamianske and Stepnohirsk near Orikhiv")
        for number, first in asked.items():
            mention = mentions[number]
            if mention.paragraph < 0 or mention.dateline:
                continue
            local_nearby = tuple(
                c for n, c in nearby_in[mention.paragraph]
                if n != number and mentions[n].text != mention.text
            )  # fmt: skip
            if set(local_nearby) != set(first.local_nearby):
                results[number] = self._resolve_cached(
                    mention.text, replace(first, local_nearby=local_nearby), cache
                )
        return _one_sense_per_document(mentions, results, asked)

    def _resolve_cached(
        self, text: str, context: PlaceContext, cache: dict[tuple[object, ...], Resolution]
    ) -> Resolution:
        key = (text, context.within, context.local_admin1, context.local_nearby)
        resolution = cache.get(key)
        if resolution is None:
            resolution = cache[key] = self.resolve(text, context)
        return resolution

    def _local_regions(
        self, mention: ToponymMention, named: Sequence[tuple[ToponymMention, str]]
    ) -> tuple[str, ...]:
        """The regions and raions named in the mention's own sentence when one of its
        candidates lies in one of them, else those of its own paragraph (or record) when one
        does; none otherwise, or when the mention's place in the text is unknown. Datelines
        are not local context."""
        if mention.paragraph < 0 or mention.dateline:
            return ()
        here = [(m, name) for m, name in named
                if m.paragraph == mention.paragraph and not m.dateline]  # fmt: skip
        for scope in ([(m, n) for m, n in here if m.sentence == mention.sentence], here):
            areas = [m.place for m, _name in scope]
            if any(self._lies_in(c, area) for c in mention.candidates for area in areas):
                return tuple(name for _m, name in scope)
        return ()

    def _in_named_towns(self, mentions: list[ToponymMention]) -> list[ToponymMention]:
        """Leave out a generic square or district that lies in none of the towns the text
        names; list the candidates in named towns first (see :meth:`find_toponyms`)."""
        towns = [m.place for m in mentions if m.kind == "settlement"]
        if not towns:
            return mentions
        kept: list[ToponymMention] = []
        for mention in mentions:
            if generic_city_name(mention.text, mention.candidates):
                def gap(place: Place) -> float:
                    return min(
                        distance_km(place, town) - town.uncertainty_km - place.uncertainty_km
                        for town in towns
                    )

                if min(gap(p) for p in mention.candidates) > 5.0:
                    continue
                ordered = sorted(mention.candidates, key=lambda p: gap(p) > 5.0)
                mention = ToponymMention(mention.start, mention.end, mention.text,
                                         tuple(ordered), mention.locates)  # fmt: skip
            kept.append(mention)
        return kept

    def _oblast_of(self, mention: ToponymMention) -> Place | None:
        """The first-level region a bare name names ("Kyiv" -> Kyiv Oblast), if any."""
        regions = self.regions.match(mention.text, fuzzy=False)
        return self._region_places.get(_primary(regions)) if regions else None

    def _readings(self, mention: ToponymMention) -> tuple[Place, ...]:
        """The oblasts and raions a mention may name (see :mod:`.locators`)."""
        areas: list[Place] = []
        regions = self.regions.match(mention.text, fuzzy=False)
        if regions:  # "Kyiv" as a locator is Kyiv Oblast, as ACLED writes it
            areas.append(self._region_places[_primary(regions)])
        areas += [p for p in mention.candidates if p.feature_kind == "region" and p not in areas]
        return tuple(areas)

    def _lies_in(self, place: Place, area: Place) -> bool:
        """Whether ``place`` lies in the oblast or raion ``area``."""
        if area.is_raion:
            return _in_raion(place, [area])
        return place.admin1 in self.regions.match(area.admin1, fuzzy=False)

    def country(self, code: str) -> Place | None:
        """The country place for an ISO 3166-1 alpha-2 code (``"RU"``), None if unknown."""
        return self._countries.get(code.upper())

    def country_of(self, place: Place | ToponymMention) -> Place | None:
        """The country a place (or the most likely place of a mention) lies in, as a place of
        precision ``country``; None for international waters. Places in occupied territory
        are in Ukraine (see :class:`Place`)."""
        if isinstance(place, ToponymMention):
            place = place.place
        return self._countries.get(place.country)

    # --- look-up ---------------------------------------------------------------------------

    def names_index(self) -> dict[str, tuple[int, ...]]:
        """Normalised name -> place numbers (for the text scanner)."""
        return self._exact

    def lookup(self, name: str) -> list[Place]:
        """Every place known by ``name``, in any spelling the normalisation and the fold key
        merge, most likely first (located before coarse, then by population)."""
        return [c.place for c in self._rank_plain(self._candidates(name))]

    def _candidates(self, name: str) -> list[Candidate]:
        key = normalise_toponym(name)
        if not key:
            return []
        folded = fold_toponym(key)
        found: dict[int, Candidate] = {}
        for number in self._exact.get(key, ()):
            found[number] = self._candidate(number, self._names[number][key], "exact", folded)
        for number in self._fold.get(folded, ()):
            if number not in found:
                found[number] = self._candidate(
                    number, self._matched_name(number, folded), "fold", folded
                )
        return list(found.values())

    def _candidate(
        self, number: int, matched: str, match: Literal["exact", "fold", "fuzzy"], folded: str
    ) -> Candidate:
        alternate = folded not in self._own_folds.get(number, ())
        return Candidate(self.places[number], matched, match, alternate)

    def _matched_name(self, number: int, folded: str) -> str:
        for key, raw in self._names[number].items():
            if fold_toponym(key) == folded:
                return raw
        return self.places[number].name

    def _fuzzy(self, name: str, regions: Iterable[str]) -> list[Candidate]:
        """Places in ``regions`` whose name is one edit away (two, for long names), compared
        both as normalised and as folded keys."""
        key = normalise_toponym(name)
        folded = fold_toponym(key)
        if len(folded) < 5:
            return []
        limit = 1 if len(folded) < 9 else 2
        best = limit + 1
        found: list[tuple[int, str, str]] = []
        for region in sorted(set(regions)):
            for other_key, other_fold, number in self._by_region.get(region, ()):
                if (
                    abs(len(other_fold) - len(folded)) > limit
                    and abs(len(other_key) - len(key)) > limit
                ):
                    continue
                distance = min(
                    edit_distance(key, other_key, limit),
                    edit_distance(folded, other_fold, limit),
                )
                if distance < best:
                    best, found = distance, []
                if distance == best:
                    found.append((number, other_key, other_fold))
        if best > limit:
            return []
        unique: dict[int, Candidate] = {}
        for number, other_key, other_fold in found:
            candidate = self._candidate(number, self._names[number][other_key], "fuzzy", other_fold)
            if number not in unique or (unique[number].alternate and not candidate.alternate):
                unique[number] = candidate
        return list(unique.values())

    @staticmethod
    def _rank_plain(candidates: Iterable[Candidate]) -> list[Candidate]:
        return sorted(candidates, key=lambda c: (c.alternate, _kind_rank(c.place, ()),
                                                 -(c.place.population or 0),
                                                 c.place.gazetteer_id))  # fmt: skip

    # --- resolution ------------------------------------------------------------------------

    def resolve(self, query: str, context: PlaceContext | None = None) -> Resolution:
        """The most likely place for ``query`` (see the module doc), or a Resolution whose
        place is None when nothing matches; the query's head is then kept as matched_name.

        ``context.within`` (the locators the text attaches to this mention) counts like the
        query's own qualifiers; ``context.admin1`` and ``context.nearby`` (the rest of the
        document) only choose among candidates."""
        context = context or PlaceContext()
        parsed = _parse(query)
        located = (_RELATIVE.sub(" ", q).strip() for q in context.within)
        qualifiers = parsed.qualifiers + tuple(q for q in located if q)
        country = context.country
        country_named = False
        named_regions: set[str] = set()
        named_raions: list[Place] = []
        anchors: list[tuple[float, float]] = []
        anchor_places: list[Place] = []
        for qualifier in qualifiers:
            words = normalise_toponym(qualifier)
            if words in self._country_keys:
                country, country_named = self._country_keys[words], True
                continue
            raions = self._raions(qualifier)
            if raions:
                named_raions += raions
                continue
            regions = self.regions.match(qualifier)
            named_regions |= regions
            if _REGION_MARKERS.search(qualifier):
                continue
            city = self._anchor(qualifier, regions)
            if city is not None:
                anchor_places.append(city)
                anchors.append(city.coordinates)
                if not regions:
                    named_regions |= self.regions.match(city.admin1) if city.admin1 else set()
        if named_raions:
            # a raion names its oblast; of raions named with an oblast, those inside it
            if named_regions:
                in_oblast = [r for r in named_raions if r.admin1 in named_regions]
                named_raions = in_oblast or named_raions
            for raion in named_raions:
                named_regions |= self.regions.match(raion.admin1)
        document_regions, document_raions = self._areas(context.admin1)
        local_regions, local_raions = self._areas(context.local_admin1)
        anchors.extend(context.nearby)
        local_anchors = list(context.local_nearby)

        head = parsed.head
        if not head:
            if anchor_places:
                return Resolution(query, anchor_places[0], anchor_places[0].name, (),
                                  "only a position relative to this place is given")  # fmt: skip
            if named_raions:
                return self._area_resolution(query, named_raions, "only a raion is given")
            if named_regions:
                return self._region_resolution(query, named_regions, "only a region is given")
            return Resolution(query, None, "", (), "no place name in the query")

        marked = _REGION_MARKERS.search(head) is not None
        if marked or not self._candidates(head):
            regions = self.regions.match(head, fuzzy=marked)
            if regions:
                return self._region_resolution(query, regions, "the query names a region")

        named_country = self._countries.get(self._country_keys.get(normalise_toponym(head), ""))
        if named_country is not None and not named_regions:
            return Resolution(query, named_country, head, (),
                              f"the query names a country; placed at the "
                              f"{named_country.placed_at}")  # fmt: skip

        if not self._candidates(head):
            # "Snake Island/Bile", "Snake Island-Zmiinyi", "Lyman (-ish)": take the first part
            # that is a known name
            head = next((part for part in _parts(head) if self._candidates(part)), head)
        candidates = self._candidates(head)
        # "Kharkivskyi district", "Bakhmut raion": the raion before a city district or town
        raion_first = _RAION_WORD.search(head) is not None and any(
            c.place.is_raion for c in candidates
        )
        stripped = _strip_type_words(head)
        if stripped != head:
            candidates += [c for c in self._candidates(stripped) if c not in candidates]
        candidates = [c for c in candidates if c.place.feature_kind != "country"]
        everywhere = candidates
        in_country = [c for c in candidates if c.place.country == country]
        if in_country and (country_named or not _prominent_abroad(candidates, country)):
            candidates = in_country

        head_key = normalise_toponym(stripped if stripped else head)

        def rank(found: Iterable[Candidate]) -> list[Candidate]:
            return self._rank(found, anchors, anchor_places, raion_first=raion_first,
                              local=local_anchors, head_key=head_key)  # fmt: skip

        reasons: list[str] = []
        pool = candidates
        if named_regions:
            # a region named in the query outweighs the country: "Sudzha, Kursk Oblast, Ukraine"
            inside = [c for c in everywhere if c.place.admin1 in named_regions]
            if not inside:
                inside = self._fuzzy(stripped, named_regions)
                if inside:
                    reasons.append("spelling one or two letters off")
            region_label = _label(named_regions)
            if inside:
                pool = inside
                reasons.append(f"region named with it ({region_label})")
            else:
                if anchor_places and candidates and all(
                    _city_bound(c.place) for c in candidates
                ):
                    # "Svobody Square, Kherson": a square of another city is not this one
                    city = anchor_places[0]
                    return Resolution(
                        query, city, city.name, tuple(rank(candidates)),
                        f"{stripped!r} is known only in other cities; placed at {city.name}, "
                        "the city named with it",
                    )  # fmt: skip
                # A town of 10,000+ people just outside the named region is meant ("Lysychansk,
                # Donetsk Oblast"); a smaller place of that name elsewhere is more likely
                # another one the data lacks, so the region (or raion) is taken instead.
                near = sorted(
                    (min(distance_km(c.place, self.regions.centre(r)) for r in named_regions), c)
                    for c in candidates
                    if _well_known(c.place)
                )
                near = [(d, c) for d, c in near if d <= _OUTSIDE_REGION_KM]
                if not near:
                    why = f"{stripped!r} not found in {region_label}"
                    if candidates:
                        why += " (only a smaller place of that name elsewhere)"
                    if named_raions:
                        return self._area_resolution(
                            query, named_raions, why, tuple(rank(candidates))
                        )
                    return self._region_resolution(
                        query, named_regions, why, tuple(rank(candidates))
                    )
                pool = [near[0][1]]
                reasons.append(f"not found in {region_label}; nearest town of that name")
            if named_raions and pool is inside:
                in_raion = [c for c in pool if _in_raion(c.place, named_raions)]
                raion_label = ", ".join(r.name for r in named_raions)
                if in_raion:
                    pool = in_raion
                    reasons.append(f"raion named ({raion_label})")
                elif not any(c.place.is_raion for c in pool):
                    anchors.extend(r.coordinates for r in named_raions)
                    reasons.append(f"none in {raion_label}; nearest to it")
        else:
            # a region named in the mention's own sentence or paragraph before one named
            # elsewhere in the document; neither makes a well-known town a hamlet of its name
            for where, areas, raions in (
                ("beside it", local_regions, local_raions),
                ("in the document", document_regions, document_raions),
            ):
                inside = [c for c in candidates if c.place.admin1 in areas]
                if raions:
                    in_raion = [c for c in inside if _in_raion(c.place, raions)]
                    if in_raion and len(in_raion) < len(inside):
                        inside = in_raion
                if not inside:
                    continue
                if areas is document_regions and local_anchors:
                    close = [
                        c for c in candidates
                        if nearest_distance_km(c.place, local_anchors) <= _BANDS_KM[0]
                    ]  # fmt: skip
                    if close and not any(c in inside for c in close):
                        reasons.append("nearer to the places named beside it than to the "
                                       "region named elsewhere in the document")  # fmt: skip
                        break
                near_anchor = bool(local_anchors) and any(
                    nearest_distance_km(c.place, local_anchors) <= _BANDS_KM[0]
                    for c in inside)
                # ("the nearby village of Rivne in Ukraine's Donetsk region", beside Pokrovsk:
                # the region and the place named with it agree, whatever city shares the name)
                if not near_anchor and \
                        self._outweighed(inside, candidates, head_key, self._capitals):
                    reasons.append(f"a well-known place of this name outweighs the smaller "
                                   f"ones in the region named {where}")  # fmt: skip
                    break
                pool = inside
                names = {c.place.admin1 for c in inside} - {r.admin1 for r in raions}
                reasons.append(f"region named {where} "
                               f"({_label([*names, *(r.name for r in raions)])})")  # fmt: skip
                break
        if named_regions and not named_raions:
            for where, raions in (
                ("beside it", local_raions),
                ("in the document", document_raions),
            ):
                in_raion = [c for c in pool if _in_raion(c.place, raions)] if raions else []
                if in_raion and len(in_raion) < len(pool):
                    pool = in_raion
                    reasons.append(f"raion named {where} ({', '.join(r.name for r in raions)})")
                    break
        if not pool:
            pool = self._fuzzy(stripped, [country]) if not candidates else []
            if not pool:
                return Resolution(query, None, stripped, (), "name not in the gazetteer")
            reasons.append("spelling one letter off")

        ranked = rank(pool)
        best = ranked[0]
        if anchors and not anchor_places and _generic_city_name(best.matched_name, ranked):
            # a square or district of a city that no place near the document is in
            near_any = [
                c for c in ranked
                if nearest_distance_km(c.place, anchors) <= _CITY_BOUND_KM + c.place.uncertainty_km
            ]  # fmt: skip
            if not near_any:
                return Resolution(
                    query, None, stripped, tuple(ranked),
                    "a name many cities share, known only far from the document's places",
                )  # fmt: skip
        why = self._why(best, ranked, anchors, anchor_places, local_anchors, head_key,
                        self._capitals)
        reasons.append(why)
        undecided = tuple(c.place for c in _tied(best, ranked, anchor_places)
                          if c.place != best.place) if why.startswith("ambiguous") else ()
        if parsed.relative:
            reasons.append("the query gives a position relative to this place")
        if best.place.placed_at:
            reasons.append(f"placed at the {best.place.placed_at}")
        others = [c for c in rank(candidates) if c not in ranked]
        return Resolution(
            query, best.place, best.matched_name, tuple(ranked + others), "; ".join(reasons),
            undecided,
        )

    def _areas(self, names: Iterable[str]) -> tuple[set[str], list[Place]]:
        """The regions (with the oblasts of raions) and the raions that ``names`` name."""
        regions: set[str] = set()
        raions: list[Place] = []
        for name in names:
            found = self._raions(name)
            if found:
                raions += found
                for raion in found:
                    regions |= self.regions.match(raion.admin1)
            else:
                regions |= self.regions.match(name)
        return regions, raions

    @staticmethod
    def _outweighed(
        inside: Sequence[Candidate],
        candidates: Sequence[Candidate],
        head_key: str,
        capitals: frozenset[str],
    ) -> bool:
        """Whether a candidate outside ``inside`` outranks every one in it (see
        :func:`_outranks`), so that a region named in the document does not choose among
        ``inside`` alone."""
        return any(
            all(_outranks(big, small, head_key, capitals) for small in inside)
            for big in candidates
            if big not in inside
        )

    def _raions(self, text: str) -> list[Place]:
        """The raions ``text`` names exactly or up to romanisation ("Kharkivskyi",
        "Kharkivs'kyi raion", "Kramatorsk district"), none for a misspelling."""
        key = normalise_toponym(text)
        if not key:
            return []
        found = {c.place for c in self._candidates(key) if c.place.is_raion}
        return sorted(found, key=lambda p: p.gazetteer_id)

    def _area_resolution(
        self,
        query: str,
        raions: Sequence[Place],
        why: str,
        candidates: tuple[Candidate, ...] = (),
    ) -> Resolution:
        place = raions[0]
        return Resolution(query, place, place.name, candidates,
                          f"{why}; placed at the {place.placed_at}")  # fmt: skip

    def _anchor(self, qualifier: str, regions: frozenset[str]) -> Place | None:
        """The settlement a qualifier names (``"Kharkiv"`` in ``"Chuhuiv, south of Kharkiv"``),
        the largest of that name (inside ``regions`` when the qualifier also names regions)."""
        found = [
            c for c in self._candidates(_strip_type_words(qualifier))
            if c.place.feature_kind in ("settlement", "city_district")
            and c.place.precision in ("settlement", "district")
        ]  # fmt: skip
        if regions:
            found = [c for c in found if c.place.admin1 in regions]
        ranked = self._rank_plain(found)
        return ranked[0].place if ranked else None

    def _rank(
        self,
        candidates: Iterable[Candidate],
        anchors: Sequence[tuple[float, float]],
        anchor_places: Sequence[Place],
        *,
        raion_first: bool = False,
        local: Sequence[tuple[float, float]] = (),
        head_key: str = "",
    ) -> list[Candidate]:
        unique: dict[str, Candidate] = {}
        for candidate in candidates:
            unique.setdefault(candidate.place.gazetteer_id, candidate)
        found = list(unique.values())
        big = [c for c in found if _big_city(c)] if head_key else []

        def key(candidate: Candidate) -> tuple[int, int, int, int, int, int, int, str]:
            place = candidate.place
            return (
                1 if candidate.match == "fuzzy" else 0,
                1 if any(_outranks(b, candidate, head_key, self._capitals) for b in big) else 0,
                _band(nearest_distance_km(place, local)) if local else 0,
                _band(nearest_distance_km(place, anchors)) if anchors else 0,
                1 if candidate.alternate else 0,
                -1 if raion_first and place.is_raion else _kind_rank(place, anchor_places),
                -(place.population or 0),
                place.gazetteer_id,
            )

        return sorted(found, key=key)

    @staticmethod
    def _why(
        best: Candidate,
        ranked: Sequence[Candidate],
        anchors: Sequence[tuple[float, float]],
        anchor_places: Sequence[Place],
        local: Sequence[tuple[float, float]] = (),
        head_key: str = "",
        capitals: frozenset[str] = frozenset(),
    ) -> str:
        if len(ranked) == 1:
            return "only candidate"
        runner = ranked[1]
        if best.place.is_raion and not runner.place.is_raion and not anchors:
            return f"{len(ranked)} candidates; the query names a raion"
        if head_key and any(_outranks(best, c, head_key, capitals) for c in ranked[1:]):
            return (f"{len(ranked)} candidates; a town of {best.place.population:,} people "
                    "before hamlets of its name")  # fmt: skip
        if local:
            bands = [_band(nearest_distance_km(c.place, local)) for c in ranked]
            if bands[0] < max(bands):
                distance = nearest_distance_km(best.place, local)
                return f"nearest to the places named beside it ({distance:.0f} km)"
        if anchors:
            bands = [_band(nearest_distance_km(c.place, anchors)) for c in ranked]
            if bands[0] < max(bands):
                what = ", ".join(p.name for p in anchor_places) or "other places in the document"
                distance = nearest_distance_km(best.place, anchors)
                return f"nearest to {what} ({distance:.0f} km)"
        if runner.alternate and not best.alternate:
            return f"{len(ranked)} candidates; the only one with this name as its own"
        if _kind_rank(best.place, anchor_places) < _kind_rank(runner.place, anchor_places):
            return f"{len(ranked)} candidates; the best-located kind of place"
        if (best.place.population or 0) > (runner.place.population or 0):
            return f"{len(ranked)} candidates; largest population ({best.place.population:,})"
        tied = len(_tied(best, ranked, anchor_places))
        return f"ambiguous: {tied} candidates equally likely, first by gazetteer id taken"

    def _region_resolution(
        self,
        query: str,
        regions: Iterable[str],
        why: str,
        candidates: tuple[Candidate, ...] = (),
    ) -> Resolution:
        place = self._region_places[_primary(regions)]
        return Resolution(query, place, place.name, candidates,
                          f"{why}; placed at the {place.placed_at}")  # fmt: skip


def _coarse(place: Place) -> bool:
    return place.feature_kind not in ("settlement", "city_district", "feature")


def _city_bound(place: Place) -> bool:
    return city_bound(place)


def _generic_city_name(name: str, candidates: Sequence[Candidate]) -> bool:
    return generic_city_name(name, [c.place for c in candidates])


def _in_raion(place: Place, raions: Sequence[Place]) -> bool:
    """Whether ``place`` lies in one of ``raions``: KATOTTG lists it there (its ``parent``
    names the raion), or, for a place KATOTTG does not list, it lies within the raion's
    radius of the raion's middle."""
    for raion in raions:
        if place == raion:
            return True
        if place.admin1 != raion.admin1:
            continue
        units = place.parent.split(", ") if place.parent else []
        if raion.name in units:
            return True
        if not any(unit.endswith(" raion") for unit in units) and (
            distance_km(place, raion) <= raion.uncertainty_km
        ):
            return True
    return False


def _without_bare_raions(mentions: list[ToponymMention]) -> list[ToponymMention]:
    """The mentions without raion readings of a bare adjective ("Kharkivskyi") that locates
    nothing; a mention that is foremost a raion's name is dropped (and the locators
    renumbered)."""
    kept: list[ToponymMention] = []
    renumber: dict[int, int] = {}
    for number, mention in enumerate(mentions):
        if mention.locates is None and _RAION_WORD.search(mention.text) is None:
            if mention.place.is_raion:
                continue  # the name is foremost a raion's (other readings only up to the fold)
            candidates = tuple(p for p in mention.candidates if not p.is_raion)
            if len(candidates) < len(mention.candidates):
                mention = ToponymMention(mention.start, mention.end, mention.text, candidates)
        renumber[number] = len(kept)
        kept.append(mention)
    return [
        m if m.locates is None else ToponymMention(
            m.start, m.end, m.text, m.candidates, renumber.get(m.locates)
        )
        for m in kept
    ]  # fmt: skip


def _latin(text: str) -> bool:
    """Whether every letter of ``text`` is a Latin one (with diacritics)."""
    return all(
        ord(ch) < 0x250 or 0x1E00 <= ord(ch) < 0x1F00 for ch in text if ch.isalpha()
    )


def _big_city(candidate: Candidate) -> bool:
    """A located town of 10,000+ people of the home country, matched on its name or a
    spelling of it (not one or two letters off): one that may outrank hamlets of its name."""
    place = candidate.place
    return (
        candidate.match != "fuzzy"
        and place.feature_kind == "settlement"
        and place.precision == "settlement"
        and place.country == HOME_COUNTRY
        and (place.population or 0) >= _WELL_KNOWN_POPULATION
    )


def _outranks(
    big: Candidate, small: Candidate, head_key: str, capitals: frozenset[str] = frozenset()
) -> bool:
    """Whether ``big`` is meant rather than ``small`` wherever the document's other places
    lie: ``small`` is a hamlet or village (under 10,000 people, or placed only by KATOTTG)
    and ``big`` either a town of 10,000+ people whose own name is written exactly while
    ``small`` matches only up to romanisation or by an alternate name ("Sumy", not a Shumy),
    or the administrative centre of an oblast (one of ``capitals``, by gazetteer id) or a
    city of 100,000+ people written in one of its own spellings that is not its official
    name ("Zaporizhia", "Kharkov", "Nikolaev", "Kiev"; not an alternate name such as that of a
    village merged into it), which hamlets of that name do not outweigh even when spelt so
    exactly. Another city's official name written exactly ("Kamianske") decides nothing:
    nearness then chooses, as a village of that name near the front is as likely as the
    city."""
    if big is small or not _big_city(big):
        return False
    if (small.place.population or 0) >= _WELL_KNOWN_POPULATION or (
        small.place.feature_kind not in ("settlement", "city_district")
    ):
        return False
    if big.match == "exact" and not big.alternate and (small.match != "exact" or small.alternate):
        return True
    if big.alternate:
        return False  # an alternate name may be another place's ("Oleksandrivka" in Donetsk)
    if big.place.gazetteer_id in capitals:
        return True
    if (big.place.population or 0) < _PROMINENT_POPULATION:
        return False
    official = {normalise_toponym(big.place.name), normalise_toponym(big.place.local_name)}
    return head_key not in official


def _well_known(place: Place) -> bool:
    return (
        place.feature_kind in ("country", "region", "water_body")
        or (place.population or 0) >= _WELL_KNOWN_POPULATION
    )


def _prominent(place: Place) -> bool:
    """A country, or a city large enough to be meant even where a village of Ukraine shares
    its name (Kursk, Belgorod, Minsk)."""
    return place.feature_kind == "country" or (place.population or 0) >= _PROMINENT_POPULATION


def _prominent_abroad(candidates: Sequence[Candidate], country: str) -> bool:
    """Whether a large place abroad of this very name outweighs the home country's candidates,
    which all either are small (under 10,000 people) or have the name only as an alternate."""
    if not any(
        c.place.country != country
        and not c.alternate
        and c.match != "fuzzy"
        and _prominent(c.place)
        for c in candidates
    ):
        return False
    return all(
        c.alternate or (c.place.population or 0) < _WELL_KNOWN_POPULATION
        for c in candidates
        if c.place.country == country
    )


def _parse(query: str) -> _Query:
    parts = [p.strip() for p in query.split(",")]
    head = parts[0] if parts else ""
    qualifiers: list[str] = []
    relation = _RELATIVE.search(head)
    relative = False
    if relation:
        before, after = head[: relation.start()].strip(), head[relation.end() :].strip()
        head = before or after
        relative = not before
        if before and after:
            qualifiers.append(after)
    for part in parts[1:]:
        cleaned = _RELATIVE.sub(" ", part).strip()
        if cleaned:
            qualifiers.append(cleaned)
    return _Query(head.strip(" .;:()[]\"'"), tuple(qualifiers), relative)


def _parts(head: str) -> list[str]:
    """Parts of a head that is not a name as a whole: without a parenthesis, then split at
    slashes, dashes and parentheses, then at hyphens."""
    parts = [re.sub(r"\([^)]*\)?", " ", head).strip()]
    parts += re.split(r"\s*(?:/|\s-\s|[()])\s*", head)
    parts += head.split("-")
    return [part.strip() for part in parts if part.strip() and part.strip() != head]


def _strip_type_words(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = _TYPE_SUFFIX.sub("", _TYPE_PREFIX.sub("", text.strip())).strip()
    return text or previous or ""


def _band(distance: float) -> int:
    if math.isinf(distance):
        return len(_BANDS_KM)
    return next((i for i, limit in enumerate(_BANDS_KM) if distance <= limit), len(_BANDS_KM))


def _kind_rank(place: Place, anchor_places: Sequence[Place]) -> int:
    if place.feature_kind == "settlement" and place.precision != "settlement":
        return 2  # a village placed coarsely from KATOTTG
    if place.feature_kind == "city_district" and any(
        place.parent == a.name or place.parent == a.parent for a in anchor_places
    ):
        return 0
    return _KIND_RANK[place.feature_kind]


def _primary(regions: Iterable[str]) -> str:
    """Of regions named together (Kyiv Oblast with Kyiv City), the oblast."""
    names = sorted(regions)
    return next((n for n in names if n.endswith("Oblast") or n == "Crimea"), names[0])


def _label(regions: Iterable[str]) -> str:
    return " / ".join(sorted(regions))


def _tied(best: Candidate, ranked: Sequence[Candidate], anchor_places: Sequence[Place]
          ) -> list[Candidate]:
    """The candidates nothing tells apart from ``best`` (itself included)."""
    return [
        c for c in ranked
        if c.alternate == best.alternate
        and _kind_rank(c.place, anchor_places) == _kind_rank(best.place, anchor_places)
        and (c.place.population or 0) == (best.place.population or 0)
    ]


def _one_sense_per_document(
    mentions: Sequence[ToponymMention],
    results: list[Resolution],
    asked: dict[int, PlaceContext],
) -> list[Resolution]:
    """A name written again in one document means the same place: "Hroza" in a headline, with
    nothing near it, is the Hroza that the next paragraph places in Kharkiv Oblast. Where the
    occurrences that have local evidence (a locator, or a region named in their own sentence
    or paragraph) all agree, the others take that place. Where they disagree the text names
    two places of that name: each evidenced occurrence keeps its own, and the others take the
    first one's, as the lead of a report names the place it is about."""
    chosen: dict[str, Resolution] = {}
    for number, context in sorted(asked.items()):
        place = results[number].place
        if place is None or not (context.within or context.local_admin1):
            continue
        chosen.setdefault(mentions[number].text.casefold(), results[number])
    out = list(results)
    for number, context in asked.items():
        key = mentions[number].text.casefold()
        if context.within or context.local_admin1 or key not in chosen:
            continue
        out[number] = chosen[key]
    return out

