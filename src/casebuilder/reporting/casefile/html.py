"""Writes a report :class:`~.document.Document` as one self-contained HTML5 file.

Everything the page needs is inside it: the style sheet (screen and print), the figures as
inline SVG, the footnotes as a numbered list at the end with links back to where they are
cited. There is no script and no address outside the file; a Content-Security-Policy forbids
the browser to fetch anything even if a figure tried. Every text from the case is escaped, and
figures are cleaned (:func:`sanitise_svg`) before they are written.

The output depends on the document only: same document, same text.
"""

from __future__ import annotations

import re
from html import escape
from urllib.parse import quote
from xml.etree import ElementTree

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
    Span,
    Strong,
    Table,
    Text,
    numbered_spans,
)

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_NS = "http://www.w3.org/XML/1998/namespace"

#: SVG elements that are never kept, with everything inside them
_DROPPED = frozenset({"script", "foreignObject", "iframe", "embed", "object", "audio",
                      "video", "image", "feImage", "handler", "listener"})
_URL = re.compile(r"url\(\s*['\"]?\s*([^)'\"\s]*)", re.IGNORECASE)


def render_html(document: Document) -> str:
    """The HTML5 text of ``document``."""
    return _HtmlWriter(document).write()


def sanitise_svg(svg: str) -> str:
    """``svg`` with nothing that could run or fetch: no script, no foreignObject, no event
    handler, no link or ``url()`` leaving the drawing, no element outside SVG; a drawing that
    is not well-formed SVG (or declares entities) gives an empty drawing."""
    if "<!DOCTYPE" in svg.upper() or "<!ENTITY" in svg.upper():
        return _EMPTY_SVG
    try:
        # no DOCTYPE, hence no entity: nothing for an XML bomb to expand
        root = ElementTree.fromstring(svg)  # noqa: S314
    except ElementTree.ParseError:
        return _EMPTY_SVG
    if _local(root.tag) != "svg" or _namespace(root.tag) not in ("", SVG_NS):
        return _EMPTY_SVG
    out: list[str] = []
    _write_element(root, out, top=True)
    return "".join(out)


_EMPTY_SVG = f'<svg xmlns="{SVG_NS}" width="10" height="10" viewBox="0 0 10 10"></svg>'


def _namespace(tag: str) -> str:
    return tag[1:].split("}", 1)[0] if tag.startswith("{") else ""


def _local(tag: str) -> str:
    return tag.split("}", 1)[1] if tag.startswith("{") else tag


def _safe_reference(value: str) -> bool:
    return value.strip().startswith("#")


def _safe_value(value: str) -> bool:
    lowered = value.lower()
    if "javascript:" in lowered or "expression(" in lowered or "@import" in lowered:
        return False
    return all(_safe_reference(m) for m in _URL.findall(value))


def _write_element(element: ElementTree.Element, out: list[str], top: bool = False) -> None:
    if not isinstance(element.tag, str) or _namespace(element.tag) not in ("", SVG_NS):
        return
    name = _local(element.tag)
    if name in _DROPPED:
        return
    attributes: list[str] = [f'xmlns="{SVG_NS}"'] if top else []
    for key, value in sorted(element.attrib.items()):
        namespace, local = _namespace(key), _local(key)
        if local.lower().startswith("on"):
            continue
        if namespace == XLINK_NS and local == "href":
            if _safe_reference(value):
                attributes.append(f'href="{escape(value, quote=True)}"')
            continue
        if namespace == XML_NS and local in ("lang", "space"):
            attributes.append(f'xml:{local}="{escape(value, quote=True)}"')
            continue
        if namespace:
            continue
        if local in ("href", "src") and not _safe_reference(value):
            continue
        if not _safe_value(value):
            continue
        attributes.append(f'{local}="{escape(value, quote=True)}"')
    if name == "style" and element.text and not _safe_value(element.text):
        return
    out.append(f"<{name}{''.join(' ' + a for a in attributes)}>")
    if element.text:
        out.append(escape(element.text, quote=False))
    for child in element:
        _write_element(child, out)
        if child.tail:
            out.append(escape(child.tail, quote=False))
    out.append(f"</{name}>")


