"""HTML pages (saved web pages, news articles): page metadata and the article's main text.

Intake stage. The ingest orchestrator calls this handler after the original has been stored,
when the file starts with HTML markup. Metadata comes from the page's own tags (Open Graph,
article:*, <title>, <link rel=canonical>, <html lang>), read with the standard library's
tolerant HTML parser. The main text comes from trafilatura, a maintained boilerplate remover,
run on the decoded string only: nothing is ever fetched, so the result depends on the stored
bytes alone and is the same every run.

The main text becomes both ``ParseResult.text`` and a "text" derivative, so that the offsets of
claims extracted from it can be checked against a stored file.
"""

from __future__ import annotations

import importlib
import platform
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from typing import Any

from casebuilder.intake.handlers.base import (
    BID_NONE,
    BID_SIGNATURE,
    BID_WEAK,
    Derivative,
    JSONValue,
    ParseResult,
    ParseSource,
    Sniff,
)
from casebuilder.intake.handlers.text import (
    DEFAULT_MAX_TEXT_BYTES,
    decode_text,
    extension,
    looks_like_text,
    read_capped,
    utf16_without_bom,
)

HTML_EXTENSIONS = frozenset({".html", ".htm", ".xhtml", ".shtml"})

#: A tag that only HTML starts with (<html, <!doctype html) versus one that merely suggests it.
BID_HTML_SURE = BID_SIGNATURE
BID_HTML_LIKELY = BID_WEAK + 10
BID_HTML_NAMED = BID_WEAK + 5

_SURE_STARTS = ("<!doctype html", "<html")
_LIKELY_STARTS = ("<head", "<meta", "<body")

_META_CHARSET = re.compile(
    r"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.IGNORECASE
)
# The HTML standard maps these labels to windows-1252, which is what browsers then show.
_WHATWG_ALIASES = {
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
}

_BLOCK_TAGS = frozenset(
    {"address", "article", "aside", "blockquote", "caption", "dd", "details", "div", "dl", "dt",
     "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
     "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
     "tbody", "thead", "tfoot", "tr", "ul"}
)  # fmt: skip
_HIDDEN_TAGS = frozenset({"script", "style", "noscript", "template", "head", "svg", "math"})


def _trafilatura() -> Any:
    """trafilatura, imported on first use: it is heavy, and the parsing itself runs in the
    parse server (intake/isolation.py), so the ingesting process need not load it at all."""
    import trafilatura

    return trafilatura


