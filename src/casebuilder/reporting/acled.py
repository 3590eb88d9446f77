"""The ACLED export: one row of ACLED's table per incident, in ACLED's columns and words.

ACLED (the Armed Conflict Location & Event Data project) publishes political violence as a table
whose columns and closed lists its codebook fixes. Those who take over an investigation often
work in it, so an incident is written as one ACLED row: its types, its claimed perpetrator as
``actor1`` (as attributed, never a finding: who says so goes to ``notes``), the civilians harmed
as ``actor2``, its place, date and precisions in ACLED's codes, and its best fatality figure
(which figure, whose, and the range when sources differ go to ``notes`` and ``tags``).

How casebuilder's categories, weapons, precisions and parties become ACLED's codes is data
(``data/acled.toml``), checked when it is loaded: a broken entry is an error naming the file and
the entry. ``event_id_cnty`` is ``CB-`` and the incident id, so a re-import knows the row.
"""

from __future__ import annotations

import csv
import io
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from casebuilder.errors import ConfigurationError
from casebuilder.extraction.vocabulary import shipped_vocabulary
from casebuilder.model.partial_date import PRECISIONS, PartialDate
from casebuilder.model.terms import CATEGORY_ORDER
from casebuilder.resolution import assessment, summary
from casebuilder.resolution.profiles import SourceProfiles, load_profiles
from casebuilder.resolution.summary import Incident

#: ACLED's columns, in ACLED's order (the codebook's data columns since March 2023).
ACLED_COLUMNS = ("event_id_cnty", "event_date", "year", "time_precision", "disorder_type",
                 "event_type", "sub_event_type", "actor1", "assoc_actor_1", "inter1", "actor2",
                 "assoc_actor_2", "inter2", "interaction", "civilian_targeting", "iso", "region",
                 "country", "admin1", "admin2", "admin3", "location", "latitude", "longitude",
                 "geo_precision", "source", "source_scale", "notes", "fatalities", "tags",
                 "timestamp")

#: The prefix of ``event_id_cnty``: a row whose id starts with it came from casebuilder.
EVENT_ID_PREFIX = "CB-"

MAPPING_FILE = Path(__file__).with_name("data") / "acled.toml"

GAZETTEER_PRECISIONS = ("point", "district", "settlement", "region", "country")


class ExportMappingError(ConfigurationError):
    """A mapping file of an export (data/acled.toml, data/timemap.toml) is malformed: the
    message names the file and the entry."""

    def __init__(self, file: Path, entry: str, problem: str) -> None:
        super().__init__(f"{file}: entry {entry!r}: {problem}")
        self.file = file
        self.entry = entry


@dataclass(frozen=True)
class EventTypeRule:
    """One rule of the event-type table: its conditions and ACLED's types it gives."""

    name: str
    categories: frozenset[str]
    weapon_families: frozenset[str]
    no_weapon: bool
    event_type: str
    sub_event_type: str
    disorder_type: str
    examples: tuple[tuple[frozenset[str], str], ...]
    counterexamples: tuple[tuple[frozenset[str], str], ...]

    def matches(self, categories: frozenset[str], weapon_family: str) -> bool:
        if self.categories and not self.categories & categories:
            return False
        if self.weapon_families and weapon_family not in self.weapon_families:
            return False
        return not (self.no_weapon and weapon_family)


@dataclass(frozen=True)
class PrecisionEntry:
    """One entry of a precision table: the precisions it covers, a bound, and ACLED's code."""

    name: str
    precisions: frozenset[str]
    bound: float | None  # max_days or max_uncertainty_km
    code: int

    def matches(self, precision: str, size: float) -> bool:
        return precision in self.precisions and (self.bound is None or size <= self.bound)


@dataclass(frozen=True)
class Party:
    name: str
    actor: str
    country: str


@dataclass(frozen=True)
class Country:
    code: str
    name: str
    iso: int
    region: str


