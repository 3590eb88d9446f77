"""The incident record pattern analysis works on, and the adapter from resolution's incidents.

An :class:`IncidentRecord` holds only what the methods read: where (a point, how uncertain,
whether in a populated place), when (the day, and the time of day where a source gives it),
what (categories, weapons, target types hit), the harm, the claimed perpetrators (only for the
selection and as labels), the grade, and whether a source claims a military objective or says
there was none. A generator in the tests, a benchmark reading a monitor's table or
:func:`from_incident` can all build them, so the analysis needs no database.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from datetime import date
from typing import TYPE_CHECKING, Any

from casebuilder.model.partial_date import within_dates

if TYPE_CHECKING:
    from casebuilder.resolution.profiles import SourceProfiles
    from casebuilder.resolution.summary import Incident


@dataclass(frozen=True)
class IncidentRecord:
    """One incident as the pattern analysis sees it."""

    id: str
    lat: float | None = None
    lon: float | None = None
    #: How far off the point may be (km); None: not stated (taken as precise).
    uncertainty_km: float | None = None
    #: The place is a settlement or a part of one (not a region, a sea or open country).
    populated: bool | None = None
    place: str = ""
    region: str = ""
    #: The day of the attack, where it is known to the day; None: a longer or unknown date.
    day: date | None = None
    #: The earliest and latest day it can be (a day, a week, a siege's months); None: undated.
    first_day: date | None = None
    last_day: date | None = None
    #: The local time of day, "HH:MM", where a source gives one.
    time: str | None = None
    categories: tuple[str, ...] = ()
    weapons: tuple[str, ...] = ()
    #: Target types named as hit (not only as the setting).
    targets: tuple[str, ...] = ()
    killed: int | None = None
    injured: int | None = None
    civilian: bool | None = None
    #: Parties a source claims acted (labels). Only a filter and a label: no method reads it.
    perpetrators: tuple[str, ...] = ()
    grade: str = ""
    #: A source claims the place held a military objective ("struck a command post").
    objective_claimed: bool = False
    #: A source says there was no military objective there.
    no_objective_stated: bool = False
    #: Words quoted for the target types (type -> first quote), for the analyst to read.
    target_quotes: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def placed(self) -> bool:
        return self.lat is not None and self.lon is not None

    @property
    def minutes(self) -> int | None:
        """Minutes after midnight of the time of day, or None."""
        if not self.time:
            return None
        try:
            hours, minutes = self.time.split(":")[:2]
            return int(hours) * 60 + int(minutes)
        except ValueError:
            return None

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name in _FIELD_NAMES:
            value = getattr(self, name)
            if isinstance(value, date):
                value = value.isoformat()
            elif isinstance(value, tuple):
                value = [list(v) if isinstance(v, tuple) else v for v in value]
            data[name] = value
        return data


_FIELD_NAMES = tuple(f.name for f in fields(IncidentRecord))


def records_digest(records: Sequence[IncidentRecord]) -> str:
    """SHA-256 of the records in canonical JSON (sorted by id): the digest of an analysis's
    inputs, recorded with every run."""
    canonical = json.dumps([r.as_json() for r in sorted(records, key=lambda r: r.id)],
                           sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def named_as_speaker(words: str, speaker: str) -> bool:
    """Whether a target's words are the name of the sentence's speaker ("Rescuers said the
    shelling killed one woman": rescuers speak there, they were not hit)."""
    return bool(words) and words.lower() in speaker.lower()


#: Place precisions that stand for a settlement or a part of one (gazetteer/model.py).
POPULATED_PRECISIONS = frozenset({"settlement", "district", "point"})


def from_incident(incident: Incident, profiles: SourceProfiles | None = None
                  ) -> IncidentRecord:
    """The record of one of resolution's incidents, read through the same summary rules the
    exports use (best place, narrowest date, best figures, grade). A target named only as the
setting, or whose words are the speaker's name, is not taken as hit."""
    from casebuilder.model.claim_values import (
        MilitaryObjectiveValue,
        NoMilitaryObjectiveValue,
        TargetValue,
    )
    from casebuilder.resolution import assessment, summary
    from casebuilder.resolution.profiles import load_profiles
    from casebuilder.resolution.records import claims_of

    place_name, place = summary.best_place(incident)
    when, basis = summary.dates(incident)
    at, _ = summary.time_of_day(incident, when, basis)
    killed = summary.best_figure(incident, "killed")
    injured = summary.best_figure(incident, "injured")
    grade, _, _ = assessment.incident_grade(incident, profiles or load_profiles())
    hit = [(c, v) for c, v in claims_of(incident.claims, TargetValue)
           if not v.setting and not named_as_speaker(v.words, c.attributed_to)]
    hit_types = {v.target_type for _, v in hit}
    quotes: dict[str, str] = {}
    for c, v in hit:
        quotes.setdefault(v.target_type, c.quote)
    lat = lon = None
    if place is not None and place.get("lat") is not None and place.get("lon") is not None:
        lat, lon = float(place["lat"]), float(place["lon"])
    precision = str((place or {}).get("precision") or "")
    uncertainty = (place or {}).get("uncertainty_km")
    return IncidentRecord(
        id=incident.id,
        lat=lat,
        lon=lon,
        uncertainty_km=float(uncertainty) if uncertainty is not None else None,
        populated=(precision in POPULATED_PRECISIONS) if precision else None,
        place=str((place or {}).get("name") or place_name),
        region=str((place or {}).get("admin1") or ""),
        day=when.start if when is not None and when.precision == "day" else None,
        first_day=when.start if when is not None else None,
        last_day=when.end if when is not None else None,
        time=at,
        categories=tuple(summary.categories(incident)),
        weapons=tuple(summary.weapons(incident)),
        targets=tuple(t for t in summary.targets(incident) if t in hit_types),
        killed=killed.low if killed else None,
        injured=injured.low if injured else None,
        civilian=summary.civilian(incident),
        perpetrators=tuple(p["label"] for p in summary.perpetrators(incident)
                           if not p["competing"]),
        grade=grade,
        objective_claimed=bool(claims_of(incident.claims, MilitaryObjectiveValue)),
        no_objective_stated=bool(claims_of(incident.claims, NoMilitaryObjectiveValue)),
        target_quotes=tuple(sorted(quotes.items())),
    )


@dataclass(frozen=True)
class Selection:
    """Which incidents an analysis is run on: every filter that is set must hold."""

    since: date | None = None
    until: date | None = None
    region: str | None = None  # text in the place or region name (case-insensitive)
    category: str | None = None
    perpetrator: str | None = None  # text in a claimed perpetrator's label
    grade: str | None = None

    def as_json(self) -> dict[str, Any]:
        data = {"from": self.since.isoformat() if self.since else None,
                "to": self.until.isoformat() if self.until else None, "region": self.region,
                "category": self.category, "perpetrator": self.perpetrator,
                "grade": self.grade}
        return {k: v for k, v in data.items() if v is not None}

    def admits(self, r: IncidentRecord) -> bool:
        if (self.since or self.until) and not within_dates(r.first_day, r.last_day,
                                                           self.since, self.until):
            return False
        if self.region and self.region.lower() not in f"{r.place} {r.region}".lower():
            return False
        if self.category and self.category not in r.categories:
            return False
        if self.perpetrator and not any(self.perpetrator.lower() in p.lower()
                                        for p in r.perpetrators):
            return False
        return not (self.grade and r.grade != self.grade)

    def choose(self, records: Iterable[IncidentRecord]) -> list[IncidentRecord]:
        return sorted((r for r in records if self.admits(r)), key=lambda r: r.id)
