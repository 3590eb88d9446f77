"""The TimeMap export: the JSON files Forensic Architecture's TimeMap reads from its endpoints.

TimeMap (github.com/forensic-architecture/timemap) fetches its data from URLs its config.js
names and validates every item against its schemas (src/reducers/validate/*.js), refusing an
item with a field the schema does not list. Its documentation page (docs/configuration.md)
describes an earlier shape of the same data, with other field names. The export is a directory
holding both, with the ids shared across files:

- ``events.json``: one event per incident, in the shape TimeMap's code validates
  (``eventSchema.js``); its ``id`` is the incident id, ``sources`` the ids of the incident's
  documents in ``sources.json``, ``associations`` the ids of its category and filters in
  ``associations.json``.
- ``associations.json``: the categories (mode ``CATEGORY``) and the filter tree's nodes (mode
  ``FILTER``, with their ``filter_paths``), ``associationsSchema.js``.
- ``sources.json``: the documents, an object keyed by id (``sourceSchema.js``).
- ``sites.json``: one labelled site per place incidents happened (``siteSchema.js``).
- ``events-documented.json``, ``categories.json``, ``filters.json``: the shapes
  docs/configuration.md documents (``desc``, ``lat``, ``long``, ``source``, ``filters``,
  ``category``; the categories list; the filter tree), for TimeMap versions and servers that
  follow that page.
- ``README.txt``: how to point a TimeMap config.js at the files.

Each event has one category, the incident's main one, chosen by the table of
``data/timemap.toml`` (checked on load). Dates are TimeMap's default ``MM/DD/YYYY`` and times
``HH:mm`` where a source gives the time.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from casebuilder.model.terms import CATEGORY_ORDER
from casebuilder.reporting.account import account
from casebuilder.reporting.acled import ExportMappingError, weapon_family
from casebuilder.resolution import summary
from casebuilder.resolution.profiles import SourceProfiles, load_profiles
from casebuilder.resolution.summary import Incident

MAPPING_FILE = Path(__file__).with_name("data") / "timemap.toml"

#: The fields of an event in TimeMap's event schema (src/reducers/validate/eventSchema.js).
EVENT_FIELDS = ("id", "description", "date", "time", "time_precision", "location", "latitude",
                "longitude", "x", "y", "z", "type", "category", "category_full", "associations",
                "sources", "comments", "time_display", "narrative___stepStyles", "shape",
                "colour")
#: The fields of an event on TimeMap's documentation page (docs/configuration.md), and the id.
DOCUMENTED_EVENT_FIELDS = ("id", "desc", "date", "time", "location", "lat", "long", "source",
                           "filters", "category")
ASSOCIATION_FIELDS = ("id", "title", "desc", "mode", "filter_paths")
SOURCE_FIELDS = ("id", "title", "thumbnail", "paths", "type", "affil_s", "url", "description",
                 "parent", "author", "date", "notes")
SITE_FIELDS = ("id", "description", "site", "latitude", "longitude", "enabled")
CATEGORY_FIELDS = ("category", "category_label", "group", "group_label")
FILTER_SOURCES = ("categories", "weapons", "targets", "grade")

DATE_FORMAT = "%m/%d/%Y"  # TimeMap's default DATE_FMT, MM/DD/YYYY


@dataclass(frozen=True)
class MainCategoryRule:
    name: str
    category: str
    when_any: frozenset[str]

    def matches(self, categories: frozenset[str]) -> bool:
        return not self.when_any or bool(self.when_any & categories)


@dataclass(frozen=True)
class CategoryLook:
    label: str
    group: str
    group_label: str


@dataclass(frozen=True)
class TimeMapMapping:
    main_category: tuple[MainCategoryRule, ...]
    categories: dict[str, CategoryLook]
    filters: tuple[tuple[str, str], ...]  # (branch name, what it is made of)

    def main(self, categories: frozenset[str], without: str | None = None) -> MainCategoryRule:
        for rule in self.main_category:
            if rule.name != without and rule.matches(categories):
                return rule
        raise LookupError("no main-category rule matches")


def load_mapping(file: Path = MAPPING_FILE) -> TimeMapMapping:
    """Read and check a TimeMap mapping file; raises ExportMappingError naming the entry."""
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ExportMappingError(file, "(file)", f"cannot be read: {exc}") from exc
    looks: dict[str, CategoryLook] = {}
    raw_looks = data.get("categories")
    if not isinstance(raw_looks, dict):
        raise ExportMappingError(file, "categories", "must be a table")
    for key, entry in raw_looks.items():
        if not isinstance(entry, dict) or set(entry) != {"label", "group", "group_label"}:
            raise ExportMappingError(file, key, "must have exactly label, group, group_label")
        looks[key] = CategoryLook(str(entry["label"]), str(entry["group"]),
                                  str(entry["group_label"]))
    rules = []
    entries = data.get("main_category")
    if not isinstance(entries, list) or not entries:
        raise ExportMappingError(file, "main_category", "must be a non-empty list")
    names: set[str] = set()
    for index, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            raise ExportMappingError(file, f"main_category[{index}]", "has no name")
        if name in names:
            raise ExportMappingError(file, name, "is named twice")
        names.add(name)
        if set(entry) != {"name", "category", "when_any", "examples"}:
            raise ExportMappingError(file, name, "must have exactly name, category, when_any, "
                                                 "examples")
        when_any = entry["when_any"]
        if not isinstance(when_any, list) or set(when_any) - set(CATEGORY_ORDER):
            raise ExportMappingError(file, name, "when_any must list categories of "
                                                 "model/terms.py")
        if entry["category"] not in looks:
            raise ExportMappingError(file, name, f"category {entry['category']!r} has no "
                                                 "[categories] entry")
        if not isinstance(entry["examples"], list) or not entry["examples"]:
            raise ExportMappingError(file, name, "has no examples")
        rules.append(MainCategoryRule(name, str(entry["category"]), frozenset(when_any)))
    if rules[-1].when_any:
        raise ExportMappingError(file, rules[-1].name, "the last rule must have an empty "
                                                       "when_any, so every event gets one")
    mapping = TimeMapMapping(tuple(rules), looks, ())
    for entry in entries:
        for example in entry["examples"]:
            if not isinstance(example, list) or set(example) - set(CATEGORY_ORDER):
                raise ExportMappingError(file, entry["name"], f"example {example!r} is not a "
                                                              "list of categories")
            given = mapping.main(frozenset(example))
            if given.name != entry["name"]:
                raise ExportMappingError(file, entry["name"], f"example {example!r} is given "
                                                              f"rule {given.name!r}")
    branches = []
    for index, entry in enumerate(data.get("filters") or []):
        if not isinstance(entry, dict) or set(entry) != {"name", "from"}:
            raise ExportMappingError(file, f"filters[{index}]", "must have exactly name, from")
        if entry["from"] not in FILTER_SOURCES:
            raise ExportMappingError(file, str(entry["name"]), f"from must be one of "
                                                               f"{', '.join(FILTER_SOURCES)}")
        branches.append((str(entry["name"]), str(entry["from"])))
    return TimeMapMapping(tuple(rules), looks, tuple(branches))


@cache
def shipped_mapping() -> TimeMapMapping:
    return load_mapping(MAPPING_FILE)


def timemap_date(day: date) -> str:
    return day.strftime(DATE_FORMAT)


def _filter_paths(branch: str, what: str, properties: dict[str, Any]) -> list[list[str]]:
    """The paths in the filter tree this incident sits at, for one branch."""
    if what == "categories":
        return [[branch, c] for c in properties["categories"]]
    if what == "weapons":
        return [[branch, weapon_family(w) or "other", w] for w in properties["weapons"]]
    if what == "targets":
        return [[branch, t] for t in properties["target_types"]]
    return [[branch, str(properties["grade"])]]


def _association_id(path: Sequence[str]) -> str:
    return "filter:" + "/".join(path)


def source_id(item_id: int) -> str:
    return f"item-{item_id}"


def site_id(place: dict[str, Any], name: str) -> str:
    return f"site-{place.get('gazetteer_id') or name}"


def render_timemap(incidents: Sequence[Incident], *, profiles: SourceProfiles | None = None,
                   mapping: TimeMapMapping | None = None) -> dict[str, bytes]:
    """The directory's files, by name."""
    from casebuilder.resolution.listing import incident_properties

    profiles = profiles or load_profiles()
    mapping = mapping or shipped_mapping()
    events: list[dict[str, Any]] = []
    documented: list[dict[str, Any]] = []
    associations: dict[str, dict[str, Any]] = {}
    sources: dict[str, dict[str, Any]] = {}
    sites: dict[str, dict[str, Any]] = {}
    used_categories: dict[str, CategoryLook] = {}
    tree: dict[str, Any] = {}

    for incident in incidents:
        properties = incident_properties(incident, profiles)
        place_name, place = summary.best_place(incident)
        rule = mapping.main(frozenset(properties["categories"]))
        look = mapping.categories[rule.category]
        used_categories[rule.category] = look
        category_id = f"category:{rule.category}"
        associations.setdefault(category_id, {
            "id": category_id, "title": look.label,
            "desc": f"Incidents whose main category is {rule.category} (rule {rule.name} of "
                    "data/timemap.toml picks one category per incident)",
            "mode": "CATEGORY", "filter_paths": [look.group]})
        filter_ids = []
        for branch, what in mapping.filters:
            for path in _filter_paths(branch, what, properties):
                node = tree
                for depth in range(1, len(path) + 1):
                    key = path[depth - 1]
                    node = node.setdefault(key, {})
                    ident = _association_id(path[:depth])
                    associations.setdefault(ident, {
                        "id": ident, "title": key, "desc": "",
                        "mode": "FILTER", "filter_paths": list(path[:depth])})
                filter_ids.append(_association_id(path))
        documents = {m.document.item_id: m.document for m in incident.mentions}
        source_ids = []
        for item_id, document in sorted(documents.items()):
            ident = source_id(item_id)
            source_ids.append(ident)
            quotes = list(dict.fromkeys(s["quote"] for s in properties["sources"]
                                        if s["item_id"] == item_id))
            sources.setdefault(ident, {
                "id": ident, "title": document.title or document.name, "thumbnail": "",
                "paths": [], "type": "Text", "affil_s": [], "url": "",
                "description": "\n".join(f'"{q}"' for q in quotes),
                "parent": "", "author": document.outlet,
                "date": timemap_date(document.published) if document.published else "",
                "notes": f"{document.name}; SHA-256 {document.sha256}; casebuilder item "
                         f"{item_id}; published {document.published_raw or 'unknown'}"})
        lat = lon = ""
        location = properties["place"] or place_name or ""
        if place is not None and place.get("lat") is not None:
            lat, lon = f"{float(place['lat']):.6f}", f"{float(place['lon']):.6f}"
            ident = site_id(place, location)
            sites.setdefault(ident, {"id": ident, "description": ", ".join(
                x for x in (location, properties["admin1"] or "", properties["country"] or "")
                if x), "site": location, "latitude": lat, "longitude": lon, "enabled": "1"})
        start = properties["date_start"] or properties["date_end"]
        day = date.fromisoformat(start) if start else None
        time = properties["time_of_day"] or ""
        when = properties["date_start"] or ""
        if properties["date_end"] and properties["date_end"] != properties["date_start"]:
            when = f"{properties['date_start'] or '...'} to {properties['date_end']}"
        text = account(properties)
        event = {
            "id": incident.id,
            "description": text,
            "date": timemap_date(day) if day else "",
            "time": time,
            "time_precision": properties["date_precision"] or "",
            "location": location,
            "latitude": lat,
            "longitude": lon,
            "x": "", "y": "", "z": "",
            "type": "",
            "category": look.label,
            "category_full": f"{look.group_label}/{look.label}",
            "associations": [category_id, *dict.fromkeys(filter_ids)],
            "sources": source_ids,
            "comments": f"grade {properties['grade']}: " + "; ".join(
                properties["grade_reasons"]),
            "time_display": when + (f" {time}" if time else ""),
            "narrative___stepStyles": [],
            "shape": "",
            "colour": "",
        }
        events.append(event)
        documented.append({
            "id": incident.id, "desc": text, "date": event["date"], "time": time,
            "location": location, "lat": lat, "long": lon,
            "source": ",".join(source_ids),
            "filters": ",".join(p[-1] for p in (
                path for branch, what in mapping.filters
                for path in _filter_paths(branch, what, properties))),
            "category": rule.category})

    def tree_json(key: str, children: dict[str, Any]) -> dict[str, Any]:
        return {"key": key, "children": {k: tree_json(k, v) for k, v in children.items()}}

    categories = [{"category": c, "category_label": look.label, "group": look.group,
                   "group_label": look.group_label} for c, look in used_categories.items()]

    def dump(value: Any) -> bytes:
        return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    return {
        "events.json": dump(events),
        "associations.json": dump(list(associations.values())),
        "sources.json": dump(sources),
        "sites.json": dump(list(sites.values())),
        "events-documented.json": dump(documented),
        "categories.json": dump(categories),
        "filters.json": dump(tree_json("filters", tree)),
        "README.txt": README.encode("utf-8"),
    }


