"""The child process a format handler runs in: ``python -m casebuilder.intake.parse_child``.

Started by :func:`casebuilder.intake.isolation.parse_isolated`, never by hand. It reads from
standard input two pickles: the parent's ``sys.path``, then ``(handler, source, memory)``; it
lowers its address-space limit to ``memory`` bytes, runs ``handler.parse(source)`` and writes one
pickle, ``(status, payload)``, to the standard output it was started with: ``("ok", result)``,
``("unreadable", reason)`` or ``("failed", reason)``. Anything a library prints goes to standard
error, so it cannot corrupt the answer.

This module imports as little as it can: it is started once per file read.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import resource
import sys
from typing import Any, BinaryIO


def _answer(out: BinaryIO, status: str, payload: Any) -> None:
    try:
        data = pickle.dumps((status, payload), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - an unpicklable result is a reader failure
        data = pickle.dumps(("failed", f"its result could not be handed back: {exc!r}"))
    out.write(data)
    out.flush()


def main() -> None:
    # The answer channel is the original standard output; everything printed from here on goes
    # to standard error instead.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    # Only our parent writes here. Its sys.path lets handlers defined outside casebuilder import.
    sys.path[:] = pickle.load(stdin)  # noqa: S301
    from casebuilder.errors import UnreadableContent

    handler, source, memory = pickle.load(stdin)  # noqa: S301
    # If the limit cannot be lowered here the time limit still holds.
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    try:
        result = handler.parse(source)
    except UnreadableContent as exc:
        _answer(out, "unreadable", str(exc))
    except MemoryError:
        _answer(out, "unreadable", f"the {handler.name} reader ran out of its memory allowance")
    except Exception as exc:  # noqa: BLE001 - reported to the parent as a parser failure
        _answer(out, "failed", f"{type(exc).__name__}: {exc}")
    else:
        _answer(out, "ok", result)
    out.close()


if __name__ == "__main__":
    main()
