"""Still images (JPEG, PNG, GIF, WebP, TIFF; AVIF and HEIC where Pillow reads them).

Intake stage. The ingest orchestrator calls this handler after the original has been stored,
when the file starts with an image signature. Pillow reads the dimensions and the EXIF block
(capture time, camera, software, GPS position, orientation), then decodes the pixels to make a
JPEG thumbnail of at most 512 px a side.

Decoding is where hostile images bite, so the pixel count is checked from the header before
anything is decoded (a "decompression bomb" is refused), and Pillow's own bomb warning is
treated as an error while this handler runs.

A truncated or damaged image raises :class:`ImageDataUnreadable` (an ``UnreadableContent``).
The header and EXIF block of such a file are usually intact, and for evidence they matter more
than the pixels, so the exception carries what was read (``partial_metadata``) and its message
names the capture time and position, which intake records on the item either way.
"""

from __future__ import annotations

import io
import math
import re
import struct
import warnings
import zlib
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from casebuilder.errors import UnreadableContent
from casebuilder.intake.handlers.base import (
    BID_NONE,
    BID_SIGNATURE,
    Derivative,
    JSONValue,
    ParseResult,
    ParseSource,
    Sniff,
)

if TYPE_CHECKING:
    from PIL import Image


#: Pillow's own default limit; the handler's limit can be set lower, never silently higher.
DEFAULT_MAX_PIXELS = 89_478_485
THUMBNAIL_SIZE = 512

_EXIF_IFD = 0x8769
_GPS_IFD = 0x8825
_MAKE, _MODEL, _SOFTWARE, _ORIENTATION = 0x010F, 0x0110, 0x0131, 0x0112
_DATETIME_ORIGINAL, _DATETIME_DIGITIZED = 0x9003, 0x9004
_OFFSET_ORIGINAL, _OFFSET_DIGITIZED = 0x9011, 0x9012
_SUBSEC_ORIGINAL, _SUBSEC_DIGITIZED = 0x9291, 0x9292
_GPS_LAT_REF, _GPS_LAT, _GPS_LON_REF, _GPS_LON = 1, 2, 3, 4
_GPS_ALT_REF, _GPS_ALT, _GPS_TIME, _GPS_DATE = 5, 6, 7, 29

_EXIF_DATE = re.compile(
    r"([0-9]{4})[:-]([0-9]{2})[:-]([0-9]{2})[ T]([0-9]{2}):([0-9]{2}):([0-9]{2})"
)
_EXIF_OFFSET = re.compile(r"[+-](?:[01][0-9]|2[0-3]):[0-5][0-9]")
_GPS_DATE_RE = re.compile(r"([0-9]{4}):([0-9]{2}):([0-9]{2})")

