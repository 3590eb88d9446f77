"""The problems and alerts part of the ingest summary, and what ingest's exit status says.

Every path the run could not take in, could not read, or could read only in part is listed with
the reason, so that nothing partial passes for complete; files a reader flagged (active content
in a PDF) are listed apart. The exit status tells success (0), partial failure (1: some path
not taken in, not read or read only in part, or a text not extracted; all of it recorded in the
case) and error (2: the run stopped, e.g. the case home is full). A run whose every path failed
(``ingest /nonexistent``) is a partial failure, not an error: the failures are about the inputs,
each is recorded and signed, and the case is sound; 2 is kept for "the run could not go on".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from casebuilder.intake.ingest import IngestOutcome, IngestReport

#: Warnings shown per file; the item's record (``casebuilder show``) keeps them all.
SHOWN_WARNINGS = 3


def what_became_of(outcome: IngestOutcome) -> str:
    if outcome.status == "failed":
        return "not taken in"
    return f"kept as #{outcome.item_id}"


def problem_line(outcome: IngestOutcome) -> str:
    """One problem: the path, why, and whether the original is kept."""
    if outcome.parse_status == "partial" and outcome.warnings:
        shown = outcome.warnings[:SHOWN_WARNINGS]
        more = len(outcome.warnings) - len(shown)
        why = "read in part: " + "; ".join(shown) + (
            f"; and {more} more (see 'casebuilder show {outcome.item_id}')" if more else "")
    else:
        why = outcome.problem or ""
    return f"  {outcome.path}: {why} [{what_became_of(outcome)}]"


def print_problems(report: IngestReport) -> None:
    problems = report.problems
    if problems:
        click.echo("Problems (originals that were readable are preserved all the same):")
        for outcome in problems:
            click.echo(problem_line(outcome))
    alerted = report.alerted
    if alerted:
        click.echo("Alerts (look before opening these files):")
        for outcome in alerted:
            for alert in outcome.alerts:
                click.echo(f"  {outcome.path}: {alert} [#{outcome.item_id}]")


def report_stop(report: IngestReport) -> None:
    """One line on standard error naming the file and the problem, when the run stopped."""
    if report.stopped is not None:
        click.echo(f"casebuilder: error: {report.stopped.reason}; the run stopped at "
                   f"{report.stopped.path}: everything listed above as stored is kept and "
                   "recorded, nothing was left half-written", err=True)
    if report.checkpoint_problem is not None:
        click.echo(f"casebuilder: error: the closing checkpoint was not signed: "
                   f"{report.checkpoint_problem}; the next command signs these entries",
                   err=True)


def ingest_exit_status(report: IngestReport, *, extracted: bool = True) -> int:
    """0: every path taken in and read; 1: partial failure; 2: the run stopped on an error."""
    if report.stopped is not None or report.checkpoint_problem is not None:
        return 2
    if report.problems or not extracted:
        return 1
    return 0


def summary_json(report: IngestReport, home: str, *, extracted: bool, status: int
                 ) -> dict[str, Any]:
    """The summary as one JSON object (``ingest --json``): every path with what became of it,
    the problems and alerts as above, the closing checkpoint and the exit status."""
    cp = report.checkpoint.checkpoint if report.checkpoint is not None else None
    return {
        "home": home,
        "exit_status": status,
        "counts": {"new": len(report.new), "already_held": len(report.duplicates),
                   "with_problems": len(report.problems), "read_now": len(report.resumed)},
        "outcomes": [{
            "path": o.path, "status": o.status, "item_id": o.item_id, "sha256": o.sha256,
            "format": o.format, "parse_status": o.parse_status, "relation": o.relation,
            "problem": o.problem, "warnings": list(o.warnings), "alerts": list(o.alerts),
        } for o in report.outcomes],
        "texts_extracted_without_failure": extracted,
        "stopped": None if report.stopped is None else {
            "path": report.stopped.path, "reason": report.stopped.reason},
        "checkpoint": None if cp is None else {
            "tree_size": cp.tree_size, "root": cp.root, "time": cp.time,
            "timestamp_problem": report.checkpoint.timestamp_problem
            if report.checkpoint is not None else None},
        "checkpoint_problem": report.checkpoint_problem,
    }
