"""Commands of the evidence locker: ingest, verify, bundle, items, show, log."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from casebuilder.cli.main import CliState, cli, opened_case
from casebuilder.errors import NotFound
from casebuilder.intake.walk import printable

# Imported where used: `casebuilder --help` and a short ingest should not pay for them.
if TYPE_CHECKING:
    from casebuilder.intake.ingest import IngestReport
    from casebuilder.preservation.case import Case
    from casebuilder.preservation.verify import VerificationReport

LIST_LIMIT = 60


def print_verification(report: VerificationReport) -> None:
    counts = ", ".join(f"{v} {k}" for k, v in report.counts.items())
    click.echo(f"Checked {counts}.")
    for note in report.notes:
        click.echo(f"note: {note}")
    if report.ok:
        click.echo("OK: every stored file, log entry and checkpoint is as recorded.")
    else:
        click.echo(f"FAILED: {len(report.failures)} problem(s):")
        for finding in report.failures:
            click.echo(f"  - {finding}")


def texts_among(case: Case, item_ids: list[int]) -> list[int]:
    """The originals among ``item_ids`` that have a text to extract from."""
    if not item_ids:
        return []
    from sqlalchemy import select

    from casebuilder.store.schema import Item

    with case.session() as session:
        return list(
            session.execute(
                select(Item.id).where(
                    Item.id.in_(item_ids), Item.kind == "original", Item.text_item_id.is_not(None)
                )
            ).scalars()
        )


def print_ingest_report(report: IngestReport, home: Path) -> None:
    from casebuilder.cli.intake_summary import print_problems

    new, dups, failures = report.new, report.duplicates, report.problems
    click.echo(
        f"Ingested into {home}: {len(new)} new, {len(dups)} already held, "
        f"{len(failures)} with problems."
    )
    if new:
        click.echo("New items:")
        for o in new[:LIST_LIMIT]:
            fmt = o.format or "-"
            status = o.parse_status or "-"
            click.echo(f"  #{o.item_id:<5} {fmt:<20} {status:<11} {o.path}")
        if len(new) > LIST_LIMIT:
            click.echo(f"  … and {len(new) - LIST_LIMIT} more (see 'casebuilder items')")
    if dups:
        click.echo("Already held (a new origin was logged):")
        for o in dups[:LIST_LIMIT]:
            read_now = f"  (read now: {o.parse_status})" if o.parsed else ""
            click.echo(f"  #{o.item_id:<5} {o.path}{read_now}")
    resumed = report.resumed
    if resumed:
        click.echo("Members an earlier, stopped run received but did not read, read now:")
        for o in resumed[:LIST_LIMIT]:
            click.echo(f"  #{o.item_id:<5} {o.format or '-':<20} {o.parse_status or '-':<11} "
                       f"{o.path}")
    print_problems(report)
    cp = report.checkpoint
    if cp is not None and cp.checkpoint is not None:
        click.echo(
            f"Custody log: {cp.checkpoint.tree_size} entries, root "
            f"{cp.checkpoint.root[:16]}…, signed checkpoint written."
        )
        if cp.timestamp_problem:
            click.echo(f"Warning: checkpoint not time-stamped: {cp.timestamp_problem}")


@cli.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path, exists=False))
@click.option(
    "--progress/--no-progress",
    "show_progress",
    default=None,
    help="Show a progress bar (default: on a terminal, for long runs).",
)
@click.option(
    "--extract/--no-extract",
    default=True,
    show_default=True,
    help="Extract incident mentions from the new texts.",
)
@click.pass_obj
def ingest_command(
    state: CliState, paths: tuple[Path, ...], show_progress: bool | None, extract: bool
) -> None:
    """Preserve files and folders (recursively) and read what can be read from them.

    Exit status: 0 when every path was taken in and read in full; 1 when some path could not
    be taken in, was not readable or only partly readable, or its text could not be extracted
    (all of it recorded); 2 on an error that stopped the run (the case home could not be
    written, say a full disk: what was stored before it is kept and listed)."""
    from casebuilder.cli.intake_summary import ingest_exit_status, report_stop
    from casebuilder.cli.progress import RichIngestProgress, want_progress
    from casebuilder.preservation.early import early_copies

    extracted = True
    shown = want_progress(show_progress)
    # Large named files start copying now, while the rest of the command is still loading.
    with early_copies(state.home, paths, wanted=not shown) as early, opened_case(state) as case:
        from casebuilder.intake.ingest import ingest

        early.hand_to(case.objects)
        progress = RichIngestProgress() if shown else None
        try:
            report = ingest(case, list(paths), progress=progress)
        finally:
            early.close()
            if progress is not None:
                progress.close()
        print_ingest_report(report, state.home)
        # Items an earlier run stored but never read are read now, and extracted like new ones.
        texts = texts_among(case, report.parsed_item_ids)
        if texts and extract and report.stopped is None:
            from casebuilder.cli.extraction import run_extraction

            extracted = run_extraction(case, texts)
        if report.stopped is None:
            from casebuilder.cli.sealing import seal_leftovers_inline

            seal_leftovers_inline(case)
    report_stop(report)
    sys.exit(ingest_exit_status(report, extracted=extracted))


@cli.command("verify")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def verify_command(state: CliState, as_json: bool) -> None:
    """Re-hash every stored file and check the custody log, checkpoints and database."""
    from casebuilder.preservation.verify import record_verification, verify_case

    with opened_case(state, create=False) as case:
        report = verify_case(case)
        logged = record_verification(case, report)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "ok": report.ok,
                    "failures": [
                        {"subject": f.subject, "problem": f.problem} for f in report.failures
                    ],
                    "notes": report.notes,
                    "counts": report.counts,
                    "logged": logged,
                },
                indent=2,
            )
        )
    else:
        print_verification(report)
        if not logged:
            click.echo(
                "The custody log failed its checks, so this verification was not appended to it."
            )
    sys.exit(0 if report.ok else 1)


@cli.command("bundle")
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="Directory to create, or a file ending in .zip.",
)
@click.option(
    "--item",
    "items",
    multiple=True,
    type=int,
    help="Only these items (repeatable); default: every item in the case.",
)
@click.pass_obj
def bundle_command(state: CliState, out: Path, items: tuple[int, ...]) -> None:
    """Write a BagIt court bundle that an expert can verify without casebuilder."""
    from casebuilder.reporting.bundle import write_bundle

    with opened_case(state, create=False) as case:
        summary = write_bundle(case, out, item_ids=list(items) or None)
    click.echo(
        f"Bundle written to {summary.path}: {summary.items} items, "
        f"{summary.payload_files} payload files ({summary.payload_bytes} bytes)."
    )
    click.echo(
        f"It carries the custody log to entry {summary.tree_size - 1} under signed root "
        f"{summary.root[:16]}…"
    )
    where = summary.path if summary.path.suffix != ".zip" else "the unzipped folder"
    click.echo(f"Check it with: bagit.py --validate {where}  and  python3 {where}/verify_bundle.py")


@cli.command("items")
@click.option("--all", "show_all", is_flag=True, help="Include derived files.")
@click.pass_obj
def items_command(state: CliState, show_all: bool) -> None:
    """List the items held in the case."""
    from sqlalchemy import select

    from casebuilder.store.schema import Item

    with opened_case(state, create=False) as case, case.session() as session:
        query = select(Item).order_by(Item.id)
        if not show_all:
            query = query.where(Item.kind == "original")
        for item in session.execute(query).scalars():
            name = printable(item.origins[0].name) if item.origins else "(derived)"
            click.echo(
                f"#{item.id:<5} {item.sha256[:12]}  {item.size:>12}  "
                f"{item.format or '-':<20} {item.parse_status:<11} {name}"
            )


@cli.command("show")
@click.argument("item_id", type=int)
@click.pass_obj
def show_command(state: CliState, item_id: int) -> None:
    """Show one item's record (logged as a view in the custody log)."""
    from sqlalchemy import select

    from casebuilder.preservation.items import item_ref, origin_record
    from casebuilder.store.schema import Derivation, Item, Origin

    with opened_case(state, create=False) as case:
        with case.transaction() as tx:
            item = tx.session.get(Item, item_id)
            if item is None:
                raise NotFound(f"no item {item_id} in this case")
            tx.record("view", [item_ref(item)], {"what": "item record"})
            record: dict[str, Any] = {
                "id": item.id,
                "sha256": item.sha256,
                "sha512": item.sha512,
                "size": item.size,
                "kind": item.kind,
                "format": item.format,
                "media_type": item.media_type,
                "parse_status": item.parse_status,
                "parse_error": item.parse_error,
                "parse_tool": item.parse_tool,
                "metadata": item.item_metadata,
                "text_item": item.text_item_id,
                "origins": [
                    origin_record(o)
                    for o in tx.session.execute(
                        select(Origin).where(Origin.item_id == item_id)
                    ).scalars()
                ],
                "derived": [
                    {
                        "item": d.derived_item_id,
                        "kind": d.kind,
                        "tool": d.tool,
                        "tool_version": d.tool_version,
                    }
                    for d in tx.session.execute(
                        select(Derivation).where(Derivation.source_item_id == item_id)
                    ).scalars()
                ],
                "stored_at": str(case.objects.path_for(item.sha256)),
            }
        case.checkpoint()
    click.echo(json.dumps(record, indent=2, ensure_ascii=False))


@cli.command("log")
@click.option("--tail", type=int, default=0, help="Only the last N entries.")
@click.pass_obj
def log_command(state: CliState, tail: int) -> None:
    """Print custody log entries (one JSON object per line)."""
    from sqlalchemy import select

    from casebuilder.store.schema import CustodyEvent

    with opened_case(state, create=False) as case, case.session() as session:
        query = select(CustodyEvent).order_by(CustodyEvent.seq.desc() if tail else CustodyEvent.seq)
        if tail:
            query = query.limit(tail)
        rows = list(session.execute(query).scalars())
        for row in reversed(rows) if tail else rows:
            click.echo(row.entry)