def _anchor_id(anchor: str) -> str:
    return "s-" + re.sub(r"[^A-Za-z0-9_.-]", lambda m: f"_{ord(m.group()):x}_", anchor)


class _HtmlWriter:
    def __init__(self, document: Document) -> None:
        self.document = document
        self.spans = numbered_spans(document)
        self.number = {span.key: n for n, span in enumerate(self.spans, start=1)}
        self.uses: dict[int, int] = {}
        self.anchors = {b.anchor for b in document.blocks
                        if isinstance(b, Heading) and b.anchor}
        self.placed: set[str] = set()
        self.tables = 0
        self.figures = 0

    def write(self) -> str:
        d = self.document
        lang = d.language if re.fullmatch(r"[a-z]{2,3}", d.language) else "en"
        body = [self._block(b) for b in d.blocks]
        parts = [
            "<!DOCTYPE html>",
            f'<html lang="{lang}">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; img-src data:\">",
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="generator" content="casebuilder">',
            f"<title>{escape(d.title)} — {escape(d.case_name)}</title>",
            f"<style>{_STYLE}</style>",
            "</head>",
            "<body>",
            '<header class="cover">',
            f'<p class="case">{escape(d.case_name)}</p>',
            f"<h1 class=\"title\">{escape(d.title)}</h1>",
        ]
        if d.subtitle:
            parts.append(f'<p class="subtitle">{escape(d.subtitle)}</p>')
        parts.append('<dl class="state">')
        parts.append(f"<dt>Case</dt><dd>{escape(d.case_name)}</dd>")
        parts.append(f"<dt>State as of</dt><dd>{escape(d.as_of)}</dd>")
        parts.append(f'<dt>State digest</dt><dd><code>{escape(d.state_digest)}</code></dd>')
        parts.append("</dl>")
        if d.notices:
            parts.append('<div class="notices">')
            parts.extend(f"<p>{escape(n)}</p>" for n in d.notices)
            parts.append("</div>")
        parts.append("</header>")
        parts.append("<main>")
        parts.extend(body)
        parts.append("</main>")
        if self.spans:
            parts.append('<section class="footnotes"><h2>Sources cited</h2><ol>')
            for n, span in enumerate(self.spans, start=1):
                back = " ".join(
                    f'<a class="back" href="#{self._ref_id(n, i)}" '
                    f'aria-label="back to citation {n}">↩︎</a>'
                    for i in range(1, self.uses.get(n, 0) + 1))
                parts.append(f'<li id="fn-{n}">{escape(footnote_text(span))} {back}</li>')
            parts.append("</ol></section>")
        parts.append(
            f'<footer><p>{escape(d.case_name)} · {escape(d.title)} · state of '
            f"{escape(d.as_of)} · digest <code>{escape(d.state_digest[:12])}</code></p>"
            "</footer>")
        parts.append("</body>")
        parts.append("</html>")
        return "\n".join(parts) + "\n"

    @staticmethod
    def _ref_id(n: int, use: int) -> str:
        return f"fnref-{n}" if use == 1 else f"fnref-{n}-{use}"

    def _inline(self, parts: tuple[Inline, ...]) -> str:
        out: list[str] = []
        for part in parts:
            if isinstance(part, Text):
                out.append(escape(part.text, quote=False))
            elif isinstance(part, Strong):
                out.append(f"<strong>{escape(part.text, quote=False)}</strong>")
            elif isinstance(part, Emphasis):
                out.append(f"<em>{escape(part.text, quote=False)}</em>")
            elif isinstance(part, Link):
                anchor = part.anchor.removeprefix("#")
                if anchor in self.anchors:
                    href = quote(_anchor_id(anchor), safe="")
                    out.append(f'<a href="#{href}">{escape(part.text, quote=False)}</a>')
                else:
                    out.append(escape(part.text, quote=False))
            elif isinstance(part, Cite):
                marks = []
                for span in part.spans:
                    n = self.number[span.key]
                    use = self.uses.get(n, 0) + 1
                    self.uses[n] = use
                    marks.append(f'<a id="{self._ref_id(n, use)}" href="#fn-{n}">{n}</a>')
                out.append(f'<sup class="fn">{",".join(marks)}</sup>')
        return "".join(out)

    def _block(self, block: object) -> str:
        if isinstance(block, Heading):
            level = min(max(block.level, 1), 3) + 1
            ident = ""
            if block.anchor and block.anchor not in self.placed:
                self.placed.add(block.anchor)
                ident = f' id="{escape(_anchor_id(block.anchor), quote=True)}"'
            return f"<h{level}{ident}>{escape(block.text, quote=False)}</h{level}>"
        if isinstance(block, Paragraph):
            style = block.style if block.style in ("body", "note", "caution", "small") \
                else "body"
            number = (f'<span class="number">{escape(block.number, quote=False)}</span>'
                      if block.number else "")
            cls = f"{style} fact" if block.number else style
            return f'<p class="{cls}">{number}{self._inline(block.parts)}</p>'
        if isinstance(block, BulletList):
            items = "".join(f"<li>{self._inline(item)}</li>" for item in block.items)
            return f"<ul>{items}</ul>"
        if isinstance(block, Table):
            return self._table(block)
        if isinstance(block, Figure):
            self.figures += 1
            shown = ""
            if block.incidents:
                shown = (f'<span class="shown">Incidents shown: '
                         f"{escape(', '.join(block.incidents), quote=False)}</span>")
            width = round(min(max(block.width_mm, 10.0), 170.0), 1)
            return (f'<figure style="max-width:{width}mm">{sanitise_svg(block.svg)}'
                    f"<figcaption><strong>Figure {self.figures}.</strong> "
                    f"{escape(block.caption, quote=False)}{shown}</figcaption></figure>")
        if isinstance(block, PageBreak):
            return '<div class="page-break"></div>'
        return ""

    def _table(self, table: Table) -> str:
        width = len(table.columns)
        out = ['<div class="table">', "<table>"]
        if table.caption:
            self.tables += 1
            out.append(f"<caption>Table {self.tables}. "
                       f"{escape(table.caption, quote=False)}</caption>")
        if table.widths and len(table.widths) == width and all(w > 0 for w in table.widths):
            total = sum(table.widths)
            out.append("<colgroup>" + "".join(
                f'<col style="width:{round(100 * w / total, 2)}%">' for w in table.widths)
                + "</colgroup>")
        out.append("<thead><tr>" + "".join(
            f'<th scope="col">{escape(c, quote=False)}</th>' for c in table.columns)
            + "</tr></thead>")
        out.append("<tbody>")
        for row in table.rows:
            cells = (row + ((),) * width)[:width]
            out.append("<tr>" + "".join(f"<td>{self._inline(c)}</td>" for c in cells)
                       + "</tr>")
        out.append("</tbody></table></div>")
        return "".join(out)


