"""The Russia-Ukraine Monitor map's event table (Centre for Information Resilience): columns
entry, date, event_group, title, brief description, lat, lon, country, province, district,
town/city, arms/munition, violence level, link, geolocation.

Each row is one geolocated event. Its coordinates are the monitor's own (geolocated by hand
from imagery), so the mention is placed at them as a point and never geocoded; its place name
is town/city, district and province as the row gives them. Whether it tells harm to civilians
and its category, weapon, target and attacker come from the tables in mappings/cir-monitor/.
"""

from __future__ import annotations

from casebuilder.extraction.datasets.formats import DatasetFormat, ImportContext
from casebuilder.extraction.datasets.mapping import facts_of
from casebuilder.extraction.datasets.reading import SourceRow
from casebuilder.extraction.datasets.rows import (
    CONTEXT,
    INCIDENT,
    RowOutcome,
    date_for,
    parse_coordinates,
    parse_day,
    place_json,
)


class CirMonitor(DatasetFormat):
    name = "cir-monitor"
    label = "CIR Russia-Ukraine Monitor"
    required = ("entry", "date", "event_group", "title", "lat", "lon", "country", "province",
                "district", "town/city")
    optional = ("brief description", "arms/munition", "violence level", "link",
                "geolocation")

    def build(self, row: SourceRow, context: ImportContext) -> RowOutcome:
        day = parse_day(row.text("date"), "date")
        lat, lon = parse_coordinates(row.text("lat"), row.text("lon"))
        parts = [row.text(c) for c in ("town/city", "district", "province")]
        place_name = ", ".join(p for p in parts if p) or row.text("country")
        facts = {"entry": row.text("entry"), "date": day.isoformat(), "lat": lat, "lon": lon,
                 "place": place_name, "title": row.text("title")[:300],
                 "event_group": row.text("event_group"), "source": self.label}
        tables = self.tables()
        cells = facts_of({c.column: c.text for c in row.cells.values()})
        decided = tables.decide("rows", cells)
        if decided.outcome == CONTEXT:
            return RowOutcome(row, CONTEXT, decided.rule, facts=facts)
        citer = self.citer(row, context)
        when = date_for(day, "day")
        citer.category(decided)
        place_cell = next((row.cells[c] for c in ("town/city", "district", "province")
                           if row.text(c)), citer.cell("lat"))
        citer.place(place_name, place_cell)
        citer.date(when, row.cells["date"])
        citer.mapped(tables, cells)
        mention = citer.mention(row.text("entry") or f"line-{row.line}", [decided.outcome],
                                place_name, place_json(
                                    next((p for p in parts if p), place_name), lat, lon,
                                    "point", row.text("province"), row.text("country")),
                                when, row.text("date"))
        return RowOutcome(row, INCIDENT, decided.rule, mention=mention, claims=citer.claims,
                          facts=facts)
