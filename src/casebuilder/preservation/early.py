"""Copies of large named files begun while a command is still starting.

A command spends its first few tenths of a second importing its libraries and opening the
case; for one large file that is as long again as hashing it. So ``ingest`` starts copying the
large regular files named on its command line into the store (hashing them as it writes,
exactly as ObjectStore.store_file does, in a thread of its own) before it imports the rest, and
the ingest run then takes each finished copy instead of making it again. Nothing is recorded
early: the run records every item, in its own order, under the case lock, as before.

A copy is taken only for the very file it was made from: same device, inode, size, modification
and change time when the copy began and when it is taken. A file that changed in between is
copied again by the run (the early object, never recorded, is logged by the command's closing
checkpoint as stored without an item, see leftovers.py). A copy that failed is made again by the
run, which then reports the failure as usual. The early copies share the case store's staging
(tmp/) writer, so their markers are the command's own.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from casebuilder.errors import CasebuilderError
from casebuilder.preservation.objects import ObjectStore, SetAside, StoredObject, load_libc
from casebuilder.store.home import CasePaths, read_config

#: Files smaller than this gain less from an early start than the thread costs.
EARLY_MIN_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class SourceIdentity:
    """What makes a file the same file: it must not change between copy and record."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int


def identity_of(path: Path) -> SourceIdentity | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return SourceIdentity(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns,
                          info.st_ctime_ns)


@dataclass(frozen=True)
class EarlyCopy:
    stored: StoredObject
    replaced: list[str]  # ObjectStore.replaced after the copy (a wrong file set aside)


class EarlyCopies:
    """Copies the given files, one after another, away from the command's own work.

    Where the system allows, the copies are made in a forked child process (a *copier*): the
    command's main thread spends these tenths of a second importing modules, and in one
    process every chunk of the copy would wait for it to let go of the interpreter lock (on
    a machine of two cores a 1 GiB copy took half as long again). The copier is forked before
    any other thread exists and before the case is opened; it writes through the command's
    own staging writer (same token, same lock, so its temporaries and markers are the
    command's own), tells each result on a pipe, and dies with the command (``kill -9``
    included). Elsewhere the copies are made in a thread.
    """

    def __init__(self, store: ObjectStore, files: list[tuple[Path, SourceIdentity]], *,
                 max_size: int, second_digest: bool) -> None:
        self.store = store
        self.max_size = max_size
        self.second_digest = second_digest
        self._files = files
        self._done = {identity: threading.Event() for _, identity in files}
        self._copies: dict[SourceIdentity, EarlyCopy] = {}
        self._stop = threading.Event()
        store.stop = self._stop
        self._copier: int | None = None
        if _can_fork():
            store.staging.register()
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read_end)
                self._be_copier(write_end)  # never returns
            os.close(write_end)
            self._copier = pid
            self._thread = threading.Thread(target=self._listen, args=(read_end,),
                                            name="early copies", daemon=True)
        else:
            self._thread = threading.Thread(target=self._run, name="early copies",
                                            daemon=True)
        self._thread.start()

    # -- in a thread ----------------------------------------------------------------------
    def _run(self) -> None:
        try:
            for path, identity in self._files:
                if self._stop.is_set():
                    break
                try:
                    self._copies[identity] = self._copy(path)
                except (CasebuilderError, OSError):
                    pass  # made again by the run, which reports what is wrong
                finally:
                    self._done[identity].set()
        finally:
            for event in self._done.values():
                event.set()

    def _copy(self, path: Path) -> EarlyCopy:
        stored = self.store.store_file(path, max_size=self.max_size,
                                       second_digest=self.second_digest)
        return EarlyCopy(stored, list(self.store.replaced))

    # -- in a forked copier ---------------------------------------------------------------
    def _be_copier(self, write_end: int) -> NoReturn:
        """The child's whole life: copy each file, tell the parent, leave without clean-up."""
        status = 0
        try:
            _die_with(os.getppid())
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the command decides when to stop
            signal.signal(signal.SIGTERM, lambda *_: self._stop.set())
            self.store.staging.carry_on_in_child()
            with os.fdopen(write_end, "w", encoding="utf-8") as pipe:
                for index, (path, _) in enumerate(self._files):
                    if self._stop.is_set():
                        break
                    try:
                        told = {"index": index, "copy": _as_json(self._copy(path))}
                    except (CasebuilderError, OSError):
                        told = {"index": index, "copy": None}  # the run makes it again
                    pipe.write(json.dumps(told) + "\n")
                    pipe.flush()
        except BaseException:  # noqa: BLE001 - the run copies whatever was not told
            status = 1
        finally:
            os._exit(status)

    def _listen(self, read_end: int) -> None:
        """Take the copier's results as it tells them (in the parent)."""
        try:
            with os.fdopen(read_end, "r", encoding="utf-8") as pipe:
                for line in pipe:
                    told = json.loads(line)
                    _, identity = self._files[told["index"]]
                    if told["copy"] is not None:
                        self._copies[identity] = _from_json(told["copy"])
                    self._done[identity].set()
        except (OSError, ValueError, KeyError, IndexError):
            pass  # a copier that died mid-line: what it did not tell is copied again
        finally:
            for event in self._done.values():
                event.set()
            self._reap()

    def _reap(self) -> None:
        if self._copier is not None:
            with suppress(ChildProcessError):
                os.waitpid(self._copier, 0)

    # -- for the run ----------------------------------------------------------------------
    def take(self, path: Path) -> EarlyCopy | None:
        """The finished copy of ``path`` if one was begun and the file is unchanged since."""
        identity = identity_of(path)
        event = self._done.get(identity) if identity is not None else None
        if identity is None or event is None:
            return None
        event.wait()
        copy = self._copies.pop(identity, None)
        return copy if copy is not None and identity_of(path) == identity else None

    def wait(self) -> None:
        """Until every copy begun is finished (or has failed)."""
        self._thread.join()

    def hand_to(self, objects: ObjectStore) -> None:
        """Let the case's store take these copies; it writes through the same staging writer,
        so the markers of early copies are the command's own."""
        objects.staging = self.store.staging
        objects.early = self

    def close(self) -> None:
        """Stop a copy still under way (its temporary is removed) and wait for it to end."""
        self._stop.set()
        if self._copier is not None and self._thread.is_alive():
            with suppress(ProcessLookupError):
                os.kill(self._copier, signal.SIGTERM)
        self._thread.join()


