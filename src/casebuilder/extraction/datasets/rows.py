"""What becomes of one dataset row: an incident mention with its claims, a context row, or a
rejected row; and the helpers every format uses to cite a value to its cell.

An imported row's mention and claims are stored like an extracted one's (extraction_runs,
incident_mentions, claims), so resolution merges them by the same rules. Their offsets are
BYTE offsets in the stored original (the dataset file): a claim's ``char_start``/``char_end``
are the span of the cell it cites, its ``quote`` the cell's text, its ``sentence_start``/
``sentence_end`` the span of the whole row; a mention's ``char_start``/``char_end`` are the
row's span. (Decision 0018 says why bytes.)
"""

from __future__ import annotations

import calendar
import hashlib
import math
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from casebuilder.errors import DatasetError
from casebuilder.extraction.attribution import Attribution
from casebuilder.extraction.claims import Claim, Provenance
from casebuilder.extraction.datasets.mapping import Mapped, MappingTables
from casebuilder.extraction.datasets.reading import Cell, SourceRow
from casebuilder.extraction.vocabulary import shipped_vocabulary
from casebuilder.model.claim_values import (
    MENTION_RECORD_FIELDS,
    CategoryValue,
    ClaimValue,
    DateValue,
    FigureValue,
    PerpetratorValue,
    PlaceValue,
    TargetValue,
    WeaponValue,
)
from casebuilder.model.partial_date import PartialDate

#: The source kind of a curated monitoring dataset (extraction/vocab/sources.toml).
DATASET_KIND = "monitoring_dataset"

INCIDENT, CONTEXT, REJECTED = "incident", "context", "rejected"

#: English month names (the datasets' own language for dates), from the standard library.
_MONTHS = {calendar.month_name[i].lower(): i for i in range(1, 13)}
_WORDY_DATE = re.compile(r"(\d{1,2})[ -]([A-Za-z]+)[ -](\d{4})")


class RowProblem(DatasetError):
    """A row cannot be imported: the reason, said for people (caught per row, so it never
    stops an import)."""


@dataclass
class RowOutcome:
    row: SourceRow
    status: str  # incident | context | rejected
    rule: str
    reason: str | None = None
    mention: dict[str, Any] | None = None
    claims: list[dict[str, Any]] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str | None:
        return None if self.mention is None else str(self.mention["key"])


@dataclass(frozen=True)
class DatasetSource:
    """Who a row's claims are attributed to: the dataset, and the sources its row cites."""

    name: str  # "ACLED", "CIR Russia-Ukraine Monitor"
    cited: tuple[str, ...] = ()


def rejected(row: SourceRow, reason: str) -> RowOutcome:
    return RowOutcome(row, REJECTED, "rejected", reason)


def parse_day(text: str, column: str) -> date:
    """A day as datasets write it: 2022-03-16, 2022-03-16 00:00:00(.000), 16 March 2022,
    16-Mar-2022, 03/16/2022 (month first, as the civilian-harm export writes it)."""
    value = text.strip()
    if not value:
        raise RowProblem(f"no {column} (the cell is empty)")
    try:
        if len(value) >= 10 and value[4] == "-" and value[7] == "-":
            rest = value[10:].strip()
            if rest and not re.fullmatch(r"(T|\s)?\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?", rest):
                raise ValueError(value)
            return date.fromisoformat(value[:10])
        m = _WORDY_DATE.fullmatch(value)
        if m:
            word = m.group(2).lower()
            month = _MONTHS.get(word) or next(
                (n for name, n in _MONTHS.items() if len(word) >= 3 and name.startswith(word)),
                None)
            if month is None:
                raise ValueError(value)
            return date(int(m.group(3)), month, int(m.group(1)))
        if re.fullmatch(r"\d{1,2}/\d{1,2}/\d{4}", value):
            return datetime.strptime(value, "%m/%d/%Y").date()
    except ValueError:
        pass
    raise RowProblem(f"{column} {text!r} is not a date")


def parse_coordinates(lat_text: str, lon_text: str) -> tuple[float, float]:
    """Latitude and longitude in decimal degrees with a decimal point, within their ranges."""
    values = []
    for text, name, limit in ((lat_text, "latitude", 90.0), (lon_text, "longitude", 180.0)):
        raw = text.strip()
        if not raw:
            raise RowProblem(f"no {name}")
        if "," in raw:
            raise RowProblem(f"{name} {raw!r} has a decimal comma (a point is expected)")
        try:
            value = float(raw)
        except ValueError:
            raise RowProblem(f"{name} {raw!r} is not a number") from None
        if not math.isfinite(value) or abs(value) > limit:
            raise RowProblem(f"{name} {raw!r} is outside -{limit:g}..{limit:g}")
        values.append(value)
    return values[0], values[1]


