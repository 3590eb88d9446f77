"""Bellingcat's civilian-harm export: a JSON list of objects with id, date (MM/DD/YYYY),
latitude, longitude, location, description, sources (a list of {id, path, description}) and,
where present, associations (a list of words) and filters (a list of {key, value}).

Each object is one row: its byte span is the object's in the file, each key's value a cell
(strings inside their quotes). The mapping tables (mappings/civilian-harm-json/) read the
description, the associations joined with "; " and the filters as "key: value" joined with
"; ". The sources' paths are kept in the row's facts (``cited``).
"""

from __future__ import annotations

from typing import Any

from casebuilder.errors import DatasetError
from casebuilder.extraction.datasets.formats import DatasetFormat, ImportContext, ReadRows
from casebuilder.extraction.datasets.mapping import facts_of
from casebuilder.extraction.datasets.reading import SourceRow, json_row, read_json
from casebuilder.extraction.datasets.rows import (
    CONTEXT,
    INCIDENT,
    RowOutcome,
    RowProblem,
    date_for,
    parse_coordinates,
    parse_day,
    place_json,
)


def _joined(value: Any) -> str:
    if isinstance(value, list):
        parts = []
        for v in value:
            if isinstance(v, dict):
                parts.append(f"{v.get('key', '')}: {v.get('value', '')}")
            else:
                parts.append(str(v))
        return "; ".join(parts)
    return "" if value is None else str(value)


class CivilianHarm(DatasetFormat):
    name = "civilian-harm-json"
    label = "Bellingcat civilian harm"
    required = ("id", "date", "latitude", "longitude")
    optional = ("location", "description", "sources", "associations", "filters")

    def read(self, data: bytes, name: str) -> ReadRows:
        file = read_json(data, name, depth=2)
        if not isinstance(file.root.children, list):
            raise DatasetError(f"{name} is not a {self.name} file: not a JSON list of objects")
        rows = [json_row(file, node, number)
                for number, node in enumerate(file.root.children, start=1)]
        keys = {k for r in rows for k in r.cells}
        if rows:
            self.check_columns(sorted(keys), name)
        return ReadRows(rows, 0, tuple(sorted(keys)))

    def build(self, row: SourceRow, context: ImportContext) -> RowOutcome:
        for key in self.required:
            if key not in row.cells:
                raise RowProblem(f"no {key!r}")
        day = parse_day(row.text("date"), "date")
        lat, lon = parse_coordinates(row.text("latitude"), row.text("longitude"))
        location = row.text("location")
        sources = row.cells["sources"].value if "sources" in row.cells else None
        cited = [str(s.get("path") or s.get("id") or "") for s in sources or ()
                 if isinstance(s, dict)]
        texts = {k: _joined(c.value) if isinstance(c.value, list) else c.text
                 for k, c in row.cells.items()}
        facts = {"entry": row.text("id"), "date": day.isoformat(), "lat": lat, "lon": lon,
                 "place": location, "title": row.text("description")[:300],
                 "source": self.label, "cited": cited[:20]}
        tables = self.tables()
        cells = facts_of(texts)
        decided = tables.decide("rows", cells)
        if decided.outcome == CONTEXT:
            return RowOutcome(row, CONTEXT, decided.rule, facts=facts)
        citer = self.citer(row, context)
        when = date_for(day, "day")
        citer.category(decided)
        place_name = location or f"{lat}, {lon}"
        citer.place(place_name, citer.cell("location" if location else "latitude"))
        citer.date(when, row.cells["date"])
        citer.mapped(tables, cells)
        place = place_json(place_name.split(",")[0], lat, lon, "point", "", "")
        mention = citer.mention(row.text("id") or f"element-{row.number}", [decided.outcome],
                                place_name, place, when, row.text("date"))
        return RowOutcome(row, INCIDENT, decided.rule, mention=mention, claims=citer.claims,
                          facts=facts)
