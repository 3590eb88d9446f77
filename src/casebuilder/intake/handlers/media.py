"""Audio and video containers: duration, creation time, frame size, codecs, and GPS position.

Intake stage. The ingest orchestrator calls this handler after the original has been stored,
when the file starts with a container signature: MP4/MOV/M4A/3GP (an ``ftyp`` box), Matroska
and WebM (EBML), AVI and WAV (RIFF), MP3 (ID3 or an MPEG audio frame), Ogg or FLAC.

hachoir (pure Python, maintained) reads duration, creation time, dimensions and codecs. Phones
record where a video was shot in boxes hachoir does not read, so for MP4/MOV a small box walker
of our own reads them: the ``©xyz`` atom under ``moov/udta`` and Apple's
``com.apple.quicktime.location.ISO6709`` in ``moov/meta`` keys/ilst, both ISO 6709 strings.
The walker is bounds-checked throughout, because these bytes come from whoever made the file.

Times: MP4 and QuickTime count from 1904-01-01 in UTC (ISO/IEC 14496-12 says so; some cameras
write local time anyway, which no file can reveal), so ``created`` carries ``+00:00`` for them
and for Matroska (DateUTC). Other containers' dates are kept without an invented offset. A zero
MP4 time means "not set" and is dropped rather than reported as 1904.
"""

from __future__ import annotations

import math
import os
import re
import struct
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, BinaryIO

from casebuilder.errors import UnreadableContent
from casebuilder.intake.handlers.base import (
    BID_NONE,
    BID_SIGNATURE,
    BID_WEAK,
    JSONValue,
    ParseResult,
    ParseSource,
    Sniff,
)
from casebuilder.intake.handlers.image import IMAGE_BRANDS
from casebuilder.intake.handlers.text import extension, looks_like_text

# hachoir writes its parse warnings and errors to stderr unless told not to; what matters of
# them reaches the item through the exceptions and missing values instead.


def _hachoir() -> Any:
    """hachoir, imported and silenced on first use (it is heavy; parsing runs in a child)."""
    import hachoir
    import hachoir.core.config as hachoir_config
    import hachoir.metadata
    import hachoir.parser
    from hachoir.core.log import log as hachoir_log

    hachoir_config.quiet = True
    hachoir_log.use_print = False
    return hachoir


#: A moov box larger than this is not read for GPS (a real one is a few MB at most).
MAX_MOOV_BYTES = 64 * 1024 * 1024
MAX_BOX_DEPTH = 16
MAX_BOXES = 50_000
_MAX_TOP_LEVEL_BOXES = 10_000
_MAX_KEYS = 1_000
_MAX_KEY_VALUE = 1_024

