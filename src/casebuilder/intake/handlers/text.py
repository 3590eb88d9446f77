"""Plain text and Markdown: decode the bytes, count lines, find a Markdown title.

Intake stage. The ingest orchestrator calls this handler after the original has been stored bit
for bit, when its bid (content that decodes as text, or a .txt/.md/.markdown name) is the
highest. It also lends :func:`decode_text` to the HTML and e-mail handlers, so every handler
decodes and reports encodings the same way.

The text is kept exactly as decoded (only a leading byte-order mark is dropped): line endings
are not normalised, because the offsets of claims extracted later point into this string and
must be reproducible from the stored original by anyone who decodes it the same way.
"""

from __future__ import annotations

import codecs
import platform
import re
from dataclasses import dataclass
from pathlib import PurePath

from casebuilder.errors import UnreadableContent
from casebuilder.intake.handlers.base import (
    BID_NONE,
    BID_WEAK,
    JSONValue,
    ParseResult,
    ParseSource,
    Sniff,
)

TEXT_EXTENSIONS = frozenset({".txt", ".md", ".markdown"})
MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown"})

#: Bid for content that merely decodes as text: below every content sign of a real format, so
#: HTML, e-mail and the rest win over it, but above nothing.
BID_TEXT_CONTENT = BID_WEAK - 20

DEFAULT_MAX_TEXT_BYTES = 256 * 1024 * 1024

