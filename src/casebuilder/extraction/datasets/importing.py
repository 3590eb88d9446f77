"""Importing a dataset file: preserve it like any original, then make each of its rows an
incident mention, a context row or a rejected row, all in one logged run.

1. The file is read and its columns checked against the format (a wrong column set is a
   :class:`~casebuilder.errors.DatasetError` naming the file and the missing columns; nothing
   is stored).
2. It is taken in through the normal ingest path (stored once by its SHA-256, an ``ingest``
   custody entry for each receipt, read by its handler).
3. Its rows are turned into outcomes by the format, and stored as one extraction run of the
   dataset item (extractor ``import:<format>/<version>``): an ``extract`` custody entry whose
   details record the counts and the digests of the mentions and claims (checked by
   ``verify`` as for any run) and of the dataset rows. Incident rows become incident mentions
   and claims (offsets in bytes of the original, see rows.py); every row, whatever became of
   it, is a ``dataset_rows`` row with its line, byte span, status, rule and reason.

Importing the same file again with the same importer and tables adds a receipt and nothing
else: the run is unchanged, so no mention is added.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, update

from casebuilder.errors import DatasetError, IntakeError
from casebuilder.extraction.datasets.formats import DatasetFormat, ImportContext
from casebuilder.extraction.datasets.mapping import MAPPINGS_DIR
from casebuilder.extraction.datasets.rows import CONTEXT, INCIDENT, REJECTED, RowOutcome
from casebuilder.extraction.run import _Results
from casebuilder.intake.ingest import IngestReport, ingest
from casebuilder.preservation.case import Case
from casebuilder.preservation.items import item_ref
from casebuilder.preservation.verify import (
    CURRENT_RESULTS_FORMAT,
    DATASET_ROW_FIELDS,
    dataset_rows_digest,
)
from casebuilder.store import schema

#: What an import's coordinates come from: the dataset, never the gazetteer.
GAZETTEER = "none: places as the dataset gives them"


def dataset_formats() -> dict[str, DatasetFormat]:
    from casebuilder.extraction.datasets.acled import Acled
    from casebuilder.extraction.datasets.cir_monitor import CirMonitor
    from casebuilder.extraction.datasets.civilian_harm import CivilianHarm
    from casebuilder.extraction.datasets.geojson import GeoJson
    from casebuilder.extraction.datasets.ucdp_ged import UcdpGed

    found: list[DatasetFormat] = [CirMonitor(), Acled(), UcdpGed(), CivilianHarm(), GeoJson()]
    return {f.name: f for f in found}


def format_named(name: str, mapping: Path | None = None) -> DatasetFormat:
    if name == "csv":
        from casebuilder.extraction.datasets.plain_csv import PlainCsv

        if mapping is None:
            raise DatasetError("a plain csv file is read through its column mapping "
                               "(--mapping FILE.toml; see docs/datasets.md)")
        return PlainCsv.from_mapping(mapping)
    formats = dataset_formats()
    if name not in formats:
        raise DatasetError(f"no dataset format {name!r} (known: {', '.join(sorted(formats))})")
    return formats[name]


def _rules_digest(fmt: DatasetFormat) -> str:
    """The importer's code and the format's mapping tables: a change makes a new run."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in sorted([*package.glob("*.py"), *(MAPPINGS_DIR / fmt.name).glob("*.toml")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(b"mapping\0" + fmt.rules_material())
    return digest.hexdigest()


@dataclass
class ImportReport:
    path: str
    format: str
    item_id: int | None = None
    status: str = "imported"  # imported | unchanged (held and imported with these rules)
    outcomes: list[RowOutcome] = field(default_factory=list)
    empty_lines: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    ingest: IngestReport | None = None

    def of(self, status: str) -> list[RowOutcome]:
        return [o for o in self.outcomes if o.status == status]

    @property
    def rows(self) -> int:
        return sum(self.counts.values())


def read_outcomes(fmt: DatasetFormat, data: bytes, name: str, item_id: int,
                  sha256: str) -> tuple[list[RowOutcome], int]:
    """Every row of the file as an outcome (duplicates rejected), and the empty lines."""
    read = fmt.read(data, name)
    context = ImportContext(item_id, sha256)
    outcomes: list[RowOutcome] = []
    seen_cells: dict[tuple[str, ...], int] = {}
    seen_keys: dict[str, int] = {}
    for row in read.rows:
        if row.problem is None:
            same = tuple(c.text for c in row.cells.values())
            if same in seen_cells:
                row.problem = f"the same cells as line {seen_cells[same]} (a duplicate row)"
            else:
                seen_cells[same] = row.line
        outcome = fmt.outcome(row, context)
        key = outcome.key
        if key is not None:
            if key in seen_keys:
                outcome = RowOutcome(row, REJECTED, "rejected",
                                     f"the same event as line {seen_keys[key]} (its "
                                     "identifier is used twice)")
            else:
                seen_keys[key] = row.line
        outcomes.append(outcome)
    return outcomes, read.empty_lines


