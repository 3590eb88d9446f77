"""The write-once, content-addressed store of originals and derived files.

Every file is kept once, under ``objects/sha256/ab/cd/<sha256>``, read-only. Storing streams the
source exactly once through a small pool of reusable buffers: each chunk read into a buffer is
written to a temporary file in ``tmp/`` (same file system) and hashed from that same buffer in a
thread of its own (hashlib releases the GIL on large buffers), so the bytes hashed are the bytes
written. The temporary file is then fsynced, renamed into place, made read-only and its directory
fsynced.

SHA-256 names the object and is computed while storing. SHA-512, the second digest, is computed
in the same pass when asked for (``second_digest=True``); otherwise the item records it later,
when the stored copy is read back and both digests are taken from it (sealing.py): that
read-back also re-checks the SHA-256 of the bytes that reached the disk, so it replaces the
read-back this store used to do while copying. See docs/decisions/0003.

Runs of zero bytes are skipped with a seek instead of written, so a sparse file stays sparse.

Large regular files (KERNEL_COPY_MIN and more) are copied with direct writes of the buffers
hashed (direct_copy.py), or where direct I/O is refused inside the kernel, hashed from the
temporary file's own pages (kernel_copy.py): a byte then crosses memory once, not three times.
Where both ways are closed, the buffered copy above is made.
"""

from __future__ import annotations

import errno
import hashlib
import os
import queue
import shutil
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from casebuilder.errors import (
    CaseWriteError,
    IntakeError,
    ObjectMissing,
    StoreError,
)
from casebuilder.preservation import direct_copy, kernel_copy
from casebuilder.preservation.staging import Staging

if TYPE_CHECKING:
    from casebuilder.preservation.early import EarlyCopies

CHUNK = 4 * 1024 * 1024
#: Chunks for files of LARGE_FILE bytes and more: a quarter as many hand-overs between the copy
#: loop and the hash thread, each of which needs the GIL (contended while a command still
#: imports its libraries, early.py).
LARGE_CHUNK = 16 * 1024 * 1024
LARGE_FILE = 64 * 1024 * 1024
#: Regular files this large are copied inside the kernel (kernel_copy.py); smaller ones gain
#: less than the mapping costs.
KERNEL_COPY_MIN = LARGE_FILE
_ZEROS = bytes(CHUNK)  # a run of zeros this long is left as a hole, not written
#: The smallest chunk: a file smaller than CHUNK is copied through buffers just large enough
#: to hold it (six zeroed 4 MB buffers cost 12 ms, more than storing a short report).
SMALL_CHUNK = 64 * 1024
_DONE = object()


@dataclass(frozen=True)
class SetAside:
    """A file found under a hash it does not have (planted or damaged), kept as evidence under
    ``objects/set-aside/`` instead of being overwritten by the verified copy."""

    path: Path
    sha256: str | None  # of what was found there; None if it could not be read
    size: int | None

    def as_entry(self) -> dict[str, object]:
        return {"path": f"objects/set-aside/{self.path.name}", "sha256": self.sha256,
                "size": self.size}


@dataclass(frozen=True)
class StoredObject:
    sha256: str
    sha512: str | None  # None: not computed while storing (recorded later, sealing.py)
    size: int
    path: Path
    already_present: bool
    set_aside: SetAside | None = None  # what was under this hash before, if it was wrong


@dataclass(frozen=True)
class Digests:
    sha256: str
    sha512: str
    size: int


class _HashWorker:
    """Feeds chunks to one hash in its own thread (used to re-hash stored files)."""

    def __init__(self, algorithm: str) -> None:
        self.hash = hashlib.new(algorithm)
        self.queue: queue.Queue[object] = queue.Queue(maxsize=4)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        update = self.hash.update
        while True:
            chunk = self.queue.get()
            if chunk is _DONE:
                return
            try:
                update(chunk)  # type: ignore[arg-type]
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller in finish()
                self.error = exc

    def put(self, chunk: bytes) -> None:
        self.queue.put(chunk)

    def finish(self) -> str:
        self.queue.put(_DONE)
        self.thread.join()
        if self.error is not None:
            raise StoreError(f"hashing failed: {self.error}")
        return self.hash.hexdigest()