# Byte-order marks, longest first: the UTF-32 LE mark begins with the UTF-16 LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# C0 controls that ordinary text does not contain. Tab, LF, VT, FF, CR and ESC (ANSI colours in
# logs) are allowed; NUL is handled on its own because it alone rules text out.
_CONTROL_BYTES = bytes([*range(0x01, 0x09), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
_CONTROL_CHARS = frozenset(chr(b) for b in _CONTROL_BYTES) | {"\x00"}
_MAX_CONTROL_SHARE = 0.01

#: UTF-16 without a byte-order mark: text in the Latin, Cyrillic, Greek or Arabic scripts has a
#: NUL as the high byte of every ASCII character (spaces, digits, line breaks), so at least this
#: share of the code units carries a NUL on one side, and almost none on the other.
_UTF16_MIN_NUL_SHARE = 0.05
_UTF16_MAX_OTHER_NUL_SHARE = 0.01
_UTF16_MIN_PRINTABLE = 0.97
_UTF16_SNIFF = 64 * 1024

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ATX_H1 = re.compile(r"^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Decoded:
    """Bytes turned into text, with how that was done."""

    text: str
    encoding: str  # Python codec name actually used
    bom: bool  # a byte-order mark was present (and is not part of ``text``)
    warning: str | None  # set when the encoding was guessed or bytes had to be replaced


def _bom(data: bytes) -> tuple[bytes, str] | None:
    for mark, encoding in _BOMS:
        if data.startswith(mark):
            return mark, encoding
    return None


def _codec(name: str) -> str | None:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def utf16_without_bom(head: bytes, *, complete: bool = False) -> str | None:
    """"utf-16-le" or "utf-16-be" if ``head`` (the first bytes of a file; ``complete``: all of
    it) is UTF-16 text written without a byte-order mark, else None. Never raises.

    It must show NUL bytes on one side only (the high bytes of ASCII characters), decode
    cleanly and read as printable text. Text with no ASCII character at all (all Chinese, say)
    shows no NULs and is not recognised this way."""
    size = len(head) - len(head) % 2
    if size < 4 or (complete and size != len(head)):
        return None
    units = size // 2
    even_nuls = head[0:size:2].count(0)
    odd_nuls = head[1:size:2].count(0)
    for encoding, high, low in (("utf-16-le", odd_nuls, even_nuls),
                                ("utf-16-be", even_nuls, odd_nuls)):
        if high < max(1, _UTF16_MIN_NUL_SHARE * units) or \
                low > _UTF16_MAX_OTHER_NUL_SHARE * units:
            continue
        try:
            # incremental: a character cut off at the end of an incomplete head is no fault
            text = codecs.getincrementaldecoder(encoding)().decode(head[:size], final=complete)
        except UnicodeDecodeError:
            continue
        if not text or "\x00" in text:
            continue
        readable = sum(1 for ch in text if ch.isprintable() or ch in "\t\n\r\f")
        if readable >= _UTF16_MIN_PRINTABLE * len(text):
            return encoding
    return None


def decode_text(data: bytes, *, declared: str | None = None) -> Decoded:
    """Decode ``data``: byte-order mark, then UTF-16 recognised without one, then a declared
    charset, then UTF-8, then detection.

    Never raises for any input: the last resort is UTF-8 with U+FFFD replacements, reported in
    ``warning`` so that nobody mistakes a lossy decode for the document's own text.
    """
    bom = _bom(data)
    if bom is not None:
        mark, encoding = bom
        body = data[len(mark) :]
        try:
            return Decoded(body.decode(encoding), encoding, True, None)
        except UnicodeDecodeError as exc:
            text = body.decode(encoding, errors="replace")
            return Decoded(
                text,
                encoding,
                True,
                f"byte-order mark says {encoding} but the bytes are not valid {encoding} "
                f"({exc.reason} at byte {exc.start}); invalid bytes replaced with U+FFFD",
            )

    utf16 = utf16_without_bom(data[:_UTF16_SNIFF], complete=len(data) <= _UTF16_SNIFF)
    if utf16 is not None:
        # Checked before UTF-8: UTF-16 text of ASCII characters is also valid UTF-8, with a NUL
        # after every character.
        try:
            return Decoded(data.decode(utf16), utf16, False, None)
        except UnicodeDecodeError as exc:
            return Decoded(
                data.decode(utf16, errors="replace"),
                utf16,
                False,
                f"read as {utf16} (no byte-order mark, recognised by its NUL bytes) but the "
                f"bytes are not valid {utf16} ({exc.reason} at byte {exc.start}); invalid "
                "bytes replaced with U+FFFD",
            )
    if declared:
        codec = _codec(declared)
        if codec is not None and codec != "utf-8":
            try:
                return Decoded(data.decode(codec), codec, False, None)
            except (UnicodeDecodeError, ValueError):
                pass  # the declaration lied; fall through to UTF-8 and detection
    try:
        return Decoded(data.decode("utf-8"), "utf-8", False, None)
    except UnicodeDecodeError:
        pass

    import charset_normalizer  # only for text that is neither marked nor UTF-8

    best = charset_normalizer.from_bytes(data).best()
    if best is not None:
        encoding = best.encoding
        try:
            text = str(best)
        except (UnicodeDecodeError, LookupError):
            # charset-normalizer judges from samples; the whole file may still not decode.
            text = data.decode(encoding, errors="replace")
            return Decoded(
                text,
                encoding,
                False,
                f"not UTF-8; decoded as {encoding} with some bytes replaced by U+FFFD",
            )
        lied = f" (declared {declared!r} does not fit)" if declared else ""
        return Decoded(text, encoding, False, f"not UTF-8; decoded as {encoding}{lied}")
    return Decoded(
        data.decode("utf-8", errors="replace"),
        "utf-8",
        False,
        "not UTF-8 and no other encoding fits; invalid bytes replaced with U+FFFD",
    )


def looks_like_text(head: bytes, *, complete: bool = False) -> bool:
    """Whether the first bytes of a file read as text. Never raises.

    ``complete`` says ``head`` is the whole file; otherwise a multi-byte character cut off at the
    end of the head is not held against it.
    """
    if not head:
        return False
    bom = _bom(head)
    if bom is not None:
        mark, encoding = bom
        try:
            decoder = codecs.getincrementaldecoder(encoding)()
            text = decoder.decode(head[len(mark) :], final=complete)
        except UnicodeDecodeError:
            return False
        controls = sum(1 for ch in text if ch in _CONTROL_CHARS)
        return controls <= _MAX_CONTROL_SHARE * max(len(text), 1)
    if b"\x00" in head:
        return utf16_without_bom(head, complete=complete) is not None
    # Single-byte encodings decode any byte, and UTF-8 bytes of non-ASCII characters are all
    # >= 0x80, so the share of C0 controls is the one test that separates text from binary.
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls <= _MAX_CONTROL_SHARE * len(head)


def count_lines(text: str) -> int:
    """Lines as a reader sees them: CRLF, CR and LF all end a line; a last unended line counts."""
    if not text:
        return 0
    breaks = len(_LINE_BREAK.findall(text))
    return breaks if text.endswith(("\n", "\r")) else breaks + 1


def markdown_title(text: str) -> str | None:
    """The text of the first level-one ATX heading (``# Title``) outside fenced code."""
    fence: str | None = None
    for line in text.splitlines():
        marker = _FENCE.match(line)
        if marker:
            run = marker.group(1)
            if fence is None:
                fence = run[0] * 3
            elif run.startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        heading = _ATX_H1.match(line)
        if heading and heading.group(1).strip():
            return heading.group(1).strip()
    return None


def read_capped(source: ParseSource, max_bytes: int, what: str) -> bytes:
    """Read a whole stored original, refusing one larger than ``max_bytes``."""
    if source.size > max_bytes:
        raise UnreadableContent(
            f"{what} is {source.size:,} bytes, over the {max_bytes:,}-byte limit for reading it"
        )
    try:
        with open(source.path, "rb") as stream:
            data = stream.read(max_bytes + 1)
    except OSError as exc:
        raise UnreadableContent(f"cannot read the stored original: {exc}") from exc
    if len(data) > max_bytes:
        raise UnreadableContent(f"{what} is over the {max_bytes:,}-byte limit for reading it")
    return data


def extension(name: str) -> str:
    """The lower-cased last suffix of a received file name ('' if none). Never raises."""
    # PurePath treats '/' as a separator, and received names may contain anything; only the
    # part after the last separator can carry the extension anyway.
    return PurePath(name.replace("\\", "/").rsplit("/", 1)[-1] or "_").suffix.lower()


def _charset_normalizer_version() -> str:
    import charset_normalizer

    return str(charset_normalizer.__version__)


class TextHandler:
    """Reads plain text and Markdown."""

    name = "text"
    media_type = "text/plain"

    def __init__(self, *, max_bytes: int = DEFAULT_MAX_TEXT_BYTES) -> None:
        self.max_bytes = max_bytes

    def bid(self, sniff: Sniff) -> int:
        if sniff.size == 0 or not looks_like_text(
            sniff.head, complete=len(sniff.head) >= sniff.size
        ):
            return BID_NONE
        if extension(sniff.name) in TEXT_EXTENSIONS:
            return BID_WEAK
        return BID_TEXT_CONTENT

    def parse(self, source: ParseSource) -> ParseResult:
        data = read_capped(source, self.max_bytes, "text file")
        decoded = decode_text(data)
        is_markdown = extension(source.name) in MARKDOWN_EXTENSIONS
        tool = (
            f"charset-normalizer {_charset_normalizer_version()}"
            if decoded.warning and decoded.warning.startswith("not UTF-8")
            else f"python-codecs {platform.python_version()}"
        )
        result = ParseResult(
            format="text",
            media_type="text/markdown" if is_markdown else "text/plain",
            tool=tool,
            text=decoded.text,
        )
        metadata: dict[str, JSONValue] = {
            "encoding": decoded.encoding,
            "bom": decoded.bom,
            "line_count": count_lines(decoded.text),
        }
        if is_markdown:
            title = markdown_title(decoded.text)
            if title is not None:
                metadata["title"] = title
        result.metadata = metadata
        if decoded.warning:
            result.warnings.append(decoded.warning)
        if "\x00" in decoded.text:
            result.warnings.append("contains NUL characters: this may not be a text file")
        return result