# ISO-BMFF brands of still-image files (HEIF family); the media handler leaves these alone.
HEIF_BRANDS = frozenset(
    {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs", b"mif1", b"msf1"}
)
AVIF_BRANDS = frozenset({b"avif", b"avis"})
IMAGE_BRANDS = HEIF_BRANDS | AVIF_BRANDS


def image_kind(head: bytes) -> str | None:
    """The Pillow format name the signature says, whether or not Pillow can read it."""
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "GIF"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "WEBP"
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "TIFF"
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in AVIF_BRANDS:
            return "AVIF"
        if brand in HEIF_BRANDS:
            return "HEIF"
    return None


def _pillow_reads(kind: str) -> bool:
    extensions = {"AVIF": ".avif", "HEIF": ".heic"}
    if kind not in extensions:
        return True
    from PIL import Image

    return Image.registered_extensions().get(extensions[kind]) is not None


class ImageDataUnreadable(UnreadableContent):
    """The image's pixels cannot be decoded; ``partial_metadata`` holds what its header said."""

    def __init__(self, message: str, partial_metadata: dict[str, JSONValue]) -> None:
        super().__init__(message)
        self.partial_metadata = partial_metadata


def check_png_header(head: bytes) -> None:
    """Raise ``UnreadableContent`` naming the fault if a PNG's IHDR chunk is damaged.

    Pillow only says "cannot identify image file" for every such fault; the investigator is
    better served by knowing the header was corrupted.
    """
    if len(head) < 33:
        raise UnreadableContent("damaged PNG: the file ends inside its header")
    length, chunk_type = struct.unpack(">I4s", head[8:16])
    if chunk_type != b"IHDR" or length != 13:
        raise UnreadableContent("damaged PNG: the first chunk is not a valid IHDR header")
    body = head[12:29]
    (crc,) = struct.unpack(">I", head[29:33])
    if zlib.crc32(body) != crc:
        raise UnreadableContent(
            "damaged PNG: the IHDR header's checksum does not match (the header is corrupted)"
        )
    width, height = struct.unpack(">II", head[16:24])
    if not width or not height or width > 2**31 - 1 or height > 2**31 - 1:
        raise UnreadableContent(f"damaged PNG: impossible dimensions {width}x{height}")


def _text(value: Any) -> str | None:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        return None
    value = value.replace("\x00", "").strip()
    return value or None


def _number(value: Any) -> float:
    number = float(value)  # IFDRational, int or float; a 0 denominator gives nan
    if not math.isfinite(number):
        raise ValueError("not a finite number")
    return number


def _dms(value: Any) -> float:
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        parts = [_number(v) for v in value]
    else:
        parts = [_number(value)]
    if not 1 <= len(parts) <= 3:
        raise ValueError("not degrees, minutes and seconds")
    parts += [0.0] * (3 - len(parts))
    degrees, minutes, seconds = parts
    if min(parts) < 0 or minutes >= 60 or seconds >= 60:
        raise ValueError("degrees, minutes or seconds out of range")
    return degrees + minutes / 60 + seconds / 3600


def _exif_datetime(value: Any, offset: Any, subsec: Any) -> str | None:
    text = _text(value)
    if text is None or text.strip("0: ") == "":
        return None  # blank or all-zero dates are how cameras say "not set"
    match = _EXIF_DATE.fullmatch(text)
    if not match:
        raise ValueError(text)
    parts = [int(p) for p in match.groups()]
    # datetime() validates: an impossible date raises ValueError.
    stamp = datetime(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]).isoformat()
    fraction = _text(subsec)
    if fraction and fraction.isdigit() and fraction.isascii():
        stamp += f".{fraction}"
    zone = _text(offset)
    if zone and _EXIF_OFFSET.fullmatch(zone):
        stamp += zone
    return stamp


def _gps(gps: dict[int, Any], warnings_out: list[str]) -> dict[str, JSONValue]:
    found: dict[str, JSONValue] = {}
    if _GPS_LAT in gps and _GPS_LON in gps:
        try:
            lat = _dms(gps[_GPS_LAT])
            lon = _dms(gps[_GPS_LON])
        except (ValueError, TypeError, ZeroDivisionError) as exc:
            warnings_out.append(f"EXIF GPS position is unreadable: {exc}")
            return found
        lat_ref = (_text(gps.get(_GPS_LAT_REF)) or "").upper()
        lon_ref = (_text(gps.get(_GPS_LON_REF)) or "").upper()
        if lat_ref not in ("N", "S") or lon_ref not in ("E", "W"):
            warnings_out.append(
                f"EXIF GPS hemisphere references missing or odd ({lat_ref!r}, {lon_ref!r}); "
                "taken as north and east"
            )
        if lat_ref == "S":
            lat = -lat
        if lon_ref == "W":
            lon = -lon
        if abs(lat) > 90 or abs(lon) > 180:
            warnings_out.append(f"EXIF GPS position is out of range: {lat}, {lon}")
            return found
        alt: float | None = None
        if _GPS_ALT in gps:
            try:
                alt = _number(gps[_GPS_ALT])
            except (ValueError, TypeError, ZeroDivisionError):
                warnings_out.append("EXIF GPS altitude is unreadable")
            ref = gps.get(_GPS_ALT_REF)
            below = ref in (1, b"\x01") or (
                isinstance(ref, bytes | tuple) and ref[:1] in (b"\x01", (1,))
            )
            if alt is not None and below:
                alt = -alt
        found["gps"] = {"lat": lat, "lon": lon, "alt": alt}
    date = _text(gps.get(_GPS_DATE))
    stamp = gps.get(_GPS_TIME)
    if date and stamp is not None:
        try:
            match = _GPS_DATE_RE.fullmatch(date)
            hours, minutes, seconds = (_number(v) for v in stamp)
            if not match:
                raise ValueError(date)
            year, month, mday = (int(p) for p in match.groups())
            day = datetime(year, month, mday, int(hours), int(minutes), int(seconds))
            found["gps_time"] = day.isoformat() + "Z"  # GPS time stamps are UTC by definition
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            warnings_out.append("EXIF GPS date/time stamp is unreadable")
    return found


