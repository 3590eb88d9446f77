"""Commands that restrict items to the roles cleared for them (witness statements,
identities) and lift a restriction: thin over preservation/restriction.py."""

from __future__ import annotations

import click

from casebuilder.cli.main import CliState, cli, opened_case


@cli.command("restrict")
@click.argument("item_id", type=int)
@click.option("--kind", help="What the item is, as access.toml's [restricted] names it "
              "(witness_statement, identity, medical, minor, source_protection).")
@click.option("--lift", is_flag=True, help="Lift the item's restriction instead.")
@click.option("--reason", required=True, help="Why (kept in the custody log).")
@click.pass_obj
def restrict_command(state: CliState, item_id: int, kind: str | None, lift: bool,
                     reason: str) -> None:
    """Restrict an item, and all made from it, to the roles cleared for restricted material
    (or lift it with --lift). Nothing of the item changes; the custody log records who did
    it and why. Roles without view_restricted no longer see it in the web interface's lists,
    counts, searches, incident pages and custody view."""
    from casebuilder.preservation.restriction import (
        RestrictionError,
        lift_restriction,
        restrict_item,
    )

    with opened_case(state, create=False) as case:
        if lift:
            if kind:
                raise RestrictionError("--lift takes no --kind")
            lift_restriction(case, item_id, reason)
            click.echo(f"item {item_id}: restriction lifted")
            return
        if not kind:
            raise RestrictionError("restrict needs --kind (see access.toml [restricted])")
        restrict_item(case, item_id, kind, reason)
        click.echo(f"item {item_id}: restricted as {kind}")
