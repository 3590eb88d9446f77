"""Runs ``casebuilder`` with ingest paused at one point, for tests that kill it there (kill -9)
or run other commands beside it.

    python paused_ingest.py copying|placed READY GO -- casebuilder arguments...

``copying``: after the first chunk of a file is written to its temporary copy in tmp/.
``placed``: after a file's object is renamed into the store, before its item is committed.
Writes READY when paused, then waits (holding no case lock) until GO exists.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any


def pause(ready: Path, go: Path) -> None:
    ready.touch()
    while not go.exists():
        time.sleep(0.02)


def main() -> None:
    mode, ready, go = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    args = sys.argv[sys.argv.index("--") + 1:]
    if mode == "copying":
        from casebuilder.preservation import objects

        real_write = objects._write_all

        def write(fd: int, data: bytes | memoryview) -> None:
            real_write(fd, data)
            pause(ready, go)

        objects._write_all = write
    elif mode == "placed":
        from casebuilder.intake.ingest import Ingester

        real_record = Ingester._record

        def record(self: Ingester, *a: Any, **k: Any) -> Any:
            pause(ready, go)
            return real_record(self, *a, **k)

        Ingester._record = record  # type: ignore[method-assign]
    else:
        raise SystemExit(f"unknown mode {mode}")
    from casebuilder.cli.main import main as cli_main

    cli_main(args)


if __name__ == "__main__":
    main()
