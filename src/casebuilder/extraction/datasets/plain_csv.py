"""An investigator's own spreadsheet: a plain CSV file read through a column mapping (TOML)
that says which column holds what. Example (every key but those marked optional is needed)::

    name = "Field team A log"        # the source the rows' claims are attributed to
    precision = "settlement"         # optional: point | settlement | district | region | country
    default_category = "explosive_attack"  # optional: the category when no column gives one

    [columns]                        # casebuilder's field = the column's header in the file
    id = "Ref"                       # optional (default: the line number)
    date = "Date"
    latitude = "Lat"
    longitude = "Lon"
    place = "Town"                   # optional, as are all that follow
    admin1 = "Oblast"
    country = "Country"
    description = "What happened"
    category = "Type"
    killed = "Dead"
    injured = "Wounded"
    weapon = "Weapon"                # a weapon of vocab/weapons.toml or one of its aliases
    target = "Target"                # a target type of targets.toml or one of its aliases

    [categories]                     # optional: a category cell -> a category, or "context"
    "shelling" = "explosive_attack"
    "troops moving" = "context"

A category cell that is neither a casebuilder category nor mapped makes the row rejected (it
says which value); a row mapped to "context" is kept as context, the rule named after its
value. The mapping is checked on load: an unknown key, a column left out, an outcome that is
not a category is an error naming the mapping file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from casebuilder.errors import DatasetError
from casebuilder.extraction.datasets.formats import DatasetFormat, ImportContext
from casebuilder.extraction.datasets.mapping import Mapped, MappingTables
from casebuilder.extraction.datasets.reading import SourceRow
from casebuilder.extraction.datasets.rows import (
    CONTEXT,
    INCIDENT,
    UNCERTAINTY_KM,
    RowOutcome,
    RowProblem,
    date_for,
    parse_coordinates,
    parse_count,
    parse_day,
    place_json,
)
from casebuilder.extraction.vocabulary import shipped_vocabulary

FIELDS = ("id", "date", "latitude", "longitude", "place", "admin1", "country", "description",
          "category", "killed", "injured", "weapon", "target")
NEEDED = ("date", "latitude", "longitude")
KEYS = frozenset({"name", "precision", "default_category", "columns", "categories"})


def _alias_table(entries: dict[str, Any]) -> dict[str, str]:
    """Each name and alias (lower case) of weapons or targets -> the vocabulary's name."""
    out: dict[str, str] = {}
    for key, entry in entries.items():
        out[key.lower()] = key
        for alias in entry.aliases:
            out.setdefault(alias.lower(), key)
    return out