def chunk_for(size: int) -> int:
    """The chunk to copy a file of ``size`` bytes through. Only the number of reads depends on
    it: a file that grows while it is read is still read to its end."""
    if size >= LARGE_FILE:
        return LARGE_CHUNK
    if size >= CHUNK:
        return CHUNK
    return max(SMALL_CHUNK, -(-size // SMALL_CHUNK) * SMALL_CHUNK)


class _StreamHasher:
    """Hashes chunks in threads of their own (one per algorithm) while the caller writes the
    same buffers to the temporary file: nothing is copied, and what is hashed is what is
    written.

    Chunks live in a small pool of reusable buffers (allocating a fresh multi-megabyte buffer
    per read costs page faults that dominate a fast disk); a buffer returns to the pool once
    every algorithm has hashed it.
    """

    BUFFERS = 6

    def __init__(self, algorithms: tuple[str, ...], chunk: int = CHUNK) -> None:
        self.buffers = [bytearray(chunk) for _ in range(self.BUFFERS)]
        self.views = [memoryview(b) for b in self.buffers]
        self.free: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in range(self.BUFFERS):
            self.free.put(index)
        self.users = [0] * self.BUFFERS
        self.lock = threading.Lock()
        self.hashes = {name: hashlib.new(name) for name in algorithms}
        self.errors: list[BaseException] = []
        self.queues: list[queue.SimpleQueue[tuple[int, int] | None]] = []
        self.threads = []
        for name in algorithms:
            tasks: queue.SimpleQueue[tuple[int, int] | None] = queue.SimpleQueue()
            self.queues.append(tasks)
            self.threads.append(threading.Thread(target=self._run, args=(name, tasks),
                                                 daemon=True))
        for thread in self.threads:
            thread.start()

    def take(self) -> tuple[bytearray, memoryview, int]:
        index = self.free.get()
        return self.buffers[index], self.views[index], index

    def give_back(self, index: int) -> None:
        self.free.put(index)

    def submit(self, index: int, length: int) -> None:
        """Hand over a chunk, already written to the temporary file, to every hash."""
        self.users[index] = len(self.queues)
        for tasks in self.queues:
            tasks.put((index, length))

    def _release(self, index: int) -> None:
        with self.lock:
            self.users[index] -= 1
            done = self.users[index] == 0
        if done:
            self.free.put(index)

    def _run(self, name: str, tasks: queue.SimpleQueue[tuple[int, int] | None]) -> None:
        update = self.hashes[name].update
        while (task := tasks.get()) is not None:
            index, length = task
            try:
                update(self.views[index][:length])
            except BaseException as exc:  # noqa: BLE001 - reported by finish()
                self.errors.append(exc)
            finally:
                self._release(index)

    def finish(self) -> dict[str, str]:
        for tasks in self.queues:
            tasks.put(None)
        for thread in self.threads:
            thread.join()
        if self.errors:
            raise StoreError(f"hashing failed: {self.errors[0]}")
        return {name: digest.hexdigest() for name, digest in self.hashes.items()}


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ObjectStorage(Protocol):
    """What every stage but intake needs of an object store: reading a stored copy, hashing
    it again, listing what is held, and keeping derived bytes. The file system store below is
    the default and the only one; an S3-compatible store would offer these over its API (see
    docs/decisions/0029-object-storage-interface.md for what intake and verify need besides)."""

    def exists(self, sha256: str) -> bool: ...

    def open(self, sha256: str) -> BinaryIO: ...

    def rehash(self, sha256: str) -> Digests: ...

    def iter_object_names(self) -> list[str]: ...

    def store_bytes(self, data: bytes, *, label: str) -> StoredObject: ...

    def store_stream(self, source: BinaryIO, *, label: str, max_size: int | None = None,
                     second_digest: bool = True) -> StoredObject: ...


class ObjectStore:
    """The file system object store: write-once files under ``objects/sha256/`` (see the
    module docstring); it offers ObjectStorage and, to intake and verify, its files' paths."""

    def __init__(self, root: Path, staging: Path) -> None:
        self.root = root
        self.staging_dir = staging
        #: this process's temporaries and placement markers in ``tmp/`` (staging.py)
        self.staging = Staging(staging)
        #: copies of named files begun before the case was open (early.py), taken, not redone
        self.early: EarlyCopies | None = None
        #: set to stop a copy under way (its temporary is removed)
        self.stop: threading.Event | None = None
        # Hashes whose stored file was wrong and was replaced, by the latest store call only
        # (each call starts it afresh, so a later duplicate is not reported as replaced).
        self.replaced: list[str] = []

    def path_for(self, sha256: str) -> Path:
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise StoreError(f"not a SHA-256 digest: {sha256!r}")
        return self.root / "sha256" / sha256[:2] / sha256[2:4] / sha256

    def exists(self, sha256: str) -> bool:
        return self.path_for(sha256).is_file()

    def open(self, sha256: str) -> BinaryIO:
        try:
            return open(self.path_for(sha256), "rb")
        except FileNotFoundError as exc:
            raise ObjectMissing(f"stored file {sha256} is missing from the object store") from exc

    def store_file(
        self,
        path: Path,
        *,
        max_size: int,
        progress: Callable[[int], None] | None = None,
        second_digest: bool = True,
    ) -> StoredObject:
        """Preserve the regular file at ``path``; raises IntakeError if it cannot be read.
        ``second_digest``: compute SHA-512 in the same pass (else it is left for sealing)."""
        if self.early is not None and progress is None:
            copy = self.early.take(path)
            if copy is not None:
                self.replaced = copy.replaced
                return copy.stored
        try:
            # O_NONBLOCK: opening a FIFO or a device must not hang the batch; it is refused
            # below once fstat shows it is not a regular file.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
        except OSError as exc:
            raise IntakeError(str(path), _os_reason(exc)) from exc
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise IntakeError(str(path), "not a regular file (device, pipe or socket)")
            _check_size(path, info.st_size, info.st_blocks * 512, max_size, self.staging_dir)
            _read_ahead(fd)
            with os.fdopen(os.dup(fd), "rb", buffering=0) as source:
                return self._store_stream(source, progress=progress, label=str(path),
                                          second_digest=second_digest,
                                          chunk=chunk_for(info.st_size))
        finally:
            os.close(fd)

    def store_stream(
        self, source: BinaryIO, *, label: str, max_size: int | None = None,
        second_digest: bool = True,
    ) -> StoredObject:
        """Preserve bytes from an open stream (archive members, attachments)."""
        return self._store_stream(source, progress=None, label=label, max_size=max_size,
                                  second_digest=second_digest)

    def store_bytes(self, data: bytes, *, label: str) -> StoredObject:
        """Preserve bytes held in memory (derived files): both digests at once, the data being
        at hand already."""
        import io

        return self._store_stream(io.BytesIO(data), progress=None, label=label,
                                  chunk=chunk_for(len(data)))

    def _store_stream(
        self,
        source: BinaryIO,
        *,
        progress: Callable[[int], None] | None,
        label: str,
        max_size: int | None = None,
        second_digest: bool = True,
        chunk: int = CHUNK,
    ) -> StoredObject:
        self.replaced = []
        with writing_to_case(label):
            tmp_fd, tmp_path = self.staging.new_temporary()
        algorithms = ("sha256", "sha512") if second_digest else ("sha256",)
        try:
            copied = self._copy_in_kernel(source, tmp_fd, algorithms, progress=progress,
                                          label=label, max_size=max_size, chunk=chunk)
            if copied is None:
                digests, size = self._copy_through_buffers(
                    source, tmp_fd, algorithms, progress=progress, label=label,
                    max_size=max_size, chunk=chunk)
            else:
                digests, size = copied
            sha256, sha512 = digests["sha256"], digests.get("sha512")
            with writing_to_case(label):
                os.fsync(tmp_fd)
                os.close(tmp_fd)
                tmp_fd = -1
            final = self.path_for(sha256)
            set_aside: SetAside | None = None
            if os.path.lexists(final):
                if self._holds(final, sha256, size):
                    tmp_path.unlink()
                    return StoredObject(sha256, sha512, size, final, already_present=True)
                # Something else sits under this hash (planted or damaged): it is kept as
                # evidence, and the verified copy we just made takes its place.
                set_aside = self._set_aside(final, sha256)
                self.replaced.append(sha256)
            with writing_to_case(label):
                final.parent.mkdir(parents=True, exist_ok=True)
                os.chmod(tmp_path, 0o444)
                # Said before it is done: an object renamed in by a command that dies before
                # committing its item is then known for what it is (staging.py).
                self.staging.mark_placed(sha256)
                os.replace(tmp_path, final)
                _fsync_dir(final.parent)
            return StoredObject(sha256, sha512, size, final, already_present=False,
                                set_aside=set_aside)
        except BaseException:
            if tmp_fd >= 0:
                os.close(tmp_fd)
            tmp_path.unlink(missing_ok=True)
            raise

    def _copy_through_buffers(
        self, source: BinaryIO, tmp_fd: int, algorithms: tuple[str, ...], *,
        progress: Callable[[int], None] | None, label: str, max_size: int | None, chunk: int,
    ) -> tuple[dict[str, str], int]:
        """Read each chunk into a buffer, write it to the temporary, hash that same buffer."""
        hasher = _StreamHasher(algorithms, chunk)
        size = 0
        try:
            while True:
                _, view, index = hasher.take()
                if self.stop is not None and self.stop.is_set():
                    hasher.give_back(index)
                    raise IntakeError(label, "copy stopped: the command ended")
                try:
                    length = _read_into(source, view)
                except OSError as exc:  # the source's fault: this file alone fails
                    hasher.give_back(index)
                    raise IntakeError(label, _os_reason(exc)) from exc
                if length == 0:
                    hasher.give_back(index)
                    break
                size += length
                if max_size is not None and size > max_size:
                    hasher.give_back(index)
                    raise IntakeError(label, f"larger than the limit of {max_size} bytes")
                with writing_to_case(label):
                    _write_leaving_holes(tmp_fd, view[:length], size - length)
                hasher.submit(index, length)
                if progress is not None:
                    progress(length)
        finally:
            digests = hasher.finish()
        return digests, size

    def _copy_in_kernel(
        self, source: BinaryIO, tmp_fd: int, algorithms: tuple[str, ...], *,
        progress: Callable[[int], None] | None, label: str, max_size: int | None, chunk: int,
    ) -> tuple[dict[str, str], int] | None:
        """The kernel copy of a large regular file read from its start (kernel_copy.py), or
        None, the temporary left empty, where it can't be used."""
        try:
            fd = source.fileno()
            info = os.fstat(fd)
            at_start = source.tell() == 0
        except (OSError, AttributeError, ValueError):
            return None
        if (not kernel_copy.available() or not stat.S_ISREG(info.st_mode) or not at_start
                or info.st_size < KERNEL_COPY_MIN
                or (max_size is not None and info.st_size > max_size)):
            return None

        def on_chunk(length: int) -> None:
            if self.stop is not None and self.stop.is_set():
                raise IntakeError(label, "copy stopped: the command ended")
            if progress is not None:
                progress(length)

        with writing_to_case(label):
            digests = None
            if direct_copy.available() and chunk % direct_copy.ALIGNMENT == 0:
                digests = direct_copy.copy_direct(fd, tmp_fd, algorithms, chunk=chunk,
                                                  on_chunk=on_chunk)
                if digests is None:  # the kernel copy next, from an empty temporary
                    os.ftruncate(tmp_fd, 0)
            if digests is None:
                digests = kernel_copy.copy_in_kernel(fd, tmp_fd, algorithms, chunk=chunk,
                                                     start_writeback=_start_writeback,
                                                     on_chunk=on_chunk)
            if digests is None:  # start again through buffers, from an empty temporary
                os.ftruncate(tmp_fd, 0)
                os.lseek(tmp_fd, 0, os.SEEK_SET)
        if digests is None:
            source.seek(0)  # looking for holes moved the source's offset
            return None
        return digests, info.st_size

    def _set_aside(self, found: Path, sha256: str) -> SetAside | None:
        """Move the wrong file under ``sha256`` to ``set-aside/<sha256>.<n>`` (a name not yet
        taken: an earlier one is never overwritten) and hash what it holds."""
        directory = self.root / "set-aside"
        directory.mkdir(parents=True, exist_ok=True)
        for n in range(1, 10_000):
            target = directory / f"{sha256}.{n}"
            if os.path.lexists(target):
                continue
            try:
                os.link(found, target, follow_symlinks=False)  # fails if target exists
            except FileExistsError:
                continue
            except FileNotFoundError:
                return None  # another process set it aside first
            except OSError:  # no hard links here (or a directory): rename, target checked free
                os.rename(found, target)
            else:
                os.unlink(found)
            break
        else:
            raise StoreError(f"no free name to set aside the wrong file under {sha256}")
        _fsync_dir(directory)
        _fsync_dir(found.parent)
        digest: str | None = None
        size: int | None = None
        try:
            if target.is_file() and not target.is_symlink():
                hasher = hashlib.sha256()
                size = 0
                with open(target, "rb", buffering=0) as fh:
                    while chunk := fh.read(CHUNK):
                        hasher.update(chunk)
                        size += len(chunk)
                digest = hasher.hexdigest()
        except OSError:
            digest, size = None, None
        return SetAside(target, digest, size)

    @staticmethod
    def _holds(path: Path, sha256: str, size: int) -> bool:
        """Does the file already stored under this hash really hold those bytes?"""
        try:
            if path.stat().st_size != size:
                return False
            digest = hashlib.sha256()
            with open(path, "rb", buffering=0) as fh:
                while chunk := fh.read(CHUNK):
                    digest.update(chunk)
        except OSError:
            return False
        return digest.hexdigest() == sha256

    def rehash(self, sha256: str) -> Digests:
        """Hash a stored file again (both algorithms, one pass)."""
        path = self.path_for(sha256)
        if not path.is_file():
            raise ObjectMissing(f"stored file {sha256} is missing from the object store")
        h256, h512 = _HashWorker("sha256"), _HashWorker("sha512")
        size = 0
        try:
            with open(path, "rb", buffering=0) as fh:
                while chunk := fh.read(CHUNK):
                    size += len(chunk)
                    h256.put(chunk)
                    h512.put(chunk)
        finally:
            d256, d512 = h256.finish(), h512.finish()
        return Digests(d256, d512, size)

    def iter_object_names(self) -> list[str]:
        base = self.root / "sha256"
        if not base.is_dir():
            return []
        return sorted(p.name for p in base.glob("*/*/*") if p.is_file())


def _read_into(source: BinaryIO, view: memoryview) -> int:
    """Fill ``view`` from ``source`` as far as it goes; 0 means the end."""
    readinto = getattr(source, "readinto", None)
    filled = 0
    while filled < len(view):
        if readinto is not None:
            got = readinto(view[filled:])
        else:
            data = source.read(len(view) - filled)
            got = len(data)
            view[filled : filled + got] = data
        if not got:
            break
        filled += got
    return filled


def load_libc(ctypes: Any) -> Any:
    """The C library, by its usual name first (find_library runs ldconfig in a subprocess)."""
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        import ctypes.util

        return ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def _load_sync_file_range() -> Callable[[int, int, int], None] | None:
    """Linux's sync_file_range, to start writing a chunk to disk while the next is hashed.

    The final fsync then has little left to do. Where the call is missing (other systems),
    the fsync does all the work, which is correct, only slower.
    """
    try:
        import ctypes

        libc = load_libc(ctypes)
        call = libc.sync_file_range
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    write_flag = 2  # SYNC_FILE_RANGE_WRITE: start write-out, do not wait

    def start(fd: int, offset: int, length: int) -> None:
        call(fd, offset, length, write_flag)

    return start


_SYNC_FILE_RANGE = _load_sync_file_range()


def _start_writeback(fd: int, offset: int, length: int) -> None:
    if _SYNC_FILE_RANGE is not None:
        _SYNC_FILE_RANGE(fd, offset, length)


def _read_ahead(fd: int) -> None:
    """Tell the kernel the source is read once, front to back (larger read-ahead)."""
    advise = getattr(os, "posix_fadvise", None)
    if advise is not None:
        with suppress(OSError):  # advice only
            advise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)


def _write_leaving_holes(fd: int, data: memoryview, offset: int) -> None:
    """Write a chunk read from the source at ``offset``, each CHUNK-long run of zeros in it
    skipped with a seek (so a sparse file stays sparse), and start writing it out to disk."""
    for start in range(0, len(data), CHUNK):
        part = data[start:start + CHUNK]
        if len(part) == CHUNK and part == _ZEROS:
            os.lseek(fd, CHUNK, os.SEEK_CUR)
            os.ftruncate(fd, offset + start + CHUNK)  # extend the file without writing it
        else:
            _write_all(fd, part)
    _start_writeback(fd, offset, len(data))


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _os_reason(exc: OSError) -> str:
    """"no space left on device (ENOSPC)": the system's words and the code to look up."""
    code = errno.errorcode.get(exc.errno or 0)
    words = exc.strerror.lower() if exc.strerror else str(exc)
    return f"{words} ({code})" if code else words


@contextmanager
def writing_to_case(label: str) -> Iterator[None]:
    """An OSError while writing into the case home is the case's, not the source's: a full
    disk or a read-only file system fails every file after it too."""
    try:
        yield
    except OSError as exc:
        raise CaseWriteError(f"{label}: cannot write to the case home: {_os_reason(exc)}"
                             ) from exc


def _check_size(path: Path, size: int, allocated: int, max_size: int, staging: Path) -> None:
    sparse = size > 0 and allocated < size // 2
    if size > max_size:
        detail = (
            f" (a sparse file: only {_human(allocated)} is actually allocated on disk)"
            if sparse
            else ""
        )
        raise IntakeError(
            str(path),
            f"{_human(size)} is larger than the case's limit of {_human(max_size)}{detail}; "
            "raise [intake] max_file_size in config.toml to take it",
        )
    staging.mkdir(parents=True, exist_ok=True)
    needed = min(size, allocated) if sparse else size
    free = shutil.disk_usage(staging).free
    if needed > free:
        raise IntakeError(
            str(path), f"needs {_human(needed)} but only {_human(free)} is free in the case home"
        )


def _human(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"
