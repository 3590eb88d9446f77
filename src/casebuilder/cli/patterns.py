"""``casebuilder patterns``: pattern analysis over a selection of the case's incidents.

The incidents are built as ``casebuilder incidents`` builds them, turned into the analysis's
records, filtered (dates, region, category, claimed perpetrator, grade) and analysed. The run is
logged in the custody log as a ``view`` entry ("pattern analysis") holding the selection, the
parameters and their digest, the digest of the inputs, the library versions and the digest of
the findings, so it can be repeated and compared.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from casebuilder.cli.main import CliState, cli, opened_case
from casebuilder.model.terms import CATEGORY_ORDER as CATEGORIES
from casebuilder.model.terms import GRADES

F = TypeVar("F", bound=Callable[..., Any])


def selection_options(command: F) -> F:
    """The options that select incidents for an analysis or a report (one definition)."""
    for option in reversed((
        click.option("--from", "since", type=click.DateTime(["%Y-%m-%d"]),
                     help="From this date."),
        click.option("--to", "until", type=click.DateTime(["%Y-%m-%d"]),
                     help="Up to this date."),
        click.option("--region", help="Only incidents whose place or region contains this "
                     "text."),
        click.option("--category", type=click.Choice(CATEGORIES), help="Only this category."),
        click.option("--perpetrator", help="Only incidents a source says this party carried "
                     "out."),
        click.option("--grade", type=click.Choice(GRADES), help="Only incidents of this grade."),
    )):
        command = option(command)
    return command


@cli.command("patterns")
@selection_options
@click.option("--parameters", "parameters_file",
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Another parameters file (default: the shipped parameters.toml).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole result as JSON.")
@click.pass_obj
def patterns_command(state: CliState, since: Any, until: Any, region: str | None,
                     category: str | None, perpetrator: str | None, grade: str | None,
                     parameters_file: Path | None, as_json: bool) -> None:
    """Series, repeated strikes and double taps, protected objects, wide-area weapons, scale
    and regularity, each finding with the incidents behind it (the run is logged)."""
    from casebuilder.analysis.patterns.parameters import load_parameters
    from casebuilder.analysis.patterns.records import Selection, from_incident
    from casebuilder.analysis.patterns.run import analyse
    from casebuilder.cli.incidents import warn_unapplied
    from casebuilder.preservation.reads import log_view
    from casebuilder.resolution.incidents import build_incidents
    from casebuilder.resolution.profiles import load_profiles

    parameters = load_parameters(parameters_file)
    selection = Selection(since=since.date() if since else None,
                          until=until.date() if until else None, region=region,
                          category=category, perpetrator=perpetrator, grade=grade)
    with opened_case(state, create=False) as case:
        profiles = load_profiles()
        records = [from_incident(i, profiles) for i in build_incidents(case)]
        warn_unapplied(case)
        report = analyse(records, parameters, selection)
        entry = report.run_entry()
        details = {k: v for k, v in entry.items() if k != "what"}
        log_view(case, "pattern analysis", details=details)
    if as_json:
        click.echo(report.to_json(), nl=False)
        return
    click.echo(f"pattern analysis of {report.inputs['incidents']} of "
               f"{report.inputs['of']} incidents (inputs {report.inputs['digest'][:16]}…, "
               f"parameters {parameters.digest()[:16]}…)")
    for reason, count in sorted(report.left_out.items()):
        if count:
            click.echo(f"  left out of {reason}: {count}")
    if not report.findings:
        click.echo("no findings")
    for f in report.findings:
        click.echo(f"- [{f.kind}] {f.summary}")
        if f.statistic and "p_value" in f.statistic:
            click.echo(f"    {f.statistic['test']}: p={f.statistic['p_value']}"
                       + (f", adjusted {f.statistic['p_adjusted']}"
                          if "p_adjusted" in f.statistic else ""))
        shown = ", ".join(f.incidents[:12]) + (", …" if len(f.incidents) > 12 else "")
        click.echo(f"    incidents: {shown}")
    tested = [t for t in report.tests if not t.significant]
    if tested:
        click.echo(f"{len(tested)} test(s) found nothing significant "
                   f"(alpha {parameters.run.alpha}; see --json)")
