"""The parse server format handlers run under: ``python -m casebuilder.intake.parse_child --serve``.

Started by :class:`casebuilder.intake.isolation.ParseServer`, never by hand; one server serves
one ingest run. Every message on its standard input and output is a frame: an 8-byte big-endian
length, then that many bytes of pickle.

It reads one frame first, the parent's ``sys.path``; then, until its standard input ends, one
request frame at a time, ``(handler, source, memory)``. For each request it unpickles the handler
(which imports the handler's module, once for the whole run), calls ``handler.prepare()`` if the
handler has one (so heavy libraries imported lazily are imported here, once, and not again in
every grandchild), and forks a grandchild. The grandchild lowers its address-space limit to
``memory`` bytes, runs ``handler.parse(source)`` and writes one frame, ``(status, payload)``, to a
pipe of its own: ``("ok", result)``, ``("unreadable", reason)`` or ``("failed", reason)``. The
server reads that pipe and the grandchild's standard error to their end, reaps the grandchild and
writes one answer frame to its own standard output: the grandchild's answer as it came, or, if
the grandchild ended without a complete one, ``("crash", (exit_description, stderr_tail))``.

Forking is safe here because this process is a fresh interpreter started for the purpose: single
threaded, with no database connection, key or open case file of the ingesting process (see
docs/decisions/0008-parsing-in-a-child-process.md). Anything a library prints goes to standard
error (the grandchild's to a per-request pipe), so it cannot corrupt an answer.

This module imports as little as it can; :mod:`casebuilder.intake.isolation` takes the framing
helpers from it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import resource
import selectors
import signal
import struct
import sys
import traceback
from typing import Any, BinaryIO

#: The frame header: the length of the pickle that follows.
HEADER = struct.Struct("!Q")
#: How many bytes at the end of a grandchild's standard error are kept for a crash report.
STDERR_KEEP = 8192
SERVE_FLAG = "--serve"
#: The empty frame the server sends when a request's reader starts (answers are never empty).
STARTED = b""


def write_frame(out: BinaryIO, data: bytes) -> None:
    out.write(HEADER.pack(len(data)))
    out.write(data)
    out.flush()


def read_frame(stream: BinaryIO) -> bytes | None:
    """The next frame's bytes, or None if the stream ended before a whole frame."""
    header = _read_exact(stream, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    return _read_exact(stream, size)


def _read_exact(stream: BinaryIO, size: int) -> bytes | None:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = stream.read(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def exit_description(code: int | None) -> str:
    """``exit code 3`` or ``killed by signal SIGKILL``, from a returncode-style number."""
    if code is not None and code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _pickled(status: str, payload: Any) -> bytes:
    try:
        return pickle.dumps((status, payload), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - an unpicklable result is a reader failure
        return pickle.dumps(("failed", f"its result could not be handed back: {exc!r}"))


def _parse(handler: Any, source: Any) -> bytes:
    """Run the reader; its answer, pickled. Runs in the grandchild."""
    from casebuilder.errors import UnreadableContent

    try:
        result = handler.parse(source)
    except UnreadableContent as exc:
        return _pickled("unreadable", str(exc))
    except MemoryError:
        return _pickled("unreadable", f"the {handler.name} reader ran out of its memory allowance")
    except Exception as exc:  # noqa: BLE001 - reported to the parent as a parser failure
        return _pickled("failed", f"{type(exc).__name__}: {exc}")
    return _pickled("ok", result)


def _grandchild(handler: Any, source: Any, memory: int, answer_fd: int, errors_fd: int,
                inherited: list[int]) -> None:
    """Parse one file and end; never returns to the server's loop."""
    code = 70
    try:
        os.dup2(errors_fd, 1)
        os.dup2(errors_fd, 2)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        for fd in inherited:  # the server's answer channel and the read ends of our pipes
            with contextlib.suppress(OSError):
                os.close(fd)
        # If the limit cannot be lowered here the time limit still holds.
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        answer = _parse(handler, source)
        with os.fdopen(answer_fd, "wb") as out:
            write_frame(out, answer)
        code = 0
    except BaseException:  # noqa: BLE001 - reported by the exit code and standard error
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            sys.stderr.flush()
        os._exit(code)


def _collect(pid: int, answer_fd: int, errors_fd: int) -> tuple[bytes, bytes, int]:
    """Everything the grandchild wrote as its answer, the end of its standard error, and its
    wait status. Reading stops when it has ended, even if something it started still holds
    its pipes open (that is killed with the server)."""
    answer: list[bytes] = []
    errors = b""

    def take(fd: int, chunk: bytes) -> None:
        nonlocal errors
        if fd == answer_fd:
            answer.append(chunk)
        else:
            errors = (errors + chunk)[-STDERR_KEEP:]

    ended: int | None = None
    with contextlib.suppress(AttributeError, OSError):  # Linux 5.3 and later
        ended = os.pidfd_open(pid)
    pipes = {answer_fd, errors_fd}
    with selectors.DefaultSelector() as selector:
        for fd in pipes:
            selector.register(fd, selectors.EVENT_READ)
        if ended is not None:
            selector.register(ended, selectors.EVENT_READ)
        while pipes:
            ready = {key.fd for key, _ in selector.select()}
            if ended is not None and ended in ready:
                break
            for fd in ready & pipes:
                chunk = os.read(fd, 1 << 20)
                if chunk:
                    take(fd, chunk)
                else:
                    selector.unregister(fd)
                    pipes.discard(fd)
    # It has ended: what it wrote is in the pipes; take that, without waiting for an end of
    # file that a process it left behind could hold back.
    for fd in pipes:
        os.set_blocking(fd, False)
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(fd, 1 << 20):
                take(fd, chunk)
    if ended is not None:
        os.close(ended)
    _, status = os.waitpid(pid, 0)
    return b"".join(answer), errors, status


def _handle(request: bytes, out: BinaryIO) -> bytes:
    """One request: the answer to send back, pickled."""
    try:
        handler, source, memory = pickle.loads(request)  # noqa: S301 - from our own parent
    except Exception as exc:  # noqa: BLE001 - e.g. the handler's module cannot be imported here
        return pickle.dumps(("crash", ("its request could not be loaded",
                                       f"{type(exc).__name__}: {exc}".encode())))
    prepare = getattr(handler, "prepare", None)
    if callable(prepare):
        # A failure here shows again, and is reported, when the grandchild parses.
        with contextlib.suppress(Exception):
            prepare()
    # The reader's time limit starts now: loading the request and the reader's modules is the
    # server's own start-up, slow on a busy machine, and must not count against the file.
    write_frame(out, STARTED)
    answer_r, answer_w = os.pipe()
    errors_r, errors_w = os.pipe()
    sys.stderr.flush()  # nothing of ours may be written again by the grandchild
    pid = os.fork()
    if pid == 0:
        _grandchild(handler, source, memory, answer_w, errors_w,
                    [out.fileno(), answer_r, errors_r])
    os.close(answer_w)
    os.close(errors_w)
    try:
        answer, errors, status = _collect(pid, answer_r, errors_r)
    finally:
        os.close(answer_r)
        os.close(errors_r)
    if len(answer) >= HEADER.size:
        (size,) = HEADER.unpack_from(answer)
        if len(answer) == HEADER.size + size:
            return answer[HEADER.size:]
    code = os.waitstatus_to_exitcode(status)
    return pickle.dumps(("crash", (exit_description(code), errors)))


def serve() -> None:
    # The answer channel is the original standard output; everything printed from here on goes
    # to standard error instead.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    # Only our parent writes here. Its sys.path lets handlers defined outside casebuilder import.
    first = read_frame(stdin)
    if first is None:
        return
    sys.path[:] = pickle.loads(first)  # noqa: S301
    while (request := read_frame(stdin)) is not None:
        write_frame(out, _handle(request, out))
    out.close()


def main() -> None:
    if sys.argv[1:] != [SERVE_FLAG]:
        sys.exit(f"usage: python -m {__spec__.name if __spec__ else 'parse_child'} {SERVE_FLAG}"
                 " (started by casebuilder.intake.isolation, not by hand)")
    serve()


if __name__ == "__main__":
    main()