def _open_exif(image: Image.Image, warnings_out: list[str]
               ) -> tuple[Image.Exif, dict[int, Any], dict[int, Any]] | None:
    """The EXIF block and its Exif and GPS sub-blocks, with a warning for each part that is
    there but could not be read. Pillow reads damaged EXIF leniently and says little: a bad
    header gives no tags at all, a GPS pointer that leads outside the block gives an empty
    GPS block, and torn entries only raise a Python warning ("Corrupt EXIF data"). Each of
    those would otherwise drop what the camera recorded (the GPS position, the capture time)
    without a word."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exif = image.getexif()
            exif_ifd = dict(exif.get_ifd(_EXIF_IFD))
            gps_ifd = dict(exif.get_ifd(_GPS_IFD))
        except Exception as exc:  # noqa: BLE001 - a damaged EXIF block must not cost the rest
            warnings_out.append(f"EXIF block could not be read: {exc}")
            return None
    for note in dict.fromkeys(str(w.message).strip() for w in caught):
        warnings_out.append(f"EXIF block is damaged ({note}); some of its entries were not read")
    raw = image.info.get("exif")
    if isinstance(raw, bytes) and len(raw) > 6 and not len(exif):
        warnings_out.append(
            f"EXIF block of {len(raw):,} bytes could not be read (its header or first entry "
            "table is damaged): capture time, camera and GPS position, if any, are lost here"
        )
    for tag, what, found in ((_EXIF_IFD, "Exif sub-block (capture time, offsets)", exif_ifd),
                             (_GPS_IFD, "GPS block (position, GPS time)", gps_ifd)):
        if tag in exif and not found:
            warnings_out.append(
                f"EXIF {what} could not be read: its pointer ({_shown_pointer(exif.get(tag))}) "
                "leads outside the EXIF data or to a damaged entry table"
            )
    if (_GPS_LAT in gps_ifd) != (_GPS_LON in gps_ifd):
        warnings_out.append("EXIF GPS block holds a latitude or a longitude, not both: "
                            "no position read")
    return exif, exif_ifd, gps_ifd


def _shown_pointer(value: Any) -> str:
    return f"offset {value}" if isinstance(value, int) else repr(value)[:40]


def read_exif(image: Image.Image, warnings_out: list[str]) -> dict[str, JSONValue]:
    """Capture time, camera, software, orientation and GPS from an opened image's EXIF."""
    metadata: dict[str, JSONValue] = {}
    opened = _open_exif(image, warnings_out)
    if opened is None:
        return metadata
    exif, exif_ifd, gps_ifd = opened
    for key, tag in (("camera_make", _MAKE), ("camera_model", _MODEL), ("software", _SOFTWARE)):
        value = _text(exif.get(tag))
        if value is not None:
            metadata[key] = value
    orientation = exif.get(_ORIENTATION)
    if isinstance(orientation, int) and 1 <= orientation <= 8:
        metadata["orientation"] = orientation
    for tag, offset_tag, subsec_tag in (
        (_DATETIME_ORIGINAL, _OFFSET_ORIGINAL, _SUBSEC_ORIGINAL),
        (_DATETIME_DIGITIZED, _OFFSET_DIGITIZED, _SUBSEC_DIGITIZED),
    ):
        try:
            captured = _exif_datetime(
                exif_ifd.get(tag), exif_ifd.get(offset_tag), exif_ifd.get(subsec_tag)
            )
        except ValueError as exc:
            warnings_out.append(f"EXIF date {tag:#06x} is not a valid date: {str(exc)[:40]!r}")
            continue
        if captured is not None:
            metadata["captured_at"] = captured
            if tag == _DATETIME_DIGITIZED:
                metadata["captured_at_source"] = "DateTimeDigitized"
            break
    try:
        metadata.update(_gps(gps_ifd, warnings_out))
    except Exception as exc:  # noqa: BLE001 - EXIF values may be of any type and size
        warnings_out.append(f"EXIF GPS block could not be read: {exc}")
    return metadata


def _summary(metadata: dict[str, JSONValue]) -> str:
    said = [f"{key} {metadata[key]}" for key in ("captured_at", "gps_time") if key in metadata]
    gps = metadata.get("gps")
    if isinstance(gps, dict):
        said.append(f"GPS {gps.get('lat')}, {gps.get('lon')}")
    return f"; the header was readable ({', '.join(said)})" if said else ""


