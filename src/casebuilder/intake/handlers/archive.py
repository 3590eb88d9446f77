"""ZIP archives: list the members and hand each on as a child, refusing hostile archives.

Intake stage. The ingest orchestrator calls this handler after the original has been stored,
when the file starts with a ZIP local header (or is an empty ZIP). Members become children
(relation "archive-member"), which intake preserves and reads in turn; nothing is ever
extracted to the file system, so a member name only ever labels bytes.

Archives are where hostile input hides, so before any child is offered the whole archive is
checked and *refused* (:class:`casebuilder.errors.ArchiveRefused`, naming the member and the
rule) if any member has an absolute path, a drive letter, a ``..`` component (with / or \\),
a NUL in its name, is a symbolic link, expands by more than ``ArchiveLimits.max_ratio`` once
past ``ratio_threshold`` bytes, overlaps another member's data, or names itself differently in
its local header; or if the archive declares more members or more uncompressed bytes than the
limits, or sits deeper inside other containers than ``max_depth``.

Declared sizes can lie, so each child's stream counts what it yields and raises
``ArchiveRefused`` the moment more comes out than the central directory declared.

Encrypted members are skipped with a warning, not refused: they endanger nothing, the archive's
other members are still evidence, and the encrypted bytes stay inside the preserved original.
"""

from __future__ import annotations

import copy
import functools
import io
import itertools
import lzma
import platform
import re
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from casebuilder.errors import ArchiveRefused, UnreadableContent
from casebuilder.intake.handlers.base import (
    BID_NONE,
    BID_SIGNATURE,
    Child,
    JSONValue,
    ParseResult,
    ParseSource,
    Sniff,
)

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"
_SUPPORTED = frozenset(
    {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
)
_FLAG_ENCRYPTED = 0x1
_FLAG_PATCHED = 0x20
_FLAG_STRONG_ENCRYPTION = 0x40
_FLAG_UTF8 = 0x800
# Let the decompressor run past the declared size so that a lie is caught, not truncated.
_UNBOUNDED = 2**62
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    ValueError,
    struct.error,
    NotImplementedError,
    zlib.error,
    lzma.LZMAError,
)
_DRIVE = re.compile(r"[A-Za-z]:")


@dataclass(frozen=True)
class ArchiveLimits:
    """What an archive may declare before it is refused as hostile."""

    max_total_uncompressed: int = 16 * 1024**3
    max_members: int = 100_000
    max_ratio: float = 200.0
    ratio_threshold: int = 1024 * 1024  # smaller members may compress as well as they like
    max_depth: int = 3  # containers (archives, e-mails) this archive may sit inside


def looks_like_zip(head: bytes) -> bool:
    """A local file header first, or the end record of an empty archive."""
    return head.startswith(b"PK\x03\x04") or (head.startswith(_EOCD) and len(head) >= 22)


def member_name_fault(name: str) -> str | None:
    """Why a member name is hostile, or None. ``name`` is the name as stored in the archive."""
    if not name:
        return "has an empty name"
    if "\x00" in name:
        return "has a NUL byte in its name"
    if name.startswith(("/", "\\")):
        return "has an absolute path"
    if _DRIVE.match(name):
        return "has a drive letter"
    if ".." in re.split(r"[/\\]", name):
        return "climbs out of the archive with a '..' component (path traversal)"
    return None


def _declared_entries(stream: BinaryIO, size: int) -> int | None:
    """Entry count from the end record, read before zipfile builds one object per entry."""
    tail_size = min(size, 65_535 + 22)
    stream.seek(size - tail_size)
    tail = stream.read(tail_size)
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < 22:
        return None
    (count,) = struct.unpack_from("<H", tail, at + 10)
    if count != 0xFFFF or at < 20 or tail[at - 20 : at - 16] != _ZIP64_LOCATOR:
        return int(count)
    (offset,) = struct.unpack_from("<Q", tail, at - 20 + 8)
    if offset + 56 > size:
        return None
    stream.seek(offset)
    record = stream.read(56)
    if len(record) < 56 or record[:4] != _ZIP64_EOCD:
        return None
    (count64,) = struct.unpack_from("<Q", record, 32)
    return int(count64)


