"""Direct writes of large originals (direct_copy.py): the stored bytes and digests are the
source's, whatever its length; holes stay holes; a file system without direct I/O, a refused
write, a full disk and a source written during the copy each end as the module says."""

from __future__ import annotations

import errno
import hashlib
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


def direct_io_here(directory: Path) -> bool:
    probe = directory / "direct-probe"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o600)
    except OSError:
        return False
    os.close(fd)
    probe.unlink()
    return True


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ObjectStore:
    if not direct_copy.available() or not direct_io_here(tmp_path):
        pytest.skip("no direct I/O on this system or file system")
    monkeypatch.setattr(objects, "KERNEL_COPY_MIN", MIB)  # no 64 MiB files needed
    return ObjectStore(tmp_path / "objects", tmp_path / "tmp")


@pytest.mark.parametrize("size", [MIB, 5 * MIB + 1, 3 * MIB + 4095, 2 * MIB + 4097])
def test_any_length_is_stored_whole_with_its_digests(store, kernel_calls, tmp_path, size):
    source = tmp_path / "video.bin"
    data = os.urandom(size)
    source.write_bytes(data)
    stored = store.store_file(source, max_size=1 << 40)
    assert (stored.sha256, stored.sha512) == digests(data)
    assert stored.path.read_bytes() == data
    assert kernel_calls == []  # the direct way, not the kernel copy
    assert list((tmp_path / "tmp").glob("incoming-*")) == []


def test_holes_stay_holes_and_are_hashed_as_zeros(store, kernel_calls, tmp_path):
    source = tmp_path / "disk.img"
    with open(source, "wb") as fh:  # 3 MiB of data, a 6 MiB hole, 1 MiB, a 4 MiB hole
        fh.write(os.urandom(3 * MIB))
        fh.seek(9 * MIB)
        fh.write(os.urandom(MIB))
        fh.truncate(14 * MIB)
    data = source.read_bytes()
    stored = store.store_file(source, max_size=1 << 40, second_digest=False)
    assert stored.sha256 == hashlib.sha256(data).hexdigest() and stored.sha512 is None
    assert stored.path.read_bytes() == data
    if os.stat(source).st_blocks * 512 < len(data):  # the file system keeps holes
        assert os.stat(stored.path).st_blocks * 512 <= 5 * MIB
    assert kernel_calls == []


def test_no_direct_io_falls_back_to_the_kernel_copy(store, kernel_calls, tmp_path,
                                                    monkeypatch):
    real = direct_copy.fcntl.fcntl

    def no_direct(fd: int, command: int, arg: int = 0) -> int:
        if command == direct_copy.fcntl.F_SETFL and arg & os.O_DIRECT:
            raise OSError(errno.EINVAL, "Invalid argument")
        return real(fd, command, arg)

    monkeypatch.setattr(direct_copy.fcntl, "fcntl", no_direct)
    source = tmp_path / "video.bin"
    data = os.urandom(2 * MIB + 5)
    source.write_bytes(data)
    stored = store.store_file(source, max_size=1 << 40)
    assert (stored.sha256, stored.sha512) == digests(data)
    assert stored.path.read_bytes() == data and kernel_calls != []


@pytest.mark.parametrize("code", [errno.EINVAL, errno.EIO])
def test_a_refused_direct_write_starts_again_another_way(store, kernel_calls, tmp_path,
                                                         monkeypatch, code):
    real = os.pwrite
    refused: list[int] = []

    def refuse_second(fd: int, data: memoryview, offset: int) -> int:
        if offset > 0 and not refused:
            refused.append(offset)
            raise OSError(code, os.strerror(code))
        return real(fd, data, offset)

    monkeypatch.setattr(direct_copy.os, "pwrite", refuse_second)
    source = tmp_path / "video.bin"
    data = os.urandom(40 * MIB)  # more than one chunk
    source.write_bytes(data)
    stored = store.store_file(source, max_size=1 << 40)
    assert refused and (stored.sha256, stored.sha512) == digests(data)
    assert stored.path.read_bytes() == data and kernel_calls != []


def test_a_full_case_disk_is_the_cases_error_and_leaves_no_temporary(store, tmp_path,
                                                                     monkeypatch):
    monkeypatch.setattr(direct_copy.os, "pwrite", disk_full)
    assert_a_full_disk_is_the_cases_error(store, tmp_path)


def test_a_source_written_during_the_copy_is_stored_as_it_ends(store, tmp_path, monkeypatch):
    source = tmp_path / "growing.log"
    source.write_bytes(os.urandom(40 * MIB))
    append_once, appended = appending_once(source, os.preadv)
    monkeypatch.setattr(direct_copy.os, "preadv", append_once)
    assert_stored_as_it_ends(store.store_file(source, max_size=1 << 40), source, appended)


def test_an_unreadable_source_is_left_to_the_buffered_copy(store, tmp_path, monkeypatch):
    """A read the direct way cannot make is not its to report: the next ways read the file
    again (here the kernel copy fails too, and the buffered copy reads it in full)."""
    def broken(*args: object) -> int:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(direct_copy.os, "preadv", broken)
    monkeypatch.setattr(kernel_copy.os, "copy_file_range", broken)
    source = tmp_path / "video.bin"
    source.write_bytes(os.urandom(2 * MIB))
    stored = store.store_file(source, max_size=1 << 40)
    assert stored.path.read_bytes() == source.read_bytes()
