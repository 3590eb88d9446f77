"""The format handlers, and the choice of which one reads a file.

Intake stage. The ingest orchestrator stores each original first, then sniffs it (its first
64 KiB and its name), asks :func:`choose_handler` for the handler that bids highest, and hands
the stored file to that handler's ``parse``. :func:`describe_mismatch` explains a file no
handler should read: an empty file, or one whose name claims a format its content contradicts.

Content decides, never the name alone: a file named ``.pdf`` that does not start like a PDF is
not read as a PDF, nor (so that the mismatch is not papered over) as text. A file whose content
carries another format's signature is read as that format, since the content is what it is; the
mismatch is still reported by :func:`describe_mismatch`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from casebuilder.intake.handlers.archive import ArchiveHandler, ArchiveLimits, looks_like_zip
from casebuilder.intake.handlers.base import BID_NONE, BID_SIGNATURE, FormatHandler, Sniff
from casebuilder.intake.handlers.email import EmailHandler, EmailLimits
from casebuilder.intake.handlers.html import HtmlHandler
from casebuilder.intake.handlers.image import DEFAULT_MAX_PIXELS, ImageHandler, image_kind
from casebuilder.intake.handlers.media import MediaHandler, container_kind
from casebuilder.intake.handlers.pdf import DEFAULT_MAX_PAGES, PdfHandler, looks_like_pdf
from casebuilder.intake.handlers.text import DEFAULT_MAX_TEXT_BYTES, TextHandler, extension

__all__ = [
    "ArchiveLimits",
    "EmailLimits",
    "choose_handler",
    "default_handlers",
    "describe_mismatch",
]

_PREVIEW_BYTES = 8


def default_handlers(
    *,
    archive_limits: ArchiveLimits | None = None,
    email_limits: EmailLimits | None = None,
    max_pdf_pages: int = DEFAULT_MAX_PAGES,
    max_image_pixels: int = DEFAULT_MAX_PIXELS,
    max_text_bytes: int = DEFAULT_MAX_TEXT_BYTES,
) -> list[FormatHandler]:
    """Every handler, most specific first (list order breaks ties between equal bids)."""
    return [
        PdfHandler(max_pages=max_pdf_pages),
        ImageHandler(max_pixels=max_image_pixels),
        MediaHandler(),
        ArchiveHandler(archive_limits),
        EmailHandler(email_limits),
        HtmlHandler(max_bytes=max_text_bytes),
        TextHandler(max_bytes=max_text_bytes),
    ]


def _pdf(sniff: Sniff) -> bool:
    return looks_like_pdf(sniff.head)


def _zip(sniff: Sniff) -> bool:
    return looks_like_zip(sniff.head)


def _image(kind: str) -> Callable[[Sniff], bool]:
    return lambda sniff: image_kind(sniff.head) == kind


def _media(*kinds: str) -> Callable[[Sniff], bool]:
    return lambda sniff: container_kind(sniff.head, sniff.size) in kinds


_MP4 = ("an MP4/QuickTime file", _media("mp4", "quicktime", "3gp", "m4a"))
_MATROSKA = ("a Matroska/WebM file", _media("matroska", "webm"))
_OGG = ("an Ogg file", _media("ogg"))

#: Extensions that claim a format with a signature, and the check the content must pass.
EXTENSION_CLAIMS: dict[str, tuple[str, Callable[[Sniff], bool]]] = {
    ".pdf": ("a PDF", _pdf),
    ".jpg": ("a JPEG image", _image("JPEG")),
    ".jpeg": ("a JPEG image", _image("JPEG")),
    ".png": ("a PNG image", _image("PNG")),
    ".gif": ("a GIF image", _image("GIF")),
    ".webp": ("a WebP image", _image("WEBP")),
    ".tif": ("a TIFF image", _image("TIFF")),
    ".tiff": ("a TIFF image", _image("TIFF")),
    ".heic": ("a HEIF image", _image("HEIF")),
    ".heif": ("a HEIF image", _image("HEIF")),
    ".avif": ("an AVIF image", _image("AVIF")),
    ".mp4": _MP4,
    ".m4v": _MP4,
    ".m4a": _MP4,
    ".mov": _MP4,
    ".3gp": _MP4,
    ".mkv": _MATROSKA,
    ".mka": _MATROSKA,
    ".webm": _MATROSKA,
    ".avi": ("an AVI file", _media("avi")),
    ".wav": ("a WAV file", _media("wav")),
    ".mp3": ("an MP3 file", _media("mp3")),
    ".ogg": _OGG,
    ".oga": _OGG,
    ".ogv": _OGG,
    ".opus": _OGG,
    ".flac": ("a FLAC file", _media("flac")),
    ".zip": ("a ZIP archive", _zip),
}


def _preview(head: bytes) -> str:
    # repr() escapes control bytes and non-ASCII, so a hostile head cannot forge a message.
    return repr(head[:_PREVIEW_BYTES])[2:-1]


def describe_mismatch(sniff: Sniff) -> str | None:
    """Why a file should not be read as its name says, or None if nothing is amiss.

    "empty file" for an empty file; "named .pdf but the content is not a PDF (starts with
    'hello wo...')" when the extension claims a format whose signature the content lacks.
    """
    if sniff.size == 0:
        return "empty file"
    ext = extension(sniff.name)
    claim = EXTENSION_CLAIMS.get(ext)
    if claim is None:
        return None
    label, check = claim
    if check(sniff):
        return None
    return f"named {ext} but the content is not {label} (starts with '{_preview(sniff.head)}...')"


def choose_handler(sniff: Sniff, handlers: Sequence[FormatHandler]) -> FormatHandler | None:
    """The handler that bids highest (the earliest on a tie), or None if none should read it.

    None for an empty file, when every bid is 0, and when the name claims a signature format
    the content lacks and no handler recognised a signature of its own (junk named .pdf is not
    quietly read as text): :func:`describe_mismatch` then says why.
    """
    if sniff.size == 0:
        return None
    best: FormatHandler | None = None
    best_bid = BID_NONE
    for handler in handlers:
        bid = handler.bid(sniff)
        if bid > best_bid:
            best, best_bid = handler, bid
    if best is None:
        return None
    if best_bid < BID_SIGNATURE and describe_mismatch(sniff) is not None:
        return None
    return best