def import_dataset(case: Case, format_name: str, path: Path, *, mapping: Path | None = None
                   ) -> ImportReport:
    fmt = format_named(format_name, mapping)
    shown = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IntakeError(shown, f"cannot be read: {exc.strerror or exc}") from exc
    sha256 = hashlib.sha256(data).hexdigest()
    fmt.read(data, shown)  # a wrong column set stops here, before anything is stored
    report = ImportReport(shown, fmt.name)
    report.ingest = ingest(case, [path])
    with case.session() as session:
        item = session.execute(select(schema.Item).where(
            schema.Item.sha256 == sha256)).scalar_one_or_none()
        if item is None:
            problem = next((o.reason for o in report.ingest.outcomes if o.reason), None)
            raise DatasetError(f"{shown} was not taken in "
                               f"({problem or 'it changed while it was read'})")
        item_id = item.id
    return import_item(case, fmt, item_id, data, shown, report)


def import_item(case: Case, fmt: DatasetFormat, item_id: int, data: bytes, shown: str,
                report: ImportReport | None = None) -> ImportReport:
    """Import the rows of a dataset the case holds already (item ``item_id``, its bytes
    ``data``): unchanged when its current run is an import with these rules."""
    report = report or ImportReport(shown, fmt.name)
    sha256 = hashlib.sha256(data).hexdigest()
    with case.session() as session:
        current = session.execute(select(schema.ExtractionRun).where(
            schema.ExtractionRun.item_id == item_id,
            schema.ExtractionRun.current.is_(True))).scalars().first()
    report.item_id = item_id
    rules = _rules_digest(fmt)
    outcomes, empty = read_outcomes(fmt, data, shown, item_id, sha256)
    report.outcomes, report.empty_lines = outcomes, empty
    report.counts = dict(Counter(o.status for o in outcomes))
    for status in (INCIDENT, CONTEXT, REJECTED):
        report.counts.setdefault(status, 0)
    if current is not None and (current.extractor, current.vocabulary_sha256,
                                current.source_sha256) == (fmt.extractor, rules, sha256):
        report.status = "unchanged"
        return report
    _record(case, item_id, fmt, rules, sha256, outcomes, report.counts)
    case.checkpoint()
    return report


def _row_record(o: RowOutcome) -> dict[str, Any]:
    values = (o.row.number, o.row.line, o.row.line_end, o.row.start, o.row.end, o.status,
              o.rule[:120], o.reason, o.key, o.facts, o.row.spans())
    return dict(zip(DATASET_ROW_FIELDS, values, strict=True))


def _record(case: Case, item_id: int, fmt: DatasetFormat, rules: str, sha256: str,
            outcomes: list[RowOutcome], counts: dict[str, int]) -> None:
    results = _Results()
    try:
        for o in outcomes:
            if o.status == INCIDENT and o.mention is not None:
                results.add(o.mention, o.claims)
        rows = [_row_record(o) for o in outcomes]
        with case.transaction() as tx:
            session = tx.session
            item = session.get(schema.Item, item_id)
            assert item is not None
            digest = results.digest()
            session.execute(update(schema.ExtractionRun).where(
                schema.ExtractionRun.item_id == item_id).values(current=False))
            seq = tx.record("extract", [item_ref(item, "source"), item_ref(item, "text")], {
                "extractor": fmt.extractor, "vocabulary_sha256": rules,
                "gazetteer": GAZETTEER, "source_sha256": sha256,
                "results_format": CURRENT_RESULTS_FORMAT, "mentions": results.mentions,
                "claims": results.claims, "results_sha256": digest,
                "dataset_format": fmt.name, "rows": len(rows),
                "rows_by_status": dict(sorted(counts.items())),
                "rows_sha256": dataset_rows_digest(rows)})
            run = schema.ExtractionRun(
                item_id=item_id, text_item_id=item_id, extractor=fmt.extractor,
                vocabulary_sha256=rules, gazetteer=GAZETTEER, source_sha256=sha256,
                created_at=tx.last_time, entry_seq=seq, mention_count=results.mentions,
                claim_count=results.claims, results_sha256=digest, current=True)
            session.add(run)
            session.flush()
            records = list(results.records())
            if records:
                ids = list(session.execute(
                    insert(schema.IncidentMention).returning(
                        schema.IncidentMention.id, sort_by_parameter_order=True),
                    [{**r["mention"], "run_id": run.id, "item_id": item_id}
                     for r in records]).scalars())
                claims = [{**c, "mention_id": mention_id, "item_id": item_id}
                          for mention_id, r in zip(ids, records, strict=True)
                          for c in r["claims"]]
                if claims:
                    session.execute(insert(schema.Claim), claims)
            if rows:
                session.execute(insert(schema.DatasetRow),
                                [{**r, "run_id": run.id, "item_id": item_id} for r in rows])
    finally:
        results.close()
