"""What every dataset format does: read the file's rows, check its columns, and make each row
an incident mention, a context row or a rejected row (one module per format: cir_monitor.py,
acled.py, ucdp_ged.py, civilian_harm.py, geojson.py, plain_csv.py)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, replace

from casebuilder.errors import CasebuilderError, DatasetError
from casebuilder.extraction.datasets.mapping import MappingTables, load_mappings
from casebuilder.extraction.datasets.reading import SourceRow, read_csv
from casebuilder.extraction.datasets.rows import RowCiter, RowOutcome, RowProblem, rejected


@dataclass(frozen=True)
class ReadRows:
    rows: list[SourceRow]
    empty_lines: int = 0
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportContext:
    """What a format needs to build one row's outcome."""

    item_id: int
    sha256: str


class DatasetFormat(ABC):
    """A dataset format: its name, its columns, its reader and its rows' meaning."""

    name = ""
    label = ""  # the source the rows are attributed to
    version = 1
    #: Columns a file must have (compared trimmed and case-insensitively); others are ignored.
    required: tuple[str, ...] = ()
    #: Columns read when present.
    optional: tuple[str, ...] = ()

    @property
    def extractor(self) -> str:
        return f"import:{self.name}/{self.version}"

    def rules_material(self) -> bytes:
        """What besides the code and the mapping tables decides the rows (a column mapping)."""
        return b""

    def tables(self) -> MappingTables:
        return load_mappings(self.name, (*self.required, *self.optional))

    def read(self, data: bytes, name: str) -> ReadRows:
        """The rows of a CSV file whose header has the required columns (any order)."""
        csv = read_csv(data, name)
        self.check_columns(csv.header, name)
        canonical = {c.lower(): c for c in (*self.required, *self.optional)}
        for row in csv.rows:
            row.cells = {canonical[k.lower()]: replace(cell, column=canonical[k.lower()])
                         for k, cell in row.cells.items() if k.lower() in canonical}
        return ReadRows(csv.rows, csv.empty_lines, tuple(csv.header))

    def check_columns(self, header: Sequence[str], name: str) -> None:
        have = {h.strip().lower() for h in header}
        missing = [c for c in self.required if c.lower() not in have]
        if missing:
            raise DatasetError(f"{name} is not a {self.name} file: column(s) "
                               f"{', '.join(missing)} missing from its header")

    def outcome(self, row: SourceRow, context: ImportContext) -> RowOutcome:
        if row.problem is not None:
            return rejected(row, row.problem)
        try:
            return self.build(row, context)
        except RowProblem as exc:
            return rejected(row, str(exc))
        except (CasebuilderError, ValueError, TypeError, KeyError) as exc:
            # a row no check foresaw: reported with the rest, never the end of the import
            return rejected(row, f"could not be read: {type(exc).__name__}: {exc}")

    @abstractmethod
    def build(self, row: SourceRow, context: ImportContext) -> RowOutcome:
        """One row's outcome (each format's own reading of its columns)."""

    def citer(self, row: SourceRow, context: ImportContext, cited: tuple[str, ...] = ()
              ) -> RowCiter:
        from casebuilder.extraction.datasets.rows import DatasetSource

        return RowCiter(context.item_id, context.sha256, self.name, row,
                        DatasetSource(self.label, cited))