@dataclass(frozen=True)
class AcledMapping:
    """The whole of data/acled.toml, checked."""

    event_types: tuple[EventTypeRule, ...]
    time_precision: tuple[PrecisionEntry, ...]
    geo_precision: tuple[PrecisionEntry, ...]
    parties: Mapping[str, Party]
    countries: Mapping[str, Country]
    state_forces: int
    civilians_inter: int
    external_forces: int
    civilians_actor: str
    civilian_targeting: str
    civilian_targeting_types: frozenset[str]

    def event_type(self, categories: frozenset[str], weapon_family: str,
                   without: str | None = None) -> EventTypeRule:
        """The first rule that matches (``without`` switches one rule off, for tests)."""
        for rule in self.event_types:
            if rule.name != without and rule.matches(categories, weapon_family):
                return rule
        raise LookupError("no event-type rule matches")  # the last rule matches everything

    def time_code(self, when: PartialDate) -> PrecisionEntry | None:
        return next((e for e in self.time_precision if e.matches(when.precision, when.days)),
                    None)

    def geo_code(self, precision: str, uncertainty_km: float) -> PrecisionEntry | None:
        return next((e for e in self.geo_precision if e.matches(precision, uncertainty_km)),
                    None)

    def party_inter(self, party: Party, country: str) -> int:
        """State forces in their own country, external forces abroad: one rule for all."""
        return self.state_forces if party.country == country else self.external_forces


# --- loading and checking the mapping -----------------------------------------------------------


def _keys(file: Path, entry: str, table: Any, required: set[str], optional: set[str]
          ) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ExportMappingError(file, entry, "is not a table")
    missing = required - table.keys()
    if missing:
        raise ExportMappingError(file, entry, f"lacks {', '.join(sorted(missing))}")
    unknown = table.keys() - required - optional
    if unknown:
        raise ExportMappingError(file, entry, f"has unknown keys {', '.join(sorted(unknown))}")
    return table


def _strings(file: Path, entry: str, value: Any, key: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ExportMappingError(file, entry, f"{key} must be a list of strings")
    return frozenset(value)


def _named(file: Path, section: str, entries: Any) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(entries, list) or not entries:
        raise ExportMappingError(file, section, "must be a non-empty list of [[" + section +
                                 "]] entries")
    out: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, dict) else None
        label = f"{section}[{index}]" if not isinstance(name, str) or not name else name
        if not isinstance(name, str) or not name:
            raise ExportMappingError(file, label, "has no name")
        if name in seen:
            raise ExportMappingError(file, name, f"is named twice in {section}")
        seen.add(name)
        out.append((name, entry))
    return out


def _incident_sample(file: Path, entry: str, sample: Any) -> tuple[frozenset[str], str]:
    table = _keys(file, entry, sample, {"categories", "weapon_family"}, set())
    categories = _strings(file, entry, table["categories"], "an example's categories")
    unknown = categories - set(CATEGORY_ORDER)
    if unknown:
        raise ExportMappingError(file, entry, f"example names unknown categories "
                                              f"{', '.join(sorted(unknown))}")
    if not isinstance(table["weapon_family"], str):
        raise ExportMappingError(file, entry, "an example's weapon_family must be a string")
    return categories, table["weapon_family"]