README = """\
TimeMap data exported by casebuilder
====================================

These files are the data Forensic Architecture's TimeMap
(https://github.com/forensic-architecture/timemap) reads from its endpoints. Serve this
directory over HTTP (for example `python3 -m http.server 4040` inside it) and point TimeMap's
config.js at the files:

    SERVER_ROOT: 'http://localhost:4040',
    EVENTS_EXT: '/events.json',
    ASSOCIATIONS_EXT: '/associations.json',
    SOURCES_EXT: '/sources.json',
    SITES_EXT: '/sites.json',
    DATE_FMT: 'MM/DD/YYYY',
    TIME_FMT: 'HH:mm',
    store: { features: { USE_ASSOCIATIONS: true, USE_SOURCES: true, USE_SITES: true } }

events.json, associations.json, sources.json and sites.json follow the schemas TimeMap's code
validates (src/reducers/validate/). events-documented.json, categories.json and filters.json
follow the shapes of TimeMap's docs/configuration.md (desc, lat, long, source, filters,
category; the categories list; the filter tree), for versions and servers that use that page's
endpoints (CATEGORY_EXT, FILTER_TREE_EXT).

Every event's id is the casebuilder incident id; its sources are the documents the incident
was read from (ids in sources.json, with each document's SHA-256); its category is the
incident's main category (the rule is in casebuilder's reporting/data/timemap.toml), its other
categories, weapons, targets and grade are filters. Perpetrators are given as the sources
attribute them, never as a finding. An incident no source places has empty coordinates.
"""
