"""GeoJSON of incidents: casebuilder's own ``export incidents --format geojson``
(reporting/export.py ``feature``) and any FeatureCollection whose features carry the same
properties (categories, place, admin1, country, precision, gazetteer_id, uncertainty_km,
date_start, date_end, date_precision, date_basis, date_earliest, situation, killed_min,
killed_max, killed_qualifier, injured_min, injured_max, weapon, target_type,
perpetrator_claimed, sources).

Each feature with a Point geometry is one row and one mention, placed at its coordinates with
the precision and gazetteer id its properties give (never geocoded again), dated by its dates,
with a claim for each category, figure, weapon, target and claimed perpetrator, each citing
its property's value in the file. The speakers its ``sources`` name are named with each claim.
No mapping tables: the properties already use casebuilder's words.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from casebuilder.errors import DatasetError
from casebuilder.extraction.datasets.formats import DatasetFormat, ImportContext, ReadRows
from casebuilder.extraction.datasets.mapping import Mapped, MappingTables
from casebuilder.extraction.datasets.reading import JsonFile, JsonNode, SourceRow, read_json
from casebuilder.extraction.datasets.rows import (
    FEATURE_KINDS,
    INCIDENT,
    UNCERTAINTY_KM,
    RowOutcome,
    RowProblem,
    parse_coordinates,
    parse_count,
    parse_day,
)
from casebuilder.extraction.vocabulary import shipped_vocabulary
from casebuilder.model.partial_date import PRECISIONS, PartialDate

#: The qualifiers a figure may have (model.claim_values.FigureValue).
QUALIFIERS = frozenset({"exact", "at least", "more than", "about", "up to", "between",
                        "vague", "none"})


def _feature_row(file: JsonFile, node: JsonNode, number: int) -> SourceRow:
    row = SourceRow(number, file.line_of(node.start), file.line_of(node.end),
                    file.offsets(node.start), file.offsets(node.end))
    parts = node.children if isinstance(node.children, dict) else None
    if parts is None:
        row.problem = f"feature {number} is not an object"
        return row
    properties = parts.get("properties")
    if properties is None or not isinstance(properties.children, dict):
        row.problem = f"feature {number} has no properties"
        return row
    for key, child in properties.children.items():
        row.cells[key] = file.cell(key, child)
    geometry = parts.get("geometry")
    if geometry is not None and isinstance(geometry.children, dict):
        for key in ("type", "coordinates"):
            if key in geometry.children:
                row.cells[f"geometry.{key}"] = file.cell(f"geometry.{key}",
                                                         geometry.children[key])
    if "id" in parts and "id" not in row.cells:
        row.cells["id"] = file.cell("id", parts["id"])
    return row


class GeoJson(DatasetFormat):
    name = "geojson"
    label = "casebuilder GeoJSON export"
    required = ("categories", "date_start", "date_end")
    optional = ("id", "place", "admin1", "country", "precision", "gazetteer_id",
                "uncertainty_km", "date_precision", "date_basis", "date_earliest",
                "situation", "killed_min", "killed_max", "killed_qualifier", "injured_min",
                "injured_max", "injured_qualifier", "weapon", "target_type",
                "perpetrator_claimed", "sources")

    def tables(self) -> MappingTables:
        return MappingTables(self.name, {}, {})

    def read(self, data: bytes, name: str) -> ReadRows:
        file = read_json(data, name, depth=5)
        root = file.root.children
        features = root.get("features") if isinstance(root, dict) else None
        if not isinstance(root, dict) or root.get("type") is None or \
                file.root.value.get("type") != "FeatureCollection" or features is None or \
                not isinstance(features.children, list):
            raise DatasetError(f"{name} is not a GeoJSON FeatureCollection")
        rows = [_feature_row(file, node, number)
                for number, node in enumerate(features.children, start=1)]
        keys = {k for r in rows for k in r.cells}
        if rows:
            self.check_columns(sorted(keys), name)
        return ReadRows(rows, 0, tuple(sorted(keys)))

    def build(self, row: SourceRow, context: ImportContext) -> RowOutcome:
        coordinates = row.cells.get("geometry.coordinates")
        if coordinates is None or row.text("geometry.type") != "Point" or not isinstance(
                coordinates.value, list) or len(coordinates.value) < 2:
            raise RowProblem("no Point geometry")
        lon_text, lat_text = (str(v) for v in coordinates.value[:2])
        lat, lon = parse_coordinates(lat_text, lon_text)
        categories = row.cells["categories"].value if "categories" in row.cells else None
        known = shipped_vocabulary().categories
        if not isinstance(categories, list) or not all(c in known for c in categories):
            raise RowProblem(f"categories {row.text('categories')!r} are not casebuilder's")
        when = self._dates(row)
        situation = row.cells["situation"].value is True if "situation" in row.cells else False
        sources = row.cells["sources"].value if "sources" in row.cells else None
        cited = tuple(sorted({str(s.get("attributed_to")) for s in sources or ()
                              if isinstance(s, dict) and s.get("attributed_to")}))
        citer = self.citer(row, context, cited)
        for category in categories:
            citer.category(Mapped(str(category), "import:geojson:categories", "categories"))
        place_name = row.text("place") or f"{lat}, {lon}"
        citer.place(place_name, citer.cell("place" if row.text("place") else
                                           "geometry.coordinates"))
        citer.date(when, citer.cell("date_start" if row.text("date_start") else "date_end"))
        for measure in ("killed", "injured"):
            low = parse_count(row.text(f"{measure}_min"), f"{measure}_min")
            if low is None:
                continue
            high = parse_count(row.text(f"{measure}_max"), f"{measure}_max")
            qualifier = row.text(f"{measure}_qualifier") or "exact"
            if qualifier not in QUALIFIERS:
                raise RowProblem(f"{measure}_qualifier {qualifier!r} is not casebuilder's")
            citer.figure(measure, low, high, row.cells[f"{measure}_min"],
                         "the export's best figure", None, f"import:geojson:{measure}")
            citer.claims[-1]["value"]["qualifier"] = qualifier
        vocabulary = shipped_vocabulary()
        if row.text("weapon") in vocabulary.weapons:
            citer.weapon(Mapped(row.text("weapon"), "import:geojson:weapon", "weapon"))
        if row.text("target_type") in vocabulary.targets:
            citer.target(Mapped(row.text("target_type"), "import:geojson:target_type",
                                "target_type"))
        labels = row.cells["perpetrator_claimed"].value if "perpetrator_claimed" in \
            row.cells else None
        by_label = {p.label: key for key, p in vocabulary.parties.items()}
        for label in labels if isinstance(labels, list) else ():
            if str(label) in by_label:
                citer.perpetrator(Mapped(by_label[str(label)],
                                         "import:geojson:perpetrator_claimed",
                                         "perpetrator_claimed"))
        precision = row.text("precision") or "point"
        if precision not in UNCERTAINTY_KM:
            precision = "point"
        place: dict[str, Any] = {
            "name": place_name, "lat": lat, "lon": lon, "admin1": row.text("admin1"),
            "country": row.text("country"), "gazetteer_id": row.text("gazetteer_id"),
            "precision": precision, "feature_kind": FEATURE_KINDS[precision],
            "uncertainty_km": _number(row.cells.get("uncertainty_km"),
                                      UNCERTAINTY_KM[precision]),
            "placed_at": "dataset"}
        ident = row.text("id") or f"feature-{row.number}"
        mention = citer.mention(ident, [str(c) for c in categories], place_name, place, when,
                                row.text("date_start") or row.text("date_end"))
        mention["situation"] = situation
        basis = row.text("date_basis")
        if basis in {"event", "report", "situation", "occupation"}:
            mention["date_basis"] = basis
        facts = {"entry": ident, "date": when.iso(), "lat": lat, "lon": lon,
                 "place": place_name, "title": ", ".join(str(c) for c in categories),
                 "source": self.label}
        return RowOutcome(row, INCIDENT, "import:geojson", mention=mention,
                          claims=citer.claims, facts=facts)

    def _dates(self, row: SourceRow) -> PartialDate:
        start_text = row.text("date_start") or row.text("date_earliest")
        end_text = row.text("date_end") or start_text
        if not start_text:
            raise RowProblem("no date_start, date_earliest or date_end")
        start: date = parse_day(start_text, "date_start")
        end: date = parse_day(end_text, "date_end")
        if end < start:
            raise RowProblem(f"date_end {end} is before date_start {start}")
        precision = row.text("date_precision")
        if precision in PRECISIONS:
            try:
                return PartialDate(start, end, precision)
            except ValueError:
                pass
        return PartialDate.range(start, end) if end != start else PartialDate.day(start)


def _number(cell: Any, default: float) -> float:
    value = getattr(cell, "value", None)
    return float(value) if isinstance(value, (int, float)) and not isinstance(
        value, bool) else default
