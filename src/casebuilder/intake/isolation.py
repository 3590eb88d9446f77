"""Running a format handler in a child process, with a time limit and a memory limit.

A crafted file can make a parser run for hours (a small PDF whose pages share one enormous
content stream) or eat all memory. Handlers whose libraries are exposed to that (PDF, images,
audio and video, HTML) are run in a process of their own: if it overruns its time it is
stopped, and the file is recorded with the reason; the batch goes on.

The child is a fresh interpreter running ``python -m casebuilder.intake.parse_child`` (see
docs/decisions/0008-parsing-in-a-child-process.md). Unlike a multiprocessing spawn or fork
server child, it never imports the caller's ``__main__``, so a library user's script without an
``if __name__ == "__main__"`` guard is not run again in every child; and unlike a forked child
it inherits no threads or open database connections of the parent. It gets its own session, so
on a timeout everything it started is killed with it.

A child that overran its time or died without an answer (a crash, the kernel's out-of-memory
killer) raises :class:`ParserStopped`: nothing is known about the file itself, so ingest records
it as "stopped" and reads it again when the file is ingested again. A reader that answered that
the file is unreadable raises plain :class:`UnreadableContent`, which is final.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path

import casebuilder
from casebuilder.errors import UnreadableContent
from casebuilder.intake.handlers.base import FormatHandler, ParseResult, ParseSource

CHILD_MODULE = "casebuilder.intake.parse_child"
#: How much of the child's standard error a crash report quotes.
STDERR_TAIL = 300


class ParserStopped(UnreadableContent):
    """The reader's process was stopped or died before answering: worth trying again later."""

    def __init__(self, reason: str, kind: str) -> None:
        super().__init__(reason)
        self.kind = kind  # "timeout" | "crash"


def parse_isolated(handler: FormatHandler, source: ParseSource, *, timeout: float,
                   memory: int) -> ParseResult:
    """Parse in a child process; raises ParserStopped on overrun or crash, UnreadableContent
    when the reader refused the file or failed on it."""
    if type(handler).__module__ == "__main__":
        # A handler class defined in the running script can only be found again by running
        # that script, which is what the child must never do: read it here, without limits.
        return handler.parse(source)
    payload = pickle.dumps(list(sys.path)) + pickle.dumps(
        (handler, source, memory), protocol=pickle.HIGHEST_PROTOCOL)
    env = dict(os.environ)
    package_root = str(Path(casebuilder.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", CHILD_MODULE],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env, start_new_session=True,
    )
    try:
        answer, errors = process.communicate(payload, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.communicate()
        raise ParserStopped(
            f"the {handler.name} reader took longer than {timeout:.0f} s and was stopped "
            "(a file crafted to stall parsers, or simply too large to read); it is read again "
            "when the file is ingested again", "timeout") from None
    finally:
        if process.poll() is None:  # interrupted: leave nothing running
            _kill_group(process)
            process.wait()
    try:
        status, result = pickle.loads(answer)  # noqa: S301 - from our own child process
    except Exception:  # noqa: BLE001 - no answer, or a truncated one
        raise ParserStopped(
            f"the {handler.name} reader stopped without an answer "
            f"({_exit_description(process.returncode)}){_quoted(errors)}; it is read again "
            "when the file is ingested again", "crash") from None
    if status == "ok":
        parsed: ParseResult = result
        return parsed
    if status == "unreadable":
        raise UnreadableContent(str(result))
    raise UnreadableContent(f"the {handler.name} reader failed: {result}")


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _exit_description(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _quoted(errors: bytes) -> str:
    lines = errors.decode("utf-8", "replace").strip().splitlines()
    if not lines:
        return ""
    return f": {lines[-1][-STDERR_TAIL:]}"