_CONTAINER_BOXES = frozenset(
    {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"udta", b"edts", b"dinf", b"mvex", b"moof",
     b"traf", b"meta", b"ilst"}
)  # fmt: skip
_QUICKTIME_TOP = frozenset({b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot"})
_ISO6709 = re.compile(
    r"(?P<lat>[+-][0-9]+(?:\.[0-9]+)?)(?P<lon>[+-][0-9]+(?:\.[0-9]+)?)"
    r"(?P<alt>[+-][0-9]+(?:\.[0-9]+)?)?(?:CRS[A-Za-z0-9_:.\-]*)?/?"
)
_APPLE_LOCATION = "com.apple.quicktime.location.ISO6709"
_APPLE_CREATED = "com.apple.quicktime.creationdate"
_MP4_EPOCH_YEAR = 1904
_UTC_CONTAINERS = frozenset({"mp4", "quicktime", "3gp", "m4a", "matroska", "webm"})

_MIME = {
    "mp4": "video/mp4",
    "m4a": "audio/mp4",
    "quicktime": "video/quicktime",
    "3gp": "video/3gpp",
    "matroska": "video/x-matroska",
    "webm": "video/webm",
    "avi": "video/x-msvideo",
    "wav": "audio/wav",
    "mp3": "audio/mpeg",
    "ogg": "audio/ogg",
    "flac": "audio/flac",
}


def _mp3_frame(head: bytes) -> bool:
    if len(head) < 4 or head[0] != 0xFF or head[1] & 0xE0 != 0xE0:
        return False
    version = (head[1] >> 3) & 3
    layer = (head[1] >> 1) & 3
    bitrate = head[2] >> 4
    rate = (head[2] >> 2) & 3
    # Reserved values: a JPEG (FF D8) or random FF byte fails at least one of these.
    return version != 1 and layer != 0 and bitrate != 15 and rate != 3


def _bare_quicktime(head: bytes, total_size: int) -> bool:
    """Old QuickTime files start straight with moov/mdat/wide/...: check the sizes add up.

    Four letters at offset 4 are weak evidence ("The free press..." has "free" there), so the
    first box must fit in the file and the box after it, if in view, must be a top-level one.
    """
    if len(head) < 8 or head[4:8] not in _QUICKTIME_TOP:
        return False
    (size,) = struct.unpack_from(">I", head)
    if size == 0:
        return True  # one box to the end of the file
    if size == 1:
        if len(head) < 16:
            return False
        (size,) = struct.unpack_from(">Q", head, 8)
    if size < 8 or size > total_size:
        return False
    if size + 8 <= len(head):
        return head[size + 4 : size + 8] in _QUICKTIME_TOP | {b"ftyp", b"uuid", b"junk", b"udta"}
    return True


def container_kind(head: bytes, total_size: int | None = None) -> str | None:
    """The container the signature says ("mp4", "quicktime", "wav", ...), or None.

    ``total_size`` is the file's size (default: ``len(head)``), used to judge box sizes.
    """
    if len(head) >= 12 and head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in IMAGE_BRANDS:
            return None  # HEIC/AVIF stills belong to the image handler
        if brand == b"qt  ":
            return "quicktime"
        if brand.startswith(b"3g"):
            return "3gp"
        if brand in (b"M4A ", b"M4B ", b"M4P "):
            return "m4a"
        return "mp4"
    if _bare_quicktime(head, len(head) if total_size is None else total_size):
        return "quicktime"
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return "webm" if b"webm" in head[:64] else "matroska"
    if head.startswith(b"RIFF") and head[8:12] == b"AVI ":
        return "avi"
    if head.startswith((b"RIFF", b"RIFX")) and head[8:12] == b"WAVE":
        return "wav"
    # ID3v2: version 2-4, then a "syncsafe" size whose bytes all have the top bit clear.
    id3 = head.startswith(b"ID3") and len(head) >= 10 and head[3] in (2, 3, 4)
    if (id3 and all(b < 0x80 for b in head[6:10])) or _mp3_frame(head):
        return "mp3"
    if head.startswith(b"OggS") and len(head) >= 5 and head[4] == 0:  # stream structure v0
        return "ogg"
    if head.startswith(b"fLaC") and len(head) >= 5 and head[4] & 0x7F == 0:  # STREAMINFO first
        return "flac"
    return None


# -- ISO 6709 ----------------------------------------------------------------------------------
def _angle(text: str, degree_digits: int, limit: int, what: str) -> float:
    sign = -1.0 if text[0] == "-" else 1.0
    whole, _, fraction = text[1:].partition(".")
    fraction = f".{fraction}" if fraction else ""
    if len(whole) == degree_digits:
        value = float(whole + fraction)
    elif len(whole) == degree_digits + 2:
        minutes = float(whole[degree_digits:] + fraction)
        if minutes >= 60:
            raise ValueError(f"{what} minutes out of range in ISO 6709 value")
        value = int(whole[:degree_digits]) + minutes / 60
    elif len(whole) == degree_digits + 4:
        minutes = int(whole[degree_digits : degree_digits + 2])
        seconds = float(whole[degree_digits + 2 :] + fraction)
        if minutes >= 60 or seconds >= 60:
            raise ValueError(f"{what} minutes or seconds out of range in ISO 6709 value")
        value = int(whole[:degree_digits]) + minutes / 60 + seconds / 3600
    else:
        raise ValueError(f"{what} has {len(whole)} integer digits, which ISO 6709 does not allow")
    if value > limit:
        raise ValueError(f"{what} {sign * value} is out of range")
    return sign * value


def parse_iso6709(value: str) -> dict[str, JSONValue]:
    """Parse an ISO 6709 point ("+50.4501+030.5234+150.000/") to {"lat", "lon", "alt"}.

    Accepts decimal degrees, degrees and minutes (±DDMM.MM±DDDMM.MM) and degrees, minutes and
    seconds (±DDMMSS±DDDMMSS), with an optional altitude and CRS suffix. ``alt`` is None when the
    string has none. Raises ``ValueError`` for anything else.
    """
    cleaned = value.strip().strip("\x00").strip()
    match = _ISO6709.fullmatch(cleaned)
    if not match:
        raise ValueError(f"not an ISO 6709 point: {value[:40]!r}")
    lat = _angle(match.group("lat"), 2, 90, "latitude")
    lon = _angle(match.group("lon"), 3, 180, "longitude")
    alt: float | None = None
    if match.group("alt"):
        alt = float(match.group("alt"))
        if not math.isfinite(alt):
            raise ValueError("altitude is not a finite number")
    return {"lat": lat, "lon": lon, "alt": alt}


# -- MP4 / QuickTime boxes ----------------------------------------------------------------------
@dataclass(frozen=True)
class Box:
    """One box found by :func:`walk_boxes`; offsets index the buffer that was walked."""

    type: bytes
    path: tuple[bytes, ...]  # types of the enclosing boxes, outermost first
    start: int
    payload_start: int
    end: int


def _name(box_type: bytes) -> str:
    return box_type.decode("latin-1")


def _children_start(data: bytes, box_type: bytes, payload_start: int, end: int) -> int:
    if box_type != b"meta":
        return payload_start
    # ISO meta is a full box (4 bytes of version and flags before its children); Apple's
    # moov/meta is not. Its first child is hdlr, so look for that type where it would sit.
    if data[payload_start + 4 : payload_start + 8] == b"hdlr":
        return payload_start
    return min(payload_start + 4, end)


def walk_boxes(
    data: bytes, *, max_depth: int = MAX_BOX_DEPTH, max_boxes: int = MAX_BOXES
) -> list[Box]:
    """Every box in ``data`` (a sequence of boxes), descending into the known containers.

    Raises only ``UnreadableContent``, naming the box and the fault, for a size that does not
    fit its parent, a header cut short, nesting deeper than ``max_depth`` or more than
    ``max_boxes`` boxes.
    """
    found: list[Box] = []
    # (start, end, path) ranges still to read; a list used as a stack keeps recursion out.
    pending: list[tuple[int, int, tuple[bytes, ...]]] = [(0, len(data), ())]
    while pending:
        pos, end, path = pending.pop()
        children: list[tuple[int, int, tuple[bytes, ...]]] = []
        while pos < end:
            remaining = end - pos
            if remaining < 8:
                if data[pos:end].strip(b"\x00"):
                    raise UnreadableContent(f"{remaining} stray bytes at offset {pos}")
                break  # QuickTime ends some lists with a zero terminator
            size, box_type = struct.unpack_from(">I4s", data, pos)
            header = 8
            if size == 1:
                if remaining < 16:
                    raise UnreadableContent(
                        f"box {_name(box_type)!r} at offset {pos}: 64-bit size cut off"
                    )
                (size,) = struct.unpack_from(">Q", data, pos + 8)
                header = 16
            elif size == 0:
                if box_type == b"\x00\x00\x00\x00" and not data[pos:end].strip(b"\x00"):
                    break  # zero padding, not a box
                size = remaining  # "extends to the end of its container"
            if box_type == b"uuid":
                header += 16
            if size < header:
                raise UnreadableContent(
                    f"box {_name(box_type)!r} at offset {pos} has impossible size {size}"
                )
            if size > remaining:
                raise UnreadableContent(
                    f"box {_name(box_type)!r} at offset {pos} claims {size} bytes "
                    f"but only {remaining} remain"
                )
            if len(found) >= max_boxes:
                raise UnreadableContent(f"more than {max_boxes} boxes")
            box = Box(box_type, path, pos, pos + header, pos + size)
            found.append(box)
            descend = box_type in _CONTAINER_BOXES or (path and path[-1] == b"ilst")
            if descend:
                if len(path) + 1 > max_depth:
                    raise UnreadableContent(f"boxes nested deeper than {max_depth}")
                first = _children_start(data, box_type, box.payload_start, box.end)
                children.append((first, box.end, (*path, box_type)))
            pos += size
        pending.extend(reversed(children))
    found.sort(key=lambda b: b.start)
    return found


def _top_level_moov(stream: BinaryIO, size: int, warnings: list[str]) -> bytes | None:
    """The moov box, whole, found by hopping over the top-level headers (None if absent).

    Every top-level header is visited, not only those before moov, so that a file cut short
    (a video copied off a phone half-way, typically inside mdat) is reported as truncated.
    """
    moov: bytes | None = None
    pos = 0
    for _ in range(_MAX_TOP_LEVEL_BOXES):
        if pos >= size:
            break
        stream.seek(pos)
        header = stream.read(16)
        if len(header) < 8:
            warnings.append(f"{len(header)} stray bytes at the end of the file")
            break
        box_size, box_type = struct.unpack_from(">I4s", header)
        header_len = 8
        if box_size == 1:
            if len(header) < 16:
                warnings.append(f"file is truncated inside the header at offset {pos}")
                break
            (box_size,) = struct.unpack_from(">Q", header, 8)
            header_len = 16
        elif box_size == 0:
            box_size = size - pos
        if box_size < header_len:
            warnings.append(f"box {_name(box_type)!r} at offset {pos} has impossible size")
            break
        if pos + box_size > size:
            warnings.append(
                f"file is truncated: box {_name(box_type)!r} at offset {pos} claims "
                f"{box_size:,} bytes but only {size - pos:,} are present"
            )
        if box_type == b"moov" and moov is None:
            if box_size > MAX_MOOV_BYTES:
                warnings.append(f"moov box of {box_size:,} bytes not read for location")
            else:
                stream.seek(pos)
                moov = stream.read(box_size)
        pos += box_size
    return moov


def _data_value(data: bytes, box: Box) -> str | None:
    """The text value of an ilst item's 'data' box (type 1 = UTF-8), if it has one."""
    payload = data[box.payload_start : box.end]
    if len(payload) < 8:
        return None
    type_code = int.from_bytes(payload[1:4], "big")
    if type_code != 1:
        return None
    return payload[8 : 8 + _MAX_KEY_VALUE * 4].decode("utf-8", errors="replace")[:_MAX_KEY_VALUE]


def _keys(data: bytes, box: Box) -> list[str]:
    payload = data[box.payload_start : box.end]
    names: list[str] = []
    if len(payload) < 8:
        return names
    (count,) = struct.unpack_from(">I", payload, 4)
    pos = 8
    for _ in range(min(count, _MAX_KEYS)):
        if pos + 8 > len(payload):
            break
        (entry_size,) = struct.unpack_from(">I", payload, pos)
        if entry_size < 8 or pos + entry_size > len(payload):
            break
        names.append(payload[pos + 8 : pos + entry_size].decode("utf-8", errors="replace"))
        pos += entry_size
    return names


def quicktime_metadata(moov: bytes) -> tuple[dict[str, JSONValue], list[str]]:
    """Location and Apple keys from a whole moov box. Never raises; faults become warnings."""
    metadata: dict[str, JSONValue] = {}
    warnings: list[str] = []
    try:
        boxes = walk_boxes(moov)
    except UnreadableContent as exc:
        return metadata, [f"MP4 box structure is damaged: {exc}"]

    keys: list[str] = []
    values: dict[str, JSONValue] = {}
    for box in boxes:
        if box.type == b"keys" and box.path[-1:] == (b"meta",):
            keys = _keys(moov, box)
    for box in boxes:
        if box.type == b"data" and len(box.path) >= 2 and box.path[-2] == b"ilst":
            item = box.path[-1]
            index = int.from_bytes(item, "big")
            value = _data_value(moov, box)
            if value is not None and 1 <= index <= len(keys) and len(values) < 64:
                values.setdefault(keys[index - 1], value)
    if values:
        metadata["quicktime_keys"] = values

    location_raw: str | None = None
    source: str | None = None
    apple = values.get(_APPLE_LOCATION)
    if isinstance(apple, str):
        location_raw, source = apple, _APPLE_LOCATION
    else:
        for box in boxes:
            if box.type == b"\xa9xyz" and box.path[-1:] == (b"udta",):
                payload = moov[box.payload_start : box.end]
                if len(payload) >= 4:
                    (length,) = struct.unpack_from(">H", payload)
                    text = payload[4 : 4 + length]
                    location_raw = text.decode("utf-8", errors="replace")
                    source = "©xyz"
                    break
    if location_raw is not None:
        metadata["location_raw"] = location_raw
        try:
            metadata["location"] = parse_iso6709(location_raw)
            metadata["location_source"] = source
        except ValueError as exc:
            warnings.append(f"location {location_raw[:40]!r} is not readable: {exc}")

    created = values.get(_APPLE_CREATED)
    if isinstance(created, str):
        stated = created.strip()
        # Apple writes "2022-04-08T10:31:02+0300"; ISO 8601 extended form wants "+03:00".
        fixed = re.sub(r"([+-][0-9]{2})([0-9]{2})$", r"\1:\2", stated)
        try:
            metadata["captured_at"] = datetime.fromisoformat(fixed).isoformat()
        except ValueError:
            metadata["captured_at"] = stated
    return metadata, warnings


# -- hachoir -----------------------------------------------------------------------------------
def _groups(meta: Any) -> list[Any]:
    groups = [meta]
    iter_groups = getattr(meta, "iterGroups", None)
    if iter_groups is not None:
        groups.extend(iter_groups())
    return groups


def _first(groups: list[Any], key: str) -> Any:
    for group in groups:
        try:
            if group.has(key):
                return group.get(key)
        except (ValueError, KeyError, AttributeError):
            continue
    return None


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def hachoir_metadata(path: str, container: str) -> tuple[dict[str, JSONValue], list[str]]:
    """What hachoir reads from the file. Raises ``UnreadableContent`` if it reads nothing."""
    metadata: dict[str, JSONValue] = {}
    warnings: list[str] = []
    try:
        parser = _hachoir().parser.createParser(path)
    except Exception as exc:  # hachoir raises anything at all on hostile input
        raise UnreadableContent(f"hachoir cannot open the file: {exc}") from exc
    if parser is None:
        raise UnreadableContent(f"hachoir does not recognise this {container} file")
    with parser:
        try:
            meta = _hachoir().metadata.extractMetadata(parser)
        except Exception as exc:  # as above
            raise UnreadableContent(f"damaged {container} file: {exc}") from exc
        mime = getattr(parser, "mime_type", None)
    if meta is None:
        raise UnreadableContent(f"hachoir found no metadata in this {container} file")
    groups = _groups(meta)

    duration = _first(groups, "duration")
    if isinstance(duration, timedelta):
        metadata["duration"] = duration.total_seconds()
    created = _first(groups, "creation_date")
    if isinstance(created, datetime):
        if created.year <= _MP4_EPOCH_YEAR and container in ("mp4", "quicktime", "3gp", "m4a"):
            pass  # a zero MP4 time: "not set", not 1904
        elif created.tzinfo is None and container in _UTC_CONTAINERS:
            metadata["created"] = created.isoformat() + "+00:00"
        else:
            metadata["created"] = created.isoformat()
    for key, hachoir_key in (
        ("width", "width"),
        ("height", "height"),
        ("sample_rate", "sample_rate"),
        ("channels", "nb_channel"),
        ("bit_rate", "bit_rate"),
    ):
        value = _finite(_first(groups, hachoir_key))
        if value is not None and value > 0:
            metadata[key] = int(value) if value.is_integer() else value
    frame_rate = _finite(_first(groups, "frame_rate"))
    if frame_rate is not None and frame_rate > 0:
        metadata["frame_rate"] = frame_rate
    for key, hachoir_key in (("title", "title"), ("author", "author")):
        value = _first(groups, hachoir_key)
        if isinstance(value, str) and value.strip():
            metadata[key] = value.strip()
    codecs: list[JSONValue] = []
    for group in groups:
        try:
            if group.has("compression"):
                codec = str(group.get("compression"))
                if codec not in codecs:
                    codecs.append(codec)
        except (ValueError, KeyError, AttributeError):
            continue
    if codecs:
        metadata["codecs"] = codecs
    if isinstance(mime, str) and mime:
        metadata["mime_type"] = mime
    return metadata, warnings


class MediaHandler:
    """Reads audio and video containers with hachoir and our own MP4 box walker."""

    name = "media"
    media_type = "application/octet-stream"  # per file in the result: video/mp4, audio/wav, ...

    def bid(self, sniff: Sniff) -> int:
        kind = container_kind(sniff.head, sniff.size)
        if kind is None:
            return BID_NONE
        if kind == "mp3" and not sniff.head.startswith(b"ID3"):
            # A bare frame header is four bytes of evidence; the name has to agree.
            if extension(sniff.name) in (".mp3", ".mpga"):
                return BID_SIGNATURE
            # UTF-16-LE's byte-order mark (FF FE) before a letter passes as a frame header:
            # content that reads as text is text.
            if looks_like_text(sniff.head, complete=len(sniff.head) >= sniff.size):
                return BID_NONE
            return BID_WEAK
        if kind == "quicktime" and sniff.head[4:8] != b"ftyp":
            return BID_WEAK + 20
        return BID_SIGNATURE

    def parse(self, source: ParseSource) -> ParseResult:
        try:
            with open(source.path, "rb") as stream:
                size = os.fstat(stream.fileno()).st_size
                head = stream.read(64)
                kind = container_kind(head, size) or "media"
                qt_warnings: list[str] = []
                moov = None
                if kind in ("mp4", "quicktime", "3gp", "m4a"):
                    moov = _top_level_moov(stream, size, qt_warnings)
        except OSError as exc:
            raise UnreadableContent(f"cannot read the stored original: {exc}") from exc

        qt_meta: dict[str, JSONValue] = {}
        if moov is not None:
            qt_meta, more = quicktime_metadata(moov)
            qt_warnings.extend(more)
        try:
            metadata, warnings = hachoir_metadata(str(source.path), kind)
        except UnreadableContent as exc:
            if not qt_meta:
                raise
            # The boxes were readable even if hachoir was not: keep what they said.
            metadata, warnings = {}, [str(exc)]
        metadata = {"container": kind, **metadata, **qt_meta}
        if kind in ("mp4", "quicktime", "3gp", "m4a"):
            metadata["brand"] = (
                head[8:12].decode("latin-1").strip() if head[4:8] == b"ftyp" else None
            )
        mime = metadata.get("mime_type")
        result = ParseResult(
            format="media",
            media_type=mime
            if isinstance(mime, str)
            else _MIME.get(kind, "application/octet-stream"),
            tool=f"hachoir {_hachoir().__version__}",
            metadata=metadata,
            warnings=qt_warnings + warnings,
        )
        return result
