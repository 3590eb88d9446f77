"""Writes a report :class:`~.document.Document` as PDF/A-2b through typst.

The layout is a typst template shipped with casebuilder (``templates/report.typ``). The
document reaches it as data: this module writes it as ``document.json`` into a temporary
directory beside a copy of the template, and the template reads it with ``json()``. No text of
the case is ever parsed as typst markup, so a quote containing ``#import`` or ``*`` is printed
as it stands. Figures travel inside the JSON as SVG text (cleaned as for HTML) and are drawn
with ``image(bytes(...))``.

Only the fonts bundled with typst are used (system fonts are ignored): Libertinus Serif for the
text, DejaVu Sans Mono for digests and as the fallback for scripts Libertinus lacks (Arabic).
A character none of them can draw would make the PDF/A export fail; such characters are found
before the real compilation and written as their code point instead (``[U+4E2D]`` for 中).

The only date in the file is the document's ``as_of``, so the same case state gives the same
bytes: typst writes no clock time, and its document identifier derives from the content.
"""

from __future__ import annotations

import json
import re
import tempfile
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import typst

from casebuilder.errors import CasebuilderError
from casebuilder.reporting.casefile.document import (
    BulletList,
    Cite,
    Document,
    Emphasis,
    Figure,
    Heading,
    Inline,
    Link,
    PageBreak,
    Paragraph,
    Strong,
    Table,
    Text,
    numbered_spans,
)
from casebuilder.reporting.casefile.html import footnote_text, sanitise_svg


class ReportRenderError(CasebuilderError):
    """A report could not be written in the format asked for."""


def render_pdf(document: Document, section_notes_from: int | None = None) -> bytes:
    """The PDF/A-2b bytes of ``document``: the same document always gives the same bytes."""
    data = document_data(document, section_notes_from)
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    missing = _undrawable(frozenset(text))
    if missing:
        data = _replace_characters(data, missing)
        text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return _compile(text, _timestamp(document.as_of))


def document_data(document: Document, section_notes_from: int | None = None
                  ) -> dict[str, Any]:
    """The document as the template reads it: plain JSON values, footnotes numbered, each
    mark saying whether it is the first citation of its span. With more notes than
    ``section_notes_from`` (default :data:`SECTION_NOTES_FROM`), they are printed in groups
    after the paragraphs citing them instead of at the foot of the page."""
    spans = numbered_spans(document)
    number = {span.key: n for n, span in enumerate(spans, start=1)}
    anchors = _anchors(document)
    seen: set[int] = set()
    section_notes = len(spans) > (SECTION_NOTES_FROM if section_notes_from is None
                                  else section_notes_from)
    pending: list[int] = []  # notes cited first since the last section began

    def run(parts: tuple[Inline, ...]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for part in parts:
            if isinstance(part, Text):
                out.append({"t": "text", "s": _clean(part.text)})
            elif isinstance(part, Strong):
                out.append({"t": "strong", "s": _clean(part.text)})
            elif isinstance(part, Emphasis):
                out.append({"t": "em", "s": _clean(part.text)})
            elif isinstance(part, Link):
                anchor = part.anchor.removeprefix("#")
                out.append({"t": "link", "s": _clean(part.text),
                            "anchor": _label(anchor) if anchor in anchors else None})
            elif isinstance(part, Cite):
                marks = []
                for span in part.spans:
                    n = number[span.key]
                    marks.append({"n": n, "first": n not in seen})
                    if n not in seen:
                        pending.append(n)
                    seen.add(n)
                out.append({"t": "cite", "marks": marks})
        return out

    blocks: list[dict[str, Any]] = []
    placed: set[str] = set()

    def notes_so_far() -> None:
        if section_notes and pending:
            blocks.append({"kind": "notes", "numbers": list(pending)})
        pending.clear()

    group: str | None = None
    for block in document.blocks:
        # notes close each section, and a long run of facts after a group of paragraphs
        # (one incident's facts) once a few are waiting
        opens = isinstance(block, Paragraph) and block.group is not None and (
            block.group != group)
        if isinstance(block, Heading) or (opens and len(pending) >= NOTES_PER_GROUP):
            notes_so_far()
        group = block.group if isinstance(block, Paragraph) else None
        if isinstance(block, Heading):
            anchor = None
            if block.anchor is not None and block.anchor not in placed:
                placed.add(block.anchor)
                anchor = _label(block.anchor)
            blocks.append({"kind": "heading", "level": min(max(block.level, 1), 3),
                           "text": _clean(block.text), "anchor": anchor})
        elif isinstance(block, Paragraph):
            blocks.append({"kind": "paragraph", "parts": run(block.parts),
                           "number": _clean(block.number) if block.number else None,
                           "style": block.style if block.style in _STYLES else "body"})
        elif isinstance(block, BulletList):
            blocks.append({"kind": "list", "items": [run(item) for item in block.items]})
        elif isinstance(block, Table):
            width = len(block.columns)
            rows = [[run(cell) for cell in _fit(row, width)] for row in block.rows]
            widths = None
            if block.widths is not None and len(block.widths) == width and all(
                    w > 0 for w in block.widths):
                widths = [_decimal(w) for w in block.widths]
            blocks.append({"kind": "table", "columns": [_clean(c) for c in block.columns],
                           "rows": rows, "caption": _clean(block.caption), "widths": widths})
        elif isinstance(block, Figure):
            blocks.append({"kind": "figure", "svg": sanitise_svg(block.svg),
                           "caption": _clean(block.caption),
                           "incidents": [_clean(i) for i in block.incidents],
                           "width_mm": _decimal(block.width_mm)})
        elif isinstance(block, PageBreak):
            blocks.append({"kind": "pagebreak"})
    notes_so_far()

    moment = _moment(document.as_of)
    return {
        "title": _clean(document.title),
        "subtitle": _clean(document.subtitle),
        "case_name": _clean(document.case_name),
        "author": f"casebuilder, case {_clean(document.case_name)}",
        "as_of": _clean(document.as_of),
        "date": None if moment is None else {
            "year": moment.year, "month": moment.month, "day": moment.day,
            "hour": moment.hour, "minute": moment.minute, "second": moment.second},
        "state_digest": _clean(document.state_digest),
        "footer_state": f"State of {_clean(document.as_of)} · digest "
                        f"{_clean(document.state_digest)[:12]}",
        "language": document.language if re.fullmatch(r"[a-z]{2,3}", document.language)
        else "en",
        "notices": [_clean(n) for n in document.notices],
        "section_notes": section_notes,
        "contents": sum(isinstance(b, Heading) and b.level == 1 for b in document.blocks) > 1,
        "blocks": blocks,
        "footnotes": [_clean(footnote_text(span)) for span in spans],
    }


#: above this many notes, a PDF prints them at the end of each section rather than at the
#: foot of each page: typst's page footnotes cost about 5 ms and 0.6 MB each to lay out, and a
#: case file of thousands of dataset incidents holds tens of thousands (decision 0025)
SECTION_NOTES_FROM = 1000
NOTES_PER_GROUP = 6

_STYLES = frozenset({"body", "note", "caution", "small"})
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]")


