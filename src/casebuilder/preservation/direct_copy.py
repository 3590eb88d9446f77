"""Copying a large original into the store with direct writes, hashing the very buffers written.

Part of preservation, below ObjectStore (objects.py), which tries it first for large regular
files, then the kernel copy (kernel_copy.py), then the buffered copy. Each chunk of the source
is read into a private, page-aligned buffer; threads hash that buffer (one per algorithm) while
another writes the same buffer to the temporary file opened for direct I/O (``O_DIRECT``), so
the bytes go from the buffer to the disk without a second copy into the page cache. What is
hashed is exactly what was written: the buffer is ours, nothing else can change it in between.

On a machine of two cores this matters: the kernel copy spends about 0.7 s of system time per
GiB copying page to page and writing back, on the core that the command's own start-up needs,
while SHA-256 holds the other; direct writes cost about a tenth of that (decision 0003).

The copy is refused (``None``: the caller tries the next way, from an empty temporary) where
the system or the file system lacks direct I/O (tmpfs, some network file systems), when the
source cannot be read (the buffered copy then reports the reason), and when the source changed
while it was copied. A full or read-only case home is the case's fault and raised as such.
Holes of a sparse source are skipped (hashed as the zeros they read as) and stay holes.
"""

from __future__ import annotations

import fcntl
import hashlib
import mmap
import os
import queue
import sys
import threading
from collections.abc import Callable

from casebuilder.preservation.kernel_copy import (
    data_segments,
    raise_if_case_full,
    source_identity,
)

#: Direct writes must start and end on this boundary (the largest logical block size in use);
#: the file's unaligned end is written through the page cache.
ALIGNMENT = 4096
BUFFERS = 4


def available() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "O_DIRECT") and hasattr(
        os, "preadv")


class _Pipeline:
    """Buffers going round: read into by the caller, then hashed (in order, one thread per
    algorithm) and written (in order, one thread); a buffer is read into again once all of
    them are done with it."""

    def __init__(self, target_fd: int, algorithms: tuple[str, ...], chunk: int) -> None:
        self.target_fd = target_fd
        self.buffers = [mmap.mmap(-1, chunk) for _ in range(BUFFERS)]  # page-aligned
        self.views = [memoryview(b) for b in self.buffers]
        self.free: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in range(BUFFERS):
            self.free.put(index)
        self.users = [0] * BUFFERS
        self.lock = threading.Lock()
        self.hashes = {name: hashlib.new(name) for name in algorithms}
        self.errors: list[BaseException] = []
        self.queues: list[queue.SimpleQueue[tuple[int, int, int] | None]] = []
        self.threads: list[threading.Thread] = []
        for work in [*(self._hasher(self.hashes[n].update) for n in algorithms), self._write]:
            tasks: queue.SimpleQueue[tuple[int, int, int] | None] = queue.SimpleQueue()
            self.queues.append(tasks)
            self.threads.append(threading.Thread(target=self._run, args=(work, tasks),
                                                 daemon=True))
        for thread in self.threads:
            thread.start()

    @staticmethod
    def _hasher(update: Callable[[memoryview], None]) -> Callable[[memoryview, int], None]:
        return lambda data, _offset: update(data)

    def _write(self, data: memoryview, offset: int) -> None:
        aligned = len(data) - len(data) % ALIGNMENT
        if aligned:
            _write_all(self.target_fd, data[:aligned], offset)
        if aligned < len(data):  # the file's end: direct I/O cannot write a part block
            flags = fcntl.fcntl(self.target_fd, fcntl.F_GETFL)
            fcntl.fcntl(self.target_fd, fcntl.F_SETFL, flags & ~os.O_DIRECT)
            _write_all(self.target_fd, data[aligned:], offset + aligned)

    def _run(self, work: Callable[[memoryview, int], None],
             tasks: queue.SimpleQueue[tuple[int, int, int] | None]) -> None:
        while (task := tasks.get()) is not None:
            index, length, offset = task
            try:
                if not self.errors:
                    work(self.views[index][:length], offset)
            except BaseException as exc:  # noqa: BLE001 - raised by the caller (failed)
                # without its frames, which hold a view of the buffer (closed at the end)
                self.errors.append(exc.with_traceback(None))
            finally:
                self._done_with(index)

    def _done_with(self, index: int) -> None:
        with self.lock:
            self.users[index] -= 1
            if self.users[index] == 0:
                self.free.put(index)

    def take(self) -> int:
        return self.free.get()

    def submit(self, index: int, length: int, offset: int) -> None:
        with self.lock:
            self.users[index] = len(self.queues)
        for tasks in self.queues:
            tasks.put((index, length, offset))

    def hash_zeros(self, length: int) -> None:
        """A hole of the source, which reads as zeros: hashed here, in order, once every
        buffer handed over before it is hashed (the hash threads are idle meanwhile); not
        written, so that the copy keeps the hole."""
        self.finish_pending()
        zeros = bytes(min(length, len(self.buffers[0])))
        while length:
            n = min(length, len(zeros))
            for digest in self.hashes.values():
                digest.update(zeros[:n])
            length -= n

    def finish_pending(self) -> None:
        """Wait until every buffer handed over has been hashed and written."""
        taken = [self.take() for _ in range(BUFFERS)]
        for index in taken:
            self.free.put(index)

    def failed(self) -> BaseException | None:
        return self.errors[0] if self.errors else None

    def close(self) -> dict[str, str]:
        for tasks in self.queues:
            tasks.put(None)
        for thread in self.threads:
            thread.join()
        for view in self.views:
            view.release()
        for buffer in self.buffers:
            buffer.close()
        return {name: digest.hexdigest() for name, digest in self.hashes.items()}


