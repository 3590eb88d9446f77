"""PDF documents: document information, page count and the text of every page.

Intake stage. The ingest orchestrator calls this handler after the original has been stored,
when ``%PDF-`` appears in the first 1024 bytes (where PDF readers look for it). pypdf reads the
file: first strictly, and only if that fails, leniently, so that a damaged file is both read as
far as it can be and flagged as damaged.

Page texts are joined with ``PAGE_SEPARATOR`` ("\\n\\f\\n": a form feed, the traditional page
break that pdftotext also emits, on a line of its own). ``metadata["page_offsets"]`` gives the
offset in ``text`` at which each page's text starts, so a claim's offset maps back to a page.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
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
    active_content_alert,
)

if TYPE_CHECKING:
    import pypdf

PAGE_SEPARATOR = "\n\f\n"
DEFAULT_MAX_PAGES = 5_000
_MAX_LOGGED = 10  # pypdf repair notes kept as warnings; a broken file can log thousands
_MAX_PAGE_WARNINGS = 20

_PDF_DATE = re.compile(
    r"(?:D:)?(?P<digits>[0-9]{4,14})"
    r"(?P<tz>Z(?:00'?(?:00'?)?)?|[+-][0-9]{2}(?:'?[0-9]{2}'?|')?)?"
)
_INFO_FIELDS = (
    ("title", "/Title"),
    ("author", "/Author"),
    ("subject", "/Subject"),
    ("creator", "/Creator"),
    ("producer", "/Producer"),
)
_DATE_FIELDS = (("created", "/CreationDate"), ("modified", "/ModDate"))


#: Names that make a PDF do something when opened or clicked, and how the summary calls them.
_ACTIVE_NAMES = {
    "/JS": "JavaScript",
    "/JavaScript": "JavaScript",
    "/AA": "automatic actions (/AA)",
    "/Launch": "a Launch action",
    "/EmbeddedFile": "embedded files",
    "/EmbeddedFiles": "embedded files",
    "/EF": "embedded files",
    "/XFA": "an XFA form",
    "/RichMedia": "rich media",
}
_NAME_TOKEN = re.compile(rb"/[A-Za-z0-9#]+")
_HEX_ESCAPE = re.compile(rb"#([0-9A-Fa-f]{2})")
_MAX_WALKED = 500_000  # PDF objects (and values inside them) looked at for active content


def _raw_names(data: bytes) -> set[str]:
    """Active-content names written anywhere in the bytes, "#xx" escapes undone (/J#61vaScript
    is /JavaScript to a reader): catches what the document's structure does not reach (a
    damaged file, objects left outside the cross-reference table); misses compressed object
    streams, which the structural walk reads."""
    found: set[str] = set()
    for token in _NAME_TOKEN.findall(data):
        name = _HEX_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), token)
        text = name.decode("latin-1")
        if text in _ACTIVE_NAMES or text == "/OpenAction":
            found.add(text)
    return found


def _walk_objects(reader: pypdf.PdfReader) -> Iterator[Any]:
    """Every object of the document once (the trailer, each numbered object, and the values
    nested in them), including objects kept in compressed object streams."""
    from pypdf.generic import IndirectObject

    numbers: set[int] = set()
    for table in reader.xref.values():
        numbers.update(table)
    numbers.update(getattr(reader, "xref_objStm", {}) or {})
    roots: list[Any] = [reader.trailer, *(_object(reader, n) for n in sorted(numbers))]
    seen = 0
    stack = roots
    while stack and seen < _MAX_WALKED:
        value = stack.pop()
        seen += 1
        if isinstance(value, IndirectObject):
            continue  # visited as a numbered object of its own
        yield value
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def _object(reader: pypdf.PdfReader, number: int) -> Any:
    """Object ``number`` of the document, or None when it cannot be read (a damaged object:
    the raw scan still sees the names written in it)."""
    try:
        return reader.get_object(number)
    except Exception:  # noqa: BLE001 - pypdf raises anything at all on hostile files
        return None


def active_content(data: bytes, reader: pypdf.PdfReader | None) -> list[str]:
    """What in the PDF can act when it is opened or clicked: JavaScript (and whether the
    document runs it on opening), automatic actions, Launch actions, embedded files, XFA
    forms, rich media. Read from the document's objects, and from its raw bytes for what the
    structure does not reach; nothing is ever run."""
    labels: dict[str, None] = {}
    seen: set[str] = set()  # active names met in the document's objects
    open_kind: str | None = None
    scripts = launches = 0
    if reader is not None:
        try:
            root: Any = reader.trailer["/Root"].get_object()
            action = root.get("/OpenAction")
            action = action.get_object() if action is not None else None
            if isinstance(action, dict):
                kind = str(action.get("/S", ""))
                if kind and kind != "/GoTo":  # GoTo opens at a page: nothing runs
                    open_kind = kind.lstrip("/")
                    labels[f"{open_kind} OpenAction"] = None
            for value in _walk_objects(reader):
                if not isinstance(value, dict):
                    continue
                names = {str(key) for key in value} | {str(value.get("/S", "")),
                                                       str(value.get("/Type", ""))}
                found = names & set(_ACTIVE_NAMES)
                seen |= found
                scripts += bool(found & {"/JS", "/JavaScript"})
                launches += "/Launch" in found
                for name in sorted(found - {"/JS", "/JavaScript", "/Launch"}):
                    labels[_ACTIVE_NAMES[name]] = None
        except Exception:  # noqa: BLE001 - a damaged structure: the raw scan below stands in
            reader = None
    # beyond the OpenAction's own script or launch, if that is what it is
    if scripts > (1 if open_kind == "JavaScript" else 0):
        labels["JavaScript"] = None
    if launches > (1 if open_kind == "Launch" else 0):
        labels[_ACTIVE_NAMES["/Launch"]] = None
    for name in sorted(_raw_names(data) - seen - {"/OpenAction"}):
        label = _ACTIVE_NAMES[name]
        if label not in labels:
            labels[label if reader is None else f"{label} (in the raw bytes only)"] = None
    return list(labels)


def looks_like_pdf(head: bytes) -> bool:
    """``%PDF-`` within the first 1024 bytes, where readers accept it (after junk, e.g. mail)."""
    return b"%PDF-" in head[:1024]


def parse_pdf_date(value: str) -> str:
    """Convert a PDF date string (``D:YYYYMMDDHHmmSSOHH'mm'``) to ISO 8601.

    Missing fields take the PDF standard's defaults (month and day 1, the rest 0). Without a
    time-zone part the result has no offset: the PDF does not say, so neither do we. Raises
    ``ValueError`` for anything else.
    """
    match = _PDF_DATE.fullmatch(value.strip().strip("\x00").strip())
    if not match:
        raise ValueError(f"not a PDF date: {value[:40]!r}")
    digits = match.group("digits")
    if len(digits) % 2:
        raise ValueError(f"PDF date has an odd number of digits: {value[:40]!r}")
    fields = [int(digits[:4])] + [int(digits[i : i + 2]) for i in range(4, len(digits), 2)]
    year, month, day, hour, minute, second = fields + [1, 1, 0, 0, 0][len(fields) - 1 :]
    tz_part = match.group("tz")
    tz: timezone | None = None
    if tz_part:
        if tz_part.startswith("Z"):
            tz = UTC
        else:
            numbers = tz_part[1:].replace("'", "")
            hours = int(numbers[:2])
            minutes = int(numbers[2:4]) if len(numbers) >= 4 else 0
            if hours > 23 or minutes > 59:
                raise ValueError(f"PDF date has an impossible offset: {value[:40]!r}")
            sign = -1 if tz_part[0] == "-" else 1
            tz = timezone(sign * timedelta(hours=hours, minutes=minutes))
    return datetime(year, month, day, hour, minute, second, tzinfo=tz).isoformat()


class _ListHandler(logging.Handler):
    def __init__(self, sink: list[str]) -> None:
        super().__init__(level=logging.WARNING)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record.getMessage())


@contextmanager
def _pypdf_notes() -> Iterator[list[str]]:
    """Collect pypdf's log warnings (its repair notes) instead of letting them reach stderr.

    pypdf reports repairs through ``logging`` only; they belong on the item, not on a console.
    """
    logger = logging.getLogger("pypdf")
    notes: list[str] = []
    handler = _ListHandler(notes)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield notes
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


@dataclass
class _Opened:
    reader: pypdf.PdfReader
    page_count: int | None
    decrypted: bool


def _open(data: bytes, *, strict: bool) -> _Opened:
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data), strict=strict)
    decrypted = True
    if reader.is_encrypted:
        try:
            decrypted = bool(reader.decrypt(""))
        except Exception:  # noqa: BLE001 - unsupported algorithm or broken encryption dictionary
            decrypted = False
    page_count: int | None = None
    if decrypted:
        page_count = len(reader.pages)
    else:
        try:
            page_count = len(reader.pages)
        except Exception:  # noqa: BLE001 - the page tree may be unreadable without the key
            page_count = None
    return _Opened(reader, page_count, decrypted)


def _text_value(value: Any) -> str | None:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        return None
    value = value.replace("\x00", "").strip()
    return value or None


def _document_info(reader: pypdf.PdfReader) -> tuple[dict[str, JSONValue], list[str]]:
    metadata: dict[str, JSONValue] = {}
    warnings: list[str] = []
    # pypdf raises anything at all on hostile files; a part that fails becomes a warning.
    try:
        info = reader.metadata
    except Exception as exc:  # noqa: BLE001
        return metadata, [f"document information could not be read: {exc}"]
    if info is None:
        return metadata, warnings
    for key, pdf_key in _INFO_FIELDS + _DATE_FIELDS:
        try:
            raw = _text_value(info[pdf_key]) if pdf_key in info else None
        except Exception as exc:  # noqa: BLE001
            warnings.append(f"document information {pdf_key} could not be read: {exc}")
            continue
        if raw is None:
            continue
        if (key, pdf_key) in _DATE_FIELDS:
            try:
                metadata[key] = parse_pdf_date(raw)
            except ValueError:
                metadata[f"{key}_raw"] = raw
                warnings.append(f"{pdf_key} is not a PDF date: {raw[:60]!r}")
        else:
            metadata[key] = raw
    return metadata, warnings


def _pypdf_version() -> str:
    import pypdf

    return str(pypdf.__version__)


def _active_note(data: bytes) -> str:
    found = active_content(data, None)
    return f"; contains active content: {', '.join(found)}" if found else ""


class PdfHandler:
    """Reads PDF documents with pypdf."""

    name = "pdf"
    media_type = "application/pdf"

    def __init__(self, *, max_pages: int = DEFAULT_MAX_PAGES) -> None:
        self.max_pages = max_pages

    def bid(self, sniff: Sniff) -> int:
        return BID_SIGNATURE if looks_like_pdf(sniff.head) else BID_NONE

    def prepare(self) -> None:
        """Import pypdf in the parse server, once, before it forks a reader per file (the
        ingesting process itself only bids, and need not load it)."""
        import pypdf  # noqa: F401

    def parse(self, source: ParseSource) -> ParseResult:
        import pypdf

        try:
            data = source.path.read_bytes()
        except OSError as exc:
            raise UnreadableContent(f"cannot read the stored original: {exc}") from exc
        result = ParseResult(
            format="pdf", media_type="application/pdf", tool=f"pypdf {pypdf.__version__}"
        )
        with _pypdf_notes() as notes:
            try:
                opened = _open(data, strict=True)
            except Exception as strict_exc:
                strict_reason = str(strict_exc) or type(strict_exc).__name__
                notes.clear()  # what the failed strict pass logged is superseded
                try:
                    opened = _open(data, strict=False)
                except Exception as lenient_exc:
                    raise UnreadableContent(
                        f"truncated or damaged PDF: {strict_reason} (lenient reading "
                        f"failed too: {lenient_exc or type(lenient_exc).__name__})"
                        + _active_note(data)
                    ) from lenient_exc
                if not opened.page_count:
                    raise UnreadableContent(
                        f"truncated or damaged PDF: {strict_reason} (no page could be recovered)"
                        + _active_note(data)
                    ) from strict_exc
                result.warnings.append(
                    f"damaged PDF: {strict_reason}; read leniently, keeping what could be read"
                )
            self._fill(opened, result, source)
            self._flag_active_content(data, opened.reader, result)
        seen: set[str] = set()
        for note in notes:
            if note not in seen and len(seen) < _MAX_LOGGED:
                seen.add(note)
                result.warnings.append(f"pypdf: {note}")
        return result

    @staticmethod
    def _flag_active_content(data: bytes, reader: pypdf.PdfReader, result: ParseResult) -> None:
        found = active_content(data, reader)
        if found:
            result.metadata["active_content"] = list(found)
            result.alerts.append(active_content_alert(found))

    def _fill(self, opened: _Opened, result: ParseResult, source: ParseSource) -> None:
        reader = opened.reader
        metadata: dict[str, JSONValue] = {
            "encrypted": bool(reader.is_encrypted),
            "page_count": opened.page_count,
        }
        header = getattr(reader, "pdf_header", "")
        if isinstance(header, str) and header.startswith("%PDF-"):
            metadata["pdf_version"] = header[5:].strip()
        result.metadata = metadata
        if not opened.decrypted:
            result.warnings.append(
                "encrypted PDF that needs a password: document information and text not read"
            )
            return
        info, warnings = _document_info(reader)
        metadata.update(info)
        result.warnings.extend(warnings)

        page_count = opened.page_count or 0
        pages = min(page_count, self.max_pages)
        if page_count > self.max_pages:
            result.warnings.append(
                f"PDF has {page_count:,} pages; text taken from the first {self.max_pages:,} only"
            )
        texts: list[str] = []
        failed: list[int] = []
        for index in range(pages):
            try:
                page_text = reader.pages[index].extract_text() or ""
            except Exception as exc:  # noqa: BLE001 - one bad page must not cost the others
                failed.append(index + 1)
                if len(failed) <= _MAX_PAGE_WARNINGS:
                    result.warnings.append(f"page {index + 1}: text could not be extracted: {exc}")
                page_text = ""
            texts.append(page_text)
        if len(failed) > _MAX_PAGE_WARNINGS:
            result.warnings.append(f"text could not be extracted from {len(failed):,} pages in all")

        if not any(t.strip() for t in texts):
            if pages:
                result.warnings.append("no text layer (a scan?): no text extracted; OCR not run")
            return
        offsets: list[JSONValue] = []
        position = 0
        for page_text in texts:
            offsets.append(position)
            position += len(page_text) + len(PAGE_SEPARATOR)
        metadata["page_offsets"] = offsets
        text = PAGE_SEPARATOR.join(texts)
        result.text = text
        result.derivatives.append(
            Derivative(
                kind="text",
                name=f"{source.name}.txt",
                media_type="text/plain; charset=utf-8",
                data=text.encode("utf-8"),
                tool="pypdf",
                tool_version=str(_pypdf_version()),
            )
        )