def _markup_start(head: bytes) -> str:
    """The first 512 characters of the head after any BOM, white space, comments and <?xml?>."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    elif head.startswith((b"\xff\xfe", b"\xfe\xff")):
        head = head[:4096].decode("utf-16", errors="replace").encode("utf-8", errors="replace")
    elif (utf16 := utf16_without_bom(head)) is not None:
        head = head[:4096].decode(utf16, errors="replace").encode("utf-8", errors="replace")
    # latin-1 maps every byte, so this never fails, and the markup we look for is ASCII.
    text = head[:8192].decode("latin-1").lower()
    pos = 0
    for _ in range(64):  # a bound, so a file of nothing but comments cannot keep us here
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if text.startswith("<!--", pos):
            end = text.find("-->", pos + 4)
            if end < 0:
                return ""
            pos = end + 3
        elif text.startswith("<?", pos):
            end = text.find("?>", pos + 2)
            if end < 0:
                return ""
            pos = end + 2
        else:
            break
    return text[pos : pos + 512]


def looks_like_html(head: bytes) -> int:
    """How sure the content is HTML, on the bid scale (0 = no). Never raises."""
    start = _markup_start(head)
    for prefix in _SURE_STARTS:
        if start.startswith(prefix) and (
            len(start) == len(prefix) or not start[len(prefix)].isalnum()
        ):
            return BID_HTML_SURE
    for prefix in _LIKELY_STARTS:
        if start.startswith(prefix) and (
            len(start) == len(prefix) or not start[len(prefix)].isalnum()
        ):
            return BID_HTML_LIKELY
    return BID_NONE


def declared_charset(data: bytes) -> str | None:
    """The charset a <meta> tag declares in the first 1024 bytes, as browsers pre-scan for it."""
    match = _META_CHARSET.search(data[:1024].decode("latin-1"))
    if not match:
        return None
    label = match.group(1).strip().lower()
    return _WHATWG_ALIASES.get(label, label)


class _MetaCollector(HTMLParser):
    """Collects the page's own statements about itself; never interprets scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.metas: dict[str, str] = {}
        self.title: str | None = None
        self.canonical: str | None = None
        self.lang: str | None = None
        self.article_time: str | None = None
        self._title_parts: list[str] | None = None
        self._article_depth = 0
        self._seen_html = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name.lower(): (value or "").strip() for name, value in attrs}
        if tag == "html" and not self._seen_html:
            self._seen_html = True
            if values.get("lang"):
                self.lang = values["lang"]
        elif tag == "title" and self.title is None and self._title_parts is None:
            self._title_parts = []
        elif tag == "meta":
            content = values.get("content", "")
            if content:
                # Sites put Open Graph keys in name= as often as in property=; keep the first.
                for attr in ("property", "name", "itemprop"):
                    key = values.get(attr, "").lower()
                    if key:
                        self.metas.setdefault(key, content)
        elif tag == "link":
            rels = values.get("rel", "").lower().split()
            if "canonical" in rels and values.get("href") and self.canonical is None:
                self.canonical = values["href"]
        elif tag == "article":
            self._article_depth += 1
        elif (
            tag == "time"
            and self._article_depth
            and self.article_time is None
            and values.get("datetime")
        ):
            self.article_time = values["datetime"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self._title_parts is not None:
            self.title = " ".join("".join(self._title_parts).split())
            self._title_parts = None
        elif tag == "article" and self._article_depth:
            self._article_depth -= 1

    def handle_data(self, data: str) -> None:
        if self._title_parts is not None:
            self._title_parts.append(data)


_LINE_BREAK_RUN = re.compile(r"[^\S\n]*\n\s*")  # a run of white space holding a line break
_SPACE_RUN = re.compile(r"[^\S\n]+")
_WHITE = re.compile(r"\s*")
_WINDOW = 1 << 20


def collapse_white_space(text: str) -> str:
    """Each run of white space as one line break if it holds one, else as one space; none at
    either end. Done a window of about a million characters at a time: ``str.split`` or one
    ``re.sub`` over a 50 MB line of words holds every word (or every piece of the result) as an
    object of its own until the end, most of a gigabyte."""
    pieces: list[str] = []
    start, size = 0, len(text)
    while start < size:
        end = min(start + _WINDOW, size)
        run = _WHITE.match(text, end) if end < size else None
        if run is not None:
            end = run.end()  # the window ends where a run of white space crossing it ends
        pieces.append(_SPACE_RUN.sub(" ", _LINE_BREAK_RUN.sub("\n", text[start:end])))
        start = end
    return "".join(pieces).strip()


class _VisibleText(HTMLParser):
    """All visible text of a page, one block per paragraph-like element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._current: list[str] = []
        self._hidden_depth = 0

    def flush(self) -> None:
        block = collapse_white_space("".join(self._current))
        if block:
            self.blocks.append(block)
        self._current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN_TAGS:
            self._hidden_depth += 1
        elif tag == "body":
            # Pages often never close <head>; the body is visible whatever came before it.
            self._hidden_depth = 0
        elif tag == "br":
            self._current.append("\n")
        elif tag in ("td", "th"):
            self._current.append(" ")
        elif tag in _BLOCK_TAGS:
            self.flush()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # <br/>, <svg/>: self-closing never opens a hidden region.
        if tag == "br":
            self._current.append("\n")
        elif tag in _BLOCK_TAGS:
            self.flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_TAGS:
            self._hidden_depth = max(0, self._hidden_depth - 1)
        elif tag in _BLOCK_TAGS:
            self.flush()

    def handle_data(self, data: str) -> None:
        if not self._hidden_depth:
            self._current.append(data)

    def close(self) -> None:
        super().close()
        self.flush()


def html_to_text(html: str) -> str:
    """All visible text of ``html``; paragraphs separated by a blank line. Never raises."""
    parser = _VisibleText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # noqa: BLE001 - html.parser asserts on odd markup; keep what it read
        parser.flush()
    return "\n\n".join(parser.blocks)


def _inline(element: ET.Element) -> str:
    parts = [element.text or ""]
    for child in element:
        parts.append("\n" if child.tag == "lb" else _inline(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _blocks(element: ET.Element) -> list[str]:
    # Loose text sits in .text and in each child's .tail (trafilatura puts a lone line of text
    # straight into <main>), so those are blocks too.
    out: list[str] = [(element.text or "").strip()]
    for child in element:
        if child.tag == "list":
            items = [_inline(item).strip() for item in child if item.tag == "item"]
            out.append("\n".join(f"- {item}" for item in items if item))
        elif child.tag == "table":
            rows = []
            for row in child.iter("row"):
                cells = [" ".join(_inline(cell).split()) for cell in row if cell.tag == "cell"]
                rows.append(" | ".join(cells))
            out.append("\n".join(row for row in rows if row.strip(" |")))
        elif child.tag in ("quote", "div", "section") and any(
            grandchild.tag in ("p", "list", "table", "head", "quote") for grandchild in child
        ):
            out.extend(_blocks(child))
        else:
            out.append(_inline(child).strip())
        out.append((child.tail or "").strip())
    return [block for block in out if block]


def trafilatura_limit() -> int:
    """The largest page trafilatura is configured to take (its MAX_FILE_SIZE, 20 MB as
    shipped): beyond it trafilatura builds a whole lxml tree only to find no main text."""
    settings = importlib.import_module("trafilatura.settings")
    return int(settings.DEFAULT_CONFIG.getint("DEFAULT", "MAX_FILE_SIZE"))


def main_text(html: str) -> str | None:
    """trafilatura's main text, paragraphs separated by a blank line; None if it finds none.

    trafilatura's own "txt" output ends every block and every <br> alike with one newline, which
    loses where paragraphs end; its XML keeps the structure, so the text is laid out from that.
    """
    xml = _trafilatura().extract(
        html,
        output_format="xml",
        include_comments=False,
        include_tables=True,
        include_images=False,
        include_links=False,
        with_metadata=False,
        deduplicate=False,
    )
    if not xml:
        return None
    # The XML is trafilatura's own serialisation (no DTD, no entities), not the untrusted input.
    root = ET.fromstring(xml)  # noqa: S314
    body = root.find("main")
    text = "\n\n".join(_blocks(body if body is not None else root))
    return text or None


def page_metadata(html: str) -> tuple[dict[str, JSONValue], list[str]]:
    """What the page says about itself. Keys are present only when the page states them."""
    collector = _MetaCollector()
    warnings: list[str] = []
    try:
        collector.feed(html)
        collector.close()
    except Exception as exc:  # noqa: BLE001 - html.parser asserts on odd declarations
        warnings.append(f"HTML metadata reading stopped early: {exc}")
    metas = collector.metas

    def first(*candidates: str | None) -> str | None:
        return next((c for c in candidates if c), None)

    found: dict[str, str | None] = {
        "title": first(metas.get("og:title"), collector.title),
        "author": first(metas.get("author"), metas.get("article:author")),
        "site_name": first(metas.get("og:site_name")),
        "published": first(
            metas.get("article:published_time"),
            metas.get("og:published_time"),
            metas.get("date"),
            metas.get("pubdate"),
            metas.get("datepublished"),
            collector.article_time,
        ),
        "canonical_url": first(collector.canonical, metas.get("og:url")),
        "language": first(collector.lang),
        "description": first(metas.get("description"), metas.get("og:description")),
    }
    return {key: value for key, value in found.items() if value is not None}, warnings


class HtmlHandler:
    """Reads HTML pages."""

    name = "html"
    media_type = "text/html"

    def __init__(self, *, max_bytes: int = DEFAULT_MAX_TEXT_BYTES) -> None:
        self.max_bytes = max_bytes

    def bid(self, sniff: Sniff) -> int:
        if sniff.size == 0:
            return BID_NONE
        bid = looks_like_html(sniff.head)
        if (
            bid == BID_NONE
            and extension(sniff.name) in HTML_EXTENSIONS
            and looks_like_text(sniff.head, complete=len(sniff.head) >= sniff.size)
        ):
            bid = BID_HTML_NAMED
        return bid

    def prepare(self) -> None:
        """Import trafilatura in the parse server, once, before it forks a reader per file."""
        _trafilatura()

    def parse(self, source: ParseSource) -> ParseResult:
        data = read_capped(source, self.max_bytes, "HTML file")
        declared = declared_charset(data)
        decoded = decode_text(data, declared=declared)
        result = ParseResult(
            format="html",
            media_type="text/html",
            tool=f"trafilatura {_trafilatura().__version__}",
        )
        if decoded.warning:
            result.warnings.append(decoded.warning)
        metadata, warnings = page_metadata(decoded.text)
        metadata["encoding"] = decoded.encoding
        result.metadata = metadata
        result.warnings.extend(warnings)

        tool, tool_version = "trafilatura", str(_trafilatura().__version__)
        limit = trafilatura_limit()
        text: str | None = None
        if len(decoded.text) > limit:
            result.warnings.append(
                f"page of {len(decoded.text):,} characters is over trafilatura's limit of "
                f"{limit:,}; kept all visible text of the page instead of its main text"
            )
        else:
            try:
                text = main_text(decoded.text)
            except Exception as exc:  # noqa: BLE001 - a heuristic over hostile markup; fall back
                result.warnings.append(f"trafilatura failed ({type(exc).__name__}: {exc})")
            if text is None:
                result.warnings.append(
                    "trafilatura found no main text; kept all visible text of the page instead"
                )
        if text is None:
            text = html_to_text(decoded.text)
            tool, tool_version = "html.parser", platform.python_version()
        result.text = text
        if text:
            result.derivatives.append(
                Derivative(
                    kind="text",
                    name=f"{source.name}.txt",
                    media_type="text/plain; charset=utf-8",
                    data=text.encode("utf-8"),
                    tool=tool,
                    tool_version=tool_version,
                )
            )
        return result
