"""``casebuilder`` command-line entry point and the commands of the evidence locker."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from casebuilder.errors import CasebuilderError
from casebuilder.store.home import resolve_home

if TYPE_CHECKING:
    from casebuilder.preservation.case import Case


@dataclass
class CliState:
    home: Path
    home_given: bool = False  # named with --home or CASEBUILDER_HOME rather than defaulted


@contextmanager
def opened_case(state: CliState, *, create: bool = True, seal_after: bool = True
                ) -> Iterator[Case]:
    """The case for one command; afterwards, in background mode, items left waiting for their
    SHA-512 are handed to a sealer of their own (cli/sealing.py)."""
    from casebuilder.preservation.case import open_case

    case = open_case(state.home, create=create)
    collect_as_usual()
    try:
        yield case
        if seal_after:
            from casebuilder.cli.sealing import seal_in_background

            seal_in_background(case)
    finally:
        case.close()


def collect_as_usual() -> None:
    """The libraries are loaded: garbage is collected as usual from here on (see ``main``)."""
    gc.enable()


class CaseGroup(click.Group):
    """Turns library errors into one-line messages with exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CasebuilderError as exc:
            click.echo(f"casebuilder: error: {exc}", err=True)
            ctx.exit(2)
        except KeyboardInterrupt:
            click.echo(
                "casebuilder: interrupted; everything committed before this is kept", err=True
            )
            ctx.exit(130)


@click.group(cls=CaseGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Case home directory [env CASEBUILDER_HOME; default ./casebuilder-data].",
)
@click.version_option(package_name="casebuilder", prog_name="casebuilder")
@click.pass_context
def cli(ctx: click.Context, home: Path | None) -> None:
    """Preserve, extract, corroborate and report evidence of attacks on civilians."""
    environ = dict(os.environ)
    ctx.obj = CliState(
        home=resolve_home(home, environ), home_given=bool(home or environ.get("CASEBUILDER_HOME"))
    )


@cli.command()
@click.option("--name", default="", help="A name for the case.")
@click.option("--investigator", default="", help="Name recorded as the actor of each action.")
@click.pass_obj
def init(state: CliState, name: str, investigator: str) -> None:
    """Create the case home (done automatically on first use)."""
    from casebuilder.preservation.case import init_case

    case = init_case(state.home, name=name, investigator=investigator)
    try:
        click.echo(f"created case {case.case_id} in {state.home}")
        click.echo(f"signing key: {case.paths.signing_key} (keep it private; mode 0600)")
        click.echo(f"public key:  {case.paths.public_key} (key id {case.signer.key_id[:16]}…)")
    finally:
        case.close()


# Command modules register themselves on `cli` when imported.
from casebuilder.cli import (  # noqa: E402
    bundles,
    datasets,
    demo,
    elements,
    extraction,
    incidents,
    keys,
    locker,
    patterns,
    recovery,
    reports,
    restriction,
    sealing,
    serving,
    texts,
)

del (bundles, datasets, demo, elements, extraction, incidents, keys, locker, patterns, recovery,
     reports, restriction, sealing, serving, texts)


def main(argv: list[str] | None = None) -> None:
    """Run one command. As the ``casebuilder`` program (no ``argv``) the process then ends
    without the interpreter's own clean-up (see ``_leave``)."""
    if argv is not None:
        cli.main(args=argv, prog_name="casebuilder")
        return
    # Loading SQLAlchemy and the parsers makes tens of thousands of long-lived objects, and
    # the collector's passes over them were a tenth of a command's start-up. Collection is
    # paused until the command has loaded them: opened_case, or a command that opens no case,
    # calls collect_as_usual.
    gc.disable()
    try:
        cli.main(prog_name="casebuilder")
    except SystemExit as done:
        _leave(done)


def _leave(done: SystemExit) -> None:
    """End the process once the command is done, skipping the interpreter's finalisation.

    Tearing down the modules of SQLAlchemy, the signing library and the parsers took 0.2 to
    0.3 s after every command had finished its work, a third of a small ingest's time.
    Nothing of ours depends on it: each command has closed its database, files and locks
    before it returns. The exit handlers still run (thread pools, temporary folders), and
    the output is flushed; if a non-daemon thread is still running, the ordinary exit
    (which waits for it) is kept.
    """
    import atexit
    import threading

    if any(t.is_alive() and not t.daemon for t in threading.enumerate()
           if t is not threading.main_thread()):
        raise done
    code = done.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed or broken pipe: nothing more can be said
            code = code or 1
    os._exit(code or 0)


if __name__ == "__main__":
    main(sys.argv[1:])