def _decode_comment(comment: bytes) -> str:
    try:
        return comment.decode("utf-8")
    except UnicodeDecodeError:
        return comment.decode("cp437")


class _MemberStream(io.RawIOBase):
    """A member's bytes, refusing to yield more than the archive declared for it."""

    def __init__(self, inner: zipfile.ZipExtFile, name: str, declared: int) -> None:
        super().__init__()
        self._inner = inner
        self._name = name
        self._declared = declared
        self._count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        try:
            data = self._inner.read(len(view))
        except _ZIP_ERRORS as exc:
            raise UnreadableContent(f"ZIP member {self._name!r} is damaged: {exc}") from exc
        self._count += len(data)
        if self._count > self._declared:
            raise ArchiveRefused(
                f"refused ZIP: member {self._name!r} yields more than its declared "
                f"{self._declared:,} bytes (its stated size lies; possibly a zip bomb)"
            )
        if not data and self._count < self._declared:
            raise UnreadableContent(
                f"ZIP member {self._name!r} ended after {self._count:,} of its declared "
                f"{self._declared:,} bytes"
            )
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            super().close()


def _open_member(path: Path, info: zipfile.ZipInfo, data_start: int) -> BinaryIO:
    stream = open(path, "rb")  # noqa: SIM115 - handed to the member stream, which closes it
    try:
        stream.seek(data_start)
        unbounded = copy.copy(info)
        unbounded.file_size = _UNBOUNDED
        inner = zipfile.ZipExtFile(stream, "r", unbounded, None, True)
    except BaseException:
        stream.close()
        raise
    return io.BufferedReader(_MemberStream(inner, info.filename, info.file_size))


@dataclass
class _Member:
    info: zipfile.ZipInfo
    data_start: int
    data_end: int


