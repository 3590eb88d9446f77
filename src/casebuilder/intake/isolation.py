"""Running format handlers in a child process, with a time limit and a memory limit.

A crafted file can make a parser run for hours (a small PDF whose pages share one enormous
content stream) or eat all memory. Handlers whose libraries are exposed to that (PDF, images,
audio and video, HTML) are run outside the ingesting process: if a read overruns its time it is
stopped, and the file is recorded with the reason; the batch goes on.

An ingest run owns one :class:`ParseServer`: a fresh interpreter running ``python -P -m
casebuilder.intake.parse_child --serve``, started on the first isolated read and stopped when
the run closes it (also on an error or an interrupt). For each file the server forks a
grandchild that lowers its memory limit and parses, so the interpreter start and the readers'
imports are paid once per run, not once per file (see
docs/decisions/0008-parsing-in-a-child-process.md). Unlike a multiprocessing spawn or fork
server child, the server never imports the caller's ``__main__``, so a library user's script
without an ``if __name__ == "__main__"`` guard is not run again; and since it is a fresh
interpreter, neither it nor the grandchildren it forks inherit threads, open database
connections or keys of the ingesting process. It gets its own session, so on a timeout the
server, the grandchild and everything they started are killed together, and the next read starts
a fresh server.

A read that overran its time or died without an answer (a crash, the kernel's out-of-memory
killer, a dead server) raises :class:`ParserStopped`: nothing is known about the file itself, so
ingest records it as "stopped" and reads it again when the file is ingested again. A reader that
answered that the file is unreadable raises plain :class:`UnreadableContent`, which is final.
:func:`parse_isolated` reads one file with a server of its own.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import IO

import casebuilder
from casebuilder.errors import UnreadableContent
from casebuilder.intake.handlers.base import FormatHandler, ParseResult, ParseSource
from casebuilder.intake.parse_child import HEADER, SERVE_FLAG, STARTED, exit_description

CHILD_MODULE = "casebuilder.intake.parse_child"
#: How much of the child's standard error a crash report quotes.
STDERR_TAIL = 300
#: How long a closing server may take to end by itself before it is killed.
CLOSE_GRACE_S = 2.0
#: How long the server may take to start a request's reader (start itself, load the request
#: and the reader's modules) before it is taken for wedged. Not the reader's time limit.
START_LIMIT_S = 120.0


class _StartUpTimeout(TimeoutError):
    """The server did not start the reader in time (not the reader's own overrun)."""


class ParserStopped(UnreadableContent):
    """The reader's process was stopped or died before answering: worth trying again later."""

    def __init__(self, reason: str, kind: str) -> None:
        super().__init__(reason)
        self.kind = kind  # "timeout" | "crash"


class ParseServer:
    """The parse server of one ingest run: started on the first read, stopped by :meth:`close`
    (or on leaving a ``with`` block). Not shared between runs, and not thread-safe."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._errors: IO[bytes] | None = None  # the server's own standard error
        self._unread = bytearray()  # bytes read from the server past the last frame

    def __enter__(self) -> ParseServer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The running server's process id (None before the first read or after a stop)."""
        return self._process.pid if self._process is not None else None

    def parse(self, handler: FormatHandler, source: ParseSource, *, timeout: float,
              memory: int) -> ParseResult:
        """Parse in a grandchild of the server; raises ParserStopped on overrun or crash,
        UnreadableContent when the reader refused the file or failed on it."""
        if type(handler).__module__ == "__main__":
            # A handler class defined in the running script can only be found again by running
            # that script, which is what the server must never do: read it here, without limits.
            return handler.parse(source)
        request = pickle.dumps((handler, source, memory), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            answer = self._exchange(request, timeout)
        except _StartUpTimeout:
            self._stop()
            raise ParserStopped(
                f"the parse server did not start the {handler.name} reader within "
                f"{START_LIMIT_S:.0f} s and was stopped; the file is read again when it is "
                "ingested again", "timeout") from None
        except TimeoutError:
            self._stop()
            raise ParserStopped(
                f"the {handler.name} reader took longer than {timeout:.0f} s and was stopped "
                "(a file crafted to stall parsers, or simply too large to read); it is read "
                "again when the file is ingested again", "timeout") from None
        except BaseException:  # interrupted mid-request: the server is out of step, end it
            self._stop()
            raise
        if answer is None:  # the server itself died
            code, errors = self._stop()
            raise ParserStopped(
                f"the {handler.name} reader stopped without an answer "
                f"({exit_description(code)}){_quoted(errors)}; it is read again "
                "when the file is ingested again", "crash")
        try:
            status, result = pickle.loads(answer)  # noqa: S301 - from our own server
        except Exception:  # noqa: BLE001 - a garbled answer: the server cannot be trusted
            code, errors = self._stop()
            raise ParserStopped(
                f"the {handler.name} reader stopped without an answer "
                f"({exit_description(code)}){_quoted(errors)}; it is read again "
                "when the file is ingested again", "crash") from None
        if status == "ok":
            parsed: ParseResult = result
            return parsed
        if status == "unreadable":
            raise UnreadableContent(str(result))
        if status == "crash":
            description, grandchild_errors = result
            raise ParserStopped(
                f"the {handler.name} reader stopped without an answer "
                f"({description}){_quoted(grandchild_errors)}; it is read again "
                "when the file is ingested again", "crash")
        raise UnreadableContent(f"the {handler.name} reader failed: {result}")

    def close(self) -> None:
        """Stop the server and everything it started; safe to call more than once."""
        process = self._process
        if process is not None and process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()  # an idle server ends when its input ends
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(CLOSE_GRACE_S)
        self._stop()

    # -- the server process -------------------------------------------------------------------
    def _start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        package_root = str(Path(casebuilder.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (package_root, env.get("PYTHONPATH", "")) if p)
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _stop
        process = subprocess.Popen(
            [sys.executable, "-P", "-m", CHILD_MODULE, SERVE_FLAG],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors,
            env=env, start_new_session=True, bufsize=0,
        )
        self._process = process
        assert process.stdin is not None
        paths = pickle.dumps(list(sys.path))
        process.stdin.write(HEADER.pack(len(paths)) + paths)
        return process

    def _exchange(self, request: bytes, timeout: float) -> bytes | None:
        """Send one request and wait for its answer: up to START_LIMIT_S for the server to
        start the reader (its own start-up), then ``timeout`` for the reader. None if the
        server ended first, _StartUpTimeout or TimeoutError if the time ran out."""
        process = self._process
        if process is not None and process.poll() is not None:
            self._stop()  # ended while idle: nothing was lost, start afresh
            process = None
        if process is None:
            process = self._start()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(HEADER.pack(len(request)) + request)
        except (BrokenPipeError, ConnectionResetError):
            return None
        fd = process.stdout.fileno()
        try:
            first = _read_frame(fd, self._unread, time.monotonic() + START_LIMIT_S)
        except TimeoutError:
            raise _StartUpTimeout from None
        if first != STARTED:
            return first  # an answer before any reader started (the request did not load)
        return _read_frame(fd, self._unread, time.monotonic() + timeout)

    def _stop(self) -> tuple[int | None, bytes]:
        """Kill the server's whole process group; its exit code and the end of its standard
        error."""
        process, self._process = self._process, None
        errors_file, self._errors = self._errors, None
        self._unread.clear()
        code: int | None = None
        if process is not None:
            if process.poll() is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(0.05)  # it may be ending by itself: keep its own exit code
            # The group outlives its leader while a grandchild (or what it started) still runs.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            code = process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        errors = b""
        if errors_file is not None:
            with contextlib.suppress(OSError):
                errors_file.seek(0, os.SEEK_END)
                errors_file.seek(max(0, errors_file.tell() - 4096))
                errors = errors_file.read()
            errors_file.close()
        return code, errors


def _read_frame(fd: int, unread: bytearray, deadline: float) -> bytes | None:
    """One frame from the server; None if it ended first, TimeoutError at the deadline. Bytes
    read past the frame (the start of the next one) stay in ``unread`` for the next call."""
    wanted: int | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            if wanted is None and len(unread) >= HEADER.size:
                wanted = HEADER.size + HEADER.unpack_from(unread)[0]
            if wanted is not None and len(unread) >= wanted:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                raise TimeoutError
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            unread += chunk
    frame = bytes(unread[HEADER.size:wanted])
    del unread[:wanted]
    return frame


def parse_isolated(handler: FormatHandler, source: ParseSource, *, timeout: float,
                   memory: int) -> ParseResult:
    """Parse one file with a parse server of its own; raises ParserStopped on overrun or crash,
    UnreadableContent when the reader refused the file or failed on it. To read many files,
    use one :class:`ParseServer` for all of them."""
    with ParseServer() as server:
        return server.parse(handler, source, timeout=timeout, memory=memory)


def _quoted(errors: bytes) -> str:
    lines = errors.decode("utf-8", "replace").strip().splitlines()
    if not lines:
        return ""
    return f": {lines[-1][-STDERR_TAIL:]}"