def _can_fork() -> bool:
    """Fork only where the copier can be made to die with its parent (Linux), and only while
    this process runs no other thread (a fork copies one thread and every lock)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1 \
        and _PRCTL is not None


def _load_prctl() -> Callable[[int, int], int] | None:
    try:
        import ctypes

        call = load_libc(ctypes).prctl
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_ulong]
    call.restype = ctypes.c_int

    def prctl(option: int, value: int) -> int:
        return int(call(option, value))

    return prctl


_PRCTL = _load_prctl()
_PR_SET_PDEATHSIG = 1


def _die_with(parent: int) -> None:
    """Be killed when ``parent`` ends; leave at once if it already has."""
    if _PRCTL is None or _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL) != 0:
        os._exit(1)
    if os.getppid() != parent:
        os._exit(1)


def _as_json(copy: EarlyCopy) -> dict[str, object]:
    stored = copy.stored
    aside = stored.set_aside
    return {"sha256": stored.sha256, "sha512": stored.sha512, "size": stored.size,
            "path": str(stored.path), "already_present": stored.already_present,
            "set_aside": None if aside is None else
            {"path": str(aside.path), "sha256": aside.sha256, "size": aside.size},
            "replaced": copy.replaced}


def _from_json(told: dict[str, Any]) -> EarlyCopy:
    aside = told["set_aside"]
    stored = StoredObject(
        sha256=told["sha256"], sha512=told["sha512"], size=told["size"],
        path=Path(told["path"]), already_present=told["already_present"],
        set_aside=None if aside is None else
        SetAside(Path(aside["path"]), aside["sha256"], aside["size"]))
    return EarlyCopy(stored, list(told["replaced"]))


class NoEarlyCopies:
    """Stands in when nothing was worth starting early."""

    def hand_to(self, objects: ObjectStore) -> None:
        del objects

    def close(self) -> None:
        pass


#: Copies begun by the program's entry point before the command line loaded (cli/entry.py),
#: for the home and paths it read from the arguments; taken by ``early_copies``.
_AHEAD: tuple[Path, tuple[Path, ...], EarlyCopies] | None = None


def start_ahead(home: Path, paths: Sequence[Path]) -> None:
    """Begin the early copies for ``ingest`` of ``paths`` into ``home`` before the command
    line is even loaded; the command takes them only if it reads the same home and paths."""
    global _AHEAD
    started = start_early_copies(home, paths, os.environ)
    if started is not None:
        _AHEAD = (home, tuple(paths), started)


def _ahead_for(home: Path, paths: Sequence[Path], wanted: bool) -> EarlyCopies | None:
    global _AHEAD
    if _AHEAD is None:
        return None
    ahead_home, ahead_paths, started = _AHEAD
    _AHEAD = None
    if wanted and ahead_home == home and ahead_paths == tuple(paths):
        return started
    started.close()  # read otherwise by the command line: the run copies what it is given
    return None


@contextmanager
def early_copies(home: Path, paths: Sequence[Path], *, wanted: bool = True,
                 environ: Mapping[str, str] | None = None
                 ) -> Iterator[EarlyCopies | NoEarlyCopies]:
    """Early copies for the files among ``paths``, stopped however the block ends. Not
    ``wanted`` with a progress bar, which counts bytes in the run's own order."""
    started = _ahead_for(home, paths, wanted)
    if started is None and wanted:
        started = start_early_copies(home, paths, os.environ if environ is None else environ)
    early: EarlyCopies | NoEarlyCopies = started if started is not None else NoEarlyCopies()
    try:
        yield early
    finally:
        early.close()


def start_early_copies(home: Path, paths: Sequence[Path], environ: Mapping[str, str]
                       ) -> EarlyCopies | None:
    """Begin copying the large regular files among ``paths`` into the case at ``home``, if it
    is a case home already; None if there is nothing worth starting early."""
    case_paths = CasePaths(home)
    if not case_paths.config.exists():
        return None
    try:
        config = read_config(case_paths)
    except CasebuilderError:
        return None  # opening the case reports it
    mode = environ.get("CASEBUILDER_SECOND_DIGEST") or config.second_digest
    root = home.resolve()
    files: list[tuple[Path, SourceIdentity]] = []
    for path in paths:
        identity = identity_of(path)
        if identity is None or identity.size < EARLY_MIN_BYTES or \
                identity.size > config.max_file_size or not path.is_file() or \
                identity in {i for _, i in files} or _inside(path, root):
            continue  # small, refused, not a file, named twice, or never taken in
        files.append((path, identity))
    if not files:
        return None
    store = ObjectStore(case_paths.objects, case_paths.tmp)
    return EarlyCopies(store, files, max_size=config.max_file_size,
                       second_digest=mode == "inline")


def _inside(path: Path, root: Path) -> bool:
    """Within the case home: never taken in (intake/walk.py says why), so never copied."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        return True
    return resolved == root or root in resolved.parents
