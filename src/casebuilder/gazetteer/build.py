"""Building the gazetteer's index from GeoNames, KATOTTG and the shipped data files.

Part of the gazetteer, the reference layer below the stages. :func:`load_gazetteer` in
``__init__`` calls :func:`build_index` once per process (or reads its cached result); the
resolver and the text scanner then only read the :class:`GazetteerIndex` it returns.

How the sources are combined, and how precision is set:

1. Every settlement of KATOTTG (cities, urban-type settlements, settlements, villages) is
   romanised with the 2010 standard and linked to the GeoNames place of the same region whose
   name (or an alternate name) has the same fold key. Pairs that are unique on both sides are
   linked first; the remaining ones are linked to the nearest same-named GeoNames place within
   35 km of the unit's hromada (70 km of its raion), judged from the units already linked.
   A linked place takes its coordinate and population from GeoNames and its name from KATOTTG
   (the official spelling: *Izium*, not GeoNames' *Izyum*): precision ``settlement``.
2. A KATOTTG settlement left without a GeoNames partner is still a candidate, placed at the
   centre of its hromada (the hromada's main settlement, or the middle of its linked members),
   else of its raion: precision ``district`` with ``uncertainty_km`` 17-30 (hromada) or
   25-60 (raion), and ``placed_at`` saying so; else at the region's centre, precision
   ``region``. Such a place is never ``point`` or ``settlement``.
3. A GeoNames place in Ukraine that KATOTTG does not know and that lies inside a city of
   100,000+ people is taken as a city district (GeoNames lists neighbourhoods such as Obolon
   among its cities): precision ``district``, parent the city.
4. Places abroad: the towns of 15,000+ people of Ukraine's neighbours, every GeoNames place
   of 500+ people in the neighbouring regions along the border that ``foreign.toml`` lists
   (Belgorod, Kursk, Bryansk Oblasts, ...; they get that region as admin1), the capitals and
   the cities of 1,000,000+ people of the world, and the few towns ``foreign.toml`` names:
   precision ``settlement``, GeoNames' coordinates, their own country code. Every country of
   GeoNames' country table is a place of precision ``country`` placed at its capital, with the
   other names ``countries.toml`` gives.
5. Shipped districts and features are added (precision ``district`` or ``point``; water bodies
   ``region``) and replace a GeoNames entry of the same name within 6 km; shipped spelling
   variants are attached to their target places.
6. Every raion of KATOTTG (category P) becomes a place of feature_kind and precision
   ``region`` (:attr:`Place.is_raion`), placed at the middle of its located settlements, so
   does every hromada (category H) with a located settlement, placed at its centre, and
   every district of a city in KATOTTG (category B) that districts.toml lacks a city district
   placed at its city's point. A shipped site inside a town of 20,000+ people gets that town as
   its parent.
7. ``uncertainty_km`` is set to what the coordinate is worth, about nine times in ten: a
   settlement 2.5 + sqrt(population) / 100 km, a village placed by its hromada at least 17 km,
   an oblast the distance from its centre within which 99% of its located places lie, Ukraine
   the distance to its farthest place (see :class:`Place` for all the ranges).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from hashlib import sha256
from pathlib import Path
from typing import Any, cast

from casebuilder.errors import GazetteerError
from casebuilder.gazetteer.geo import distance_km
from casebuilder.gazetteer.lexicon import LEXICON_DIR, gazetteer_lexicon
from casebuilder.gazetteer.model import RANKING_FILE, FeatureKind, Place, Precision, Thresholds
from casebuilder.gazetteer.normalise import (
    fold_toponym,
    normalise_toponym,
    romanise_ukrainian,
)
from casebuilder.gazetteer.sources import (
    DATA_FILES,
    GEONAMES_PACKAGE,
    KATOTTG_PACKAGE,
    CountryRecord,
    GeonamesRecord,
    KatottgUnit,
    package_version,
    read_countries,
    read_data_text,
    read_data_toml,
    read_demonyms,
    read_geonames,
    read_katottg,
    read_stoplist,
    read_world_cities,
)

INDEX_FORMAT = 7
"""Bump whenever the index's content or layout changes, so that no cache of an older build is
ever served."""

HOME_COUNTRY = "UA"
NEIGHBOUR_COUNTRIES = frozenset({"RU", "BY", "MD", "PL", "RO", "SK", "HU"})
NEIGHBOUR_MIN_POPULATION = 15_000
WORLD_MIN_POPULATION = 1_000_000
INTERNATIONAL_WATERS = "XZ"  # user-assigned ISO code, as UN/LOCODE uses it for the high seas
UKRAINE_CENTRE = (48.38, 31.17)  # geographic centre of Ukraine (near Dobrovelychkivka)

_SETTLEMENT_CATEGORIES = ("K", "M", "T", "X", "C")
_CATEGORY_RANK = {"K": 0, "M": 1, "T": 2, "X": 3, "C": 4}
_HROMADA_LINK_KM = 35.0
_RAION_LINK_KM = 70.0
_DISTRICT_MERGE_KM = 6.0
_CITY_CENTROID_MIN_DISTRICTS = 4
_HROMADA_MIN_KM = 17.0
_FEATURE_TOWN_POPULATION = 20_000
_RAION_MIN_KM = 20.0
_RAION_WORDS = tuple(sorted(gazetteer_lexicon().words("raion_words")))  # data/lexicon
_ABROAD_DISTRICT_WORDS = tuple(sorted(gazetteer_lexicon().phrases("district_words_abroad")))
#: The radius of a district abroad placed at its centre: the border districts of Belgorod,
#: Kursk and Bryansk Oblasts are 40-70 km across and their centres seldom in their middle, so
#: most of a district lies within 30 km of its centre (set by hand, no measurement).
_ABROAD_DISTRICT_KM = 30.0
_HROMADA_WORDS = gazetteer_lexicon().words("hromada_words") - {"hromady", "otg"}


@dataclass(frozen=True, slots=True)
class Region:
    """A first-level unit as described in regions.toml (Ukraine) or foreign.toml (a region of
    a neighbouring country along the border, whose ``katottg`` is empty)."""

    name: str
    geonames_admin1: str
    katottg: str
    centre: str
    lat: float
    lon: float
    also: tuple[str, ...]
    variants: tuple[str, ...]
    country: str = HOME_COUNTRY


@dataclass(slots=True)
class GazetteerIndex:
    """Everything the gazetteer knows, in plain lists: places, and (name, key, fold, place,
    primary) rows for every name a place is known by, where primary is 1 for the place's own
    current names and 0 for GeoNames' alternate names. Serialisable to JSON for the cache."""

    places: list[Place]
    names: list[tuple[str, str, str, int, int]]
    regions: list[Region]
    stoplist: frozenset[str]
    sources: dict[str, str] = field(default_factory=dict)
    demonyms: frozenset[str] = frozenset()

    @property
    def versions(self) -> dict[str, str]:
        """What the index and the gazetteer's rules were made from (:func:`source_versions`):
        package versions and digests of the data files, the lexicon, the ranking figures and
        the code. An extraction run records a digest of it as its gazetteer id."""
        return self.sources

    def to_json(self) -> dict[str, Any]:
        return {
            "format": INDEX_FORMAT,
            "sources": self.sources,
            "places": [[getattr(p, f) for f in _PLACE_FIELDS] for p in self.places],
            "names": self.names,
            "regions": [asdict(r) for r in self.regions],
            "stoplist": sorted(self.stoplist),
            "demonyms": sorted(self.demonyms),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GazetteerIndex:
        if data.get("format") != INDEX_FORMAT:
            raise GazetteerError("gazetteer cache has another format")
        places = [Place(**dict(zip(_PLACE_FIELDS, row, strict=True))) for row in data["places"]]
        regions = [
            Region(**{**r, "also": tuple(r["also"]), "variants": tuple(r["variants"])})
            for r in data["regions"]
        ]
        names = [(str(a), str(b), str(c), int(d), int(e)) for a, b, c, d, e in data["names"]]
        return cls(
            places,
            names,
            regions,
            frozenset(data["stoplist"]),
            dict(data["sources"]),
            frozenset(data["demonyms"]),
        )


_PLACE_FIELDS = tuple(Place.__dataclass_fields__)


# --- versions and the cache ----------------------------------------------------------------


def source_versions(
    lexicon_dir: Path = LEXICON_DIR, ranking_file: Path = RANKING_FILE
) -> dict[str, str]:
    """What the index is built from, and what the gazetteer's answers depend on: package
    versions, a digest of the shipped files, of the lexicon (``data/lexicon``), of the
    ranking figures (``data/ranking.toml``) and of the code. Any change makes a cached index
    stale and gives the gazetteer another id."""
    digest = sha256()
    for name in DATA_FILES:
        digest.update(name.encode() + b"\0" + read_data_text(name).encode("utf-8") + b"\0")
    # The code that builds the index is part of what it is built from: a changed rule must
    # never be served a stale cached index.
    code = sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        code.update(path.name.encode() + b"\0" + path.read_bytes())
    return {
        "index_format": str(INDEX_FORMAT),
        GEONAMES_PACKAGE: package_version(GEONAMES_PACKAGE),
        KATOTTG_PACKAGE: package_version(KATOTTG_PACKAGE),
        "casebuilder_data": digest.hexdigest()[:16],
        "casebuilder_lexicon": gazetteer_lexicon(lexicon_dir).digest[:16],
        "casebuilder_ranking": Thresholds.from_file(ranking_file).digest[:16],
        "casebuilder_code": code.hexdigest()[:16],
    }


def cache_file_name(versions: dict[str, str]) -> str:
    key = sha256(json.dumps(versions, sort_keys=True).encode()).hexdigest()[:16]
    return f"gazetteer-index-{key}.json"


def load_or_build_index(cache_dir: Path | None) -> GazetteerIndex:
    """Read the index cached in ``cache_dir`` for the installed data versions, or build it
    (and cache it there when a directory is given). The cache is plain JSON, derived
    deterministically from the sources; a damaged or stale file is rebuilt, never trusted."""
    versions = source_versions()
    if cache_dir is None:
        return build_index(versions)
    path = cache_dir / cache_file_name(versions)
    cached = _read_cached_index(path, versions)
    if cached is not None:
        return cached
    index = build_index(versions)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        # A temporary of this process's own: two commands building the same index at once
        # must not rename each other's file away.
        fd, name = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=cache_dir)
        temporary = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(index.to_json(), handle, ensure_ascii=False, separators=(",", ":"))
            temporary.replace(path)
        finally:
            temporary.unlink(missing_ok=True)
        for stale in cache_dir.glob("gazetteer-index-*.json"):
            if stale != path:
                stale.unlink(missing_ok=True)  # built from other versions: never read again
    except OSError as exc:
        raise GazetteerError(f"cannot write the gazetteer cache in {cache_dir}: {exc}") from exc
    return index


