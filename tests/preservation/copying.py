"""What the copy tests of the store share (test_kernel_copy.py, test_direct_copy.py import it)."""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from casebuilder.preservation import kernel_copy

MIB = 1024 * 1024


@pytest.fixture
def kernel_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The lengths asked of each kernel copy call, so a test knows which way ran."""
    seen: list[int] = []
    real = os.copy_file_range

    def counted(*args: int) -> int:
        seen.append(args[2])
        return real(*args)

    monkeypatch.setattr(kernel_copy.os, "copy_file_range", counted)
    return seen


def digests(data: bytes) -> tuple[str, str]:
    return hashlib.sha256(data).hexdigest(), hashlib.sha512(data).hexdigest()


def appending_once(source: Path, call: Callable[..., int]) -> tuple[Callable[..., int],
                                                                   list[bool]]:
    """``call`` made to append a line to ``source`` after it first returns (a file written
    while it is copied), and the list that says it did."""
    appended: list[bool] = []

    def wrapped(*args: Any) -> int:
        result = call(*args)
        if not appended:
            with open(source, "ab") as fh:
                fh.write(b"a line written while the copy ran\n")
            appended.append(True)
        return result

    return wrapped, appended


def assert_stored_as_it_ends(stored: Any, source: Path, appended: list[bool]) -> None:
    final = source.read_bytes()
    assert appended and (stored.sha256, stored.sha512) == digests(final)
    assert stored.path.read_bytes() == final


def disk_full(*args: Any) -> int:
    raise OSError(errno.ENOSPC, "No space left on device")


def assert_a_full_disk_is_the_cases_error(store: Any, tmp_path: Path) -> None:
    """With the write patched to ``disk_full``: the case's error, no temporary, no object."""
    from casebuilder.errors import CaseWriteError

    source = tmp_path / "video.bin"
    source.write_bytes(os.urandom(2 * MIB))
    with pytest.raises(CaseWriteError, match="no space left on device"):
        store.store_file(source, max_size=1 << 40)
    assert list((tmp_path / "tmp").glob("incoming-*")) == []
    assert not (tmp_path / "objects" / "sha256").exists()
