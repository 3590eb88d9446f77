"""Running a format handler in a child process, with a time limit and a memory limit.

A crafted file can make a parser run for hours (a small PDF whose pages share one enormous
content stream) or eat all memory. Handlers whose libraries are exposed to that (PDF, images,
audio and video, HTML) are run in a process of their own: if it overruns its time it is
stopped, and the file is recorded as unreadable with the reason; the batch goes on. The child
comes from a fork server, so it starts clean (no threads or open database connections of the
parent are copied into it) and quickly.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import resource
from multiprocessing.connection import Connection
from typing import Any

from casebuilder.errors import UnreadableContent
from casebuilder.intake.handlers.base import FormatHandler, ParseResult, ParseSource


def _run(handler: FormatHandler, source: ParseSource, out: Connection, memory: int) -> None:
    # If the limit cannot be lowered here the time limit still holds.
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    try:
        out.send(("ok", handler.parse(source)))
    except UnreadableContent as exc:
        out.send(("unreadable", str(exc)))
    except MemoryError:
        out.send(("unreadable", f"the {handler.name} reader ran out of its memory allowance"))
    except Exception as exc:  # noqa: BLE001 - reported to the parent as a parser failure
        out.send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        out.close()


def parse_isolated(handler: FormatHandler, source: ParseSource, *, timeout: float,
                   memory: int) -> ParseResult:
    """Parse in a child process; raises UnreadableContent on overrun, crash or refusal."""
    context: Any = multiprocessing.get_context("forkserver")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_run, args=(handler, source, send, memory), daemon=True)
    process.start()
    send.close()
    try:
        if not receive.poll(timeout):
            process.kill()
            raise UnreadableContent(
                f"the {handler.name} reader took longer than {timeout:.0f} s and was stopped "
                "(a file crafted to stall parsers, or simply too large to read)")
        try:
            status, payload = receive.recv()
        except EOFError as exc:
            raise UnreadableContent(
                f"the {handler.name} reader stopped without an answer (exit code "
                f"{process.exitcode})") from exc
    finally:
        receive.close()
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
    if status == "ok":
        result: ParseResult = payload
        return result
    if status == "unreadable":
        raise UnreadableContent(str(payload))
    raise UnreadableContent(f"the {handler.name} reader failed: {payload}")
