"""``casebuilder seal``, and having the pending second digests recorded after a command.

In background mode (``[intake] second_digest = "background"``, the default) a command that
leaves items without their SHA-512 starts ``casebuilder seal`` in a process of its own, detached
from the terminal, unless a sealer is running already; the command itself returns at once. In
inline mode, ``ingest`` seals what earlier background runs left pending before it returns.
"""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import click

from casebuilder.cli.main import CliState, cli, opened_case

if TYPE_CHECKING:
    from casebuilder.preservation.case import Case


def has_pending(case: Case) -> bool:
    from sqlalchemy import select

    from casebuilder.store.schema import Item

    with case.session() as session:
        return session.execute(
            select(Item.id).where(Item.sha512.is_(None)).limit(1)).first() is not None


def seal_in_background(case: Case) -> bool:
    """Start a detached ``casebuilder seal`` if items wait for their SHA-512 and no sealer is
    running; returns whether one was started."""
    from casebuilder.preservation.sealing import sealer_running

    if case.config.second_digest != "background" or not has_pending(case) or \
            sealer_running(case.paths.root):
        return False
    subprocess.Popen(  # our own interpreter and module, no shell
        [sys.executable, "-m", "casebuilder", "--home", str(case.paths.root.resolve()), "seal",
         "--quiet"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )
    return True


def seal_leftovers_inline(case: Case) -> None:
    """In inline mode: seal now what earlier runs left pending."""
    if case.config.second_digest == "inline" and has_pending(case):
        from casebuilder.preservation.sealing import seal_pending

        report = seal_pending(case)
        if report.sealed:
            click.echo(f"Second digests: {len(report.sealed)} item(s) left pending by earlier "
                       "runs read back and sealed (SHA-256 re-checked, SHA-512 recorded).")
        print_seal_problems(report.problems)


def print_seal_problems(problems: list[tuple[int, str]]) -> None:
    for item_id, problem in problems:
        click.echo(f"  item {item_id}: {problem}", err=True)


@cli.command("seal")
@click.option("--quiet", is_flag=True, help="Print nothing (as when started after a command).")
@click.pass_obj
def seal_command(state: CliState, quiet: bool) -> None:
    """Record the SHA-512 of stored files that wait for it: each stored copy is read back,
    its SHA-256 re-checked and both digests logged. Exits 1 if a copy does not hash as
    recorded (it is not sealed; 'casebuilder verify' reports it)."""
    from casebuilder.preservation.sealing import seal_lock, seal_pending

    with opened_case(state, create=False, seal_after=False) as case, \
            seal_lock(case.paths.root):
        report = seal_pending(case)
    if not quiet:
        click.echo(f"Sealed {len(report.sealed)} item(s): SHA-256 re-checked on the stored "
                   "copy, SHA-512 recorded.")
        print_seal_problems(report.problems)
    sys.exit(1 if report.problems else 0)
