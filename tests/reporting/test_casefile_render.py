"""The two renderers of the neutral report document: PDF through typst, one-file HTML."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from io import BytesIO
from pathlib import Path

import pytest
from pypdf import PdfReader

from casebuilder.reporting.casefile.document import (
    BulletList,
    Cite,
    Document,
    Emphasis,
    Figure,
    Heading,
    Link,
    PageBreak,
    Paragraph,
    Span,
    Strong,
    Table,
    Text,
    numbered_spans,
)
from casebuilder.reporting.casefile.html import render_html, sanitise_svg
from casebuilder.reporting.casefile.pdf import render_pdf

HOSTILE = ('#import "secret.typ": * and *bold* _under_ $x^2$ @ref <label> ] [ \\ '
           '#set page(width: 1cm) <script>alert(1)</script> &amp; "quoted"')
CYRILLIC = "Удар по житловому будинку в місті Зоряне; загинули троє мешканців"
ARABIC = "قالت السلطات المحلية إن القصف أصاب مبنى سكنيا"

SVG_A = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100" width="200" '
         'height="100"><rect x="0" y="0" width="200" height="100" fill="#eef0f3"/>'
         '<circle cx="60" cy="50" r="6" fill="#8a2d2d"/><text x="70" y="54" '
         'font-size="10">Зоряне</text></svg>')
SVG_HOSTILE = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
               ' viewBox="0 0 100 50" onload="alert(1)"><script>alert(2)</script>'
               '<foreignObject><div>x</div></foreignObject>'
               '<a xlink:href="https://evil.example/"><rect width="40" height="20" '
               'fill="url(https://evil.example/p.svg)"/></a>'
               '<image href="http://evil.example/i.png" width="5" height="5"/>'
               '<use href="#mark"/><rect id="mark" x="50" width="40" height="20" '
               'style="fill:#2f4a6d" onclick="x()"/></svg>')


def span(item: int, start: int, quote: str, row: int | None = None) -> Span:
    # a dataset row's cell: its bytes follow two 2-byte characters before it
    return Span(item_id=item, start=start, end=start + len(quote), quote=quote,
                document=f"report-{item}.html", sha256=f"{item:064x}", row=row,
                bytes=None if row is None else (start + 2, start + 2 + len(quote)))


def sample_document(rows: int = 200) -> Document:
    s1 = span(3, 120, "three residents were killed when the block was hit")
    s2 = span(3, 400, CYRILLIC)
    s3 = span(7, 55, HOSTILE)
    s4 = span(9, 0, ARABIC)
    s5 = span(11, 0, "row of the casualty dataset", row=42)
    s6 = span(12, 10, " ".join(["a long quotation that keeps going"] * 12))
    blocks = (
        Heading(1, "Incident 1: strike on a residential block", anchor="inc-1"),
        Paragraph((Text("The regional administration said that "), Strong("three people"),
                   Text(" were killed"), Cite((s1,)), Text(". A local outlet wrote: "),
                   Emphasis(CYRILLIC), Cite((s2, s1)), Text(".")), number="1."),
        Paragraph((Text("A channel posted text with markup-like characters: "),
                   Text(HOSTILE), Cite((s3,)), Text(".")), number="2."),
        Paragraph((Text("A statement in Arabic: "), Text(ARABIC), Cite((s4,)),
                   Text(" and a dataset row"), Cite((s5,)), Text(".")), number="3."),
        Paragraph((Text("The ministry denied any strike on the area."),
                   Cite((s6,))), style="caution"),
        Paragraph((Text("See "), Link("the pattern section", "pat"), Text(" and "),
                   Link("a missing anchor", "nowhere"), Text(".")), style="note"),
        Heading(2, "Sources"),
        BulletList(((Text("Regional administration"), Cite((s1,))),
                    (Text("Local outlet "), Emphasis("«Новини»")))),
        Heading(2, "Figures"),
        Figure(SVG_A, "Locator map of Зоряне", incidents=("1", "2")),
        Figure(SVG_HOSTILE, "A drawing with hostile parts " + HOSTILE, incidents=("3",),
               width_mm=90),
        Heading(1, "Pattern: strikes on housing", anchor="pat"),
        Table(columns=("No.", "Date", "Place", "Killed (claimed)"),
              rows=tuple(((Text(str(i)),), (Text(f"2024-03-{i % 28 + 1:02d}"),),
                          (Text("Зоряне" if i % 2 else "Kramatorsk"),),
                          (Text(str(i % 7)), Cite((s1,)) if i == 5 else Text("")))
                         for i in range(1, rows + 1)),
              caption="Incidents of the series", widths=(0.6, 1.2, 2.0, 1.2)),
        PageBreak(),
        Heading(3, "Limitations"),
        Paragraph((Text("Figures are as the sources give them."),), style="small"),
    )
    return Document(title="Incident report", subtitle="Strike on a residential block",
                    case_name="Test case Зоряне", as_of="2024-03-05T10:20:30Z",
                    state_digest="ab" * 32, blocks=blocks,
                    notices=("Prepared by casebuilder from the case state named below.",
                             "Claims are attributed to their sources; none is a finding."))


def pdf_text(pdf: bytes, tmp_path: Path) -> str:
    if shutil.which("pdftotext"):
        path = tmp_path / "out.pdf"
        path.write_bytes(pdf)
        text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"],
                              check=True, capture_output=True, text=True).stdout
    else:
        text = "\n".join(page.extract_text() for page in PdfReader(BytesIO(pdf)).pages)
    # bidi marks around right-to-left runs, and line breaks, are not part of the words
    return " ".join(re.sub("[\u202a-\u202e\u200e\u200f\u2066-\u2069]", "", text).split())


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return render_pdf(sample_document())


def test_pdf_opens_and_carries_metadata(pdf: bytes) -> None:
    reader = PdfReader(BytesIO(pdf))
    assert len(reader.pages) > 4
    assert reader.metadata is not None
    assert reader.metadata.title == "Incident report"
    assert "Test case" in (reader.metadata.author or "")
    assert "20240305102030" in str(reader.metadata.get("/CreationDate"))
    assert b"pdfaid:part" in pdf  # PDF/A identification in the XMP metadata


def test_pdf_prints_every_heading_and_quote_literally(pdf: bytes, tmp_path: Path) -> None:
    text = pdf_text(pdf, tmp_path)
    document = sample_document()
    for block in document.blocks:
        if isinstance(block, Heading):
            assert " ".join(block.text.split()) in text
    for s in numbered_spans(document):
        words = " ".join(s.quote.split())
        assert words[:80] in text, words
    assert " ".join(HOSTILE.split()) in text
    assert ARABIC in text and CYRILLIC in text
    assert "line 42, characters 0–27 (bytes 2–29)" in text and "item 3, characters 120–170" in text
    assert "page 1 of" in text


def test_pdf_is_reproducible_and_embeds_its_fonts(pdf: bytes, tmp_path: Path) -> None:
    assert render_pdf(sample_document()) == pdf
    if not shutil.which("pdffonts"):
        pytest.skip("pdffonts is not installed")
    path = tmp_path / "out.pdf"
    path.write_bytes(pdf)
    lines = subprocess.run(["pdffonts", str(path)], check=True, capture_output=True,
                           text=True).stdout.splitlines()[2:]
    assert lines
    for line in lines:
        assert re.search(r"\s(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$", line)
        assert line.split()[-5] == "yes", line  # the "emb" column
    assert any("LibertinusSerif" in line for line in lines)
    assert any("DejaVuSansMono" in line for line in lines)


def test_pdf_repeats_a_footnote_number_for_the_same_span(pdf: bytes, tmp_path: Path) -> None:
    text = pdf_text(pdf, tmp_path)
    # six spans, each listed once at the foot of a page although s1 is cited four times
    assert text.count("three residents were killed when the block was hit") == 1


def test_a_large_documents_notes_follow_the_paragraphs_citing_them(tmp_path: Path) -> None:
    from casebuilder.reporting.casefile.html import footnote_text
    from casebuilder.reporting.casefile.pdf import document_data

    facts = []
    for n in range(12):  # twelve incidents of four facts, two new spans each
        for k in range(4):
            facts.append(Paragraph((Text(f"fact {n}.{k}"), Cite((
                span(5, 1000 * n + 10 * k, f"quote {n} {k} a"),
                span(5, 1000 * n + 10 * k + 5, f"quote {n} {k} b")))),
                number=f"{4 * n + k + 1}.", group=f"incident {n}"))
    document = Document(title="T", subtitle="", case_name="C", as_of="2024-01-01",
                        state_digest="0" * 64,
                        blocks=(Heading(1, "Schedule"), *facts, Heading(1, "After")))
    data = document_data(document, section_notes_from=10)
    assert data["section_notes"] is True
    printed = [n for b in data["blocks"] if b["kind"] == "notes" for n in b["numbers"]]
    assert printed == list(range(1, 97))  # every note once, in order
    # a group of notes never parts the facts of one incident
    kinds = [b["kind"] for b in data["blocks"]]
    for i, kind in enumerate(kinds):
        if kind == "notes" and 0 < i < len(kinds) - 1 and kinds[i + 1] == "paragraph":
            before = data["blocks"][i - 1]["number"]
            assert before is not None and int(before.rstrip(".")) % 4 == 0
    assert document_data(document)["section_notes"] is False  # 96 notes: at the page's foot
    text = pdf_text(render_pdf(document, section_notes_from=10), tmp_path)
    flat = " ".join(text.split())
    for s in numbered_spans(document):
        assert " ".join(footnote_text(s).split()) in flat


def test_pdf_writes_characters_no_font_draws_as_code_points(tmp_path: Path) -> None:
    document = Document(title="T", subtitle="", case_name="C", as_of="2024-01-01",
                        state_digest="0" * 64,
                        blocks=(Paragraph((Text("a sign 中 and 🙂 here"),)),))
    text = pdf_text(render_pdf(document), tmp_path)
    assert "a sign [U+4E2D] and [U+1F642] here" in text


class _Addresses(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.addresses: list[str] = []
        self.tags: list[str] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "action", "srcset", "poster", "data"):
                self.addresses.append(value or "")
            if name.startswith("on"):
                self.handlers.append(name)


def test_html_is_one_file_without_script_or_outside_address() -> None:
    html = render_html(sample_document())
    parser = _Addresses()
    parser.feed(html)
    allowed = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink",
               "http://www.w3.org/1999/xhtml"}
    for address in parser.addresses:
        assert address.startswith("#"), address
    for found in re.findall(r"url\(\s*['\"]?([^)'\"]*)", html):
        assert found.startswith("#"), found
    outside_policy = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    for found in re.findall(r"(?:https?|ftp|file|data|javascript):[^\s\"'<>)]*",
                            outside_policy):
        assert found in allowed, found
    assert "script" not in parser.tags and "foreignobject" not in parser.tags
    assert "image" not in parser.tags
    assert not parser.handlers
    assert "default-src 'none'" in html
    assert html.count("<svg") == 2


def test_html_escapes_case_text_and_keeps_it_readable() -> None:
    html = render_html(sample_document())
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;label&gt;" in html
    assert CYRILLIC in html and ARABIC in html
    assert '<a href="#s-pat">the pattern section</a>' in html
    assert "a missing anchor" in html and 'href="#s-nowhere"' not in html
    assert '<li id="fn-1">' in html and 'href="#fnref-1-2"' in html
    assert html.count("<tr>") == 201


def test_html_is_deterministic() -> None:
    assert render_html(sample_document()) == render_html(sample_document())


def test_footnote_numbers_follow_first_citation() -> None:
    html = render_html(sample_document())
    first = [int(n) for n in re.findall(r'<a id="fnref-(\d+)" ', html)]
    assert first == list(range(1, len(numbered_spans(sample_document())) + 1))


def test_svg_cleaning_keeps_the_drawing_and_drops_the_rest() -> None:
    clean = sanitise_svg(SVG_HOSTILE)
    assert "script" not in clean and "foreignObject" not in clean and "onload" not in clean
    assert "evil" not in clean and "onclick" not in clean
    assert '<use href="#mark"></use>' in clean and 'id="mark"' in clean
    assert sanitise_svg("<svg><!ENTITY x 'y'></svg>").startswith("<svg")
    assert "not svg" not in sanitise_svg("not svg at all")
