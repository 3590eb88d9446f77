"""Copying a large original into the store inside the kernel, hashing the copy as it lands.

Part of preservation, below ObjectStore (objects.py), which calls it for large regular files.
The buffered copy reads every chunk into our memory and writes it out again: two copies of each
byte through user space, on a machine of two cores as costly as the SHA-256 itself. Here
``copy_file_range`` moves the bytes from the source to the temporary file inside the kernel,
one data segment at a time (holes are skipped, so a sparse file stays sparse), and threads hash
the temporary file's own pages through a read-only mapping of it, in file order. So what is
hashed is what was written to the case, not what the source said it held, and the stored
object's name is the digest of its own bytes.

The copy is refused (``None``: the caller copies through buffers instead, from the start) where
the system lacks the call or refuses it for these files, and when the source changed while it
was copied (size, modification or change time differ), since a file being written gives no
single content to name, and after any error but a full or read-only case home, which is the
case's fault and raised as such.
"""

from __future__ import annotations

import errno
import hashlib
import mmap
import os
import queue
import threading
from collections.abc import Callable, Iterator

#: Errors of the case home, not of the source: the buffered copy would meet them again, so
#: they are raised (the caller reports them as the case's). Any other error sends the file to
#: the buffered copy, which tells a source that can't be read from a case that can't be written.
_CASE_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG}


def available() -> bool:
    return hasattr(os, "copy_file_range") and hasattr(mmap, "MAP_SHARED")


def data_segments(fd: int, size: int) -> Iterator[tuple[int, int]]:
    """The (start, end) runs of the file that hold data; all of it where holes can't be told."""
    position = 0
    while position < size:
        try:
            start = os.lseek(fd, position, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # nothing but a hole from here to the end
                return
            yield position, size  # SEEK_DATA unsupported: treat the rest as data
            return
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        yield start, end
        position = end


class _MappedHasher:
    """One thread per algorithm hashing ranges of a mapped file, strictly in the order given."""

    def __init__(self, view: memoryview, algorithms: tuple[str, ...]) -> None:
        self.view = view
        self.hashes = {name: hashlib.new(name) for name in algorithms}
        self.errors: list[BaseException] = []
        self.queues: list[queue.SimpleQueue[tuple[int, int] | None]] = []
        self.threads: list[threading.Thread] = []
        for name in algorithms:
            tasks: queue.SimpleQueue[tuple[int, int] | None] = queue.SimpleQueue()
            self.queues.append(tasks)
            self.threads.append(threading.Thread(target=self._run, args=(name, tasks),
                                                 daemon=True))
        for thread in self.threads:
            thread.start()

    def _run(self, name: str, tasks: queue.SimpleQueue[tuple[int, int] | None]) -> None:
        update = self.hashes[name].update
        while (task := tasks.get()) is not None:
            start, length = task
            try:
                update(self.view[start:start + length])
            except BaseException as exc:  # noqa: BLE001 - reported by finish()
                self.errors.append(exc)

    def submit(self, start: int, length: int) -> None:
        for tasks in self.queues:
            tasks.put((start, length))

    def finish(self) -> dict[str, str]:
        for tasks in self.queues:
            tasks.put(None)
        for thread in self.threads:
            thread.join()
        if self.errors:
            raise OSError(errno.EIO, f"hashing the copy failed: {self.errors[0]}")
        return {name: digest.hexdigest() for name, digest in self.hashes.items()}


def source_identity(fd: int) -> tuple[int, int, int]:
    """Size, modification and change time: what must not move while a file is copied."""
    info = os.fstat(fd)
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns


def copy_in_kernel(
    source_fd: int,
    target_fd: int,
    algorithms: tuple[str, ...],
    *,
    chunk: int,
    start_writeback: Callable[[int, int, int], None],
    on_chunk: Callable[[int], None],
) -> dict[str, str] | None:
    """Copy the whole regular file ``source_fd`` into the empty ``target_fd`` and return the
    digests of what was written, or None if this way is not open (see the module's note).
    ``on_chunk(n)`` is called after each chunk copied (progress, and a chance to stop by
    raising)."""
    before = source_identity(source_fd)
    size = before[0]
    try:
        os.ftruncate(target_fd, size)
        mapped = mmap.mmap(target_fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
    except OSError as exc:
        raise_if_case_full(exc)
        return None
    view = memoryview(mapped)
    hasher = _MappedHasher(view, algorithms)
    hashed = 0
    try:
        for start, end in data_segments(source_fd, size):
            hashed = _hash_up_to(hasher, hashed, start, chunk)  # the hole before, as zeros
            offset = start
            while offset < end:
                copied = os.copy_file_range(source_fd, target_fd, min(chunk, end - offset),
                                            offset, offset)
                if copied == 0:  # the source shrank under us
                    return None
                start_writeback(target_fd, offset, copied)
                hasher.submit(offset, copied)
                offset += copied
                hashed = offset
                on_chunk(copied)
        _hash_up_to(hasher, hashed, size, chunk)  # a hole at the end
        if source_identity(source_fd) != before:
            return None
    except OSError as exc:
        raise_if_case_full(exc)
        return None
    finally:
        try:
            digests = hasher.finish()
        finally:
            view.release()
            mapped.close()
    return digests


def _hash_up_to(hasher: _MappedHasher, hashed: int, end: int, chunk: int) -> int:
    while hashed < end:
        length = min(chunk, end - hashed)
        hasher.submit(hashed, length)
        hashed += length
    return hashed


def raise_if_case_full(exc: OSError) -> None:
    """Raise ``exc`` if it is the case home's fault (full, over quota, read-only)."""
    if exc.errno in _CASE_FULL:
        raise exc
