"""Commands for the case's signing key: ``key rotate``."""

from __future__ import annotations

import click

from casebuilder.cli.main import CliState, cli, opened_case


@cli.group("key")
def key_group() -> None:
    """The case's Ed25519 signing key."""


@key_group.command("rotate")
@click.option("--reason", required=True, help="Why the key is replaced (it is logged).")
@click.pass_obj
def rotate_command(state: CliState, reason: str) -> None:
    """Give the case a new signing key, approved in the custody log by the old one."""
    from casebuilder.preservation.rotation import rotate_key

    with opened_case(state, create=False) as case:
        outcome = rotate_key(case, reason)
    click.echo(
        f"Key rotated in log entry {outcome.seq}: {outcome.old_digest[:16]}… → "
        f"{outcome.new_digest[:16]}…; checkpoints are now signed with the new key."
    )
    click.echo(
        "Publish the new key's fingerprint as you did the old one's; bundles issued before "
        "carry the old key, and 'casebuilder verify --against' checks the rotation."
    )
