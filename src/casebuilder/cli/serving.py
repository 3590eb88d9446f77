"""``casebuilder serve`` (the web interface on a case) and ``casebuilder user`` (its
accounts). Thin: the accounts live in preservation/accounts.py, the pages in web/."""

from __future__ import annotations

import gc
import sys

import click

from casebuilder.cli.main import CliState, cli, opened_case


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(click.prompt("Password", hide_input=True, confirmation_prompt=True))


@cli.group("user")
def user_group() -> None:
    """User accounts of the web interface (roles: viewer, analyst, reviewer, legal,
    administrator; see access.toml)."""


@user_group.command("add")
@click.argument("name")
@click.option("--role", required=True, help="viewer, analyst, reviewer, legal or administrator")
@click.option("--password-stdin", is_flag=True,
              help="Read the password from the first line of standard input, not a prompt.")
@click.pass_obj
def user_add(state: CliState, name: str, role: str, password_stdin: bool) -> None:
    """Add an account; only an Argon2 hash of its password is kept, and the custody log
    names the account, its role and who added it."""
    from casebuilder.preservation.accounts import add_user

    password = _password(password_stdin)
    with opened_case(state, create=False) as case:
        add_user(case, name, role, password)
    click.echo(f"user {name} added with role {role}")


@user_group.command("list")
@click.pass_obj
def user_list(state: CliState) -> None:
    """The accounts and their roles."""
    from casebuilder.preservation.accounts import users

    with opened_case(state, create=False) as case:
        for name, role, added, disabled in users(case):
            click.echo(f"{name}\t{role}\t{added}\t{'disabled' if disabled else 'active'}")


@cli.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.pass_obj
def serve_command(state: CliState, host: str, port: int) -> None:
    """Serve the web interface on this case until interrupted. With no account yet, asks
    for an administrator's name and password first (at a terminal only)."""
    import uvicorn

    from casebuilder.preservation.accounts import add_user, count_users
    from casebuilder.web.app import make_app

    with opened_case(state, create=False) as case:
        if count_users(case) == 0:
            if not sys.stdin.isatty():
                raise click.UsageError("the case has no user account yet: add an "
                                       "administrator with 'casebuilder user add NAME --role "
                                       "administrator' first")
            click.echo("No account yet: the first one is the administrator's.")
            name = str(click.prompt("Administrator's name"))
            add_user(case, name, "administrator", _password(False))
        if host not in {"127.0.0.1", "localhost", "::1"}:
            click.echo(f"warning: serving on {host}; put it behind TLS (its cookies are "
                       "Secure, so browsers send them over plain HTTP on localhost only)",
                       err=True)
        click.echo(f"casebuilder web interface on http://{host}:{port}/ (Ctrl-C stops it)")
        app = make_app(case)
        # What is loaded by now (libraries, vocabularies, templates) lives as long as the
        # server: kept out of the collector's passes, which then see a request's objects only.
        gc.collect()
        gc.freeze()
        uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False)