#: the longest quotation a footnote repeats; longer ones are cut at a word and end in "…"
FOOTNOTE_QUOTE_LIMIT = 180


def footnote_text(span: Span) -> str:
    """A footnote: the document, the item, where in it (characters, or a dataset's row), and
    the words quoted, cut at a word past :data:`FOOTNOTE_QUOTE_LIMIT` characters."""
    # a dataset row's cell is also given by line and bytes of the stored file (decision 0018)
    where = f"characters {span.start}–{span.end}"
    if span.bytes is not None:
        where = f"{where} (bytes {span.bytes[0]}–{span.bytes[1]})"
        if not span.document.endswith(f" line {span.row}"):  # a row's name gives its line
            where = f"line {span.row}, {where}"
    words = " ".join(span.quote.split())
    limit = FOOTNOTE_QUOTE_LIMIT
    if len(words) > limit:
        cut = words[:limit].rsplit(" ", 1)[0]
        words = (cut if len(cut) > limit // 2 else words[:limit]).rstrip(" ,.;:") + "…"
    text = f"{span.document}, item {span.item_id}, {where}"
    return f"{text}: “{words}”" if words else text


_STYLE = """
:root{--ink:#1f2328;--muted:#5b6470;--rule:#c8ccd2;--faint:#eef0f3;--accent:#2f4a6d;
--caution:#f6efe2;--caution-rule:#b08a4a}
html{font-family:"Libertinus Serif","Linux Libertine","Georgia",serif;font-size:17px;
line-height:1.55;color:var(--ink);background:#fff}
body{max-width:46em;margin:0 auto;padding:2em 1.5em 4em}
h1,h2,h3,h4{color:var(--accent);line-height:1.25;font-weight:bold}
h2{font-size:1.55em;margin:2.2em 0 .7em;border-bottom:1px solid var(--rule);padding-bottom:.2em}
h3{font-size:1.2em;margin:1.8em 0 .5em}
h4{font-size:1.02em;font-style:italic;margin:1.4em 0 .4em}
.cover{border-bottom:2px solid var(--accent);padding-bottom:1.5em;margin-bottom:2em}
.cover .case{text-transform:uppercase;letter-spacing:.08em;color:var(--muted);font-size:.8em}
.cover .title{font-size:2.1em;margin:.2em 0;border:0}
.cover .subtitle{font-size:1.2em;color:var(--muted);margin:0 0 1em}
dl.state{display:grid;grid-template-columns:9em 1fr;gap:.25em 1em;font-size:.92em}
dl.state dt{color:var(--muted)}dl.state dd{margin:0;overflow-wrap:anywhere}
.notices{background:var(--faint);border:1px solid var(--rule);padding:.6em 1em;
font-size:.9em;margin-top:1.2em}
.notices p{text-align:left;overflow-wrap:anywhere}
code{font-family:"DejaVu Sans Mono",monospace;font-size:.82em}
p{margin:0 0 .8em;text-align:justify;hyphens:auto}
p.fact{position:relative;padding-left:2.4em}
p.fact .number{position:absolute;left:0;color:var(--muted);font-weight:bold;font-size:.9em}
p.note{border-left:2px solid var(--rule);padding-left:.9em;color:var(--muted);font-size:.92em}
p.caution{background:var(--caution);border-left:3px solid var(--caution-rule);padding:.5em .9em}
p.small{font-size:.85em}
sup.fn{font-size:.7em;line-height:0}sup.fn a{text-decoration:none}
a{color:var(--accent)}
.table{overflow-x:auto;margin:1.2em 0}
table{border-collapse:collapse;width:100%;font-size:.86em;line-height:1.35}
caption{text-align:left;color:var(--muted);font-variant:small-caps;padding-bottom:.4em}
th{background:var(--faint);text-align:left;border-bottom:1.5px solid var(--muted)}
th,td{padding:.3em .5em;vertical-align:top}td{border-bottom:1px solid var(--rule)}
figure{margin:1.6em auto;text-align:center}figure svg{max-width:100%;height:auto}
figcaption{text-align:left;font-size:.86em;margin-top:.4em}
figcaption .shown{display:block;color:var(--muted)}
.footnotes{margin-top:3em;border-top:1px solid var(--rule);font-size:.86em}
.footnotes h2{font-size:1.2em;border:0}
.footnotes li{margin-bottom:.3em;overflow-wrap:anywhere}
a.back{text-decoration:none}
footer{margin-top:3em;color:var(--muted);font-size:.8em;border-top:1px solid var(--rule)}
@media print{html{font-size:10.5pt}body{max-width:none;padding:0}
a{color:inherit;text-decoration:none}.page-break{break-after:page}
h2{break-before:page}h2,h3,h4{break-after:avoid}tr,figure{break-inside:avoid}
thead{display:table-header-group}}
@page{size:A4;margin:25mm 22mm 25mm 28mm}
""".strip()