def _event_types(file: Path, data: dict[str, Any]) -> tuple[EventTypeRule, ...]:
    vocabulary = _keys(file, "vocabulary", data.get("vocabulary"),
                       {"disorder_types", "civilian_targeting", "event_types"}, set())
    types = vocabulary["event_types"]
    if not isinstance(types, dict):
        raise ExportMappingError(file, "vocabulary", "event_types must be a table")
    disorders = _strings(file, "vocabulary", vocabulary["disorder_types"], "disorder_types")
    families = {w.family for w in shipped_vocabulary().weapons.values()}
    rules = []
    for name, entry in _named(file, "event_types", data.get("event_types")):
        _keys(file, name, entry, {"name", "event_type", "sub_event_type", "disorder_type",
                                  "examples", "counterexamples"},
              {"categories", "weapon_families", "no_weapon"})
        categories = _strings(file, name, entry.get("categories", []), "categories")
        if categories - set(CATEGORY_ORDER):
            raise ExportMappingError(file, name, "names unknown categories " + ", ".join(
                sorted(categories - set(CATEGORY_ORDER))))
        weapon_families = _strings(file, name, entry.get("weapon_families", []),
                                   "weapon_families")
        if weapon_families - families:
            raise ExportMappingError(file, name, "names weapon families weapons.toml does not "
                                     "have: " + ", ".join(sorted(weapon_families - families)))
        if entry["event_type"] not in types:
            raise ExportMappingError(file, name, f"event_type {entry['event_type']!r} is not "
                                                 "one of ACLED's")
        if entry["sub_event_type"] not in types[entry["event_type"]]:
            raise ExportMappingError(file, name, f"sub_event_type {entry['sub_event_type']!r} "
                                                 f"is not one of {entry['event_type']!r}")
        if entry["disorder_type"] not in disorders:
            raise ExportMappingError(file, name, f"disorder_type {entry['disorder_type']!r} is "
                                                 "not one of ACLED's")
        examples = entry["examples"]
        if not isinstance(examples, list) or not examples:
            raise ExportMappingError(file, name, "has no examples")
        counterexamples = entry["counterexamples"]
        if not isinstance(counterexamples, list):
            raise ExportMappingError(file, name, "counterexamples must be a list")
        rules.append(EventTypeRule(
            name=name, categories=categories, weapon_families=weapon_families,
            no_weapon=bool(entry.get("no_weapon", False)), event_type=entry["event_type"],
            sub_event_type=entry["sub_event_type"], disorder_type=entry["disorder_type"],
            examples=tuple(_incident_sample(file, name, e) for e in examples),
            counterexamples=tuple(_incident_sample(file, name, e) for e in counterexamples)))
    last = rules[-1]
    if last.categories or last.weapon_families or last.no_weapon:
        raise ExportMappingError(file, last.name, "the last event-type rule must have no "
                                                  "conditions, so that every incident gets one")
    return tuple(rules)


def _precisions(file: Path, section: str, data: dict[str, Any], known: Sequence[str],
                bound: str) -> tuple[PrecisionEntry, ...]:
    entries = []
    for name, entry in _named(file, section, data.get(section)):
        _keys(file, name, entry, {"name", "precisions", "code", "examples"}, {bound})
        precisions = _strings(file, name, entry["precisions"], "precisions")
        if precisions - set(known):
            raise ExportMappingError(file, name, "names unknown precisions " + ", ".join(
                sorted(precisions - set(known))))
        if entry["code"] not in (1, 2, 3):
            raise ExportMappingError(file, name, "code must be 1, 2 or 3")
        if not isinstance(entry["examples"], list) or not entry["examples"]:
            raise ExportMappingError(file, name, "has no examples")
        limit = entry.get(bound)
        if limit is not None and not isinstance(limit, int | float):
            raise ExportMappingError(file, name, f"{bound} must be a number")
        entries.append(PrecisionEntry(name, precisions,
                                      float(limit) if limit is not None else None,
                                      int(entry["code"])))
    return tuple(entries)