class ArchiveHandler:
    """Reads ZIP archives (and refuses hostile ones)."""

    name = "zip"
    media_type = "application/zip"

    def __init__(self, limits: ArchiveLimits | None = None) -> None:
        self.limits = limits or ArchiveLimits()

    def bid(self, sniff: Sniff) -> int:
        return BID_SIGNATURE if looks_like_zip(sniff.head) else BID_NONE

    def parse(self, source: ParseSource) -> ParseResult:
        limits = self.limits
        if source.depth > limits.max_depth:
            raise ArchiveRefused(
                f"refused ZIP: nested {source.depth} containers deep, over the limit of "
                f"{limits.max_depth}"
            )
        try:
            stream = open(source.path, "rb")  # noqa: SIM115 - closed by the with below
        except OSError as exc:
            raise UnreadableContent(f"cannot read the stored original: {exc}") from exc
        with stream:
            size = stream.seek(0, io.SEEK_END)
            declared = _declared_entries(stream, size)
            if declared is not None and declared > limits.max_members:
                raise ArchiveRefused(
                    f"refused ZIP: it declares {declared:,} members, over the limit of "
                    f"{limits.max_members:,}"
                )
            stream.seek(0)
            try:
                with zipfile.ZipFile(stream) as archive:
                    infos = archive.infolist()
                    comment = archive.comment
            except _ZIP_ERRORS as exc:
                raise UnreadableContent(f"damaged ZIP: {exc}") from exc
            result = ParseResult(
                format="zip",
                media_type="application/zip",
                tool=f"python-zipfile {platform.python_version()}",
            )
            members = self._check(infos, stream, size, result.warnings)

        metadata: dict[str, JSONValue] = {
            "member_count": len(infos),
            "file_count": len(members),
            "total_uncompressed": sum(info.file_size for info in infos),
        }
        if comment:
            metadata["comment"] = _decode_comment(comment)
        result.metadata = metadata
        result.children = [
            Child(
                relation="archive-member",
                name=member.info.filename,
                size=member.info.file_size,
                open=functools.partial(_open_member, source.path, member.info, member.data_start),
            )
            for member in members
        ]
        return result

    def _check(
        self, infos: list[zipfile.ZipInfo], stream: BinaryIO, size: int, warnings: list[str]
    ) -> list[_Member]:
        limits = self.limits
        if len(infos) > limits.max_members:
            raise ArchiveRefused(
                f"refused ZIP: {len(infos):,} members, over the limit of {limits.max_members:,}"
            )
        total = sum(info.file_size for info in infos)
        if total > limits.max_total_uncompressed:
            raise ArchiveRefused(
                f"refused ZIP: it declares {total:,} uncompressed bytes in all, over the limit "
                f"of {limits.max_total_uncompressed:,}"
            )
        for info in infos:
            name = info.orig_filename
            fault = member_name_fault(name)
            if fault:
                raise ArchiveRefused(f"refused ZIP: member {name!r} {fault}")
            if stat.S_ISLNK(info.external_attr >> 16):
                raise ArchiveRefused(f"refused ZIP: member {name!r} is a symbolic link")
            if info.file_size > limits.ratio_threshold:
                ratio = info.file_size / max(info.compress_size, 1)
                if ratio > limits.max_ratio:
                    raise ArchiveRefused(
                        f"refused ZIP: member {name!r} expands {ratio:,.0f}:1 "
                        f"({info.compress_size:,} to {info.file_size:,} bytes), over the "
                        f"{limits.max_ratio:g}:1 limit (a zip bomb)"
                    )

        # Many small members can make a bomb no single member reveals: judge the whole archive.
        if total > limits.ratio_threshold and total / max(size, 1) > limits.max_ratio:
            raise ArchiveRefused(
                f"refused ZIP: its members expand {total / max(size, 1):,.0f}:1 in all "
                f"({size:,} to {total:,} bytes), over the {limits.max_ratio:g}:1 limit "
                "(a zip bomb)"
            )

        members = [self._locate(info, stream, size) for info in infos]
        ordered = sorted(members, key=lambda m: m.info.header_offset)
        for before, after in itertools.pairwise(ordered):
            if after.info.header_offset < before.data_end:
                raise ArchiveRefused(
                    f"refused ZIP: members {before.info.orig_filename!r} and "
                    f"{after.info.orig_filename!r} overlap (a zip-bomb construction)"
                )

        children: list[_Member] = []
        seen: dict[str, int] = {}
        for member in members:
            info = member.info
            name = info.orig_filename
            if info.is_dir():
                continue
            seen[name] = seen.get(name, 0) + 1
            if info.flag_bits & (_FLAG_ENCRYPTED | _FLAG_STRONG_ENCRYPTION):
                warnings.append(f"member {name!r} is encrypted; not extracted")
            elif info.flag_bits & _FLAG_PATCHED or info.compress_type not in _SUPPORTED:
                warnings.append(
                    f"member {name!r} uses compression method {info.compress_type}, "
                    "which cannot be read here; not extracted"
                )
            elif member.data_end > size:
                warnings.append(f"member {name!r} runs past the end of the file; not extracted")
            else:
                children.append(member)
        for name, count in seen.items():
            if count > 1:
                warnings.append(f"the name {name!r} appears {count} times in the archive")
        return children

    @staticmethod
    def _locate(info: zipfile.ZipInfo, stream: BinaryIO, size: int) -> _Member:
        """Read a member's local header: where its data starts, and that it names itself alike."""
        name = info.orig_filename
        if info.header_offset < 0 or info.header_offset + _LOCAL_HEADER.size > size:
            raise UnreadableContent(f"damaged ZIP: member {name!r} points outside the file")
        stream.seek(info.header_offset)
        header = stream.read(_LOCAL_HEADER.size)
        fields = _LOCAL_HEADER.unpack(header)
        if fields[0] != b"PK\x03\x04":
            raise UnreadableContent(f"damaged ZIP: member {name!r} has no local header")
        flags, name_length, extra_length = fields[3], fields[10], fields[11]
        raw_name = stream.read(name_length)
        local = raw_name.decode("utf-8" if flags & _FLAG_UTF8 else "cp437", errors="replace")
        if local != name:
            raise ArchiveRefused(
                f"refused ZIP: member {name!r} calls itself {local!r} in its local header "
                "(a name-smuggling trick)"
            )
        data_start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
        return _Member(info, data_start, data_start + info.compress_size)