def make_thumbnail(image: Image.Image, size: int) -> bytes:
    """A JPEG of at most ``size`` px a side, turned upright per EXIF, alpha laid on white."""
    from PIL import Image, ImageOps

    upright = ImageOps.exif_transpose(image)
    if upright.mode in ("RGBA", "LA", "PA") or (
        upright.mode == "P" and "transparency" in upright.info
    ):
        rgba = upright.convert("RGBA")
        canvas = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        upright = Image.alpha_composite(canvas, rgba)
    rgb = upright.convert("RGB")
    rgb.thumbnail((size, size), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    rgb.save(out, format="JPEG", quality=85)
    return out.getvalue()


class ImageHandler:
    """Reads still images with Pillow."""

    name = "image"
    media_type = "image/*"

    def __init__(
        self, *, max_pixels: int = DEFAULT_MAX_PIXELS, thumbnail_size: int = THUMBNAIL_SIZE
    ) -> None:
        self.max_pixels = max_pixels
        self.thumbnail_size = thumbnail_size

    def bid(self, sniff: Sniff) -> int:
        kind = image_kind(sniff.head)
        if kind is None or not _pillow_reads(kind):
            return BID_NONE
        return BID_SIGNATURE

    def prepare(self) -> None:
        """Import Pillow in the parse server, once, before it forks a reader per file (the
        ingesting process itself only bids, and need not load it)."""
        from PIL import Image  # noqa: F401

    def parse(self, source: ParseSource) -> ParseResult:
        from PIL import Image

        try:
            stream = open(source.path, "rb")  # noqa: SIM115 - closed by the with below
        except OSError as exc:
            raise UnreadableContent(f"cannot read the stored original: {exc}") from exc
        with stream, warnings.catch_warnings():
            # Pillow only *warns* between its limit and twice it; here that is a refusal.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            return self._parse(stream, source)

    def _bomb(self, width: int, height: int) -> UnreadableContent:
        return UnreadableContent(
            f"image too large to decode safely: {width}x{height} = {width * height:,} pixels "
            f"(limit {self.max_pixels:,}); possibly a decompression bomb"
        )

    def _parse(self, stream: io.BufferedReader, source: ParseSource) -> ParseResult:
        import PIL
        from PIL import Image, UnidentifiedImageError

        head = stream.read(64)
        stream.seek(0)
        kind = image_kind(head)
        if kind == "PNG":
            check_png_header(head)
        try:
            image = Image.open(stream, formats=[kind] if kind else None)
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise UnreadableContent(f"image too large to decode safely: {exc}") from exc
        except UnidentifiedImageError as exc:
            raise UnreadableContent(
                f"damaged {kind or 'image'}: Pillow cannot identify the image data "
                "(its header is corrupted or it is not really this format)"
            ) from exc
        except Exception as exc:
            raise UnreadableContent(f"damaged {kind or 'image'} header: {exc}") from exc

        with image:
            width, height = image.size
            if width * height > self.max_pixels:
                raise self._bomb(width, height)
            fmt = image.format or kind or "unknown"
            result = ParseResult(
                format="image",
                media_type=Image.MIME.get(fmt, "application/octet-stream"),
                tool=f"Pillow {PIL.__version__}",
            )
            metadata: dict[str, JSONValue] = {
                "width": width,
                "height": height,
                "format": fmt,
                "mode": image.mode,
            }
            try:
                # GIF and WebP find out by reading on to a second frame, which may be damaged.
                if getattr(image, "is_animated", False):
                    metadata["animated"] = True
            except Exception as exc:  # noqa: BLE001 - the pixels are decoded (and judged) below
                result.warnings.append(f"frames could not be counted: {exc}")
            metadata.update(read_exif(image, result.warnings))
            result.metadata = metadata

            if fmt == "JPEG":
                # Decode at the smallest DCT scale that still covers the thumbnail: faster, and
                # a truncated file is detected just the same.
                image.draft(None, (self.thumbnail_size, self.thumbnail_size))
            try:
                image.load()
            except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
                raise UnreadableContent(f"image too large to decode safely: {exc}") from exc
            except Exception as exc:
                reason = str(exc) or type(exc).__name__
                what = "truncated image" if "truncated" in reason.lower() else "damaged image data"
                raise ImageDataUnreadable(
                    f"{what}: {reason}{_summary(metadata)}", metadata
                ) from exc
            try:
                thumbnail = make_thumbnail(image, self.thumbnail_size)
            except Exception as exc:  # noqa: BLE001 - odd modes (16-bit, CMYK+alpha) may not convert
                result.warnings.append(f"no thumbnail made: {exc}")
            else:
                result.derivatives.append(
                    Derivative(
                        kind="thumbnail",
                        name=f"{source.name}.thumb.jpg",
                        media_type="image/jpeg",
                        data=thumbnail,
                        tool="Pillow",
                        tool_version=str(PIL.__version__),
                    )
                )
        return result
