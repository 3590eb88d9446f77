"""The gazetteer object: looks toponyms up and resolves place queries to one place.

Part of the gazetteer, the reference layer below the stages. Extraction and the ``geocode``
command call :meth:`Gazetteer.resolve` and :meth:`Gazetteer.lookup`; the extractor's text
scanner (:mod:`.scanner`) reads the same name tables. A :class:`Gazetteer` is built once by
:func:`casebuilder.gazetteer.load_gazetteer` and passed to whoever needs it; it holds no global
state and is never changed after it is built, so one object may serve many threads.

How a query such as ``"Chuhuiv, south of Kharkiv"`` or ``"Merefa, Kharkivska, Ukraine"`` is
resolved:

1. The query is split at commas into a head (the toponym) and qualifiers. Words of relative
   position ("south of", "near", "vicinity", "outskirts of") and of place type ("village of",
   "city", "district") are dropped. A qualifier may name a country, a region (any spelling
   :class:`RegionMatcher` knows), or a settlement, which then serves as an anchor.
2. Candidates for the head are the places whose normalised name equals the head's ("exact"),
   else whose fold key does ("fold": romanisation variants); if none lies in a named region,
   names one or two letters apart in that region are tried ("fuzzy").
3. Disambiguation, in this order: a region named in the query keeps only its candidates (a
   region only named elsewhere in the document, via the context, does the same when it keeps
   any); then nearness to anchors and to places already resolved in the document (bands of
   30, 80 and 200 km); then a match on the place's own name before one on an alternate name
   GeoNames lists (a former name, the name of a merged village); then the kind of place (a
   located settlement, district or feature before a village placed coarsely from KATOTTG,
   before a region); then population; then the gazetteer id, so the answer never depends on
   chance.
4. When the name is found only outside the named region, the nearest such candidate within
   150 km of the region's centre is taken; otherwise the region itself (precision "region").

Countries: a query that is a country's name ("Russia", "Britain") resolves to the country
(precision "country"). Other places are looked for in the country the query names, else in
``PlaceContext.country`` (Ukraine by default); but when the query names no country, a large
city abroad (100,000+ people) of that very name outweighs villages of Ukraine that share it
("Kursk", "Belgorod"), and a region named in the query outweighs the country ("Sudzha, Kursk
Oblast").
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from casebuilder.gazetteer.build import HOME_COUNTRY, GazetteerIndex, Region
from casebuilder.gazetteer.geo import distance_km, nearest_distance_km
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
from casebuilder.gazetteer.scanner import ToponymScanner

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
_BANDS_KM = (30.0, 80.0, 200.0)
_OUTSIDE_REGION_KM = 150.0
_WELL_KNOWN_POPULATION = 10_000  # the scanner's lower-case rule spares names of such towns
_PROMINENT_POPULATION = 100_000  # a foreign city this large competes with places in Ukraine


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
                if _well_known(place):
                    well_known.add(key)
            if place.feature_kind in ("settlement", "city_district", "feature"):
                by_region[place.admin1 or place.country].add((key, folded, number))
        self._exact = {k: tuple(sorted(v)) for k, v in exact.items()}
        self._fold = {k: tuple(sorted(v)) for k, v in fold.items()}
        self._by_region = {region: tuple(sorted(rows)) for region, rows in by_region.items()}
        self.stoplist = index.stoplist
        self._region_places = {p.admin1: p for p in self.places if p.feature_kind == "region"}
        self._countries: dict[str, Place] = {}
        self._country_keys: dict[str, str] = dict(_COUNTRY_CODES)
        for number, place in enumerate(self.places):
            if place.feature_kind == "country":
                self._countries.setdefault(place.country, place)
                for key in self._names[number]:
                    self._country_keys.setdefault(key, place.country)
        self.scanner = ToponymScanner(
            self._exact,
            self.places,
            self.stoplist,
            self._region_place,
            self._scan_rank,
            demonyms=index.demonyms,
            well_known=frozenset(well_known),
        )

    def _region_place(self, text: str) -> Place | None:
        regions = self.regions.match(text)
        if not regions:
            return None
        return self._region_places.get(_primary(regions))

    def _scan_rank(self, number: int, key: str) -> tuple[int | str, ...]:
        place = self.places[number]
        return (
            0 if fold_toponym(key) in self._own_folds.get(number, ()) else 1,
            0 if place.feature_kind == "country" else 1,
            0 if place.country == HOME_COUNTRY or _prominent(place) else 1,
            _kind_rank(place, ()),
            -(place.population or 0),
            place.gazetteer_id,
        )

    def find_toponyms(self, text: str) -> list[ToponymMention]:
        """Spans of ``text`` that name places, each with its candidates (most likely first:
        see :mod:`casebuilder.gazetteer.scanner`). ``mention.kind`` tells a country, region,
        settlement, city district, site or water body apart."""
        return self.scanner.find(text)

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
        place is None when nothing matches; the query's head is then kept as matched_name."""
        context = context or PlaceContext()
        parsed = _parse(query)
        country = context.country
        country_named = False
        named_regions: set[str] = set()
        anchors: list[tuple[float, float]] = []
        anchor_places: list[Place] = []
        for qualifier in parsed.qualifiers:
            words = normalise_toponym(qualifier)
            if words in self._country_keys:
                country, country_named = self._country_keys[words], True
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
        document_regions: set[str] = set()
        for mention in context.admin1:
            document_regions |= self.regions.match(mention)
        anchors.extend(context.nearby)

        head = parsed.head
        if not head:
            if anchor_places:
                return Resolution(query, anchor_places[0], anchor_places[0].name, (),
                                  "only a position relative to this place is given")  # fmt: skip
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
        stripped = _strip_type_words(head)
        if stripped != head:
            candidates += [c for c in self._candidates(stripped) if c not in candidates]
        candidates = [c for c in candidates if c.place.feature_kind != "country"]
        everywhere = candidates
        in_country = [c for c in candidates if c.place.country == country]
        if in_country and (country_named or not _prominent_abroad(candidates, country)):
            candidates = in_country

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
                reasons.append(f"region named in the query ({region_label})")
            else:
                near = sorted(
                    (min(distance_km(c.place, self.regions.centre(r)) for r in named_regions), c)
                    for c in candidates
                )
                near = [(d, c) for d, c in near if d <= _OUTSIDE_REGION_KM]
                if not near:
                    return self._region_resolution(
                        query, named_regions,
                        f"{stripped!r} not found in {region_label}",
                        tuple(self._rank(candidates, anchors, anchor_places)),
                    )  # fmt: skip
                pool = [near[0][1]]
                reasons.append(f"not found in {region_label}; nearest place of that name")
        elif document_regions:
            inside = [c for c in candidates if c.place.admin1 in document_regions]
            if inside:
                pool = inside
                reasons.append(f"region named in the document ({_label(document_regions)})")
        if not pool:
            pool = self._fuzzy(stripped, [country]) if not candidates else []
            if not pool:
                return Resolution(query, None, stripped, (), "name not in the gazetteer")
            reasons.append("spelling one letter off")

        ranked = self._rank(pool, anchors, anchor_places)
        best = ranked[0]
        reasons.append(self._why(best, ranked, anchors, anchor_places))
        if parsed.relative:
            reasons.append("the query gives a position relative to this place")
        if best.place.placed_at:
            reasons.append(f"placed at the {best.place.placed_at}")
        others = [c for c in self._rank(candidates, anchors, anchor_places) if c not in ranked]
        return Resolution(
            query, best.place, best.matched_name, tuple(ranked + others), "; ".join(reasons)
        )

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
    ) -> list[Candidate]:
        def key(candidate: Candidate) -> tuple[int, int, int, int, int, str]:
            place = candidate.place
            return (
                1 if candidate.match == "fuzzy" else 0,
                _band(nearest_distance_km(place, anchors)) if anchors else 0,
                1 if candidate.alternate else 0,
                _kind_rank(place, anchor_places),
                -(place.population or 0),
                place.gazetteer_id,
            )

        unique: dict[str, Candidate] = {}
        for candidate in candidates:
            unique.setdefault(candidate.place.gazetteer_id, candidate)
        return sorted(unique.values(), key=key)

    @staticmethod
    def _why(
        best: Candidate,
        ranked: Sequence[Candidate],
        anchors: Sequence[tuple[float, float]],
        anchor_places: Sequence[Place],
    ) -> str:
        if len(ranked) == 1:
            return "only candidate"
        runner = ranked[1]
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
        tied = sum(
            1
            for c in ranked
            if c.alternate == best.alternate
            and _kind_rank(c.place, anchor_places) == _kind_rank(best.place, anchor_places)
            and (c.place.population or 0) == (best.place.population or 0)
        )
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