def _read_cached_index(path: Path, versions: dict[str, str]) -> GazetteerIndex | None:
    """The cached index at ``path`` if it is readable and built from ``versions``; None when
    it is missing, damaged or stale (the caller then builds it afresh)."""
    if not path.is_file():
        return None
    try:
        with path.open(encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("sources") != versions:
            return None
        return GazetteerIndex.from_json(data)
    except (OSError, ValueError, TypeError, KeyError, GazetteerError):
        return None


# --- building ------------------------------------------------------------------------------


def _clean_latin(name: str) -> str:
    """A display name from a romanised one: no apostrophes (the 2010 standard omits them)."""
    return "".join(c for c in name if c not in "'’ʼ`").strip()


def _settlement_uncertainty(population: int | None) -> float:
    """Radius of a settlement from its population: about 3 km for a village, 6 for a town of
    100,000, 14.5 for Kharkiv and 19.5 for Kyiv (2.5 + sqrt(population) / 100).

    It grows like the radius of a built-up area of even density, and was checked against the
    CIR monitor's hand-placed incidents: about 90% of those the gazetteer places in a town lie
    within this radius of the town's point (88-95% in each size class), where the earlier
    1.5 + 0.004 * sqrt(population) covered only 43-66%.
    """
    return round(2.5 + math.sqrt(max(population or 0, 0)) / 100, 1)


def _city_radius(population: int) -> float:
    return 3.0 + 0.01 * math.sqrt(population)


def load_regions() -> list[Region]:
    data = read_data_toml("regions.toml")
    regions: list[Region] = []
    try:
        for entry in data["region"]:
            regions.append(
                Region(
                    name=str(entry["name"]),
                    geonames_admin1=str(entry["geonames_admin1"]),
                    katottg=str(entry["katottg"]),
                    centre=str(entry["centre"]),
                    lat=float(entry["lat"]),
                    lon=float(entry["lon"]),
                    also=tuple(str(a) for a in entry.get("also", ())),
                    variants=tuple(str(v) for v in entry.get("variants", ())),
                )
            )
    except (KeyError, TypeError, ValueError) as exc:
        raise GazetteerError(f"regions.toml: malformed entry ({exc})") from exc
    return regions


class _Builder:
    def __init__(self, versions: dict[str, str]) -> None:
        self.versions = versions
        self.regions = load_regions()
        self.region_by_code = {r.geonames_admin1: r for r in self.regions}
        self.places: list[Place] = []
        self.names: dict[int, dict[str, str]] = defaultdict(dict)  # place -> key -> raw name
        self.primary: dict[int, set[str]] = defaultdict(set)  # place -> keys of own names
        self._folds: dict[str, str] = {}
        self.unit_latin: dict[str, str] = {}
        self.unit_fold: dict[str, str] = {}

    # -- helpers --
    def fold(self, text: str) -> str:
        folded = self._folds.get(text)
        if folded is None:
            folded = self._folds[text] = fold_toponym(text)
        return folded

    def add_place(self, place: Place, names: Iterable[str], alternates: Iterable[str] = ()) -> int:
        """Add a place known by ``names`` (its own, current names) and ``alternates`` (names
        GeoNames lists besides: other languages, old names, names of merged places)."""
        self.places.append(place)
        number = len(self.places) - 1
        self.add_names(number, [place.name, *names], primary=True)
        self.add_names(number, alternates, primary=False)
        return number

    def add_names(self, number: int, names: Iterable[str], *, primary: bool) -> None:
        known = self.names[number]
        own = self.primary[number]
        for raw in names:
            if not raw or any(ch.isdigit() for ch in raw):
                continue
            if raw.isupper() and len(raw) <= 4 and raw.isascii():
                continue  # airport and other codes (OZH, VIN, NLV)
            key = normalise_toponym(raw)
            if len(key) < 2:
                continue
            if key not in known:
                known[key] = raw
            if primary:
                own.add(key)

    # -- the steps --
    def build(self) -> GazetteerIndex:
        units = read_katottg()
        for unit in units:
            latin = _clean_latin(romanise_ukrainian(unit.name))
            self.unit_latin[unit.unit_id] = latin
            self.unit_fold[unit.unit_id] = self.fold(latin)
        geonames = read_geonames(NEIGHBOUR_COUNTRIES | {HOME_COUNTRY})
        home = [g for g in geonames if g.country == HOME_COUNTRY]
        self._add_regions(units)
        linked, coarse = self._link(units, home)
        self._add_home_geonames(home, linked, units)
        self._add_coarse(coarse)
        countries = read_countries()
        abroad = [g for g in geonames if g.country != HOME_COUNTRY]
        capitals = self._add_foreign(abroad, read_world_cities(), countries)
        self._add_countries(countries, capitals)
        self._add_shipped()
        self._add_raions(linked)
        self._add_foreign_districts()
        self._add_hromadas(linked)
        self._add_city_districts(linked)
        self._set_feature_cities()
        self._set_area_uncertainty()
        names = [
            (raw, key, self.fold(key), number, int(key in self.primary[number]))
            for number in range(len(self.places))
            for key, raw in sorted(self.names.get(number, {}).items())
        ]
        return GazetteerIndex(
            self.places, names, self.regions, read_stoplist(), self.versions, read_demonyms()
        )

    def _add_regions(self, units: list[KatottgUnit]) -> None:
        katottg_ids = {u.name: u.unit_id for u in units if u.category in ("O", "K")}
        self.katottg_region: dict[str, Region] = {}
        for region in self.regions:
            unit_id = katottg_ids.get(region.katottg)
            if unit_id is None:
                raise GazetteerError(f"regions.toml: {region.katottg!r} is not in KATOTTG")
            self.katottg_region[unit_id] = region
            adjective = _clean_latin(romanise_ukrainian(region.katottg))
            self.add_place(
                Place(
                    name=region.name,
                    lat=region.lat,
                    lon=region.lon,
                    admin1=region.name,
                    country=HOME_COUNTRY,
                    gazetteer_id=f"katottg:{unit_id}",
                    precision="region",
                    feature_kind="region",
                    uncertainty_km=150.0,
                    local_name=region.katottg,
                    placed_at=f"administrative centre of {region.name} ({region.centre})",
                ),
                [
                    f"{adjective} oblast",
                    region.katottg + (" область" if region.name.endswith("Oblast") else ""),
                ],
            )
        self.ukraine = self.add_place(
            Place(
                name="Ukraine",
                lat=UKRAINE_CENTRE[0],
                lon=UKRAINE_CENTRE[1],
                admin1="",
                country=HOME_COUNTRY,
                gazetteer_id="casebuilder:ukraine",
                precision="country",
                feature_kind="country",
                uncertainty_km=600.0,
                local_name="Україна",
                placed_at="geographic centre of Ukraine",
            ),
            ["Україна", "Украина"],
        )

    def _link(
        self, units: list[KatottgUnit], home: list[GeonamesRecord]
    ) -> tuple[dict[str, GeonamesRecord], list[KatottgUnit]]:
        """Pair KATOTTG settlements with GeoNames places (see the module doc)."""
        self.units = {u.unit_id: u for u in units}
        self.members: dict[str, list[str]] = defaultdict(list)  # hromada/raion -> settlements
        settlements = [u for u in units if u.category in _SETTLEMENT_CATEGORIES]
        for unit in settlements:
            for ancestor in unit.ancestors[1:]:
                self.members[ancestor].append(unit.unit_id)
        kt_candidates, gn_candidates = self._same_name_pairs(settlements, home)
        linked: dict[str, GeonamesRecord] = {}
        used: set[int] = set()
        for unit_id, found in kt_candidates.items():
            if len(found) == 1:
                (position,) = found
                if len(gn_candidates[position]) == 1 and not _size_mismatch(
                    self.units[unit_id], home[position]
                ):
                    linked[unit_id] = home[position]
                    used.add(position)
        for _ in range(2):  # anchors improve as more units are linked
            self.anchors = self._anchors(linked)
            for _score, unit_id, position in sorted(self._near_pairs(kt_candidates, linked,
                                                                     used, home)):
                if unit_id not in linked and position not in used:
                    linked[unit_id] = home[position]
                    used.add(position)
        self.anchors = self._anchors(linked)
        coarse = [u for u in settlements if u.unit_id not in linked]
        return linked, coarse

    def _same_name_pairs(
        self, settlements: list[KatottgUnit], home: list[GeonamesRecord]
    ) -> tuple[dict[str, set[int]], dict[int, set[str]]]:
        """For each KATOTTG settlement the GeoNames places (by position in ``home``) of its
        region with the same fold key, and for each such place the settlements."""
        gn_folds: dict[tuple[str, str], set[int]] = defaultdict(set)
        for position, record in enumerate(home):
            region = self.region_by_code.get(record.admin1_code)
            if region is None:
                continue
            for raw in (record.name, *record.alternate_names):
                fold = self.fold(raw)
                if fold:
                    gn_folds[(region.name, fold)].add(position)
        kt_candidates: dict[str, set[int]] = {}
        gn_candidates: dict[int, set[str]] = defaultdict(set)
        for unit in settlements:
            region = self._region_of(unit)
            if region is None:
                continue
            found = gn_folds.get((region.name, self.unit_fold[unit.unit_id]), set())
            kt_candidates[unit.unit_id] = set(found)
            for position in found:
                gn_candidates[position].add(unit.unit_id)
        return kt_candidates, gn_candidates

    def _near_pairs(
        self,
        kt_candidates: dict[str, set[int]],
        linked: dict[str, GeonamesRecord],
        used: set[int],
        home: list[GeonamesRecord],
    ) -> list[tuple[float, str, int]]:
        """(distance / limit, unit, place) for every unlinked settlement and free same-named
        place within the link limit of the settlement's nearest located ancestor."""
        pairs: list[tuple[float, str, int]] = []
        for unit_id, found in kt_candidates.items():
            if unit_id in linked:
                continue
            unit = self.units[unit_id]
            for ancestor, limit in self._anchor_levels(unit):
                anchor = self.anchors.get(ancestor)
                if anchor is None:
                    continue
                for position in found - used:
                    record = home[position]
                    distance = distance_km(anchor[0], (record.lat, record.lon))
                    if distance <= limit and not _size_mismatch(unit, record):
                        pairs.append((distance / limit, unit_id, position))
                break
        return pairs

    def _region_of(self, unit: KatottgUnit) -> Region | None:
        top = unit.ancestors[0] if unit.ancestors else unit.unit_id
        return self.katottg_region.get(top)

    def _anchor_levels(self, unit: KatottgUnit) -> list[tuple[str, float]]:
        """(hromada id, link limit), (raion id, link limit), from the unit's ancestors."""
        levels: list[tuple[str, float]] = []
        for ancestor in reversed(unit.ancestors):
            category = self.units[ancestor].category if ancestor in self.units else ""
            if category == "H":
                levels.append((ancestor, _HROMADA_LINK_KM))
            elif category == "P":
                levels.append((ancestor, _RAION_LINK_KM))
        return levels

    def _anchors(
        self, linked: dict[str, GeonamesRecord]
    ) -> dict[str, tuple[tuple[float, float], float, str]]:
        """hromada/raion id -> (coordinates, radius km, how it was found)."""
        anchors: dict[str, tuple[tuple[float, float], float, str]] = {}
        for area_id, member_ids in self.members.items():
            area = self.units.get(area_id)
            if area is None or area.category not in ("H", "P"):
                continue
            located = [(linked[m].lat, linked[m].lon) for m in member_ids if m in linked]
            centre = self._centre_of(area, member_ids)
            area_label = self.unit_latin[area.unit_id] + (
                " hromada" if area.category == "H" else " raion"
            )
            if located:
                point = (
                    statistics.fmean(p[0] for p in located),
                    statistics.fmean(p[1] for p in located),
                )
                if len(located) == 1 and centre is not None and centre in linked:
                    how = f"centre of {area_label} ({self.unit_latin[centre]})"
                else:
                    how = f"middle of the {len(located)} located places of {area_label}"
            else:
                continue
            spread = max((distance_km(point, p) for p in located), default=0.0)
            if area.category == "H":
                # Leaving each located village out in turn, 94% lie within this radius of
                # the mean of the others (91% where only one or two others are located)
                radius = min(30.0, max(_HROMADA_MIN_KM, spread + 3.0))
            else:
                radius = min(60.0, max(25.0, spread))
            anchors[area_id] = (point, round(radius, 1), how)
        return anchors

    def _centre_of(self, area: KatottgUnit, member_ids: list[str]) -> str | None:
        """The settlement a hromada or raion is named after: the highest-ranked category among
        members whose name shares a stem of 4+ letters with the area's name."""
        area_fold = self.unit_fold[area.unit_id].replace(" ", "")
        best: tuple[int, int, str] | None = None
        for member_id in member_ids:
            member = self.units[member_id]
            fold = self.unit_fold[member_id].replace(" ", "")
            prefix = 0
            for a, b in zip(area_fold, fold, strict=False):
                if a != b:
                    break
                prefix += 1
            if prefix < 4 or prefix < min(len(fold), len(area_fold)) - 4:
                continue
            key = (_CATEGORY_RANK[member.category], -prefix, member_id)
            if best is None or key < best:
                best = key
        return best[2] if best else None

    def _parent_label(self, unit: KatottgUnit) -> str:
        labels = []
        for ancestor in reversed(unit.ancestors):
            area = self.units.get(ancestor)
            if area is not None and area.category in ("H", "P"):
                kind = "hromada" if area.category == "H" else "raion"
                labels.append(f"{self.unit_latin[area.unit_id]} {kind}")
        return ", ".join(labels)

    def _add_home_geonames(
        self,
        home: list[GeonamesRecord],
        linked: dict[str, GeonamesRecord],
        units: list[KatottgUnit],
    ) -> None:
        unit_of = {record.geonameid: unit_id for unit_id, record in linked.items()}
        big_cities = sorted(
            (r for r in home if r.geonameid in unit_of and r.population >= 100_000),
            key=lambda r: -r.population,
        )
        self.geonames_place: dict[int, int] = {}
        for record in home:
            region = self.region_by_code.get(record.admin1_code)
            admin1 = region.name if region else ""
            unit_id = unit_of.get(record.geonameid)
            names = [record.name]
            kind: FeatureKind = "settlement"
            precision: Precision = "settlement"
            parent = ""
            uncertainty = _settlement_uncertainty(record.population)
            local_name = ""
            name = record.name
            if unit_id is not None:
                unit = self.units[unit_id]
                local_name = unit.name
                name = self.unit_latin[unit.unit_id]
                names += [unit.name, name]
                parent = self._parent_label(unit)
            else:
                city = next(
                    (
                        c
                        for c in big_cities
                        if c.admin1_code == record.admin1_code
                        and c.geonameid != record.geonameid
                        and c.population > 2 * record.population
                        and distance_km((c.lat, c.lon), (record.lat, record.lon))
                        <= _city_radius(c.population)
                    ),
                    None,
                )
                if city is not None:
                    kind, precision = "city_district", "district"
                    parent = self.unit_latin[unit_of[city.geonameid]]
            number = self.add_place(
                Place(
                    name=name,
                    lat=record.lat,
                    lon=record.lon,
                    admin1=admin1,
                    country=HOME_COUNTRY,
                    gazetteer_id=f"geonames:{record.geonameid}",
                    precision=precision,
                    feature_kind=kind,
                    population=record.population or None,
                    uncertainty_km=uncertainty,
                    local_name=local_name,
                    parent=parent,
                ),
                names,
                record.alternate_names,
            )
            self.geonames_place[record.geonameid] = number
        del units

    def _add_coarse(self, coarse: list[KatottgUnit]) -> None:
        for unit in coarse:
            region = self._region_of(unit)
            if region is None:
                continue
            anchor = None
            for ancestor, _limit in self._anchor_levels(unit):
                anchor = self.anchors.get(ancestor)
                if anchor is not None:
                    break
            if anchor is not None:
                (lat, lon), radius, how = anchor
                precision: Precision = "district"
            else:
                lat, lon, radius = region.lat, region.lon, 150.0
                how = f"administrative centre of {region.name} ({region.centre})"
                precision = "region"
            name = self.unit_latin[unit.unit_id]
            self.add_place(
                Place(
                    name=name,
                    lat=round(lat, 5),
                    lon=round(lon, 5),
                    admin1=region.name,
                    country=HOME_COUNTRY,
                    gazetteer_id=f"katottg:{unit.unit_id}",
                    precision=precision,
                    feature_kind="settlement",
                    uncertainty_km=radius,
                    local_name=unit.name,
                    parent=self._parent_label(unit),
                    placed_at=f"{how}; the {_KIND_WORD[unit.category]} itself is not in GeoNames",
                ),
                [unit.name],
            )

    def _add_raions(self, linked: dict[str, GeonamesRecord]) -> None:
        """A place for every raion of KATOTTG (category P; the 136 raions of 2020): precision
        and feature_kind ``region``, its oblast as admin1 and parent, placed at the middle of
        its located settlements, with the distance within which 95% of them lie (plus 5 km,
        at least 20) as uncertainty. Known by its adjective ("Kharkivskyi", "Харківський"), with
        "raion", "district" or "rayon" after it, and by its centre's name with those words
        ("Kharkiv raion", "Kramatorsk district")."""
        former: dict[tuple[str, str], tuple[str, list[str]]] = {}
        try:
            for entry in read_data_toml("variants.toml").get("raion", ()):
                target = str(entry["target"])
                key = (str(entry["admin1"]), self.fold(target))
                former[key] = (target, [str(v) for v in entry.get("variants", ())])
        except (KeyError, TypeError) as exc:
            raise GazetteerError(f"variants.toml: malformed raion ({exc})") from exc
        for unit in self.units.values():
            if unit.category != "P":
                continue
            region = self._region_of(unit)
            if region is None:
                continue
            members = self.members.get(unit.unit_id, [])
            located = [(linked[m].lat, linked[m].lon) for m in members if m in linked]
            adjective = self.unit_latin[unit.unit_id]
            label = f"{adjective} raion"
            if located:
                lat = statistics.fmean(p[0] for p in located)
                lon = statistics.fmean(p[1] for p in located)
                spread = _high_quantile([distance_km((lat, lon), p) for p in located], 0.95)
                radius = float(math.ceil(max(_RAION_MIN_KM, spread + 5.0)))
                how = f"middle of the {len(located)} located places of {label}"
            else:
                lat, lon, radius = region.lat, region.lon, 150.0
                how = f"administrative centre of {region.name} ({region.centre})"
            names = [adjective, unit.name, f"{unit.name} район"]
            names += [f"{adjective} {word}" for word in _RAION_WORDS]
            centre = self._centre_of(unit, members) or self._largest_city(members, linked)
            if centre is not None:
                stems = {self.unit_latin[centre]}
                if centre in linked:
                    stems.add(linked[centre].name)
                for stem in sorted(stems):
                    names += [f"{stem} {word}" for word in _RAION_WORDS]
                    derived = _adjective_of(stem)  # Sievierodonetskyi, before its renaming
                    if derived and self.fold(derived) != self.fold(adjective):
                        names += [derived] + [f"{derived} {word}" for word in _RAION_WORDS]
            for variant in former.pop((region.name, self.fold(adjective)), ("", []))[1]:
                names += [variant] + [f"{variant} {word}" for word in _RAION_WORDS]
            self.add_place(
                Place(
                    name=label,
                    lat=round(lat, 5),
                    lon=round(lon, 5),
                    admin1=region.name,
                    country=HOME_COUNTRY,
                    gazetteer_id=f"katottg:{unit.unit_id}",
                    precision="region",
                    feature_kind="region",
                    uncertainty_km=radius,
                    local_name=f"{unit.name} район",
                    parent=region.name,
                    placed_at=how,
                ),
                names,
            )
        for (admin1, _fold), (target, _variants) in sorted(former.items()):
            raise GazetteerError(f"variants.toml: no raion {target!r} in {admin1}")

    def _add_foreign_districts(self) -> None:
        """A place for every [[district]] of foreign.toml: a district of a border region
        abroad, precision and feature_kind ``region``, its region as admin1 and parent (so it
        narrows a name down like a raion), placed at its centre, known by its adjective in
        its usual spellings ("Shebekinsky", "Shebekinskiy") and by the adjective or the
        centre's name with a word of ``district_words_abroad`` ("Shebekino urban
        district")."""
        try:
            entries = [(str(e["region"]), str(e["centre"]), str(e["adjective"]),
                        [str(v) for v in e.get("variants", ())])
                       for e in read_data_toml("foreign.toml").get("district", ())]
        except (KeyError, TypeError) as exc:
            raise GazetteerError(f"foreign.toml: malformed district ({exc})") from exc
        regions = {r.name: r for r in self.regions if r.country != HOME_COUNTRY}
        wanted = {region for region, _c, _a, _v in entries}
        seats = {(p.admin1, p.name): p for p in self.places
                 if p.admin1 in wanted and p.feature_kind == "settlement"}  # fmt: skip
        for region_name, centre, adjective, variants in entries:
            region = regions.get(region_name)
            seat = seats.get((region_name, centre))
            if region is None or seat is None:
                raise GazetteerError(f"foreign.toml: no district centre {centre!r} in "
                                     f"{region_name}")  # fmt: skip
            stems = [adjective, *_adjective_spellings(adjective), *variants]
            names = stems + [f"{stem} {word}" for stem in [*stems, centre]
                             for word in _ABROAD_DISTRICT_WORDS]  # fmt: skip
            slug = normalise_toponym(adjective).replace(" ", "-")
            self.add_place(
                Place(
                    name=f"{adjective} district",
                    lat=seat.lat,
                    lon=seat.lon,
                    admin1=region_name,
                    country=region.country,
                    gazetteer_id=f"casebuilder:district-{region.country.lower()}-{slug}",
                    precision="region",
                    feature_kind="region",
                    uncertainty_km=_ABROAD_DISTRICT_KM,
                    parent=region_name,
                    placed_at=f"centre of the district, {centre} (its middle is not known)",
                ),
                names,
            )

    def _add_hromadas(self, linked: dict[str, GeonamesRecord]) -> None:
        """A place for every hromada of KATOTTG (category H, the territorial communities of
        2020) with a located settlement: feature_kind and precision ``region`` like a raion
        (:attr:`Place.is_raion` is true of both: each is an area of an oblast that a query can
        name to narrow a name down), its raion as parent, placed where its villages placed
        by hromada are (the centre of the hromada: its main settlement when that is its only
        located one, else the middle of its located places), with that anchor's radius as
        uncertainty. Known by its adjective with "hromada" or "community" after it
        ("Vilkhivska hromada") and by its centre's name with them ("Vilkhivka community"),
        never by the bare adjective, which is also a village's name."""
        words = sorted(_HROMADA_WORDS)
        for unit in self.units.values():
            if unit.category != "H" or unit.unit_id not in self.anchors:
                continue
            region = self._region_of(unit)
            if region is None:
                continue
            (lat, lon), radius, how = self.anchors[unit.unit_id]
            adjective = self.unit_latin[unit.unit_id]
            names = [f"{unit.name} громада", f"{unit.name} територіальна громада"]
            names += [f"{adjective} {word}" for word in words]
            names.append(f"{adjective} territorial community")
            centre = self._centre_of(unit, self.members.get(unit.unit_id, []))
            if centre is not None:
                stems = {self.unit_latin[centre]}
                if centre in linked:
                    stems.add(linked[centre].name)
                for stem in sorted(stems):
                    names += [f"{stem} {word}" for word in words]
            raion = next((self.unit_latin[a] + " raion" for a in reversed(unit.ancestors)
                          if a in self.units and self.units[a].category == "P"), region.name)
            self.add_place(
                Place(
                    name=f"{adjective} hromada",
                    lat=round(lat, 5),
                    lon=round(lon, 5),
                    admin1=region.name,
                    country=HOME_COUNTRY,
                    gazetteer_id=f"katottg:{unit.unit_id}",
                    precision="region",
                    feature_kind="region",
                    uncertainty_km=radius,
                    local_name=f"{unit.name} громада",
                    parent=raion,
                    placed_at=how,
                ),
                names,
            )

    def _largest_city(self, members: list[str], linked: dict[str, GeonamesRecord]) -> str | None:
        """The most populous city (KATOTTG category M) among a raion's settlements: the centre
        a raion is named after when its name no longer shares a stem with it."""
        cities = [m for m in members if self.units[m].category == "M" and m in linked]
        return max(cities, key=lambda m: (linked[m].population, m), default=None)

    def _add_city_districts(self, linked: dict[str, GeonamesRecord]) -> None:
        """A place for every district of a city in KATOTTG (category B: Shevchenkivskyi
        district of Zaporizhzhia) that districts.toml does not already give: precision
        ``district``, placed at its city's point with the city's uncertainty (its own centre is
        not known), parent the city."""
        number_of = {place.gazetteer_id: number for number, place in enumerate(self.places)}
        known: set[tuple[str, str]] = set()
        for number, place in enumerate(self.places):
            if place.feature_kind == "city_district" and place.parent:
                for key in self.names.get(number, {}):
                    words = [w for w in key.split() if w not in _RAION_WORDS]
                    known.add((place.parent, self.fold(" ".join(words))))
        for unit in self.units.values():
            if unit.category != "B" or not unit.ancestors:
                continue
            record = linked.get(unit.ancestors[-1])
            city_number = number_of.get(f"geonames:{record.geonameid}") if record else None
            if city_number is None:
                continue
            city = self.places[city_number]
            adjective = self.unit_latin[unit.unit_id]
            if (city.name, self.fold(adjective)) in known:
                continue
            self.add_place(
                Place(
                    name=f"{adjective} district",
                    lat=city.lat,
                    lon=city.lon,
                    admin1=city.admin1,
                    country=HOME_COUNTRY,
                    gazetteer_id=f"katottg:{unit.unit_id}",
                    precision="district",
                    feature_kind="city_district",
                    uncertainty_km=city.uncertainty_km,
                    local_name=f"{unit.name} район",
                    parent=city.name,
                    placed_at=f"centre of {city.name}; the district's own centre is not known",
                ),
                [adjective, unit.name, f"{unit.name} район"]
                + [f"{adjective} {word}" for word in _RAION_WORDS],
            )

    def _set_feature_cities(self) -> None:
        """Give a shipped site that lies inside a town of 20,000+ people (within the town's
        radius) that town as its parent, the largest KATOTTG knows where there are several:
        Freedom Square is Kharkiv's, Azovstal Mariupol's."""
        towns = [
            p for p in self.places
            if p.feature_kind == "settlement" and p.precision == "settlement"
            and p.country == HOME_COUNTRY and (p.population or 0) >= _FEATURE_TOWN_POPULATION
        ]  # fmt: skip
        for number, place in enumerate(self.places):
            if place.feature_kind != "feature" or place.parent:
                continue
            inside = [
                (bool(town.local_name), town.population or 0, town.name)
                for town in towns
                if distance_km(place, town) <= _city_radius(town.population or 0)
            ]
            if inside:  # a city of KATOTTG before a quarter GeoNames lists as a town
                self.places[number] = replace(place, parent=max(inside)[2])

    def _set_area_uncertainty(self) -> None:
        """Give each oblast and border region the distance from its centre within which 99% of
        its located settlements lie (a stray GeoNames entry in the wrong region does not count),
        rounded up to 5 km, as uncertainty_km, and Ukraine the distance to its farthest one:
        any spot in the area may be meant."""
        centres = {region.name: (region.lat, region.lon) for region in self.regions}
        distances: dict[str, list[float]] = defaultdict(list)
        ukraine: list[float] = []
        for place in self.places:
            if place.feature_kind != "settlement" or place.precision != "settlement":
                continue
            centre = centres.get(place.admin1)
            if centre is not None:
                distances[place.admin1].append(distance_km(place, centre))
            if place.country == HOME_COUNTRY:
                ukraine.append(distance_km(place, UKRAINE_CENTRE))
        farthest = {name: _high_quantile(found, 0.99) for name, found in distances.items()}
        for number, place in enumerate(self.places):
            if place.gazetteer_id == "casebuilder:ukraine" and ukraine:
                self.places[number] = replace(
                    place, uncertainty_km=50.0 * math.ceil(max(ukraine) / 50.0)
                )
            elif place.admin1 not in farthest or place.is_raion:
                continue
            elif place.feature_kind == "region" or (
                place.feature_kind == "settlement" and place.precision == "region"
            ):  # an oblast, or a village known only by its oblast
                radius = 5.0 * math.ceil(max(20.0, farthest[place.admin1]) / 5.0)
                self.places[number] = replace(place, uncertainty_km=radius)

    def _add_foreign(
        self,
        neighbours: list[GeonamesRecord],
        world: list[GeonamesRecord],
        countries: list[CountryRecord],
    ) -> dict[str, int]:
        """Add the places abroad (step 4 of the module doc) and the regions of foreign.toml;
        return the place number of each country's capital, by ISO code."""
        data = read_data_toml("foreign.toml")
        regions: dict[tuple[str, str], dict[str, Any]] = {}
        wanted: set[tuple[str, str]] = set()
        try:
            for entry in data.get("region", ()):
                regions[(str(entry["country"]), str(entry["geonames_admin1"]))] = entry
            for entry in data.get("city", ()):
                wanted.add((str(entry["country"]), str(entry["name"])))
        except (KeyError, TypeError) as exc:
            raise GazetteerError(f"foreign.toml: malformed entry ({exc})") from exc
        capital_names = {c.iso: c.capital for c in countries if c.capital}
        chosen: dict[int, GeonamesRecord] = {}
        for record in neighbours:
            if (
                record.country,
                record.admin1_code,
            ) in regions or record.population >= NEIGHBOUR_MIN_POPULATION:
                chosen[record.geonameid] = record
        capital_of: dict[str, GeonamesRecord] = {}
        world = [r for r in world if r.country != HOME_COUNTRY]
        for record in world:
            capital = capital_names.get(record.country)
            if capital and (record.name == capital or capital in record.alternate_names):
                best = capital_of.get(record.country)
                # the place whose own name is the capital's, else the largest
                rank = (record.name == capital, record.population)
                if best is None or rank > (best.name == capital, best.population):
                    capital_of[record.country] = record
        for record in world:
            if (
                record.population >= WORLD_MIN_POPULATION
                or capital_of.get(record.country) is record
                or (record.country, record.name) in wanted
            ):
                chosen.setdefault(record.geonameid, record)
        found = {(r.country, r.name) for r in chosen.values()}
        for country, name in sorted(wanted - found):
            raise GazetteerError(f"foreign.toml: no place {name!r} of 15,000+ people in {country}")
        region_name = {key: str(entry["name"]) for key, entry in regions.items()}
        numbers: dict[int, int] = {}
        for record in sorted(chosen.values(), key=lambda r: r.geonameid):
            numbers[record.geonameid] = self.add_place(
                Place(
                    name=record.name,
                    lat=record.lat,
                    lon=record.lon,
                    admin1=region_name.get((record.country, record.admin1_code), ""),
                    country=record.country,
                    gazetteer_id=f"geonames:{record.geonameid}",
                    precision="settlement",
                    feature_kind="settlement",
                    population=record.population or None,
                    uncertainty_km=_settlement_uncertainty(record.population),
                ),
                (),
                record.alternate_names,
            )
        for (country, code), entry in sorted(regions.items()):
            self._add_foreign_region(country, code, entry, list(chosen.values()))
        return {iso: numbers[r.geonameid] for iso, r in capital_of.items()}

    def _add_foreign_region(
        self, country: str, code: str, entry: dict[str, Any], records: list[GeonamesRecord]
    ) -> None:
        try:
            name, centre = str(entry["name"]), str(entry["centre"])
            variants = tuple(str(v) for v in entry.get("variants", ()))
        except (KeyError, TypeError) as exc:
            raise GazetteerError(f"foreign.toml: malformed region ({exc})") from exc
        seat = max(
            (
                r
                for r in records
                if r.country == country and r.admin1_code == code and r.name == centre
            ),
            key=lambda r: r.population,
            default=None,
        )
        if seat is None:
            raise GazetteerError(f"foreign.toml: no centre {centre!r} in {name} ({country})")
        region = Region(name, code, "", centre, seat.lat, seat.lon, (), variants, country)
        self.regions.append(region)
        self.add_place(
            Place(
                name=name,
                lat=seat.lat,
                lon=seat.lon,
                admin1=name,
                country=country,
                gazetteer_id=f"casebuilder:region-{country.lower()}-{code}",
                precision="region",
                feature_kind="region",
                uncertainty_km=150.0,
                placed_at=f"administrative centre of {name} ({centre})",
            ),
            (),
        )

    def _add_countries(self, countries: list[CountryRecord], capitals: dict[str, int]) -> None:
        """A place of precision ``country`` for every country, at its capital (Ukraine's own
        place, at its geographic centre, was added with the regions)."""
        variants: dict[str, list[str]] = {}
        known = {c.iso for c in countries}
        for entry in read_data_toml("countries.toml").get("country", ()):
            try:
                iso = str(entry["iso"])
                names = [str(v) for v in entry.get("variants", ())]
            except (KeyError, TypeError) as exc:
                raise GazetteerError(f"countries.toml: malformed entry ({exc})") from exc
            if iso not in known:
                raise GazetteerError(f"countries.toml: unknown country code {iso!r}")
            variants[iso] = names
        for country in countries:
            if country.iso == HOME_COUNTRY:
                self.add_names(
                    self.ukraine, [country.name, *variants.get(HOME_COUNTRY, ())], primary=True
                )
                continue
            number = capitals.get(country.iso)
            if number is None:
                continue  # no capital in GeoNames' cities (Antarctica, uninhabited islands)
            capital = self.places[number]
            self.add_place(
                Place(
                    name=country.name,
                    lat=capital.lat,
                    lon=capital.lon,
                    admin1="",
                    country=country.iso,
                    gazetteer_id=f"geonames:{country.geonameid}",
                    precision="country",
                    feature_kind="country",
                    population=country.population or None,
                    uncertainty_km=float(max(50, round(math.sqrt(country.area_km2) / 2))),
                    placed_at=f"capital of {country.name} ({capital.name}); only the country "
                    "is known",
                ),
                variants.get(country.iso, ()),
            )

    def _add_shipped(self) -> None:
        """Add the districts and features of the shipped files (step 5 of the module doc);
        a city district of GeoNames of the same name within 6 km of a shipped one is dropped."""
        region_names = {r.name for r in self.regions}
        dropped: set[int] = set()
        districts: dict[tuple[str, str], list[int]] = defaultdict(list)
        for number, other in enumerate(self.places):
            if other.feature_kind == "city_district":
                districts[(other.admin1, self.fold(other.name))].append(number)
        for table, default_kind in (("district", "city_district"), ("feature", "feature")):
            data = read_data_toml(f"{table}s.toml")
            for entry in data.get(table, ()):
                place, variants = _shipped_place(table, entry, default_kind, region_names)
                for fold in {self.fold(n) for n in [place.name, *variants]}:
                    for number in districts.get((place.admin1, fold), ()):
                        if distance_km(self.places[number], place) <= _DISTRICT_MERGE_KM:
                            dropped.add(number)
                self.add_place(place, variants)
        self._add_variants()
        self._centre_cities(dropped)
        if dropped:
            self._drop(dropped)

    def _drop(self, dropped: set[int]) -> None:
        """Remove the places numbered ``dropped`` (and renumber the names)."""
        keep = [n for n in range(len(self.places)) if n not in dropped]
        renumber = {old: new for new, old in enumerate(keep)}
        self.places = [self.places[n] for n in keep]
        self.names = defaultdict(
            dict, {renumber[n]: v for n, v in self.names.items() if n in renumber}
        )
        self.primary = defaultdict(
            set, {renumber[n]: v for n, v in self.primary.items() if n in renumber}
        )

    def _centre_cities(self, dropped: set[int]) -> None:
        """Move a city's point to the middle of its districts when 4 or more are known.

        GeoNames often marks a city's historic centre or town hall, which in a coastal or
        river city (Mariupol, Mykolaiv, Odesa) lies at the edge of the built-up area; the mean
        of its district centres is closer to the middle of where its people live, so a place
        known only as "in the city" is off by less on average.
        """
        districts: dict[tuple[str, str], list[Place]] = defaultdict(list)
        for number, place in enumerate(self.places):
            if place.feature_kind == "city_district" and place.parent and number not in dropped:
                districts[(place.admin1, place.parent)].append(place)
        for number, place in enumerate(self.places):
            if place.precision != "settlement" or place.feature_kind != "settlement":
                continue
            parts = districts.get((place.admin1, place.name), [])
            if len(parts) < _CITY_CENTROID_MIN_DISTRICTS:
                continue
            lat = statistics.fmean(p.lat for p in parts)
            lon = statistics.fmean(p.lon for p in parts)
            self.places[number] = replace(
                place,
                lat=round(lat, 5),
                lon=round(lon, 5),
                placed_at=f"middle of its {len(parts)} known districts",
            )

    def _add_variants(self) -> None:
        data = read_data_toml("variants.toml")
        by_key: dict[tuple[str, str], list[int]] = defaultdict(list)
        for number, known in self.names.items():
            place = self.places[number]
            if place.feature_kind != "settlement" or place.precision != "settlement":
                continue
            for key in known:
                by_key[(place.admin1, key)].append(number)
                by_key[(place.admin1, self.fold(key))].append(number)
        for entry in data.get("place", ()):
            target, admin1 = str(entry["target"]), str(entry["admin1"])
            found = by_key.get((admin1, normalise_toponym(target))) or by_key.get(
                (admin1, self.fold(target))
            )
            if not found:
                raise GazetteerError(f"variants.toml: no settlement {target!r} in {admin1}")
            number = max(found, key=lambda n: (self.places[n].population or 0, -n))
            self.add_names(number, [str(v) for v in entry.get("variants", ())], primary=True)


def _shipped_place(
    table: str, entry: dict[str, Any], default_kind: str, region_names: set[str]
) -> tuple[Place, list[str]]:
    """A place of ``districts.toml`` or ``features.toml`` and its other names, checked."""
    try:
        kind = _SHIPPED_KINDS.get(str(entry.get("kind", default_kind)))
        if kind is None:
            raise GazetteerError(f"{table}s.toml: unknown kind {entry['kind']!r}")
        admin1 = str(entry["admin1"])
        if admin1 not in region_names and not (kind == "water_body" and not admin1):
            raise GazetteerError(f"{table}s.toml: unknown admin1 {admin1!r}")
        precision = cast(Precision, str(entry.get("precision", "district")))
        place = Place(
            name=str(entry["name"]),
            lat=float(entry["lat"]),
            lon=float(entry["lon"]),
            admin1=admin1,
            country=str(entry.get("country", HOME_COUNTRY)),
            gazetteer_id=f"casebuilder:{entry['id']}",
            precision=precision,
            feature_kind=kind,
            uncertainty_km=float(entry.get("uncertainty_km", 2.0)),
            parent=str(entry.get("city", "")),
            placed_at="middle of its Ukrainian part" if kind == "water_body" else "",
        )
        variants = [str(v) for v in entry.get("variants", ())]
    except (KeyError, TypeError, ValueError) as exc:
        raise GazetteerError(f"{table}s.toml: malformed entry ({exc})") from exc
    allowed = ("region",) if kind == "water_body" else ("point", "district")
    if precision not in allowed:
        raise GazetteerError(f"{table}s.toml: {place.name}: bad precision")
    if len(place.country) != 2 or not place.country.isupper():
        raise GazetteerError(f"{table}s.toml: {place.name}: bad country code")
    return place, variants


def _adjective_of(name: str) -> str:
    """The Ukrainian adjective of a town's name, as raions are named after their centres
    (Bakhmut -> Bakhmutskyi, Kupiansk -> Kupianskyi, Horlivka -> Horlivskyi, Kalmiuske ->
    Kalmiuskyi); empty where the form is irregular (names ending in another vowel)."""
    if name.endswith("sk"):
        return name + "yi"
    if name.endswith("ske"):
        return name[:-1] + "yi"
    if name.endswith("ka"):
        return name[:-2] + "skyi"
    if not name or name[-1] in "aeiouy":
        return ""
    return name + "skyi"


def _adjective_spellings(adjective: str) -> list[str]:
    """Other spellings of a Russian adjective in -sky ("Shebekinsky"): -skiy, -skii, -skyi."""
    if not adjective.endswith("sky"):
        return []
    stem = adjective[:-1]
    return [stem + ending for ending in ("iy", "ii", "yi")]


def _high_quantile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (the largest for a handful)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)] if ordered else 0.0


def _size_mismatch(unit: KatottgUnit, record: GeonamesRecord) -> bool:
    """A village and a town-sized GeoNames place (often a city district GeoNames lists
    among its cities), or a city and a hamlet, are never the same place."""
    if unit.category in ("C", "X") and record.population >= 10_000:
        return True
    return unit.category in ("K", "M") and 0 < record.population < 1_000


_SHIPPED_KINDS: dict[str, FeatureKind] = {
    "city_district": "city_district",
    "feature": "feature",
    "site": "feature",
    "water body": "water_body",
}

_KIND_WORD = {"K": "city", "M": "city", "T": "town", "X": "settlement", "C": "village"}


def build_index(versions: dict[str, str] | None = None) -> GazetteerIndex:
    """Build the index from the installed packages and the shipped files (a few seconds)."""
    return _Builder(versions or source_versions()).build()
