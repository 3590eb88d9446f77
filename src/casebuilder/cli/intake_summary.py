"""The problems and alerts part of the ingest summary, and what ingest's exit status says.

Every path the run could not take in, could not read, or could read only in part is listed with
the reason, so that nothing partial passes for complete; files a reader flagged (active content
in a PDF) are listed apart, since they were read in full.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
