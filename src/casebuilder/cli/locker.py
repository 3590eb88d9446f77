"""Commands of the evidence locker: ingest, verify, items, show, log (bundles: bundles.py)."""

from __future__ import annotations

import contextlib
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
@click.option("--json", "as_json", is_flag=True,
              help="Print the summary as one JSON object on standard output (the lines meant "
              "for people go to standard error).")
@click.option("--restricted", "restricted_kind", metavar="KIND",
              help="Restrict every file taken in to the roles cleared for restricted "
              "material, as KIND (access.toml [restricted]: witness_statement, identity...), "
              "before anything is read from it. Needs --reason.")
@click.option("--reason", "restricted_reason", help="Why the files are restricted.")
@click.pass_obj
def ingest_command(
    state: CliState, paths: tuple[Path, ...], show_progress: bool | None, extract: bool,
    as_json: bool, restricted_kind: str | None, restricted_reason: str | None,
) -> None:
    """Preserve files and folders (recursively) and read what can be read from them.

    Exit status: 0 when every path was taken in and read in full; 1 when some path could not
    be taken in, was not readable or only partly readable, or its text could not be extracted
    (all of it recorded); 2 on an error that stopped the run (the case home could not be
    written, say a full disk: what was stored before it is kept and listed)."""
    from casebuilder.cli.intake_summary import ingest_exit_status, report_stop, summary_json

    restriction = _restriction_asked(restricted_kind, restricted_reason)
    if not as_json:
        extracted, report = _ingest(state, paths, show_progress, extract, restriction)
        report_stop(report)
        sys.exit(ingest_exit_status(report, extracted=extracted))
    # Standard output carries the JSON alone; what is written for people goes to stderr.
    with contextlib.redirect_stdout(sys.stderr):
        extracted, report = _ingest(state, paths, show_progress, extract, restriction)
        report_stop(report)
    status = ingest_exit_status(report, extracted=extracted)
    click.echo(json.dumps(summary_json(report, str(state.home), extracted=extracted,
                                       status=status), ensure_ascii=False, indent=2))
    sys.exit(status)


def _restriction_asked(kind: str | None, reason: str | None) -> tuple[str, str] | None:
    """The (kind, reason) an ingest is to restrict its files as, checked before anything is
    taken in, or None."""
    from casebuilder.preservation.restriction import RestrictionError, check_kind

    if kind is None:
        if reason:
            raise RestrictionError("--reason goes with --restricted KIND")
        return None
    check_kind(kind)
    if not (reason or "").strip():
        raise RestrictionError("--restricted needs --reason: why these files are restricted")
    return kind, str(reason)


def _ingest(state: CliState, paths: tuple[Path, ...], show_progress: bool | None,
            extract: bool, restriction: tuple[str, str] | None = None
            ) -> tuple[bool, IngestReport]:
    """Ingest, print the summary and extract what is to be extracted; (extraction ran without
    a failure, the ingest report)."""
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
        if restriction is not None:
            # before anything is extracted or imported from them
            from casebuilder.preservation.restriction import restrict_item

            restricted = sorted({o.item_id for o in report.outcomes
                                 if o.item_id is not None and o.relation == "file"})
            for item_id in restricted:
                restrict_item(case, item_id, *restriction)
            click.echo(f"restricted {len(restricted)} item(s) as {restriction[0]}")
        # Only a text or JSON file can be a monitor's event table: a run of photos or videos
        # does not load the importers (a tenth of a second of a large file's ingest).
        from casebuilder.extraction.datasets import DATASET_CARRIERS

        if report.stopped is None and any(o.parsed and o.format in DATASET_CARRIERS
                                          for o in report.outcomes):
            # a monitor's event table is imported as rows (extraction/datasets/), never read as
            # prose; a row it rejects makes the run partial, as a text not extracted does
            from casebuilder.cli.datasets import print_import
            from casebuilder.extraction.datasets.recognising import import_recognised

            for imported in import_recognised(case, report.parsed_item_ids):
                print_import(imported, show_all=False)
                extracted = extracted and not imported.counts.get("rejected")
        if extract and report.stopped is None:
            # The texts read now, and every text an earlier run stored but never extracted (it
            # was killed, or the disk filled): each stored text is extracted exactly once (a
            # text the same rules failed on before is not retried; extract_item says so).
            from casebuilder.extraction.pending import unextracted_items

            texts = sorted(set(texts_among(case, report.parsed_item_ids))
                           | set(unextracted_items(case)))
            if texts:
                from casebuilder.cli.extraction import run_extraction

                extracted = run_extraction(case, texts)
        if report.stopped is None:
            from casebuilder.cli.sealing import seal_leftovers_inline

            seal_leftovers_inline(case)
    return extracted, report