def _check_precision_examples(file: Path, mapping: AcledMapping, data: dict[str, Any]) -> None:
    for entry in data["time_precision"]:
        for example in entry["examples"]:
            try:
                when = PartialDate.parse_iso(str(example))
            except Exception as exc:  # an InvalidPartialDate, named with its entry
                raise ExportMappingError(file, entry["name"], f"example {example!r} is not a "
                                                              f"date: {exc}") from exc
            found = mapping.time_code(when)
            if found is None or found.name != entry["name"]:
                raise ExportMappingError(file, entry["name"], f"example {example!r} is given "
                                         f"{found.name if found else 'no entry'}")
    for entry in data["geo_precision"]:
        for example in entry["examples"]:
            table = _keys(file, entry["name"], example, {"precision", "uncertainty_km"}, set())
            found = mapping.geo_code(str(table["precision"]), float(table["uncertainty_km"]))
            if found is None or found.name != entry["name"]:
                raise ExportMappingError(file, entry["name"], f"example {example!r} is given "
                                         f"{found.name if found else 'no entry'}")
    for name, entry in data["parties"].items():
        party = mapping.parties[name]
        for example in entry["examples"]:
            table = _keys(file, name, example, {"country", "inter"}, set())
            if mapping.party_inter(party, str(table["country"])) != table["inter"]:
                raise ExportMappingError(file, name, f"example {example!r} does not hold")


def load_mapping(file: Path = MAPPING_FILE) -> AcledMapping:
    """Read and check an ACLED mapping file; raises :class:`ExportMappingError`."""
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ExportMappingError(file, "(file)", f"cannot be read: {exc}") from exc
    event_types = _event_types(file, data)
    inter = _keys(file, "inter", data.get("inter"),
                  {"state_forces", "civilians", "external_forces"}, set())
    parties: dict[str, Party] = {}
    known_parties = set(shipped_vocabulary().parties)
    raw_parties = data.get("parties")
    if not isinstance(raw_parties, dict) or not raw_parties:
        raise ExportMappingError(file, "parties", "must name at least one party")
    for name, entry in raw_parties.items():
        _keys(file, name, entry, {"actor", "country", "examples"}, set())
        if name not in known_parties:
            raise ExportMappingError(file, name, "is not a party of actors.toml")
        if not isinstance(entry["examples"], list) or not entry["examples"]:
            raise ExportMappingError(file, name, "has no examples")
        parties[name] = Party(name, str(entry["actor"]), str(entry["country"]))
    countries: dict[str, Country] = {}
    raw_countries = data.get("countries")
    if not isinstance(raw_countries, dict):
        raise ExportMappingError(file, "countries", "must be a table")
    for code, entry in raw_countries.items():
        _keys(file, code, entry, {"name", "iso", "region"}, set())
        if not isinstance(entry["iso"], int):
            raise ExportMappingError(file, code, "iso must be ACLED's numeric country code")
        countries[code] = Country(code, str(entry["name"]), entry["iso"], str(entry["region"]))
    targeting = _keys(file, "civilian_targeting", data.get("civilian_targeting"),
                      {"value", "event_types"}, set())
    if targeting["value"] not in data["vocabulary"]["civilian_targeting"]:
        raise ExportMappingError(file, "civilian_targeting", "value is not one of ACLED's")
    civilians = _keys(file, "civilians", data.get("civilians"), {"actor"}, set())
    mapping = AcledMapping(
        event_types=event_types,
        time_precision=_precisions(file, "time_precision", data, PRECISIONS, "max_days"),
        geo_precision=_precisions(file, "geo_precision", data, GAZETTEER_PRECISIONS,
                                  "max_uncertainty_km"),
        parties=parties, countries=countries, state_forces=int(inter["state_forces"]),
        civilians_inter=int(inter["civilians"]), external_forces=int(inter["external_forces"]),
        civilians_actor=str(civilians["actor"]), civilian_targeting=str(targeting["value"]),
        civilian_targeting_types=_strings(file, "civilian_targeting", targeting["event_types"],
                                          "event_types"))
    for rule in event_types:
        for categories, family in rule.examples:
            given = mapping.event_type(categories, family)
            if given.name != rule.name:
                raise ExportMappingError(file, rule.name, f"example {sorted(categories)}, "
                                         f"{family!r} is given rule {given.name!r}")
        for categories, family in rule.counterexamples:
            if rule.matches(categories, family):
                raise ExportMappingError(file, rule.name, f"counterexample {sorted(categories)}"
                                         f", {family!r} matches it")
    _check_precision_examples(file, mapping, data)
    return mapping