def parse_count(text: str, column: str) -> int | None:
    """A whole number of people; None for an empty cell."""
    raw = text.strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise RowProblem(f"{column} {raw!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or value != int(value):
        raise RowProblem(f"{column} {raw!r} is not a whole number of people")
    return int(value)


def date_for(day: date, precision: str, end: date | None = None) -> PartialDate:
    """The dates a row's day stands for at a dataset's stated precision."""
    if end is not None and end != day:
        if end < day:
            raise RowProblem(f"the end date {end} is before the start date {day}")
        return PartialDate.range(day, end)
    if precision == "week":
        return PartialDate.range(day - timedelta(days=3), day + timedelta(days=3))
    if precision == "month":
        return PartialDate.month(day.year, day.month)
    if precision == "year":
        return PartialDate.year(day.year)
    return PartialDate.day(day)


class RowCiter:
    """Builds one row's mention and claims, each claim cited to a cell."""

    def __init__(self, item_id: int, sha256: str, format_name: str, row: SourceRow,
                 source: DatasetSource) -> None:
        self.item_id, self.sha256, self.format, self.row, self.source = (
            item_id, sha256, format_name, row, source)
        self.claims: list[dict[str, Any]] = []

    def cell(self, column: str | None) -> Cell:
        if column is not None and column in self.row.cells:
            return self.row.cells[column]
        return Cell(column or "", "", self.row.start, self.row.start)

    def claim(self, kind: str, value: ClaimValue, cell: Cell, rule: str) -> None:
        """A claim of the row citing ``cell``, serialised by the one serialiser of claims."""
        claim = Claim(kind=kind, value=value, rule=rule[:60], provenance=Provenance(
            item_id=self.item_id, char_start=cell.start, char_end=cell.end, quote=cell.text,
            sentence_start=self.row.start, sentence_end=self.row.end), attribution=Attribution(
            speaker=self.source.name, role="", kind=DATASET_KIND, party=None, verb="recorded",
            evidentiality="stated", others=self.source.cited))
        self.claims.append(claim.as_json())

    def category(self, decided: Mapped) -> None:
        cell = self.cell(decided.column)
        self.claim("category", CategoryValue(category=decided.outcome, trigger=cell.text[:200],
                                             weak=False), cell, decided.rule)

    def place(self, name: str, cell: Cell) -> None:
        self.claim("place", PlaceValue(name=name, gazetteer_id="", role="event"), cell,
                   f"import:{self.format}:place")

    def date(self, value: PartialDate, cell: Cell) -> None:
        self.claim("date", DateValue(iso=value.iso(), precision=value.precision,
                                     expression=cell.text, role="event"), cell,
                   f"import:{self.format}:date")

    def figure(self, measure: str, low: int, high: int | None, cell: Cell, counts: str,
               population: str | None, rule: str) -> None:
        shown = f"{low}" if high is None or high == low else f"{low}-{high}"
        self.claim(measure, FigureValue(
            low=low, high=high if high is not None else low,
            qualifier="exact" if high is None or high == low else "between",
            population=population, subgroup=False, cumulative=False,
            text=f"{shown} ({counts})", earlier_report=False, shared_by=()), cell, rule)

    def weapon(self, decided: Mapped) -> None:
        weapon = shipped_vocabulary().weapons.get(decided.outcome)
        if weapon is None:
            return
        cell = self.cell(decided.column)
        self.claim("weapon", WeaponValue(weapon=weapon.name, family=weapon.family,
                                         wide_area=weapon.wide_area, words=cell.text[:200]),
                   cell, decided.rule)

    def target(self, decided: Mapped) -> None:
        target = shipped_vocabulary().targets.get(decided.outcome)
        if target is None:
            return
        cell = self.cell(decided.column)
        self.claim("target", TargetValue(target_type=target.name, protected=target.protected,
                                         words=cell.text[:200]), cell, decided.rule)

    def perpetrator(self, decided: Mapped) -> None:
        party = shipped_vocabulary().parties.get(decided.outcome)
        if party is None:
            return
        cell = self.cell(decided.column)
        self.claim("perpetrator", PerpetratorValue(party=party.key, label=party.label,
                                                   words=cell.text[:200], competing=False),
                   cell, decided.rule)

    def mapped(self, tables: MappingTables, facts: dict[str, str]) -> None:
        """The weapon, target and perpetrator the format's tables find in the row."""
        for decision, add in (("weapons", self.weapon), ("targets", self.target),
                              ("perpetrators", self.perpetrator)):
            if decision in tables.tables:
                decided = tables.decide(decision, facts)
                if decided.outcome != "none":
                    add(decided)

    def mention(self, ident: str, categories: list[str], place_name: str,
                place: dict[str, Any], when: PartialDate, expression: str,
                basis: str = "event") -> dict[str, Any]:
        """The row's mention; ``basis`` says what its date dates: the event, only the report
        of it, or a continuing situation (then the mention is one), when the dataset says so
        (casebuilder's own export does)."""
        raw = f"{self.sha256}:{self.format}:{ident}"
        values = ("m-" + hashlib.sha256(raw.encode()).hexdigest()[:16], basis == "situation",
                  categories,
                  place_name, place, place["lat"], place["lon"], when.start.isoformat(),
                  when.end.isoformat(), when.precision, expression, basis, self.row.start,
                  self.row.end)
        # the mention's columns in the order of their one definition
        return dict(zip(MENTION_RECORD_FIELDS, values, strict=True))


#: How far a place given at each precision may lie from its coordinates, in km.
UNCERTAINTY_KM = {"point": 0.5, "settlement": 2.0, "district": 10.0, "region": 50.0,
                  "country": 300.0}
FEATURE_KINDS = {"point": "feature", "settlement": "settlement", "district": "settlement",
                 "region": "region", "country": "country"}


def place_json(name: str, lat: float, lon: float, precision: str, admin1: str,
               country: str) -> dict[str, Any]:
    """A mention's place as a dataset gives it: its coordinates, never geocoded again."""
    return {"name": name, "lat": lat, "lon": lon, "admin1": admin1, "country": country,
            "gazetteer_id": "", "precision": precision,
            "feature_kind": FEATURE_KINDS[precision],
            "uncertainty_km": UNCERTAINTY_KM[precision], "placed_at": "dataset"}