def _clean(text: str) -> str:
    """Text without control characters (tabs and newlines become spaces)."""
    return _CONTROL.sub("", text.replace("\t", " ").replace("\r\n", " ").replace("\n", " "))


def _label(anchor: str) -> str:
    return "a-" + anchor


def _anchors(document: Document) -> set[str]:
    return {b.anchor for b in document.blocks if isinstance(b, Heading) and b.anchor}


def _fit(row: tuple[tuple[Inline, ...], ...], width: int) -> tuple[tuple[Inline, ...], ...]:
    """A row with exactly ``width`` cells (typst would shift every later row otherwise)."""
    return (row + ((),) * width)[:width]


def _decimal(value: float) -> float:
    """A float rounded so that its JSON form does not depend on arithmetic noise."""
    return round(float(value), 3)


def _moment(as_of: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(as_of.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment


def _timestamp(as_of: str) -> int:
    """The moment typst takes as "now" (used by nothing we print, fixed all the same)."""
    moment = _moment(as_of)
    if moment is None:
        return 0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0, int(moment.timestamp()))


@lru_cache(maxsize=1)
def _template() -> str:
    return (resources.files("casebuilder.reporting.casefile") / "templates" / "report.typ"
            ).read_text(encoding="utf-8")


def _compile(text: str, timestamp: int) -> bytes:
    with tempfile.TemporaryDirectory(prefix="casebuilder-report-") as tmp:
        root = Path(tmp)
        (root / "report.typ").write_text(_template(), encoding="utf-8")
        (root / "document.json").write_text(text, encoding="utf-8")
        try:
            result = typst.compile(str(root / "report.typ"), root=str(root), font_paths=[],
                                   ignore_system_fonts=True, format="pdf",
                                   pdf_standards=["a-2b"], timestamp=timestamp)
        except typst.TypstError as error:
            raise ReportRenderError(f"typst could not lay out the report: {error}") from error
    if not isinstance(result, bytes):
        raise ReportRenderError("typst returned no PDF")
    return result


#: characters the bundled fonts are known to draw (checked once per process for the others)
_SAFE = re.compile(r"[\x20-\x7e\u00a0-\u024f\u0370-\u03ff\u0400-\u052f\u2010-\u2027]")
_UNDRAWABLE = re.compile(r"could not be displayed with font")
_QUOTED = re.compile(r"the text `\"(.+?)\"`", re.DOTALL)


def _undrawable(characters: frozenset[str]) -> frozenset[str]:
    """Of ``characters``, those no bundled font can draw."""
    missing: set[str] = set()
    for char in sorted(characters):
        if not _SAFE.fullmatch(char) and not _drawable(char):
            missing.add(char)
    return frozenset(missing)


@lru_cache(maxsize=4096)
def _drawable(char: str) -> bool:
    if _CONTROL.fullmatch(char) or char in "\n\t\r":
        return True
    probe = ('#set text(font: ("Libertinus Serif", "DejaVu Sans Mono"))\n'
             '#let t = json(bytes(sys.inputs.t))\n#t\n')
    try:
        typst.compile(probe.encode(), font_paths=[], ignore_system_fonts=True, format="pdf",
                      pdf_standards=["a-2b"], sys_inputs={"t": json.dumps(char)})
    except typst.TypstError as error:
        if _UNDRAWABLE.search(str(error)) or _QUOTED.search(str(error)):
            return False
        raise ReportRenderError(f"typst could not check a character: {error}") from error
    return True


def _replace_characters(value: Any, missing: frozenset[str]) -> Any:
    if isinstance(value, str):
        if any(c in missing for c in value):
            return "".join(f"[U+{ord(c):04X}]" if c in missing else c for c in value)
        return value
    if isinstance(value, list):
        return [_replace_characters(v, missing) for v in value]
    if isinstance(value, dict):
        return {k: _replace_characters(v, missing) for k, v in value.items()}
    return value