@cache
def shipped_mapping() -> AcledMapping:
    return load_mapping(MAPPING_FILE)


# --- rows ----------------------------------------------------------------------------------------


def _tag_value(text: str) -> str:
    """A value inside the tags column, whose entries are separated by ';'."""
    return re.sub(r"\s+", " ", text.replace(";", ",")).strip()


def weapon_family(weapon: str | None) -> str:
    if not weapon:
        return ""
    entry = shipped_vocabulary().weapons.get(weapon)
    return entry.family if entry else ""


def _figure_words(label: str, figure: summary.Figure | None,
                  spread: tuple[int | None, int | None]) -> tuple[str, list[str]]:
    """The sentence of notes and the tags for one measure's best figure."""
    if figure is None:
        return f"{label.capitalize()}: no figure reported.", [f"{label}-best=none"]
    stated = str(figure.low) if figure.high in (None, figure.low) else \
        f"{figure.low}-{figure.high}"
    qualifier = f" ({figure.qualifier})" if figure.qualifier not in ("", "exact") else ""
    reported = f", reported {figure.reported_at}" if figure.reported_at else ""
    source = figure.source or "an unnamed source"
    words = f"{label.capitalize()}: {stated}{qualifier} according to {source}" \
            f" in {figure.document}{reported}"
    tags = [f"{label}-best={stated}", f"{label}-qualifier={_tag_value(figure.qualifier)}",
            f"{label}-according-to={_tag_value(figure.source)}"]
    low, high = spread
    if low is not None and high is not None and low != high:
        words += f"; the sources' figures range from {low} to {high} (contested)"
        tags += [f"{label}-range={low}-{high}", f"{label}-contested"]
    return words + ".", tags