@cli.command("verify")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--public-key", "public_key", type=click.Path(exists=True, dir_okay=False,
              path_type=Path), default=None,
              help="Check every signature with this public key (PEM), obtained apart from the "
              "case home. Only the public key is ever needed to verify.")
@click.option(
    "--against",
    type=click.Path(exists=True, path_type=Path),
    help="Also check that the case extends this bundle issued earlier (folder or .zip).",
)
@click.pass_obj
def verify_command(state: CliState, as_json: bool, public_key: Path | None,
                   against: Path | None) -> None:
    """Re-hash every stored file and check the custody log, checkpoints and database."""
    from casebuilder.preservation.verify import record_verification, verify_case
    from casebuilder.reporting.bundle_compare import (
        add_comparison,
        compare_case_with_bundle,
        read_bundle,
    )

    earlier = read_bundle(against) if against is not None else None  # unreadable: exit 2
    with opened_case(state, create=False) as case:
        report = verify_case(case, trusted_key=public_key.read_bytes() if public_key else None)
        if earlier is not None:
            add_comparison(report, compare_case_with_bundle(case, earlier))
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
                    "not_logged": report.not_logged,
                },
                indent=2,
            )
        )
    else:
        print_verification(report)
        if not logged and report.not_logged:
            click.echo(report.not_logged[0].upper() + report.not_logged[1:] + ".")
    sys.exit(0 if report.ok else 1)


@cli.command("items")
@click.option("--all", "show_all", is_flag=True, help="Include derived files.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per item.")
@click.pass_obj
def items_command(state: CliState, show_all: bool, as_json: bool) -> None:
    """List the items held in the case (the listing is logged as a view)."""
    from sqlalchemy import select

    from casebuilder.preservation.reads import log_view
    from casebuilder.store.schema import Item

    with opened_case(state, create=False) as case:
        with case.session() as session:
            query = select(Item).order_by(Item.id)
            if not show_all:
                query = query.where(Item.kind == "original")
            rows: list[dict[str, Any]] = [
                {
                    "id": item.id,
                    "sha256": item.sha256,
                    "size": item.size,
                    "kind": item.kind,
                    "format": item.format,
                    "parse_status": item.parse_status,
                    "name": item.origins[0].name if item.origins else None,
                    "text_item": item.text_item_id,
                }
                for item in session.execute(query).scalars()
            ]
        log_view(case, "item list", details={"derived_included": show_all,
                                             "count": len(rows)})
    for row in rows:
        if as_json:
            click.echo(json.dumps(row, ensure_ascii=False))
            continue
        name = printable(row["name"]) if row["name"] is not None else "(derived)"
        click.echo(
            f"#{row['id']:<5} {row['sha256'][:12]}  {row['size']:>12}  "
            f"{row['format'] or '-':<20} {row['parse_status']:<11} {name}"
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
@click.option("--tail", type=click.IntRange(min=1), default=None,
              help="Only the last N entries (N >= 1; default: the whole log).")
@click.pass_obj
def log_command(state: CliState, tail: int | None) -> None:
    """Print custody log entries (one JSON object per line); the reading is logged after."""
    from sqlalchemy import select

    from casebuilder.preservation.reads import log_view
    from casebuilder.store.schema import CustodyEvent

    with opened_case(state, create=False) as case:
        with case.session() as session:
            query = select(CustodyEvent).order_by(CustodyEvent.seq.desc())
            if tail is not None:
                query = query.limit(tail)
            rows = [row.entry for row in session.execute(query).scalars()]
        for entry in reversed(rows):
            click.echo(entry)
        log_view(case, "custody log", details={"entries": len(rows)})
