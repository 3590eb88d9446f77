"""``casebuilder report KIND``: incident, pattern and case reports as PDF or HTML.

A thin front end over reporting/casefile/making.py: the report is written to ``-o FILE`` (its
format from the name's ending, or ``--format``), kept in the case as a derived item of the items
it relies on, and its making logged. The item id is printed so that it can go into a bundle
(``casebuilder bundle --item ID``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from casebuilder.cli.main import CliState, cli, opened_case
from casebuilder.cli.patterns import selection_options


@cli.command("report")
@click.argument("kind", type=click.Choice(("incident", "pattern", "case")))
@click.argument("incident_id", required=False)
@click.option("-o", "--output", "output", required=True,
              type=click.Path(dir_okay=False, path_type=Path),
              help="The file to write: FILE.pdf or FILE.html.")
@click.option("--format", "fmt", type=click.Choice(("pdf", "html")),
              help="Default: from the output file's ending.")
@selection_options
@click.pass_obj
def report_command(state: CliState, kind: str, incident_id: str | None, output: Path,
                   fmt: str | None, since: Any, until: Any, region: str | None,
                   category: str | None, perpetrator: str | None, grade: str | None) -> None:
    """Write an incident report (KIND incident ID), the pattern report or the case file.

    Exit status 0 when written; 2 when it cannot be made (unknown incident, nothing
    selected, the file cannot be written)."""
    from casebuilder.analysis.patterns.records import Selection
    from casebuilder.reporting.casefile.making import (
        Drawers,
        ReportError,
        ReportRequest,
        make_report,
        store_report,
    )
    from casebuilder.reporting.charts import SvgCharts
    from casebuilder.reporting.maps import SvgMaps

    chosen = fmt or output.suffix.lower().lstrip(".")
    if chosen not in ("pdf", "html"):
        raise ReportError(f"{output}: say --format pdf or html (or name the file .pdf/.html)")
    request = ReportRequest(kind, chosen, incident_id, Selection(
        since=since.date() if since else None, until=until.date() if until else None,
        region=region, category=category, perpetrator=perpetrator, grade=grade))
    request.check()
    with opened_case(state, create=False) as case:
        made = make_report(case, request, Drawers(SvgMaps(), SvgCharts()))
        temporary = output.with_name(f".{output.name}.partial")
        try:
            temporary.write_bytes(made.data)
            os.replace(temporary, output)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            raise ReportError(f"{output}: cannot write the report: {exc.strerror}") from exc
        item_id = store_report(case, made, output.name)
    click.echo(f"{output}: {kind} report of {len(made.incidents)} incident(s), "
               f"{len(made.data)} bytes; kept as item {item_id} (state {made.document.as_of}, "
               f"digest {made.document.state_digest[:16]}…)")
