"""Commands for datasets as evidence: ``import FORMAT FILE...`` takes monitors' event tables
in (extraction/datasets/), and ``rows`` lists what became of each row of an imported file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from casebuilder.cli.main import CliState, cli, opened_case

if TYPE_CHECKING:
    from casebuilder.extraction.datasets.importing import ImportReport

SHOWN_LIMIT = 60
FORMAT_NAMES = ("cir-monitor", "acled", "ucdp-ged", "civilian-harm-json", "geojson", "csv")


def print_import(report: ImportReport, show_all: bool) -> None:
    counts = report.counts
    what = "already imported with these rules: nothing added" if report.status == \
        "unchanged" else "imported"
    click.echo(f"{report.path} ({report.format}), item #{report.item_id}: {what}.")
    click.echo(f"  {report.rows} rows: {counts.get('incident', 0)} incident mentions, "
               f"{counts.get('context', 0)} context rows, {counts.get('rejected', 0)} "
               f"rejected" + (f"; {report.empty_lines} empty lines skipped"
                              if report.empty_lines else ""))
    bad = report.of("rejected")
    for o in bad if show_all else bad[:SHOWN_LIMIT]:
        click.echo(f"  line {o.row.line}: {o.reason}")
    if len(bad) > SHOWN_LIMIT and not show_all:
        click.echo(f"  … and {len(bad) - SHOWN_LIMIT} more (--all lists them, 'casebuilder "
                   f"rows {report.item_id} --status rejected' too)")


@cli.command("import")
@click.argument("format_name", metavar="FORMAT", type=click.Choice(FORMAT_NAMES))
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--mapping", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="Column mapping (TOML) of a plain csv file (FORMAT csv).")
@click.option("--all", "show_all", is_flag=True, help="List every rejected row.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON summary per file.")
@click.pass_obj
def import_command(state: CliState, format_name: str, paths: tuple[Path, ...],
                   mapping: Path | None, show_all: bool, as_json: bool) -> None:
    """Take in event datasets (ACLED, UCDP GED, the Russia-Ukraine Monitor, civilian-harm
    JSON, casebuilder GeoJSON, a csv with a column mapping) as evidence: each file is
    preserved like any original, each row becomes an incident mention (or a context row)
    citing its cells, and bad rows are reported by line.

    Exit status: 0 when every row of every file was imported; 1 when some rows were
    rejected; 2 on an error (a file of another format, a missing column, an unreadable
    file)."""
    from casebuilder.extraction.datasets.importing import import_dataset

    status = 0
    with opened_case(state) as case:
        for path in paths:
            report = import_dataset(case, format_name, path, mapping=mapping)
            if as_json:
                click.echo(json.dumps({
                    "path": report.path, "format": report.format, "item": report.item_id,
                    "status": report.status, "rows": report.counts,
                    "empty_lines": report.empty_lines,
                    "rejected": [{"line": o.row.line, "reason": o.reason}
                                 for o in report.of("rejected")]}, ensure_ascii=False))
            else:
                print_import(report, show_all)
            if report.counts.get("rejected"):
                status = 1
    sys.exit(status)


@cli.command("rows")
@click.argument("item_id", type=int)
@click.option("--status", type=click.Choice(["incident", "context", "rejected"]),
              default=None, help="Only rows of this status.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per row.")
@click.pass_obj
def rows_command(state: CliState, item_id: int, status: str | None, as_json: bool) -> None:
    """List the rows of an imported dataset: line, status, the rule that decided, why."""
    from sqlalchemy import select

    from casebuilder.errors import NotFound
    from casebuilder.preservation.items import item_ref
    from casebuilder.preservation.reads import log_view
    from casebuilder.store import schema

    with opened_case(state, create=False) as case:
        with case.session() as session:
            item = session.get(schema.Item, item_id)
            run = session.execute(select(schema.ExtractionRun).where(
                schema.ExtractionRun.item_id == item_id,
                schema.ExtractionRun.current.is_(True))).scalars().first()
            if item is None or run is None or not run.extractor.startswith("import:"):
                raise NotFound(f"item {item_id} is not an imported dataset")
            query = select(schema.DatasetRow).where(schema.DatasetRow.run_id == run.id)
            if status is not None:
                query = query.where(schema.DatasetRow.status == status)
            rows = [{"number": r.number, "line": r.line, "bytes": [r.byte_start, r.byte_end],
                     "status": r.status, "rule": r.rule, "reason": r.reason,
                     "mention": r.mention_key, "facts": r.facts}
                    for r in session.execute(query.order_by(schema.DatasetRow.id)).scalars()]
            ref = item_ref(item)
        log_view(case, "dataset rows", [ref], details={"status": status, "count": len(rows)})
    for row in rows:
        if as_json:
            click.echo(json.dumps(row, ensure_ascii=False))
            continue
        facts = row["facts"] if isinstance(row["facts"], dict) else {}
        said = row["reason"] or " ".join(str(facts.get(k, "")) for k in ("date", "place",
                                                                         "title"))
        click.echo(f"line {row['line']:<6} {row['status']:<9} {row['rule']:<40} {said}")
