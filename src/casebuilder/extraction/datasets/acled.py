"""ACLED's CSV export (Armed Conflict Location & Event Data): one row per event, columns
event_id_cnty, event_date, year, time_precision, disorder_type, event_type, sub_event_type,
actor1, assoc_actor_1, inter1, actor2, assoc_actor_2, inter2, interaction,
civilian_targeting, iso, region, country, admin1, admin2, admin3, location, latitude,
longitude, geo_precision, source, source_scale, notes, fatalities, tags, timestamp (in any
order; other columns are ignored).

Dates are read as ISO days or "16 March 2022"; time_precision and geo_precision become the
mention's date and place precision (mappings/acled/). ``fatalities`` is a killed figure that
counts EVERYONE killed (civilians and combatants alike), and says so; 0 is a stated zero, an
empty cell no figure at all. The sources the row cites (``source``, ";"-separated) are named
with each claim (``also_attributed``); the row's document is published on its ``timestamp``.

A row of casebuilder's own ``acled-csv`` export says more in its ``tags`` cell
(``casebuilder-incident=inc-...; categories=explosive_attack,killing; killed-best=none; ...``,
docs/exports.md) than ACLED's columns can: its categories are taken from there (rule
``import:acled:casebuilder-tags``, citing the tags cell); ``killed-best=none`` says that the 0
in ``fatalities`` stands for no figure, not a stated zero, so no figure is claimed;
``date=FIRST/LAST`` gives the interval whose first day is ``event_date``; and ``date-basis``
says whether the date is the event's, only the report's, or a continuing situation's. That
is what makes an export and its re-import the same incidents. Rows of any other dataset are
read from ACLED's columns alone, whatever their tags say.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from casebuilder.extraction.datasets.formats import DatasetFormat, ImportContext
from casebuilder.extraction.datasets.mapping import Mapped, facts_of
from casebuilder.extraction.datasets.reading import SourceRow
from casebuilder.extraction.datasets.rows import (
    CONTEXT,
    INCIDENT,
    RowOutcome,
    RowProblem,
    date_for,
    parse_coordinates,
    parse_count,
    parse_day,
    place_json,
)
from casebuilder.model.terms import CATEGORY_ORDER

#: What ACLED's fatalities count, said with every figure taken from it.
FATALITIES_COUNT = "fatalities as ACLED codes them: everyone killed, not only civilians"

#: The tag that marks a row of casebuilder's own acled-csv export.
OWN_EXPORT_TAG = "casebuilder-incident"
OWN_EXPORT_RULE = "import:acled:casebuilder-tags"


def own_export_tags(text: str) -> dict[str, str]:
    """The ``key=value`` tags of a row casebuilder exported; empty for any other row."""
    tags: dict[str, str] = {}
    for part in text.split(";"):
        key, sep, value = part.partition("=")
        if sep:
            tags[key.strip()] = value.strip()
    return tags if OWN_EXPORT_TAG in tags else {}


def _own_end(tags: dict[str, str], day: date) -> date | None:
    """The last day of the interval casebuilder's export gives in ``date=FIRST/LAST`` (ACLED's
    event_date holds its first day); None for a single day or any other row."""
    first, sep, last = tags.get("date", "").partition("/")
    if not sep or first != day.isoformat():
        return None
    try:
        return date.fromisoformat(last)
    except ValueError:
        return None


def _own_basis(tags: dict[str, str]) -> str:
    """What the date of a row of casebuilder's export dates (``date-basis``): the event, only
    the report of it, or a continuing situation (a siege, an occupation); "event" otherwise."""
    basis = tags.get("date-basis", "")
    return basis if basis in ("report", "situation") else "event"


def _own_categories(tags: dict[str, str]) -> list[str]:
    named = [c.strip() for c in tags.get("categories", "").split(",") if c.strip()]
    return [c for c in CATEGORY_ORDER if c in named]


def _published(text: str) -> str:
    """ACLED's timestamp (seconds since 1970) as an ISO time; empty when it is not one."""
    try:
        return datetime.fromtimestamp(int(text.strip()), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (ValueError, OverflowError, OSError):
        return ""


class Acled(DatasetFormat):
    name = "acled"
    label = "ACLED"
    required = ("event_id_cnty", "event_date", "event_type", "sub_event_type", "actor1",
                "country", "location", "latitude", "longitude", "fatalities")
    optional = ("year", "time_precision", "disorder_type", "assoc_actor_1", "inter1", "actor2",
                "assoc_actor_2", "inter2", "interaction", "civilian_targeting", "iso", "region",
                "admin1", "admin2", "admin3", "geo_precision", "source", "source_scale",
                "notes", "tags", "timestamp")

    def build(self, row: SourceRow, context: ImportContext) -> RowOutcome:
        day = parse_day(row.text("event_date"), "event_date")
        lat, lon = parse_coordinates(row.text("latitude"), row.text("longitude"))
        killed = parse_count(row.text("fatalities"), "fatalities")
        location = row.text("location")
        parts = [location, row.text("admin2") if row.text("admin2") != location else "",
                 row.text("admin1")]
        place_name = ", ".join(p for p in parts if p) or row.text("country")
        facts = {"entry": row.text("event_id_cnty"), "date": day.isoformat(), "lat": lat,
                 "lon": lon, "place": place_name, "title": (
                     f"{row.text('sub_event_type')}: {row.text('notes')}")[:300],
                 "event_type": row.text("event_type"), "source": self.label,
                 "published": _published(row.text("timestamp"))}
        tables = self.tables()
        cells = facts_of({c.column: c.text for c in row.cells.values()})
        decided = tables.decide("rows", cells)
        own = own_export_tags(row.text("tags"))
        categories = _own_categories(own)
        if own.get("killed-best") == "none":
            killed = None
        if categories:
            decided = Mapped(categories[0], OWN_EXPORT_RULE, "tags")
        if decided.outcome == CONTEXT:
            return RowOutcome(row, CONTEXT, decided.rule, facts=facts)
        if not row.text("event_id_cnty"):
            raise RowProblem("no event_id_cnty")
        cited = tuple(s.strip() for s in row.text("source").split(";") if s.strip())
        citer = self.citer(row, context, cited)
        precision = tables.decide("date_precision", cells).outcome
        when = date_for(day, precision, _own_end(own, day))
        for category in categories[1:] if categories else ():
            citer.category(Mapped(category, OWN_EXPORT_RULE, "tags"))
        citer.category(decided)
        citer.place(place_name, citer.cell("location"))
        citer.date(when, row.cells["event_date"])
        if killed is not None:
            citer.figure("killed", killed, None, row.cells["fatalities"], FATALITIES_COUNT,
                         "all", "import:acled:fatalities")
        citer.mapped(tables, cells)
        place = place_json(location or place_name, lat, lon,
                           tables.decide("place_precision", cells).outcome,
                           row.text("admin1"), row.text("country"))
        mention = citer.mention(row.text("event_id_cnty"), categories or [decided.outcome],
                                place_name, place, when, row.text("event_date"),
                                basis=_own_basis(own))
        return RowOutcome(row, INCIDENT, decided.rule, mention=mention, claims=citer.claims,
                          facts=facts)