def row(incident: Incident, profiles: SourceProfiles, mapping: AcledMapping,
        timestamp: int) -> dict[str, str]:
    """One ACLED row for ``incident``; every cell a string."""
    categories = summary.categories(incident)
    weapons = summary.weapons(incident)
    family = weapon_family(weapons[0] if weapons else None)
    rule = mapping.event_type(frozenset(categories), family)
    place_name, place = summary.best_place(incident)
    place = place or {}
    country_code = str(place.get("country") or "")
    country = mapping.countries.get(country_code)
    when, basis = summary.dates(incident)
    at, zone = summary.time_of_day(incident, when, basis)
    killed = summary.best_figure(incident, "killed")
    injured = summary.best_figure(incident, "injured")
    civilian = summary.civilian(incident)
    grade, _, independent = assessment.incident_grade(incident, profiles)

    # actors: as the sources attribute them
    claims = summary.perpetrators(incident)
    main_claims = [c for c in claims if not c["competing"]]
    counter_claims = [c for c in claims if c["competing"]]
    actors: list[tuple[str, int | None]] = []
    for claim in main_claims:
        party = mapping.parties.get(str(claim["party"]))
        if party is not None:
            actors.append((party.actor, mapping.party_inter(party, country_code)))
        else:
            actors.append((str(claim["label"]), None))
    actor1, inter1 = actors[0] if actors else ("", None)
    civilians = mapping.civilians_actor.format(
        country=country.name if country else (country_code or "unknown country"))
    actor2, inter2 = (civilians, mapping.civilians_inter) if civilian else ("", None)
    interaction = "".join(str(i) for i in sorted(x for x in (inter1, inter2) if x is not None))

    def attribution(claim: dict[str, Any]) -> str:
        return f"{claim['label']} according to {', '.join(claim['claimed_by'])}"

    notes: list[str] = []
    what = ", ".join(c.replace("_", " ") for c in categories) or "incident"
    where = ", ".join(x for x in (str(place.get("name") or place_name or ""),
                                  str(place.get("admin1") or "")) if x) or "an unplaced location"
    notes.append(f"{what.capitalize()} in {where}"
                 + (f" on {when.iso()}" if when else "")
                 + (f" at {at}{(' ' + zone) if zone else ''}" if at else "") + ".")
    killed_words, killed_tags = _figure_words("killed", killed,
                                              summary.figure_range(incident, "killed"))
    injured_words, injured_tags = _figure_words("injured", injured,
                                                summary.figure_range(incident, "injured"))
    notes += [killed_words, injured_words]
    if main_claims:
        notes.append("Attributed to " + "; ".join(attribution(c) for c in main_claims)
                     + " (as claimed by the sources, not a finding).")
    else:
        notes.append("No source names who acted.")
    if counter_claims:
        notes.append("Contested: the sources also name " +
                     "; ".join(attribution(c) for c in counter_claims) + ".")
    notes.append(f"Grade {grade}, {independent} independent source(s); casebuilder incident "
                 f"{incident.id}.")

    time_entry = mapping.time_code(when) if when else None
    geo_entry = mapping.geo_code(str(place.get("precision")),
                                 float(place.get("uncertainty_km") or 0.0)) \
        if place.get("lat") is not None else None
    tags = [f"casebuilder-incident={incident.id}", f"grade={grade}",
            "categories=" + ",".join(categories)]
    if when:
        tags.append(f"date={when.iso()}")
        tags.append(f"date-basis={basis}")
    if at:
        tags.append(f"time={at}")
    tags += killed_tags + injured_tags
    if weapons:
        tags.append("weapons=" + ",".join(_tag_value(w) for w in weapons))
    targets = summary.targets(incident)
    if targets:
        tags.append("targets=" + ",".join(_tag_value(t) for t in targets))
    if counter_claims:
        tags.append("perpetrator-contested")
    outlets = sorted({m.document.outlet or m.document.title or m.document.name
                      for m in incident.mentions})
    has_coordinates = place.get("lat") is not None
    return {
        "event_id_cnty": EVENT_ID_PREFIX + incident.id,
        "event_date": when.start.isoformat() if when else "",
        "year": str(when.start.year) if when else "",
        "time_precision": str(time_entry.code) if time_entry else "",
        "disorder_type": rule.disorder_type,
        "event_type": rule.event_type,
        "sub_event_type": rule.sub_event_type,
        "actor1": actor1,
        "assoc_actor_1": "; ".join(a for a, _ in actors[1:]),
        "inter1": str(inter1) if inter1 is not None else "",
        "actor2": actor2,
        "assoc_actor_2": "",
        "inter2": str(inter2) if inter2 is not None else "",
        "interaction": interaction,
        "civilian_targeting": mapping.civilian_targeting
        if civilian and rule.event_type in mapping.civilian_targeting_types else "",
        "iso": str(country.iso) if country else "",
        "region": country.region if country else "",
        "country": country.name if country else country_code,
        "admin1": str(place.get("admin1") or ""),
        "admin2": "",
        "admin3": "",
        "location": str(place.get("name") or place_name or ""),
        "latitude": f"{float(place['lat']):.6f}" if has_coordinates else "",
        "longitude": f"{float(place['lon']):.6f}" if has_coordinates else "",
        "geo_precision": str(geo_entry.code) if geo_entry else "",
        "source": "; ".join(o.replace(";", ",") for o in outlets),
        "source_scale": "",
        "notes": " ".join(notes),
        "fatalities": str(killed.low) if killed and killed.low is not None else "0",
        "tags": "; ".join(tags),
        "timestamp": str(timestamp),
    }


def render_acled(incidents: Sequence[Incident], *, now: datetime | None = None,
                 profiles: SourceProfiles | None = None,
                 mapping: AcledMapping | None = None) -> bytes:
    """The CSV: header row, one row per incident, UTF-8, ``\\n`` line ends, csv quoting."""
    profiles = profiles or load_profiles()
    mapping = mapping or shipped_mapping()
    timestamp = int((now or datetime.now().astimezone()).timestamp())
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=ACLED_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for incident in incidents:
        writer.writerow(row(incident, profiles, mapping, timestamp))
    return buffer.getvalue().encode("utf-8")