class PlainCsv(DatasetFormat):
    name = "csv"

    def __init__(self, path: Path, text: str, raw: dict[str, Any]) -> None:
        where = f"column mapping {path}"
        unknown = sorted(set(raw) - KEYS)
        if unknown:
            raise DatasetError(f"{where}: unknown key(s) {', '.join(unknown)} (known: "
                               f"{', '.join(sorted(KEYS))})")
        columns = raw.get("columns")
        if not isinstance(columns, dict) or not all(isinstance(v, str) for v in
                                                    columns.values()):
            raise DatasetError(f"{where}: [columns] must map fields to column headers")
        wrong = sorted(set(columns) - set(FIELDS))
        if wrong:
            raise DatasetError(f"{where}: [columns] has unknown field(s) {', '.join(wrong)} "
                               f"(known: {', '.join(FIELDS)})")
        missing = [f for f in NEEDED if f not in columns]
        if missing:
            raise DatasetError(f"{where}: [columns] must name the column of "
                               f"{', '.join(missing)}")
        categories = shipped_vocabulary().categories
        self.categories: dict[str, str] = {}
        for value, outcome in (raw.get("categories") or {}).items():
            if outcome != CONTEXT and outcome not in categories:
                raise DatasetError(f"{where}: [categories] {value!r} = {outcome!r} is neither "
                                   f"a category ({', '.join(categories)}) nor \"context\"")
            self.categories[str(value).strip().lower()] = str(outcome)
        self.default = str(raw.get("default_category") or "")
        if self.default and self.default not in categories:
            raise DatasetError(f"{where}: default_category {self.default!r} is not a category")
        if "category" not in columns and not self.default:
            raise DatasetError(f"{where}: name a category column or a default_category")
        self.precision = str(raw.get("precision") or "settlement")
        if self.precision not in UNCERTAINTY_KM:
            raise DatasetError(f"{where}: precision must be one of "
                               f"{', '.join(UNCERTAINTY_KM)}")
        self.label = str(raw.get("name") or path.stem)
        self.columns: dict[str, str] = dict(columns)
        self.required = tuple(columns[f] for f in NEEDED)
        self.optional = tuple(columns[f] for f in FIELDS if f in columns and f not in NEEDED)
        self.mapping_text = text

    @classmethod
    def from_mapping(cls, path: Path) -> PlainCsv:
        try:
            text = path.read_text(encoding="utf-8")
            raw = tomllib.loads(text)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise DatasetError(f"column mapping {path}: {exc}") from exc
        return cls(path, text, raw)

    def rules_material(self) -> bytes:
        return self.mapping_text.encode("utf-8")

    def tables(self) -> MappingTables:
        return MappingTables(self.name, {}, {})

    def cell(self, row: SourceRow, field: str) -> str:
        column = self.columns.get(field)
        return row.text(column) if column else ""

    def build(self, row: SourceRow, context: ImportContext) -> RowOutcome:
        c = self.columns
        day = parse_day(self.cell(row, "date"), c["date"])
        lat, lon = parse_coordinates(self.cell(row, "latitude"), self.cell(row, "longitude"))
        place_name = ", ".join(p for p in (self.cell(row, "place"), self.cell(row, "admin1"))
                               if p) or f"{lat}, {lon}"
        facts = {"entry": self.cell(row, "id"), "date": day.isoformat(), "lat": lat,
                 "lon": lon, "place": place_name,
                 "title": self.cell(row, "description")[:300], "source": self.label}
        written = self.cell(row, "category").lower()
        category = self.categories.get(written) or (
            written if written in shipped_vocabulary().categories else "")
        rule = f"categories/{written}" if written else "default_category"
        if not category:
            if written:
                raise RowProblem(f"{c['category']} {written!r} is no category and the "
                                 "mapping does not map it")
            category = self.default
        if category == CONTEXT:
            return RowOutcome(row, CONTEXT, rule, facts=facts)
        citer = self.citer(row, context)
        citer.category(Mapped(category, rule, c.get("category")))
        citer.place(place_name, citer.cell(c.get("place") or c["latitude"]))
        when = date_for(day, "day")
        citer.date(when, row.cells[c["date"]])
        for measure in ("killed", "injured"):
            count = parse_count(self.cell(row, measure), c.get(measure, measure))
            if count is not None:
                citer.figure(measure, count, None, row.cells[c[measure]],
                             f"{measure} as {self.label} records them", None,
                             f"import:csv:{measure}")
        vocabulary = shipped_vocabulary()
        weapon = _alias_table(vocabulary.weapons).get(self.cell(row, "weapon").lower())
        if weapon:
            citer.weapon(Mapped(weapon, "import:csv:weapon", c["weapon"]))
        target = _alias_table(vocabulary.targets).get(self.cell(row, "target").lower())
        if target:
            citer.target(Mapped(target, "import:csv:target", c["target"]))
        ident = self.cell(row, "id") or f"line-{row.line}"
        place = place_json(self.cell(row, "place") or place_name, lat, lon, self.precision,
                           self.cell(row, "admin1"), self.cell(row, "country"))
        mention = citer.mention(ident, [category], place_name, place, when,
                                self.cell(row, "date"))
        return RowOutcome(row, INCIDENT, rule, mention=mention, claims=citer.claims,
                          facts=facts)