def _write_all(fd: int, data: memoryview, offset: int) -> None:
    while data:
        written = os.pwrite(fd, data, offset)
        data, offset = data[written:], offset + written


def copy_direct(source_fd: int, target_fd: int, algorithms: tuple[str, ...], *, chunk: int,
                on_chunk: Callable[[int], None]) -> dict[str, str] | None:
    """Copy the whole regular file ``source_fd`` into the empty ``target_fd`` with direct
    writes and return the digests of what was written, or None if this way is not open (see
    the module's note). ``on_chunk(n)`` is called after each chunk read (progress, and a
    chance to stop by raising). ``chunk`` must be a multiple of ALIGNMENT."""
    before = source_identity(source_fd)
    size = before[0]
    try:
        flags = fcntl.fcntl(target_fd, fcntl.F_GETFL)
        fcntl.fcntl(target_fd, fcntl.F_SETFL, flags | os.O_DIRECT)
    except OSError:
        return None  # no direct I/O on this file system
    pipeline = _Pipeline(target_fd, algorithms, chunk)
    digests: dict[str, str] | None = None
    try:
        copied = _copy_segments(source_fd, size, pipeline, chunk, on_chunk)
        failure = pipeline.failed()
        if failure is not None:
            if isinstance(failure, OSError):
                raise_if_case_full(failure)
            return None  # direct writes refused here (EINVAL): the next way, from the start
        if copied is None or source_identity(source_fd) != before:
            return None
        os.ftruncate(target_fd, size)  # a hole at the end
    finally:
        try:
            digests = pipeline.close()
        finally:
            flags = fcntl.fcntl(target_fd, fcntl.F_GETFL)
            fcntl.fcntl(target_fd, fcntl.F_SETFL, flags & ~os.O_DIRECT)
    return digests


def _copy_segments(source_fd: int, size: int, pipeline: _Pipeline, chunk: int,
                   on_chunk: Callable[[int], None]) -> int | None:
    """Hand every chunk of the source to the pipeline; the bytes read, or None if the source
    could not be read or ended early."""
    done = 0
    for start, end in data_segments(source_fd, size):
        if start > done:
            pipeline.hash_zeros(start - done)
        offset = start
        while offset < end:
            if pipeline.failed() is not None:
                return None
            index = pipeline.take()
            wanted = min(chunk, end - offset)
            view = pipeline.views[index]
            try:
                length = _read_full(source_fd, view[:wanted], offset)
            except OSError:
                pipeline.free.put(index)
                return None
            if length < wanted:  # the source shrank under us
                pipeline.free.put(index)
                return None
            pipeline.submit(index, length, offset)
            offset += length
            on_chunk(length)
        done = end
    if size > done:
        pipeline.hash_zeros(size - done)
    pipeline.finish_pending()
    return size


def _read_full(fd: int, view: memoryview, offset: int) -> int:
    got = 0
    while got < len(view):
        n = os.preadv(fd, [view[got:]], offset + got)
        if n == 0:
            break
        got += n
    return got
