"""UCDP GED's CSV (the Uppsala Conflict Data Program's Georeferenced Event Dataset): one row
per event, read from the columns id, relid, year, type_of_violence, conflict_name, dyad_name,
side_a, side_b, number_of_sources, source_article, source_office, source_date,
source_headline, source_original, where_prec, where_coordinates, where_description, adm_1,
adm_2, latitude, longitude, country, date_prec, date_start, date_end, deaths_a, deaths_b,
deaths_civilians, deaths_unknown, best, high, low (any order; other columns are ignored).

Dates are date_start..date_end ("2022-03-16" or "2022-03-16 00:00:00.000"); where_prec becomes
the place's precision (mappings/ucdp-ged/). ``best`` is a killed figure of all deaths UCDP
counts, with ``low``..``high`` as its range; ``deaths_civilians`` a killed figure of civilians
(a part of the toll when it is less than best). The offices the row cites (``source_office``,
";"-separated) are named with each claim.
"""

from __future__ import annotations

from casebuilder.extraction.datasets.formats import DatasetFormat, ImportContext
from casebuilder.extraction.datasets.mapping import facts_of
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

BEST_COUNTS = "UCDP's best estimate of all deaths (combatants and civilians), low-high range"
CIVILIANS_COUNT = "civilian deaths as UCDP counts them"


class UcdpGed(DatasetFormat):
    name = "ucdp-ged"
    label = "UCDP GED"
    required = ("id", "type_of_violence", "side_a", "side_b", "where_prec", "latitude",
                "longitude", "country", "date_start", "date_end", "deaths_civilians", "best",
                "high", "low")
    optional = ("relid", "year", "conflict_name", "dyad_name", "number_of_sources",
                "source_article", "source_office", "source_date", "source_headline",
                "source_original", "where_coordinates", "where_description", "adm_1", "adm_2",
                "date_prec", "deaths_a", "deaths_b", "deaths_unknown")

    def build(self, row: SourceRow, context: ImportContext) -> RowOutcome:
        start = parse_day(row.text("date_start"), "date_start")
        end = parse_day(row.text("date_end"), "date_end") if row.text("date_end") else start
        when = date_for(start, "day", end)
        lat, lon = parse_coordinates(row.text("latitude"), row.text("longitude"))
        best = parse_count(row.text("best"), "best")
        low = parse_count(row.text("low"), "low")
        high = parse_count(row.text("high"), "high")
        civilians = parse_count(row.text("deaths_civilians"), "deaths_civilians")
        where = row.text("where_coordinates")
        parts = [where, row.text("adm_2"), row.text("adm_1")]
        place_name = ", ".join(p for p in parts if p) or row.text("country")
        facts = {"entry": row.text("id"), "date": when.iso(), "lat": lat, "lon": lon,
                 "place": place_name, "title": (row.text("source_headline") or
                                                row.text("dyad_name"))[:300],
                 "source": self.label, "published": row.text("source_date")[:10]}
        tables = self.tables()
        cells = facts_of({c.column: c.text for c in row.cells.values()})
        decided = tables.decide("rows", cells)
        if decided.outcome == CONTEXT:
            return RowOutcome(row, CONTEXT, decided.rule, facts=facts)
        if not row.text("id"):
            raise RowProblem("no id")
        cited = tuple(s.strip() for s in row.text("source_office").split(";") if s.strip())
        citer = self.citer(row, context, cited)
        citer.category(decided)
        citer.place(place_name, citer.cell("where_coordinates" if where else "latitude"))
        citer.date(when, row.cells["date_start"])
        if best is not None:
            floor = min(x for x in (low, best) if x is not None)
            ceiling = max(x for x in (high, best) if x is not None)
            citer.figure("killed", floor, ceiling, row.cells["best"],
                         f"{BEST_COUNTS}; best {best}", "all", "import:ucdp-ged:best")
        if civilians is not None:
            citer.figure("killed", civilians, None, row.cells["deaths_civilians"],
                         CIVILIANS_COUNT, "civilians", "import:ucdp-ged:deaths_civilians")
            if best is not None and civilians < best:
                citer.claims[-1]["value"]["subgroup"] = True
        citer.mapped(tables, cells)
        place = place_json(where or place_name, lat, lon,
                           tables.decide("place_precision", cells).outcome,
                           row.text("adm_1"), row.text("country"))
        mention = citer.mention(row.text("id"), [decided.outcome], place_name, place, when,
                                row.text("date_start"))
        return RowOutcome(row, INCIDENT, decided.rule, mention=mention, claims=citer.claims,
                          facts=facts)
