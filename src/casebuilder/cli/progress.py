"""Progress display for long ingest runs (a rich progress bar on standard error)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from casebuilder.intake.ingest import IngestOutcome


def want_progress(flag: bool | None) -> bool:
    return sys.stderr.isatty() if flag is None else flag


class RichIngestProgress:
    def __init__(self) -> None:
        # rich is imported only when a bar is shown: it costs a short command's start-up.
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]ingest"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[files]}"),
            console=Console(stderr=True),
            transient=True,
        )
        self._task = self._progress.add_task("ingest", total=None, files="")
        self._done = 0
        self._files = 0

    def planned(self, files: int, total_bytes: int) -> None:
        self._files = files
        self._progress.update(self._task, total=total_bytes, files=f"0/{files} files")
        self._progress.start()

    def advance(self, nbytes: int) -> None:
        self._progress.advance(self._task, nbytes)

    def file_done(self, outcome: IngestOutcome) -> None:
        if outcome.relation in {"file", "sidecar"}:
            self._done += 1
        self._progress.update(self._task, files=f"{self._done}/{self._files} files")

    def close(self) -> None:
        self._progress.stop()
