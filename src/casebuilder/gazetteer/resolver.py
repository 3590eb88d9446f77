"""The gazetteer object: looks toponyms up and resolves place queries to one place.

Part of the gazetteer, the reference layer below the stages. Extraction and the ``geocode``
command call :meth:`Gazetteer.resolve`, :meth:`Gazetteer.lookup`,
:meth:`Gazetteer.find_toponyms` and :meth:`Gazetteer.resolve_mentions`; the text scanner
(:mod:`.scanner`) reads the same name tables, and :mod:`.locators` links the names a text
attaches to a place name. A :class:`Gazetteer` is built once by
:func:`casebuilder.gazetteer.load_gazetteer` and passed to whoever needs it; it holds no global
state and is never changed after it is built (its caches memoise pure functions of its index:
the candidates of a name, the answer to a query and context, the reading of a place string), so
one object may serve many threads.

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
   else whose fold key does ("fold": romanisation variants); if none lies in a named region
   (or, with no region named, none exists), the places of that region (else of the country)
   whose own name the head is a Russian-style form of ("form": Kharkov, Orekhov, Ugledar),
   else whose name is one or two letters apart ("fuzzy"), are tried (see :mod:`.spellings`).
   A head with "raion", "district", "rayon", "hromada" or "community" that names a raion or
   hromada prefers it ("Kharkivskyi district", "Vilkhivska hromada"). A head that names no
   place but ends in a site's word is the town the site is named after ("the Pochaiv Lavra",
   "Kherson airport"), and a street, square or park ("Pushkin Street") is never the place its
   name recalls: it gives the town named with it, else the region, else nothing.
3. Disambiguation, in this order: a region named in the query keeps only its candidates, and
   a raion named in the query keeps those inside it (when none is, nearness to the raion
   counts instead); else a region or raion named beside the mention, in its own sentence or
   paragraph (``PlaceContext.local_admin1``), does the same when it keeps any, else one named
   elsewhere in the document (``PlaceContext.admin1``), unless a candidate lies within 30 km
   of a place named beside the mention (``PlaceContext.local_nearby``) and none inside does.
   Neither of these makes a well-known town a hamlet of its name (see
   :func:`.ranking.outranks`). Then the candidates left are ranked by the criteria of
   :data:`.ranking.RANKING`, in its order: spelling, a well-known town before hamlets of its
   name, nearness to the places named beside the mention, then to anchors and to the
   document's other places (in distance bands), own name before alternate name, kind of
   place, population, gazetteer id. The reason given and the candidates left ``undecided``
   come from the same criteria; their figures are in ``data/ranking.toml``.
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
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from casebuilder.gazetteer.build import HOME_COUNTRY, NEIGHBOUR_COUNTRIES, GazetteerIndex, Region
from casebuilder.gazetteer.geo import Coordinates, distance_km, nearest_distance_km
from casebuilder.gazetteer.geocoding import Geocoding, geocode
from casebuilder.gazetteer.layout import mark_region_lists, with_layout
from casebuilder.gazetteer.lexicon import alternatives, gazetteer_lexicon
from casebuilder.gazetteer.locators import link_locators
from casebuilder.gazetteer.model import (
    Candidate,
    Place,
    PlaceContext,
    Resolution,
    Thresholds,
    ToponymMention,
    thresholds,
)
from casebuilder.gazetteer.normalise import (
    edit_distance,
    fold_toponym,
    normalise_toponym,
    romanise_ukrainian,
)
from casebuilder.gazetteer.ranking import (
    Situation,
    explain,
    kind_rank,
    outranks,
    rank,
    undecided,
)
from casebuilder.gazetteer.scanner import ToponymScanner, city_bound, generic_city_name
from casebuilder.gazetteer.spellings import FormTable, TypoTable, form_rules

_LEXICON = gazetteer_lexicon()
_REGION_WORDS = _LEXICON.words("region_name_words")
_REGION_MARKERS = _LEXICON.pattern("region_marker")
_COUNTRY_CODES = {key: code.upper() for key, code in
                  _LEXICON.mapping("country_abbreviations").items()}  # fmt: skip
_RELATIVE = _LEXICON.pattern("relative_position")
_TYPE_PREFIX = _LEXICON.pattern("place_type_prefix")
_TYPE_SUFFIX = _LEXICON.pattern("place_type_suffix")
_AREA_WORDS = _LEXICON.words("raion_words") | _LEXICON.words("hromada_words")
_NO_CONTEXT = PlaceContext()
_TYPO_LENGTHS = (5, 30)  # the folded lengths a name a letter or two off may have
_REGION_KEY_LENGTH = 30  # a longer text is no misspelt region's name
_RAION_WORD = re.compile(rf"\b{alternatives(_AREA_WORDS)}\b", re.IGNORECASE)
_SITE_WORDS = _LEXICON.words("site_words")
_STREET_AFTER = _LEXICON.words("street_words_after")
_STREET_BEFORE = _LEXICON.words("street_words_before")


@dataclass(frozen=True, slots=True)
class _Query:
    head: str
    qualifiers: tuple[str, ...]
    relative: bool = False  # "12 km north of Kharkiv": a position relative to the head


@dataclass(slots=True)
class _Ask:
    """One query as :meth:`Gazetteer.resolve` works through it: what its qualifiers and
    context name, its candidates, and the pool and reasons left at each step."""

    query: str
    parsed: _Query
    country: str
    country_named: bool = False
    regions: set[str] = field(default_factory=set)  # named in the query (raions' oblasts too)
    raions: list[Place] = field(default_factory=list)  # named in the query
    anchors: list[Coordinates] = field(default_factory=list)  # anchor towns, document places
    anchor_places: list[Place] = field(default_factory=list)  # towns the query names
    beside: list[Coordinates] = field(default_factory=list)  # places of the same paragraph
    document_regions: set[str] = field(default_factory=set)
    document_raions: list[Place] = field(default_factory=list)
    local_regions: set[str] = field(default_factory=set)
    local_raions: list[Place] = field(default_factory=list)
    stripped: str = ""  # the head without words of place type
    street: bool = False  # the head names a street, square or park the gazetteer lacks
    head_key: str = ""
    raion_first: bool = False
    everywhere: list[Candidate] = field(default_factory=list)  # in any country
    candidates: list[Candidate] = field(default_factory=list)  # in the country asked for
    pool: list[Candidate] = field(default_factory=list)  # what is left to rank
    reasons: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Document:
    """One document as :meth:`Gazetteer.resolve_mentions` works through it."""

    mentions: Sequence[ToponymMention]
    context: PlaceContext
    within: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    named: list[tuple[ToponymMention, str]] = field(default_factory=list)  # regions, raions
    regions: tuple[str, ...] = ()
    nearby: list[Coordinates] = field(default_factory=list)
    # places resolved so far in each paragraph (datelines left out: they say where the
    # report was filed, not where its paragraph's events happened)
    nearby_in: dict[int, list[tuple[int, Coordinates]]] = field(
        default_factory=lambda: defaultdict(list))
    asked: dict[int, PlaceContext] = field(default_factory=dict)  # each mention's context
    cache: dict[tuple[object, ...], Resolution] = field(default_factory=dict)
    results: list[Resolution] = field(default_factory=list)

    def __post_init__(self) -> None:
        for mention in self.mentions:
            if mention.locates is not None:
                # an oblast or raion by its full name ("Donetsk" of "Mykolaivka, Donetsk" is
                # Donetsk Oblast, not also the city of Donetsk nearby), a city as written
                area = mention.kind == "region"
                self.within[mention.locates].append(
                    mention.place.name if area else mention.text)
        self.named = [(m, m.place.name) for m in self.mentions if m.kind == "region"]
        self.regions = tuple(self.context.admin1) + tuple(name for _m, name in self.named)
        self.nearby = list(self.context.nearby)


class RegionMatcher:
    """Recognises a region in any spelling: ``"Kharkiv oblast"``, ``"Oblast Charkov"``,
    ``"Kharkivs'ka"``, ``"Donestk Oblast"`` (a letter or two off)."""

    def __init__(self, regions: Sequence[Region]) -> None:
        self.regions = {r.name: r for r in regions}
        self._matched: dict[tuple[str, bool], frozenset[str]] = {}  # a memo of match
        self._keys: dict[str, set[str]] = defaultdict(set)
        for region in regions:
            short = re.sub(r"\s+(?:Oblast|City)$", "", region.name)
            for spelling in (region.name, short, region.katottg,
                             romanise_ukrainian(region.katottg), *region.variants):  # fmt: skip
                key = self._key(spelling)
                if key:
                    self._keys[key].add(region.name)
        # the keys by length: a key more letters longer or shorter than the limit is too far
        self._keys_of_length: dict[int, list[str]] = defaultdict(list)
        for key in self._keys:
            self._keys_of_length[len(key)].append(key)

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
        found = self._matched.get((text, fuzzy))
        if found is None:
            found = self._matched[(text, fuzzy)] = self._match(text, fuzzy)
        return found

    def _match(self, text: str, fuzzy: bool) -> frozenset[str]:
        key = self._key(text)
        if not key:
            return frozenset()
        found = self._keys.get(key)
        if not found and fuzzy and 5 <= len(key) <= _REGION_KEY_LENGTH:
            limit = 1 if len(key) < 7 else 2
            scored = sorted(
                (edit_distance(key, other, limit), other)
                for length in range(len(key) - limit, len(key) + limit + 1)
                for other in self._keys_of_length.get(length, ())
            )
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
    """Look-up and resolution of place names, over one :class:`GazetteerIndex`.

    ``figures`` are the ranking figures (``data/ranking.toml`` unless given: experiments and
    tests pass others)."""

    def __init__(self, index: GazetteerIndex, figures: Thresholds | None = None) -> None:
        self.index = index
        self.figures = figures or thresholds()
        self.places: tuple[Place, ...] = tuple(index.places)
        self.regions = RegionMatcher(index.regions)
        self.stoplist = index.stoplist
        self._fold_of = fold_toponym
        # memos of pure functions of the index: a data set names the same places many times
        # (bounded: a resolution holds every candidate of its name, a hundred for some)
        self._names_of = functools.lru_cache(maxsize=1 << 14)(self._find_names)
        self._resolutions = functools.lru_cache(maxsize=1 << 13)(self._resolve)
        self._geocodings = functools.lru_cache(maxsize=1 << 13)(self._geocode)
        well_known = self._index_names(index)
        self._region_places = {
            p.admin1: p for p in self.places if p.feature_kind == "region" and not p.is_raion
        }
        self._capitals = self._oblast_centres(index)
        self._countries: dict[str, Place] = {}
        self._country_keys: dict[str, str] = dict(_COUNTRY_CODES)
        for number, place in enumerate(self.places):
            if place.feature_kind == "country":
                self._countries.setdefault(place.country, place)
                for key in self._names[number]:
                    self._country_keys.setdefault(key, place.country)
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
            well_known=well_known,
            folds=self._fold,
            fold_of=self._fold_of,
            own_name=lambda number, key: self._fold_of(key) in self._own_folds.get(number, ()),
            home=HOME_COUNTRY,
            neighbours=NEIGHBOUR_COUNTRIES,
            alias_ok=self._alias_ok,
            large_abroad=self.figures.prominent_population,
        )

    def _index_names(self, index: GazetteerIndex) -> frozenset[str]:
        """Fill the look-up tables from the index's names; return the own names of countries,
        regions, water bodies and well-known towns, which the scanner takes as places even
        where the text also writes them in lower case."""
        exact: dict[str, set[int]] = defaultdict(set)
        fold: dict[str, set[int]] = defaultdict(set)
        misspellable: set[tuple[str, str, int]] = set()
        formable: set[tuple[str, str, int]] = set()
        self._names: dict[int, dict[str, str]] = defaultdict(dict)
        self._own_folds: dict[int, set[str]] = defaultdict(set)
        well_known: set[str] = set()
        for raw, key, folded, number, primary in index.names:
            exact[key].add(number)
            fold[folded].add(number)
            self._names[number].setdefault(key, raw)
            place = self.places[number]
            if primary:
                self._own_folds[number].add(folded)
                if self._scanner_well_known(place):
                    well_known.add(key)
            if _misspellable(place):
                misspellable.add((key, folded, number))
            if primary and place.feature_kind not in ("country", "water_body") and not (
                place.feature_kind == "region" and not place.is_raion
            ):
                formable.add((key, folded, number))
        self._exact = {k: tuple(sorted(v)) for k, v in exact.items()}
        self._fold = {k: tuple(sorted(v)) for k, v in fold.items()}
        self._misspellable = tuple(sorted(misspellable))
        self._formable = tuple(sorted(formable))
        return frozenset(well_known)

    @functools.cached_property
    def _typos(self) -> TypoTable:
        """The names a query may be a misspelling of (built when first needed)."""
        return TypoTable(self._misspellable)

    @functools.cached_property
    def _forms(self) -> FormTable:
        """The own names of settlements, districts, sites and raions by their form key (built
        when first needed): a Russian-style form of one finds it (see :mod:`.spellings`)."""
        return FormTable(self._formable)

    def _scanner_well_known(self, place: Place) -> bool:
        """A place whose own name the scanner takes even where the text also writes it in
        lower case: a well-known place of the home country, or a country, region or water
        body anywhere; never a raion (its adjective is a common word)."""
        return (
            _well_known(place, self.figures)
            and (place.country == HOME_COUNTRY or place.feature_kind != "settlement")
            and not place.is_raion
        )

    def _oblast_centres(self, index: GazetteerIndex) -> frozenset[str]:
        """The gazetteer ids of the administrative centres of the oblasts (and Kyiv,
        Sevastopol): a name written as one of their own is the centre, not a hamlet of that
        name (see :func:`.ranking.outranks`)."""
        bound = self.figures.city_bound_km
        return frozenset(
            place.gazetteer_id
            for region in index.regions
            if region.country == HOME_COUNTRY
            for place in self.places
            if place.feature_kind == "settlement"
            and place.precision == "settlement"
            and place.name == region.centre
            and distance_km(place, (region.lat, region.lon)) <= bound
        )

    def _alias_ok(self, number: int, key: str, written: str) -> bool:
        """Whether running text may name a town abroad by ``key``, one of its alternate names
        (see :meth:`.scanner.ToponymScanner._cued`): a well-known exonym or a spelling of its
        own name, not a common word, and written in the script GeoNames gives it in."""
        if key in self.stoplist:
            return False
        if _latin(written) and (number, key) not in self._latin_alternates:
            return False
        if (self.places[number].population or 0) >= self.figures.prominent_population:
            return True
        folded = self._fold_of(key)
        limit = max(1, round(len(folded) * self.figures.spelling_share))
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
            0 if place.country == HOME_COUNTRY or _prominent(place, self.figures) else 1,
            kind_rank(place, (), self.figures),
            -(place.population or 0),
            place.gazetteer_id,
        )

    def find_toponyms(self, text: str, *, loose: bool = False) -> list[ToponymMention]:
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
        ``dateline`` for the name of a dateline ("KYIV —"; see :mod:`.layout`). ``loose``
        also takes a capitalised name matching one only up to romanisation ("Malaya Rohan"):
        for short place strings, not documents (see :meth:`.scanner.ToponymScanner.find`)."""
        mentions = self._in_named_towns(self.scanner.find(text, loose=loose))
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
        document = _Document(mentions, context or PlaceContext())
        for number, mention in enumerate(mentions):
            if mention.locates is not None:
                self._resolve_locator(document, number, mention)
            elif mention.kind in ("country", "water_body") or (
                mention.kind == "region" and not mention.place.is_raion
            ):
                document.results.append(Resolution(mention.text, mention.place, mention.text, (),
                                                   "named as such in the text"))  # fmt: skip
            else:
                self._resolve_in_document(document, number, mention)
        self._with_later_places(document)
        return _one_sense_per_document(mentions, document.results, document.asked)

    def _resolve_locator(self, document: _Document, number: int, mention: ToponymMention
                         ) -> None:
        """A locator resolves to its own first candidate; the city of a district or site
        counts as a place of the document for the names after it."""
        assert mention.locates is not None
        place = mention.place
        located = document.mentions[mention.locates]
        document.results.append(Resolution(mention.text, place, mention.text, (),
                                           f"locates {located.text!r}"))  # fmt: skip
        if city_bound(located.place) and not _coarse(place):
            document.nearby.append(place.coordinates)
            if mention.paragraph >= 0:
                document.nearby_in[mention.paragraph].append((number, place.coordinates))

    def _resolve_in_document(self, document: _Document, number: int, mention: ToponymMention
                             ) -> None:
        """Resolve one mention with its locators, its local context and the places of the
        document resolved so far."""
        local_nearby = tuple(c for _n, c in document.nearby_in[mention.paragraph])
        context = document.context
        document.asked[number] = PlaceContext(
            admin1=document.regions, nearby=tuple(document.nearby), country=context.country,
            within=tuple(document.within[number]),
            local_admin1=self._local_regions(mention, document.named),
            local_nearby=local_nearby if mention.paragraph >= 0 else (),
        )  # fmt: skip
        resolution = self._resolve_cached(mention.text, document.asked[number], document.cache)
        document.results.append(resolution)
        # a place chosen by the tie-break alone is a guess: it anchors nothing after it ("the
        # residents of Yahidne" must not pull the next "Yahidne" to the same namesake)
        if resolution.place is not None and not _coarse(resolution.place) and \
                not resolution.undecided:
            document.nearby.append(resolution.place.coordinates)
            if mention.paragraph >= 0 and not mention.dateline:
                document.nearby_in[mention.paragraph].append(
                    (number, resolution.place.coordinates)
                )

    def _with_later_places(self, document: _Document) -> None:
        """Resolve each mention once more with every other place of its paragraph, those
        named after it too ("Kamianske and Stepnohirsk near Orikhiv")."""
        mentions = document.mentions
        for number, first in document.asked.items():
            mention = mentions[number]
            if mention.paragraph < 0 or mention.dateline:
                continue
            local_nearby = tuple(
                c for n, c in document.nearby_in[mention.paragraph]
                if n != number and mentions[n].text != mention.text
            )  # fmt: skip
            if set(local_nearby) != set(first.local_nearby):
                document.results[number] = self._resolve_cached(
                    mention.text, replace(first, local_nearby=local_nearby), document.cache
                )

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
        limit = self.figures.named_town_gap_km
        kept: list[ToponymMention] = []
        for mention in mentions:
            if generic_city_name(mention.text, mention.candidates):
                def gap(place: Place) -> float:
                    return min(
                        distance_km(place, town) - town.uncertainty_km - place.uncertainty_km
                        for town in towns
                    )

                if min(gap(p) for p in mention.candidates) > limit:
                    continue
                ordered = sorted(mention.candidates, key=lambda p: gap(p) > limit)
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

    # --- free-text place strings ------------------------------------------------------------

    def geocode(self, text: str) -> Geocoding:
        """Every place a free-text place string names, the answer first ("Zaporozhye region:
        in Orekhov, Gulyaipole and Preobrazhenka" gives Orikhiv, then Huliaipole and
        Preobrazhenka); see :mod:`casebuilder.gazetteer.geocoding`."""
        return self._geocodings(text)

    def _geocode(self, text: str) -> Geocoding:
        return geocode(self, text)

    def names_country(self, text: str) -> bool:
        """Whether ``text`` is a country's name or abbreviation ("Ukraine", "UA", "Росія")."""
        return normalise_toponym(text) in self._country_keys

    def names_place(self, text: str) -> bool:
        """Whether ``text`` as a whole, without words of place type, is a name the gazetteer
        knows exactly or up to romanisation ("village of Hroza", "Kharkov"; not "Damaged
        School")."""
        return bool(self._candidates(text) or self._candidates(_strip_type_words(text)))

    def names_area(self, text: str) -> bool:
        """Whether ``text`` names a raion or hromada ("Kupiansk district", "Vilkhivska
        hromada"), exactly, up to romanisation or in a Russian-style form."""
        if self._raions(text):
            return True
        return any(c.place.is_raion for c in self._in_form(_strip_type_words(text), raions=True,
                                                           country=HOME_COUNTRY))

    # --- look-up ---------------------------------------------------------------------------

    def names_index(self) -> dict[str, tuple[int, ...]]:
        """Normalised name -> place numbers (for the text scanner)."""
        return self._exact

    def lookup(self, name: str) -> list[Place]:
        """Every place known by ``name``, in any spelling the normalisation and the fold key
        merge, most likely first (located before coarse, then by population)."""
        return [c.place for c in self._rank_plain(self._candidates(name))]

    def knows(self, name: str) -> bool:
        """Whether :meth:`lookup` finds any place by ``name`` (without ranking them)."""
        return bool(self._names_of(name))

    def _candidates(self, name: str) -> list[Candidate]:
        return list(self._names_of(name))

    def _find_names(self, name: str) -> tuple[Candidate, ...]:
        key = normalise_toponym(name)
        if not key:
            return ()
        folded = fold_toponym(key)
        found: dict[int, Candidate] = {}
        for number in self._exact.get(key, ()):
            found[number] = self._candidate(number, self._names[number][key], "exact", folded)
        for number in self._fold.get(folded, ()):
            if number not in found:
                found[number] = self._candidate(
                    number, self._matched_name(number, folded), "fold", folded
                )
        return tuple(found.values())

    def _candidate(
        self, number: int, matched: str, match: Literal["exact", "fold", "form", "fuzzy"],
        folded: str,
    ) -> Candidate:
        alternate = folded not in self._own_folds.get(number, ())
        return Candidate(self.places[number], matched, match, alternate)

    def _matched_name(self, number: int, folded: str) -> str:
        for key, raw in self._names[number].items():
            if fold_toponym(key) == folded:
                return raw
        return self.places[number].name

    def _fuzzy(self, name: str, regions: Iterable[str] = (), country: str = ""
               ) -> list[Candidate]:
        """Places in ``regions`` (or, with none, in ``country``) whose name is one edit away
        (two, for long names), compared both as normalised and as folded keys; the nearest
        only."""
        key = normalise_toponym(name)
        folded = fold_toponym(key)
        if not _TYPO_LENGTHS[0] <= len(folded) <= _TYPO_LENGTHS[1] or key.count(" ") > 1:
            return []  # too short to guess, or a phrase rather than a misspelt name
        limit = 1 if len(folded) < 9 else 2
        areas = set(regions)
        found = [
            (distance, other_key, number)
            for distance, other_key, number in self._typos.find(key, folded, limit)
            if (self.places[number].admin1 or self.places[number].country) in areas
            or (not areas and self.places[number].country == country)
        ]
        if not found:
            return []
        best = found[0][0]
        unique: dict[int, Candidate] = {}
        for distance, other_key, number in found:
            if distance != best:
                continue
            candidate = self._candidate(number, self._names[number][other_key], "fuzzy",
                                        fold_toponym(other_key))  # fmt: skip
            if number not in unique or (unique[number].alternate and not candidate.alternate):
                unique[number] = candidate
        return list(unique.values())

    def _in_form(self, name: str, regions: Iterable[str] = (), country: str = "", *,
                 raions: bool = False) -> list[Candidate]:
        """Places in ``regions`` (or, with none, in ``country``) of whose own name ``name`` is
        a Russian-style form (see :mod:`.spellings`), those with the fewest changes only; a
        raion only with ``raions`` (the query says "raion" or "district")."""
        areas = set(regions)
        found = [
            (changes, key, number)
            for changes, key, number in self._forms.find(name)
            if (self.places[number].admin1 in areas
                or (not areas and self.places[number].country == country))
            and (raions or not self.places[number].is_raion)
        ]  # fmt: skip
        if not found:
            return []
        best = found[0][0]
        unique: dict[int, Candidate] = {}
        for changes, key, number in found:
            if changes == best and number not in unique:
                unique[number] = self._candidate(number, self._names[number][key], "form",
                                                 fold_toponym(key))  # fmt: skip
        return list(unique.values())

    def _rank_plain(self, candidates: Sequence[Candidate]) -> list[Candidate]:
        """The candidates by :data:`.ranking.RANKING` with no context: own name, kind,
        population."""
        return rank(candidates, Situation(figures=self.figures))

    # --- resolution ------------------------------------------------------------------------

    def resolve(self, query: str, context: PlaceContext | None = None) -> Resolution:
        """The most likely place for ``query`` (see the module doc), or a Resolution whose
        place is None when nothing matches; the query's head is then kept as matched_name.

        ``context.within`` (the locators the text attaches to this mention) counts like the
        query's own qualifiers; ``context.admin1`` and ``context.nearby`` (the rest of the
        document) only choose among candidates."""
        return self._resolutions(query, context or _NO_CONTEXT)

    def _resolve(self, query: str, context: PlaceContext) -> Resolution:
        ask = self._ask(query, context)
        answer = self._without_name(ask) or self._area_or_country(ask)
        if answer is not None:
            return answer
        self._find_candidates(ask)
        return self._narrow(ask) or self._choose(ask)

    # -- the steps of resolve --

    def _ask(self, query: str, context: PlaceContext) -> _Ask:
        """The query parsed, with what its qualifiers and locators name (step 1)."""
        parsed = _parse(query)
        located = (_RELATIVE.sub(" ", q).strip() for q in context.within)
        ask = _Ask(query, parsed, context.country)
        for qualifier in parsed.qualifiers + tuple(q for q in located if q):
            self._read_qualifier(ask, qualifier)
        if ask.raions:
            # a raion names its oblast; of raions named with an oblast, those inside it
            if ask.regions:
                in_oblast = [r for r in ask.raions if r.admin1 in ask.regions]
                ask.raions = in_oblast or ask.raions
            for raion in ask.raions:
                ask.regions |= self.regions.match(raion.admin1)
        ask.document_regions, ask.document_raions = self._areas(context.admin1)
        ask.local_regions, ask.local_raions = self._areas(context.local_admin1)
        ask.anchors.extend(context.nearby)
        ask.beside = list(context.local_nearby)
        return ask

    def _read_qualifier(self, ask: _Ask, qualifier: str) -> None:
        """A qualifier names a country, a raion, a region, or a settlement (an anchor, which
        also names its region when the qualifier names none)."""
        words = normalise_toponym(qualifier)
        if words in self._country_keys:
            ask.country, ask.country_named = self._country_keys[words], True
            return
        raions = self._raions(qualifier)
        if raions:
            ask.raions += raions
            return
        regions = self.regions.match(qualifier)
        ask.regions |= regions
        if _REGION_MARKERS.search(qualifier):
            return
        city = self._anchor(qualifier, regions)
        if city is not None:
            ask.anchor_places.append(city)
            ask.anchors.append(city.coordinates)
            if not regions:
                ask.regions |= self.regions.match(city.admin1) if city.admin1 else set()

    def _without_name(self, ask: _Ask) -> Resolution | None:
        """The answer to a query that gives no name of its own: the place, raion or region
        its qualifiers name."""
        if ask.parsed.head:
            return None
        query = ask.query
        if ask.anchor_places:
            city = ask.anchor_places[0]
            return Resolution(query, city, city.name, (),
                              "only a position relative to this place is given")  # fmt: skip
        if ask.raions:
            return self._area_resolution(query, ask.raions, "only a raion is given")
        if ask.regions:
            return self._region_resolution(query, ask.regions, "only a region is given")
        return Resolution(query, None, "", (), "no place name in the query")

    def _area_or_country(self, ask: _Ask) -> Resolution | None:
        """The region a query names as a whole ("Kharkiv oblast", or a name that is only a
        region's), or the country it names ("Russia") when it names no region besides."""
        head = ask.parsed.head
        marked = _REGION_MARKERS.search(head) is not None
        if marked or not self._candidates(head):
            regions = self.regions.match(head, fuzzy=marked)
            if regions:
                return self._region_resolution(ask.query, regions, "the query names a region")
        named = self._countries.get(self._country_keys.get(normalise_toponym(head), ""))
        if named is not None and not ask.regions:
            return Resolution(ask.query, named, head, (),
                              f"the query names a country; placed at the "
                              f"{named.placed_at}")  # fmt: skip
        return None

    def _find_candidates(self, ask: _Ask) -> None:
        """The candidates for the head (step 2): of the country asked for, unless a large
        place abroad of that very name outweighs them."""
        head = ask.parsed.head
        if not self._candidates(head):
            # "Snake Island/Bile", "Snake Island-Zmiinyi", "Lyman (-ish)": take the first part
            # that is a known name
            head = next((part for part in _parts(head) if self._candidates(part)), head)
        candidates = self._candidates(head)
        if not candidates and _street(head):
            # "Pushkin Street": named after a person or a town, it is neither
            ask.street, ask.stripped, ask.head_key = True, head, normalise_toponym(head)
            return
        town = "" if candidates or self._candidates(_strip_type_words(head)) else _site_town(head)
        if town and self._candidates(town):
            # "the Pochaiv Lavra", "Kherson airport": a site the gazetteer lacks, in its town
            ask.reasons.append(f"{head!r} is a site the gazetteer does not know: placed at "
                               f"{town}, the town it is named after")  # fmt: skip
            head, candidates = town, self._candidates(town)
        # "Kharkivskyi district", "Bakhmut raion": the raion before a city district or town
        ask.raion_first = _RAION_WORD.search(head) is not None and any(
            c.place.is_raion for c in candidates
        )
        ask.stripped = stripped = _strip_type_words(head)
        if stripped != head:
            candidates += [c for c in self._candidates(stripped) if c not in candidates]
        candidates = [c for c in candidates if c.place.feature_kind != "country"]
        ask.everywhere = candidates
        in_country = [c for c in candidates if c.place.country == ask.country]
        if in_country and (
            ask.country_named or not _prominent_abroad(candidates, ask.country, self.figures)
        ):
            candidates = in_country
        ask.candidates = ask.pool = candidates
        ask.head_key = normalise_toponym(stripped if stripped else head)

    def _narrow(self, ask: _Ask) -> Resolution | None:
        """Keep the candidates in the regions and raions the query, its sentence or paragraph,
        or its document names (step 3); an answer when that settles the query otherwise
        (steps 4 and 5)."""
        if ask.street and not ask.regions:
            return Resolution(ask.query, None, ask.stripped, (),
                              "a street, square or park the gazetteer does not know")  # fmt: skip
        if ask.regions:
            answer = self._in_named_regions(ask)
            if answer is not None:
                return answer
        else:
            self._in_context_regions(ask)
        if ask.regions and not ask.raions:
            self._in_context_raions(ask)
        if not ask.pool:
            if not ask.candidates:
                self._near_spelling(ask, (), ask.country)
            if not ask.pool:
                return Resolution(ask.query, None, ask.stripped, (), "name not in the gazetteer")
        return None

    def _near_spelling(self, ask: _Ask, regions: Iterable[str], country: str = "") -> None:
        """The places of ``regions`` (or of ``country``) that the head names in its
        Russian-style form, else a letter or two off, as the pool."""
        ask.pool = self._in_form(ask.stripped, regions, country,
                                 raions=_RAION_WORD.search(ask.parsed.head) is not None)
        if ask.pool:
            ask.reasons.append("a Russian-style form of the name")
            return
        ask.pool = self._fuzzy(ask.stripped, regions, country)
        if ask.pool:
            key = normalise_toponym(ask.stripped)
            near = min(min(edit_distance(key, normalise_toponym(c.matched_name), 2),
                           edit_distance(fold_toponym(key), fold_toponym(c.matched_name), 2))
                       for c in ask.pool)  # fmt: skip
            ask.reasons.append(f"spelling {'one letter' if near <= 1 else 'two letters'} off")

    def _in_named_regions(self, ask: _Ask) -> Resolution | None:
        """A region named in the query outweighs the country ("Sudzha, Kursk Oblast,
        Ukraine"), and a raion named there keeps the candidates inside it."""
        inside = [c for c in ask.everywhere if c.place.admin1 in ask.regions]
        if not inside and not ask.street:
            self._near_spelling(ask, ask.regions)
            inside, ask.pool = ask.pool, ask.candidates
        if not inside:
            return self._outside_named_regions(ask)
        ask.pool = inside
        ask.reasons.append(f"region named with it ({_label(ask.regions)})")
        if ask.raions:
            in_raion = [c for c in inside if _in_raion(c.place, ask.raions)]
            raion_label = ", ".join(r.name for r in ask.raions)
            if in_raion:
                ask.pool = in_raion
                ask.reasons.append(f"raion named ({raion_label})")
            elif not any(c.place.is_raion for c in inside):
                ask.anchors.extend(r.coordinates for r in ask.raions)
                ask.reasons.append(f"none in {raion_label}; nearest to it")
        return None

    def _outside_named_regions(self, ask: _Ask) -> Resolution | None:
        """The name is known only outside the regions the query names (step 4)."""
        query, candidates, stripped = ask.query, ask.candidates, ask.stripped
        if ask.anchor_places and candidates and all(city_bound(c.place) for c in candidates):
            # "Svobody Square, Kherson": a square of another city is not this one
            city = ask.anchor_places[0]
            return Resolution(
                query, city, city.name, tuple(self._rank(ask, candidates)),
                f"{stripped!r} is known only in other cities; placed at {city.name}, "
                "the city named with it",
            )  # fmt: skip
        if ask.street and ask.anchor_places:
            city = ask.anchor_places[0]
            return Resolution(query, city, city.name, (),
                              f"{stripped!r} is a street, square or park the gazetteer does not "
                              f"know; placed at {city.name}, the town named with it")  # fmt: skip
        # A well-known town just outside the named region is meant ("Lysychansk, Donetsk
        # Oblast"); a smaller place of that name elsewhere is more likely another one the data
        # lacks, so the region (or raion) is taken instead.
        limit = self.figures.outside_region_km
        near = sorted(
            ((min(distance_km(c.place, self.regions.centre(r)) for r in ask.regions), c)
             for c in candidates if _well_known(c.place, self.figures)),
            key=lambda pair: pair[0],
        )  # fmt: skip
        near = [(d, c) for d, c in near if d <= limit]
        region_label = _label(ask.regions)
        if near:
            ask.pool = [near[0][1]]
            ask.reasons.append(f"not found in {region_label}; nearest town of that name")
            return None
        why = f"{stripped!r} not found in {region_label}"
        if candidates:
            why += " (only a smaller place of that name elsewhere)"
        ranked = tuple(self._rank(ask, candidates))
        if ask.raions:
            return self._area_resolution(query, ask.raions, why, ranked)
        return self._region_resolution(query, ask.regions, why, ranked)

    def _in_context_regions(self, ask: _Ask) -> None:
        """A region named in the mention's own sentence or paragraph before one named
        elsewhere in the document; neither makes a well-known town a hamlet of its name."""
        for where, areas, raions, elsewhere in (
            ("beside it", ask.local_regions, ask.local_raions, False),
            ("in the document", ask.document_regions, ask.document_raions, True),
        ):
            inside = [c for c in ask.candidates if c.place.admin1 in areas]
            if raions:
                in_raion = [c for c in inside if _in_raion(c.place, raions)]
                if in_raion and len(in_raion) < len(inside):
                    inside = in_raion
            if inside:
                self._keep_in_region(ask, where, inside, raions, elsewhere)
                return
        self._written_otherwise(ask)

    def _written_otherwise(self, ask: _Ask) -> None:
        """A name found only as a town abroad, outside every region the document names, that
        is a place of one of those regions written in another transliteration or in its
        Russian-style form ("the town of Suja" in a report on the Kursk region: Sudzha, not
        Shuya 600 km away) is that place (:meth:`_in_form`, data/forms.toml)."""
        areas = ask.local_regions | ask.document_regions
        if not areas or not ask.candidates or any(
            c.place.country == ask.country or c.place.admin1 in areas for c in ask.candidates
        ):
            return
        written = self._in_form(ask.stripped, areas)
        if written:
            ask.pool = written
            ask.reasons.append(f"known abroad only by a spelling that writes a place of the "
                               f"region named in the document ({_label(areas)}) another "
                               "way")  # fmt: skip

    def _keep_in_region(self, ask: _Ask, where: str, inside: list[Candidate],
                        raions: Sequence[Place], elsewhere: bool) -> None:
        """Keep the candidates ``inside`` the region named ``where``, unless a candidate near
        the places named beside the mention (for a region named elsewhere) or a well-known
        town of the name outweighs it."""
        beside_km = self.figures.beside_km
        if elsewhere and ask.beside:
            close = [c for c in ask.candidates
                     if nearest_distance_km(c.place, ask.beside) <= beside_km]  # fmt: skip
            if close and not any(c in inside for c in close):
                ask.reasons.append("nearer to the places named beside it than to the region "
                                   "named elsewhere in the document")  # fmt: skip
                return
        # ("the nearby village of Rivne in Ukraine's Donetsk region", beside Pokrovsk: the
        # region and the place named with it agree, whatever city shares the name)
        near_beside = bool(ask.beside) and any(
            nearest_distance_km(c.place, ask.beside) <= beside_km for c in inside
        )
        if not near_beside and self._outweighed(ask, inside):
            ask.reasons.append(f"a well-known place of this name outweighs the smaller ones in "
                               f"the region named {where}")  # fmt: skip
            return
        ask.pool = inside
        names = {c.place.admin1 for c in inside} - {r.admin1 for r in raions}
        ask.reasons.append(f"region named {where} "
                           f"({_label([*names, *(r.name for r in raions)])})")  # fmt: skip

    @staticmethod
    def _in_context_raions(ask: _Ask) -> None:
        """With a region named in the query and no raion, a raion named beside the mention,
        else in the document, keeps the candidates inside it."""
        for where, raions in (("beside it", ask.local_raions),
                              ("in the document", ask.document_raions)):  # fmt: skip
            in_raion = [c for c in ask.pool if _in_raion(c.place, raions)] if raions else []
            if in_raion and len(in_raion) < len(ask.pool):
                ask.pool = in_raion
                ask.reasons.append(f"raion named {where} ({', '.join(r.name for r in raions)})")
                return

    def _choose(self, ask: _Ask) -> Resolution:
        """Rank what is left (:data:`.ranking.RANKING`) and take the first; a generic square
        or district far from every place of the document is left unresolved (step 5)."""
        situation = self._situation(ask)
        ranked = rank(ask.pool, situation)
        best = ranked[0]
        if ask.anchors and not ask.anchor_places and _generic_city_name(best.matched_name,
                                                                        ranked):
            # a square or district of a city that no place near the document is in
            bound = self.figures.city_bound_km
            if not any(nearest_distance_km(c.place, ask.anchors) <= bound + c.place.uncertainty_km
                       for c in ranked):  # fmt: skip
                return Resolution(
                    ask.query, None, ask.stripped, tuple(ranked),
                    "a name many cities share, known only far from the document's places",
                )  # fmt: skip
        reasons = [*ask.reasons, explain(ranked, situation)]
        if ask.parsed.relative:
            reasons.append("the query gives a position relative to this place")
        if best.place.placed_at:
            reasons.append(f"placed at the {best.place.placed_at}")
        kept = {c.place.gazetteer_id for c in ranked}
        every: dict[str, Candidate] = {}
        for candidate in ask.candidates:
            every.setdefault(candidate.place.gazetteer_id, candidate)
        others = rank([c for gid, c in every.items() if gid not in kept], situation,
                      among=list(every.values()))  # fmt: skip
        return Resolution(
            ask.query, best.place, best.matched_name, tuple(ranked + others), "; ".join(reasons),
            tuple(c.place for c in undecided(ranked, situation)),
        )

    def _situation(self, ask: _Ask) -> Situation:
        return Situation(
            beside=tuple(ask.beside), anchors=tuple(ask.anchors),
            anchor_places=tuple(ask.anchor_places), raion_first=ask.raion_first,
            head_key=ask.head_key, capitals=self._capitals, figures=self.figures,
        )  # fmt: skip

    def _rank(self, ask: _Ask, candidates: Sequence[Candidate]) -> list[Candidate]:
        return rank(candidates, self._situation(ask))

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

    def _outweighed(self, ask: _Ask, inside: Sequence[Candidate]) -> bool:
        """Whether a candidate outside ``inside`` outranks every one in it (see
        :func:`.ranking.outranks`), so that a region named in the document does not choose
        among ``inside`` alone."""
        situation = self._situation(ask)
        return any(
            all(outranks(big, small, situation) for small in inside)
            for big in ask.candidates
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


def _well_known(place: Place, figures: Thresholds) -> bool:
    """A country, region or water body, or a town of ``[population] well_known`` people."""
    return (
        place.feature_kind in ("country", "region", "water_body")
        or (place.population or 0) >= figures.well_known_population
    )


def _prominent(place: Place, figures: Thresholds) -> bool:
    """A country, or a city large enough to be meant even where a village of Ukraine shares
    its name (Kursk, Belgorod, Minsk)."""
    return (
        place.feature_kind == "country"
        or (place.population or 0) >= figures.prominent_population
    )


def _prominent_abroad(candidates: Sequence[Candidate], country: str, figures: Thresholds
                      ) -> bool:
    """Whether a large place abroad of this very name outweighs the home country's candidates,
    which all either are small (not well known) or have the name only as an alternate that
    is not a Russian-style form of their own name ("Seversk" is Siversk's Russian form: the
    town of Donetsk Oblast, not Seversk in Siberia)."""
    if not any(
        c.place.country != country
        and not c.alternate
        and c.match != "fuzzy"
        and _prominent(c.place, figures)
        for c in candidates
    ):
        return False
    rules = form_rules()
    return all(
        (c.place.population or 0) < figures.well_known_population
        or (c.alternate and not rules.same(c.matched_name, c.place.name))
        for c in candidates
        if c.place.country == country
    )


def _misspellable(place: Place) -> bool:
    """Whether a name one or two letters off may mean ``place``: a settlement, city district
    or site, but not a KATOTTG city district (an adjective: no name is a misspelling of it)."""
    return place.feature_kind in ("settlement", "city_district", "feature") and not (
        place.feature_kind == "city_district" and place.gazetteer_id.startswith("katottg:")
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


def _street(head: str) -> bool:
    """Whether a head names a street, square or park ("Pushkin Street", "vul. Shevchenka")."""
    words = normalise_toponym(head).split()
    return len(words) > 1 and (words[-1] in _STREET_AFTER or words[0] in _STREET_BEFORE)


def _site_town(head: str) -> str:
    """The head without the words that end a site's name ("the Pochaiv Lavra" -> "Pochaiv",
    "Kherson International Airport" -> "Kherson"); empty when nothing is left or the head
    does not end in such a word."""
    words = head.split()
    cut = len(words)
    while cut > 0 and normalise_toponym(words[cut - 1]) in _SITE_WORDS:
        cut -= 1
    if cut == len(words) or cut == 0:
        return ""
    return re.sub(r"^(?:the\s+)", "", " ".join(words[:cut]), flags=re.IGNORECASE).strip()


def _strip_type_words(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = _TYPE_SUFFIX.sub("", _TYPE_PREFIX.sub("", text.strip())).strip()
    return text or previous or ""


def _primary(regions: Iterable[str]) -> str:
    """Of regions named together (Kyiv Oblast with Kyiv City), the oblast."""
    names = sorted(regions)
    return next((n for n in names if n.endswith("Oblast") or n == "Crimea"), names[0])


def _label(regions: Iterable[str]) -> str:
    return " / ".join(sorted(regions))


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
    return _guesses_yield(mentions, out, asked)


def _guesses_yield(
    mentions: Sequence[ToponymMention],
    results: list[Resolution],
    asked: dict[int, PlaceContext],
) -> list[Resolution]:
    """An occurrence placed by the tie-break alone (nothing told its namesakes apart: "YAHIDNE,
    Ukraine —" on a dateline) takes the place the other occurrences of its name were given on
    evidence (nearness to the places of their paragraph: "Yahidne, a village north of Kyiv"),
    when all of those agree; written the same, folded the same (a dateline's capitals)."""
    decided: dict[str, set[str]] = defaultdict(set)
    found: dict[str, Resolution] = {}
    for number in asked:
        result = results[number]
        if result.place is None or result.undecided:
            continue
        key = normalise_toponym(mentions[number].text)
        decided[key].add(result.place.gazetteer_id)
        found.setdefault(key, result)
    out = list(results)
    for number in asked:
        result = results[number]
        key = normalise_toponym(mentions[number].text)
        if result.place is None or not result.undecided or len(decided.get(key, ())) != 1:
            continue
        evidenced = found[key]
        if evidenced.place is not None and any(
            evidenced.place.gazetteer_id == c.place.gazetteer_id for c in result.candidates
        ):
            out[number] = replace(evidenced, query=result.query, reason=(
                f"as where the document names it again: {evidenced.reason}"))
    return out

