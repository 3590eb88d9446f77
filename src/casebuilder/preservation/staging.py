"""The staging area ``tmp/``: who is writing there, and what writers that died left behind.

Every process that stores objects registers as a *writer*: it holds an exclusive ``flock`` on
``tmp/writer-<token>.lock`` (token = pid and a random part) for as long as it runs; the kernel
drops the lock when the process dies, ``kill -9`` included. Its files carry the token:

- ``incoming-<token>-<random>``: a copy being made (a temporary file; renamed into the store
  when complete);
- ``placed-<token>-<sha256>``: written just before an object is renamed into the store, and
  removed once the object's item is committed (the object is then accounted for by the
  database), so an object renamed in by a command that died before its commit is never
  mistaken for one a database rollback left without its item.

A writer registers, and makes each new temporary, while holding a shared lock on the ``tmp``
folder; :meth:`Staging.survey` holds it exclusively, so it never sees a writer's file before
the writer's lock. A writer is *gone* when its lock can be taken (or its lock file is missing):
its temporaries are partial copies and never items, so they can go; its markers name objects
that may lack an item. What to log about them is the case's business (case.py): this module
only finds them and removes them when told.

Temporaries named by an older casebuilder (``incoming-<random>``, no token) have no writer lock;
they count as stale only when no command of the case is running.
"""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

_WRITER_ID = r"(?P<token>[0-9]+-[0-9a-f]{8})"
_WRITER = re.compile(rf"writer-{_WRITER_ID}\.lock")
_INCOMING = re.compile(rf"incoming-{_WRITER_ID}-.+")
_LEGACY_INCOMING = re.compile(r"incoming-[^-]+")
_PLACED = re.compile(rf"placed-{_WRITER_ID}-(?P<sha256>[0-9a-f]{{64}})")


@dataclass(frozen=True)
class LeftFile:
    """A file in ``tmp/`` and its size (None if it vanished while being looked at)."""

    path: Path
    size: int | None

    @property
    def name(self) -> str:
        return self.path.name


@dataclass
class Survey:
    """What ``tmp/`` holds, by writer state, seen under the exclusive staging lock."""

    stale_temporaries: list[LeftFile] = field(default_factory=list)
    #: sha256 -> markers of writers that are gone (and, when asked for, this process's own)
    settled_markers: dict[str, list[Path]] = field(default_factory=dict)
    live_markers: set[str] = field(default_factory=set)  # sha256 placed by a running writer
    live_temporaries: list[LeftFile] = field(default_factory=list)
    dead_locks: list[Path] = field(default_factory=list)


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Staging:
    """This process's place in ``tmp/``: its writer lock, its temporaries and its markers."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.token = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._lock_fd: int | None = None
        self._pid = os.getpid()
        self._registering = threading.Lock()  # early copies register from a thread of theirs

    # -- writing ----------------------------------------------------------------------------
    @contextmanager
    def _folder_lock(self, mode: int) -> Iterator[None]:
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(fd, mode)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _register(self) -> None:
        """Take this process's writer lock (once; again in a forked child, which has its own
        pid and must not share its parent's lock)."""
        with self._registering:
            if self._lock_fd is not None and self._pid == os.getpid():
                return
            self._take_writer_lock()

    def register(self) -> None:
        """Take this process's writer lock now (before forking a copier that shares it)."""
        with self._folder_lock(fcntl.LOCK_SH):
            self._register()

    def carry_on_in_child(self) -> None:
        """In a forked child that writes for its parent (early.py): keep the parent's token
        and lock (the inherited descriptor holds the same lock) instead of taking its own.
        The child never closes this writer: it leaves with ``os._exit``."""
        self._pid = os.getpid()

    def _take_writer_lock(self) -> None:
        self._pid = os.getpid()
        self.token = f"{self._pid}-{secrets.token_hex(4)}"
        fd = os.open(self.directory / f"writer-{self.token}.lock",
                     os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        self._lock_fd = fd

    def new_temporary(self) -> tuple[int, Path]:
        """A new temporary file for a copy being made: its descriptor and path."""
        with self._folder_lock(fcntl.LOCK_SH):
            self._register()
            fd, name = tempfile.mkstemp(prefix=f"incoming-{self.token}-", dir=self.directory)
        return fd, Path(name)

    def mark_placed(self, sha256: str) -> None:
        """Say, durably, that this writer is about to rename ``sha256`` into the store."""
        with self._folder_lock(fcntl.LOCK_SH):
            self._register()
            fd = os.open(self.directory / f"placed-{self.token}-{sha256}",
                         os.O_WRONLY | os.O_CREAT, 0o644)
            os.close(fd)
        _fsync_dir(self.directory)

    def close(self) -> None:
        """Drop this process's writer lock and its lock file (its markers, if any are left,
        then count as a gone writer's: the next command accounts for them)."""
        fd, self._lock_fd = self._lock_fd, None
        if fd is None or self._pid != os.getpid():
            return
        (self.directory / f"writer-{self.token}.lock").unlink(missing_ok=True)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    # -- looking at what is there -------------------------------------------------------------
    def _writer_alive(self, token: str, probed: dict[str, bool], held: list[int],
                      dead_locks: list[Path]) -> bool:
        if token == self.token and self._lock_fd is not None:
            return True
        if token in probed:
            return probed[token]
        path = self.directory / f"writer-{token}.lock"
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            probed[token] = False  # no lock file: its writer is gone (or never registered)
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            probed[token] = True
            return True
        held.append(fd)  # kept until the survey ends, so no writer can take this token again
        dead_locks.append(path)
        probed[token] = False
        return False

    @contextmanager
    def survey(self, *, settle_own: bool = False, legacy_stale: bool = False
               ) -> Iterator[Survey]:
        """Look at ``tmp/`` under the exclusive staging lock, which is held (with the locks of
        the writers found gone) until the block ends: remove files only inside it.
        ``settle_own``: count this process's markers as settled too (its commits are done);
        ``legacy_stale``: count temporaries without a writer token as stale (no command is
        running)."""
        if not self.directory.is_dir():
            yield Survey()
            return
        held: list[int] = []
        try:
            with self._folder_lock(fcntl.LOCK_EX):
                found = Survey()
                probed: dict[str, bool] = {}
                for path in sorted(self.directory.iterdir()):
                    name = path.name
                    if match := _WRITER.fullmatch(name):
                        self._writer_alive(match.group("token"), probed, held,
                                           found.dead_locks)
                    elif match := _INCOMING.fullmatch(name):
                        alive = self._writer_alive(match.group("token"), probed, held,
                                                   found.dead_locks)
                        (found.live_temporaries if alive else found.stale_temporaries).append(
                            LeftFile(path, _size(path)))
                    elif _LEGACY_INCOMING.fullmatch(name):
                        (found.stale_temporaries if legacy_stale else found.live_temporaries
                         ).append(LeftFile(path, _size(path)))
                    elif match := _PLACED.fullmatch(name):
                        token, sha256 = match.group("token"), match.group("sha256")
                        own = token == self.token and self._lock_fd is not None
                        if (own and settle_own) or not self._writer_alive(
                                token, probed, held, found.dead_locks):
                            found.settled_markers.setdefault(sha256, []).append(path)
                        else:
                            found.live_markers.add(sha256)
                yield found
        finally:
            for fd in held:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)


def remove(paths: list[Path]) -> None:
    """Remove files of ``tmp/`` (call inside :meth:`Staging.survey`)."""
    for path in paths:
        path.unlink(missing_ok=True)
