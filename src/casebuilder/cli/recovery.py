"""``casebuilder recover``: an investigator's explicit, logged recovery of what no command may
touch on its own (entries or checkpoint lines casebuilder did not write, committed entries no
seal signs). Every other command refuses to write until this has been run."""

from __future__ import annotations

import click

from casebuilder.cli.main import CliState, cli, opened_case


@cli.command("recover")
@click.option("--reason", required=True,
              help="Why it is safe to set these aside: who looked, and what they found.")
@click.pass_obj
def recover_command(state: CliState, reason: str) -> None:
    """Set aside entries and checkpoint lines casebuilder did not write (nothing is deleted)."""
    with opened_case(state, create=False) as case:
        recovered = case.recover(reason)
        if not recovered:
            click.echo("Nothing to recover: the log, its seal and its checkpoints agree.")
            return
        for details in recovered:
            where = f" to custody/{details['moved_to']}" if "moved_to" in details else ""
            click.echo(f"- {details['note']}{where}")
        click.echo("Recorded with your reason and signed. Run 'casebuilder verify' to check.")
