"""The kernel copy of large originals: the stored bytes and digests are the source's, holes stay
holes, and every way it can be refused falls back to the buffered copy or names the case."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from tests.preservation import copying
from tests.preservation.copying import (
    MIB,
    appending_once,
    assert_a_full_disk_is_the_cases_error,
    assert_stored_as_it_ends,
    digests,
    disk_full,
)

from casebuilder.preservation import direct_copy, kernel_copy, objects
from casebuilder.preservation.objects import ObjectStore

kernel_calls = copying.kernel_calls  # the shared fixture, used here by that name


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ObjectStore:
    # Files from 1 MiB take the kernel path here, so the tests need no 64 MiB files; direct
    # writes, tried first where the file system has them, are closed (test_direct_copy.py).
    monkeypatch.setattr(objects, "KERNEL_COPY_MIN", MIB)
    monkeypatch.setattr(direct_copy, "available", lambda: False)
    return ObjectStore(tmp_path / "objects", tmp_path / "tmp")


def sparse_file(path: Path) -> bytes:
    """3 MiB of data, a 6 MiB hole, 1 MiB of data and a 4 MiB hole at the end."""
    first, second = os.urandom(3 * MIB), os.urandom(MIB)
    with open(path, "wb") as fh:
        fh.write(first)
        fh.seek(9 * MIB)
        fh.write(second)
        fh.truncate(14 * MIB)
    return path.read_bytes()


def test_a_large_file_is_copied_in_the_kernel_with_its_digests(store, kernel_calls, tmp_path):
    source = tmp_path / "video.bin"
    data = os.urandom(5 * MIB + 12345)
    source.write_bytes(data)
    stored = store.store_file(source, max_size=1 << 40)
    assert kernel_calls, "the kernel copy was not used"
    assert (stored.sha256, stored.sha512) == digests(data)
    assert stored.path.read_bytes() == data and stored.size == len(data)


def test_holes_stay_holes_and_are_hashed_as_zeros(store, kernel_calls, tmp_path):
    source = tmp_path / "disk-image.bin"
    data = sparse_file(source)
    stored = store.store_file(source, max_size=1 << 40)
    assert kernel_calls and sum(kernel_calls) <= 4 * MIB + 2 * objects.LARGE_CHUNK  # data runs only
    assert (stored.sha256, stored.sha512) == digests(data)
    assert stored.path.read_bytes() == data
    if os.stat(source).st_blocks * 512 < 8 * MIB:  # the file system keeps holes at all
        assert os.stat(stored.path).st_blocks * 512 < 8 * MIB


def test_the_second_digest_can_be_left_for_later(store, kernel_calls, tmp_path):
    source = tmp_path / "video.bin"
    data = os.urandom(2 * MIB)
    source.write_bytes(data)
    stored = store.store_file(source, max_size=1 << 40, second_digest=False)
    assert kernel_calls and stored.sha256 == digests(data)[0] and stored.sha512 is None


@pytest.mark.parametrize("code", [errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EIO])
def test_a_refused_kernel_copy_falls_back_to_the_buffered_copy(store, tmp_path, monkeypatch,
                                                               code):
    def refuse(*args: int) -> int:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(kernel_copy.os, "copy_file_range", refuse)
    source = tmp_path / "video.bin"
    data = sparse_file(source)
    stored = store.store_file(source, max_size=1 << 40)
    assert (stored.sha256, stored.sha512) == digests(data)
    assert stored.path.read_bytes() == data
    assert list((tmp_path / "tmp").glob("incoming-*")) == []


def test_a_full_case_disk_is_the_cases_error_and_leaves_no_temporary(store, tmp_path,
                                                                     monkeypatch):
    monkeypatch.setattr(kernel_copy.os, "copy_file_range", disk_full)
    assert_a_full_disk_is_the_cases_error(store, tmp_path)


def test_a_source_written_during_the_copy_is_stored_as_it_ends(store, tmp_path, monkeypatch):
    """The kernel copy gives up on a file that changed under it; the buffered copy then
    stores (and names) the bytes the file holds once it is read through."""
    source = tmp_path / "growing.log"
    source.write_bytes(os.urandom(3 * MIB))
    append_once, appended = appending_once(source, os.copy_file_range)
    monkeypatch.setattr(kernel_copy.os, "copy_file_range", append_once)
    assert_stored_as_it_ends(store.store_file(source, max_size=1 << 40), source, appended)


def test_small_files_keep_the_buffered_copy(store, kernel_calls, tmp_path):
    source = tmp_path / "statement.txt"
    source.write_bytes(b"a witness statement\n" * 100)
    stored = store.store_file(source, max_size=1 << 40)
    assert kernel_calls == [] and stored.path.read_bytes() == source.read_bytes()


def test_data_segments_cover_exactly_the_data(tmp_path):
    path = tmp_path / "sparse.bin"
    sparse_file(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        segments = list(kernel_copy.data_segments(fd, os.fstat(fd).st_size))
    finally:
        os.close(fd)
    covered = bytearray(path.stat().st_size)
    for start, end in segments:
        assert 0 <= start < end <= len(covered)
        covered[start:end] = b"\x01" * (end - start)
    data = path.read_bytes()
    # every non-zero byte lies in a segment (a file system without holes gives one segment)
    assert all(covered[i] for i in range(0, len(data), 4096) if data[i:i + 4096].strip(b"\0"))
