"""The ``casebuilder`` program's first lines, before the command line itself is loaded.

Loading click and every command's module takes a tenth of a second or more. For an ``ingest``
of large files that is time the copy could already run in (preservation/early.py), so this
reads the arguments just far enough to see whether they are such an ingest, and if so starts
the copies. The command line then parses the arguments itself and decides: it takes the copies
only for the very home and paths it reads, and stops them otherwise, so a misreading here
costs the head start and nothing else.
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress
from pathlib import Path

#: the ingest options that take no value; any other option makes this reading give up
_INGEST_FLAGS = {"--progress", "--no-progress", "--extract", "--no-extract", "--json"}


def ingest_plan(argv: list[str], stderr_is_terminal: bool
                ) -> tuple[str | None, list[Path]] | None:
    """(the --home given or None, the paths) if ``argv`` is plainly an ingest that would copy
    without a progress bar; None for anything else or anything unclear."""
    home: str | None = None
    rest = list(argv)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option == "--home" and rest:
            home = rest.pop(0)
        elif option.startswith("--home="):
            home = option.removeprefix("--home=")
        else:
            return None  # --help, --version, or something this reading does not know
    if not rest or rest.pop(0) != "ingest":
        return None
    paths: list[Path] = []
    progress: bool | None = None
    only_paths = False
    for word in rest:
        if only_paths or not word.startswith("-"):
            paths.append(Path(word))
        elif word == "--":
            only_paths = True
        elif word in _INGEST_FLAGS:
            if word in ("--progress", "--no-progress"):
                progress = word == "--progress"
        else:
            return None
    shown = stderr_is_terminal if progress is None else progress
    if shown or not paths:
        return None
    return home, paths


def main() -> None:
    plan = ingest_plan(sys.argv[1:], sys.stderr.isatty())
    if plan is not None:
        from casebuilder.errors import CasebuilderError
        from casebuilder.preservation.early import start_ahead
        from casebuilder.store.home import resolve_home

        # a head start only: whatever stops it here, the command meets again and reports
        with suppress(CasebuilderError, OSError):
            start_ahead(resolve_home(plan[0], dict(os.environ)), plan[1])
    from casebuilder.cli.main import main as run

    run()
