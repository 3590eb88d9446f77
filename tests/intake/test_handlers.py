"""The format handlers, one file each, on fixtures made here: exact values and hostile input."""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import stat
import struct
import wave
import zipfile
import zlib
from datetime import UTC, datetime, timedelta, timezone
from email.message import EmailMessage
from pathlib import Path

import pypdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import ExifTags, Image, TiffImagePlugin

from casebuilder.errors import ArchiveRefused, UnreadableContent
from casebuilder.intake.handlers import (
    ArchiveLimits,
    EmailLimits,
    choose_handler,
    default_handlers,
    describe_mismatch,
)
from casebuilder.intake.handlers.archive import ArchiveHandler
from casebuilder.intake.handlers.base import (
    BID_SIGNATURE,
    FormatHandler,
    ParseResult,
    ParseSource,
    Sniff,
)
from casebuilder.intake.handlers.email import EmailHandler
from casebuilder.intake.handlers.html import HtmlHandler
from casebuilder.intake.handlers.image import ImageDataUnreadable, ImageHandler
from casebuilder.intake.handlers.media import MediaHandler, parse_iso6709, walk_boxes
from casebuilder.intake.handlers.pdf import PAGE_SEPARATOR, PdfHandler, parse_pdf_date
from casebuilder.intake.handlers.text import TextHandler, looks_like_text

HANDLERS = default_handlers()
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_counter = itertools.count()


# -- helpers -----------------------------------------------------------------------------------
def stored(tmp_path: Path, data: bytes) -> Path:
    """Write bytes where the store would keep them: a name with no extension."""
    path = tmp_path / f"object-{next(_counter)}"
    path.write_bytes(data)
    return path


def sniff(name: str, data: bytes) -> Sniff:
    return Sniff(name=name, head=data[: 64 * 1024], size=len(data))


def parse(handler: FormatHandler, tmp_path: Path, name: str, data: bytes,
          depth: int = 0) -> ParseResult:
    path = stored(tmp_path, data)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    try:
        return handler.parse(ParseSource(path=path, name=name, size=len(data), depth=depth))
    finally:
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before, "original was changed"


def chosen(name: str, data: bytes) -> str | None:
    handler = choose_handler(sniff(name, data), HANDLERS)
    return None if handler is None else handler.name


# -- choosing a handler ------------------------------------------------------------------------
def test_default_handlers_cover_every_format():
    assert [h.name for h in HANDLERS] == ["pdf", "image", "media", "zip", "email", "html", "text"]


def test_empty_file_is_chosen_by_nobody_with_reason():
    assert choose_handler(sniff("empty.txt", b""), HANDLERS) is None
    assert describe_mismatch(sniff("empty.txt", b"")) == "empty file"


def test_junk_named_pdf_is_not_read_as_pdf_nor_as_text():
    junk = b"hello world, this is not a pdf\n" * 4
    assert choose_handler(sniff("junk.PDF", junk), HANDLERS) is None
    assert describe_mismatch(sniff("junk.PDF", junk)) == (
        "named .pdf but the content is not a PDF (starts with 'hello wo...')"
    )
    binary = bytes(range(256))
    assert choose_handler(sniff("scan.pdf", binary), HANDLERS) is None
    assert "starts with '\\x00\\x01\\x02" in describe_mismatch(sniff("scan.pdf", binary))


def test_content_with_another_signature_wins_but_the_mismatch_is_told():
    png = image_bytes("PNG", (10, 10))
    assert chosen("photo.pdf", png) == "image"
    assert describe_mismatch(sniff("photo.pdf", png)).startswith(
        "named .pdf but the content is not a PDF (starts with '\\x89PNG")


def test_matching_names_and_unknown_binaries():
    assert describe_mismatch(sniff("a.pdf", make_pdf(["x"]))) is None
    assert describe_mismatch(sniff("data.bin", b"\x00\x01")) is None
    assert chosen("data.bin", bytes(range(256)) * 4) is None
    assert chosen("notes", "Звіт про обстріл\n".encode()) == "text"


def test_ties_go_to_the_earlier_handler_and_zero_means_no():
    class Fixed:
        media_type = "x/y"

        def __init__(self, name: str, value: int) -> None:
            self.name, self.value = name, value

        def bid(self, sniff: Sniff) -> int:
            return self.value

        def parse(self, source: ParseSource) -> ParseResult:
            raise NotImplementedError

    s = sniff("x.bin", b"abc")
    assert choose_handler(s, [Fixed("a", 50), Fixed("b", 50)]).name == "a"
    assert choose_handler(s, [Fixed("a", 40), Fixed("b", 50)]).name == "b"
    assert choose_handler(s, [Fixed("a", 0)]) is None


@FAST
@given(st.binary(max_size=2048), st.text(max_size=40))
def test_sniffing_never_raises(head, name):
    s = Sniff(name=name, head=head, size=len(head) + 10)
    assert isinstance(TextHandler().bid(s), int)
    looks_like_text(head)
    looks_like_text(head, complete=True)
    choose_handler(s, HANDLERS)
    describe_mismatch(s)


# -- text --------------------------------------------------------------------------------------
def test_utf8_text_keeps_crlf_and_drops_the_bom(tmp_path):
    raw = "\ufeffFirst line\r\nДругий рядок\r\nthird".encode()
    result = parse(TextHandler(), tmp_path, "notes.txt", raw)
    assert result.text == "First line\r\nДругий рядок\r\nthird"
    assert result.metadata == {"encoding": "utf-8", "bom": True, "line_count": 3}
    assert result.warnings == []
    assert result.media_type == "text/plain"


def test_cp1251_ukrainian_is_decoded_with_a_warning(tmp_path):
    original = (
        "Вранці 8 квітня 2022 року ракета влучила у залізничний вокзал Краматорська.\n"
        "Загинули щонайменше п'ятдесят цивільних, серед них діти.\n"
    )
    raw = original.encode("cp1251")
    assert chosen("звіт.txt", raw) == "text"
    result = parse(TextHandler(), tmp_path, "звіт.txt", raw)
    assert result.text == original
    assert result.metadata["encoding"] == "cp1251"
    assert result.metadata["line_count"] == 2
    assert result.warnings == ["not UTF-8; decoded as cp1251"]
    assert result.tool.startswith("charset-normalizer ")


def test_markdown_title_is_the_first_h1_outside_code(tmp_path):
    raw = (
        b"Preface line\n\n```\n# not a title\n```\n\n"
        b"#   Strike on Kramatorsk station  ##\n\n## Details\n"
    )
    result = parse(TextHandler(), tmp_path, "report.md", raw)
    assert result.metadata["title"] == "Strike on Kramatorsk station"
    assert result.media_type == "text/markdown"
    assert "title" not in parse(TextHandler(), tmp_path, "report.txt", raw).metadata


def test_text_bids():
    handler = TextHandler()
    assert handler.bid(sniff("a.txt", b"plain words\n")) > handler.bid(sniff("a", b"plain words"))
    assert handler.bid(sniff("a.txt", b"has\x00nul")) == 0
    assert handler.bid(sniff("a.txt", b"")) == 0


# -- HTML --------------------------------------------------------------------------------------
ARTICLE = """\ufeff<!-- saved page --><!DOCTYPE html>
<html lang="uk"><head>
<meta charset="utf-8"><title>Page title | Site</title>
<meta property="og:title" content="Missile strike on Kramatorsk station">
<meta name="author" content="Olena Kovalenko">
<meta property="og:site_name" content="Donbas News">
<meta property="article:published_time" content="2022-04-08T12:40:00+03:00">
<meta name="description" content="At least 50 killed.">
<link rel="canonical" href="https://example.org/kramatorsk">
<meta property="og:url" content="https://example.org/og-url">
</head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> Subscribe now</nav>
<article><h1>Missile strike on Kramatorsk station</h1>
<p>A missile hit the railway station in Kramatorsk on Friday morning, where thousands of
civilians were waiting to be evacuated.</p>
<p>Regional officials said at least 50 people were killed, including five children, and
more than a hundred were wounded.</p>
<p>Remains of a Tochka-U missile were found near the station building.</p>
</article>
<footer>Copyright Donbas News. Subscribe to our newsletter.</footer>
</body></html>
"""


def test_html_metadata_and_main_text(tmp_path):
    raw = ARTICLE.encode()
    assert chosen("page.html", raw) == "html"
    assert chosen("page", raw) == "html"
    result = parse(HtmlHandler(), tmp_path, "page.html", raw)
    assert result.metadata == {
        "title": "Missile strike on Kramatorsk station",
        "author": "Olena Kovalenko",
        "site_name": "Donbas News",
        "published": "2022-04-08T12:40:00+03:00",
        "canonical_url": "https://example.org/kramatorsk",
        "language": "uk",
        "description": "At least 50 killed.",
        "encoding": "utf-8",
    }
    text = result.text
    assert "Tochka-U" in text and "Subscribe" not in text and "Home" not in text
    assert "evacuated.\n\nRegional officials" in text  # paragraph breaks kept
    (derivative,) = result.derivatives
    assert derivative.kind == "text" and derivative.name == "page.html.txt"
    assert derivative.media_type == "text/plain; charset=utf-8"
    assert derivative.data.decode("utf-8") == text
    assert derivative.tool == "trafilatura"


def test_html_fallbacks_for_title_date_and_url(tmp_path):
    raw = b"""<html><head><title> Only   the title </title>
    <meta property="og:url" content="https://example.org/og"></head>
    <body><article><p>Text of the article that is long enough to be kept as the main text of
    this page by the extractor.</p><time datetime="2022-03-16T10:00:00Z">16 March</time>
    </article></body></html>"""
    result = parse(HtmlHandler(), tmp_path, "p.htm", raw)
    assert result.metadata["title"] == "Only the title"
    assert result.metadata["published"] == "2022-03-16T10:00:00Z"
    assert result.metadata["canonical_url"] == "https://example.org/og"
    assert "language" not in result.metadata and "author" not in result.metadata


def test_html_declared_charset_is_used_without_warning(tmp_path):
    body = "<p>Обстріл Харкова: загинули троє людей, ще десятеро поранені.</p>"
    raw = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251">'
        f"</head><body><article>{body}</article></body></html>"
    ).encode("cp1251")
    result = parse(HtmlHandler(), tmp_path, "x.html", raw)
    assert result.metadata["encoding"] == "cp1251"
    assert "Обстріл Харкова" in result.text
    assert result.warnings == []


def test_html_falls_back_to_all_visible_text_with_a_warning(tmp_path, monkeypatch):
    import casebuilder.intake.handlers.html as html_module

    monkeypatch.setattr(html_module, "main_text", lambda html: None)
    raw = b"<html><body><script>var x = 1;</script><div>First block</div><p>Second<br>line</p>"
    result = parse(HtmlHandler(), tmp_path, "x.html", raw)
    assert result.text == "First block\n\nSecond\nline"
    assert any("trafilatura found no main text" in w for w in result.warnings)
    assert result.derivatives[0].tool == "html.parser"


def test_html_sniffing():
    handler = HtmlHandler()
    assert handler.bid(sniff("x", b"  <!-- c --> <?xml version='1.0'?>\n<HTML>")) == BID_SIGNATURE
    assert handler.bid(sniff("x", b"<body><p>hi</p>")) > 0
    assert handler.bid(sniff("x", b"hello <html>")) == 0
    assert handler.bid(sniff("x", b"<htmlish>")) == 0


# -- PDF ---------------------------------------------------------------------------------------
def make_pdf(pages: list[str], info: bytes | None = None) -> bytes:
    """A minimal PDF written by hand: one Helvetica text line per page."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [{}] /Count {} >>".format(
            " ".join(f"{4 + 2 * i} 0 R" for i in range(len(pages))), len(pages)).encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, text in enumerate(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
            f"<< /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode())
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    if info is not None:
        objects.append(info)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R" % (len(objects) + 1)
    if info is not None:
        trailer += b" /Info %d 0 R" % len(objects)
    out.write(trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


INFO = (b"<< /Title (Kramatorsk report) /Author (Olena) /Subject (Strike) /Creator (Writer)"
        b" /Producer (LibreOffice 7.3) /CreationDate (D:20220408091500+03'00')"
        b" /ModDate (D:20220409120000Z) >>")


def test_pdf_text_pages_and_document_information(tmp_path):
    raw = make_pdf(["Hello world", "Second page"], INFO)
    assert chosen("r.pdf", raw) == "pdf"
    result = parse(PdfHandler(), tmp_path, "r.pdf", raw)
    assert result.text == "Hello world" + PAGE_SEPARATOR + "Second page"
    assert PAGE_SEPARATOR == "\n\f\n"
    assert result.metadata == {
        "encrypted": False,
        "page_count": 2,
        "pdf_version": "1.4",
        "title": "Kramatorsk report",
        "author": "Olena",
        "subject": "Strike",
        "creator": "Writer",
        "producer": "LibreOffice 7.3",
        "created": "2022-04-08T09:15:00+03:00",
        "modified": "2022-04-09T12:00:00+00:00",
        "page_offsets": [0, 14],
    }
    assert result.text[14:].startswith("Second page")
    assert result.warnings == []
    (derivative,) = result.derivatives
    assert (derivative.kind, derivative.name, derivative.tool) == ("text", "r.pdf.txt", "pypdf")
    assert derivative.data == result.text.encode()


def test_pdf_truncated_to_half_is_unreadable(tmp_path):
    raw = make_pdf(["Hello world", "Second page"], INFO)
    with pytest.raises(UnreadableContent, match=r"^truncated or damaged PDF: EOF marker"):
        parse(PdfHandler(), tmp_path, "r.pdf", raw[: len(raw) // 2])


def test_damaged_pdf_still_readable_leniently_keeps_text_with_a_warning(tmp_path):
    raw = make_pdf(["Hello world"])
    start = raw.rindex(b"startxref\n") + len(b"startxref\n")
    damaged = raw[:start] + b"9999\n%%EOF\n"
    result = parse(PdfHandler(), tmp_path, "d.pdf", damaged)
    assert result.text == "Hello world"
    assert any(w.startswith("damaged PDF: ") and "leniently" in w for w in result.warnings)


def test_pdf_page_cap(tmp_path):
    result = parse(PdfHandler(max_pages=1), tmp_path, "r.pdf", make_pdf(["One", "Two", "Three"]))
    assert result.text == "One"
    assert result.metadata["page_count"] == 3
    assert "PDF has 3 pages; text taken from the first 1 only" in result.warnings


def test_encrypted_pdf_reports_the_flag(tmp_path):
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(make_pdf(["Secret"]))))
    writer.encrypt("a password", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    result = parse(PdfHandler(), tmp_path, "e.pdf", out.getvalue())
    assert result.metadata["encrypted"] is True
    assert result.text is None
    assert any("needs a password" in w for w in result.warnings)


@pytest.mark.parametrize(("raw", "iso"), [
    ("D:20220408091500+03'00'", "2022-04-08T09:15:00+03:00"),
    ("D:20220408091500-05'30", "2022-04-08T09:15:00-05:30"),
    ("D:20220408091500+0300", "2022-04-08T09:15:00+03:00"),
    ("D:20220408091500Z00'00'", "2022-04-08T09:15:00+00:00"),
    ("D:20220408091500", "2022-04-08T09:15:00"),
    ("D:2022", "2022-01-01T00:00:00"),
    ("20220408", "2022-04-08T00:00:00"),
])
def test_pdf_dates(raw, iso):
    assert parse_pdf_date(raw) == iso


@pytest.mark.parametrize("raw", ["", "D:", "D:202", "D:20221308", "D:20220230", "D:2022040809150",
                                 "D:20220408091500+25'00'", "yesterday", "D:２０２２"])
def test_bad_pdf_dates(raw):
    with pytest.raises(ValueError):
        parse_pdf_date(raw)


@FAST
@given(st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31)),
       st.one_of(st.none(), st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59)))
def test_pdf_date_round_trip(moment, offset_minutes):
    moment = moment.replace(microsecond=0)
    text = "D:" + moment.strftime("%Y%m%d%H%M%S")
    if offset_minutes is not None:
        sign = "-" if offset_minutes < 0 else "+"
        hours, minutes = divmod(abs(offset_minutes), 60)
        text += f"{sign}{hours:02d}'{minutes:02d}'"
        moment = moment.replace(tzinfo=timezone(timedelta(minutes=offset_minutes)))
    assert parse_pdf_date(text) == moment.isoformat()


@FAST
@given(st.one_of(st.text(max_size=40), st.from_regex(r"D:[0-9]{0,16}[Z+\-']?[0-9']{0,6}")))
def test_pdf_date_parser_raises_only_value_error(text):
    with contextlib.suppress(ValueError):
        parse_pdf_date(text)


# -- images ------------------------------------------------------------------------------------
def image_bytes(fmt: str, size: tuple[int, int], mode: str = "RGB", **save) -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, (200, 30, 30) if mode == "RGB" else 0).save(out, fmt, **save)
    return out.getvalue()


def exif_jpeg(*, south_west: bool = False, offset: str | None = "+03:00",
              orientation: int = 1, noise: bool = False) -> bytes:
    ratio = TiffImagePlugin.IFDRational
    exif = Image.Exif()
    exif[0x010F] = "Apple"
    exif[0x0110] = "iPhone 12"
    exif[0x0131] = "15.4.1"
    exif[0x0112] = orientation
    exif_ifd = exif.get_ifd(ExifTags.IFD.Exif)
    exif_ifd[0x9003] = "2022:04:08 10:31:02"
    if offset is not None:
        exif_ifd[0x9011] = offset
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[1] = "S" if south_west else "N"
    gps[2] = (ratio(50, 1), ratio(27, 1), ratio(1236, 100))
    gps[3] = "W" if south_west else "E"
    gps[4] = (ratio(30, 1), ratio(31, 1), ratio(2424, 100))
    gps[5] = b"\x01" if south_west else b"\x00"
    gps[6] = ratio(150000, 1000)
    gps[29] = "2022:04:08"
    gps[7] = (ratio(7, 1), ratio(31, 1), ratio(2, 1))
    picture = Image.effect_noise((800, 600), 80).convert("RGB") if noise else Image.new(
        "RGB", (800, 600), (10, 120, 200))
    out = io.BytesIO()
    picture.save(out, "JPEG", exif=exif, quality=90)
    return out.getvalue()


LAT = 50 + 27 / 60 + 12.36 / 3600
LON = 30 + 31 / 60 + 24.24 / 3600


def test_jpeg_exif_time_camera_and_gps(tmp_path):
    raw = exif_jpeg(orientation=6)
    assert chosen("IMG_0001.JPG", raw) == "image"
    result = parse(ImageHandler(), tmp_path, "IMG_0001.JPG", raw)
    meta = result.metadata
    assert (meta["width"], meta["height"], meta["format"]) == (800, 600, "JPEG")
    assert meta["captured_at"] == "2022-04-08T10:31:02+03:00"
    assert (meta["camera_make"], meta["camera_model"], meta["software"]) == (
        "Apple", "iPhone 12", "15.4.1")
    assert meta["orientation"] == 6
    assert meta["gps"]["lat"] == pytest.approx(50.453433, abs=1e-4)
    assert meta["gps"]["lat"] == pytest.approx(LAT, abs=1e-9)
    assert meta["gps"]["lon"] == pytest.approx(30.523400, abs=1e-4)
    assert meta["gps"]["alt"] == pytest.approx(150.0)
    assert meta["gps_time"] == "2022-04-08T07:31:02Z"
    assert result.media_type == "image/jpeg"
    assert result.warnings == []
    (thumb,) = result.derivatives
    assert (thumb.kind, thumb.name, thumb.media_type) == (
        "thumbnail", "IMG_0001.JPG.thumb.jpg", "image/jpeg")
    with Image.open(io.BytesIO(thumb.data)) as small:
        assert small.format == "JPEG"
        assert small.size == (384, 512)  # orientation 6: turned upright, longest side 512


def test_gps_south_west_below_sea_level_and_no_offset(tmp_path):
    raw = exif_jpeg(south_west=True, offset=None)
    meta = parse(ImageHandler(), tmp_path, "x.jpg", raw).metadata
    assert meta["captured_at"] == "2022-04-08T10:31:02"  # no zone recorded, none invented
    assert meta["gps"]["lat"] == pytest.approx(-LAT, abs=1e-9)
    assert meta["gps"]["lon"] == pytest.approx(-LON, abs=1e-9)
    assert meta["gps"]["alt"] == pytest.approx(-150.0)


def test_truncated_jpeg_fails_but_keeps_its_exif(tmp_path):
    raw = exif_jpeg(noise=True)
    with pytest.raises(ImageDataUnreadable, match=r"^truncated image: ") as caught:
        parse(ImageHandler(), tmp_path, "x.jpg", raw[: len(raw) // 2])
    assert isinstance(caught.value, UnreadableContent)
    assert "2022-04-08T10:31:02+03:00" in str(caught.value)
    assert caught.value.partial_metadata["gps"]["lat"] == pytest.approx(LAT, abs=1e-9)


def test_png_with_a_corrupted_header_names_the_fault(tmp_path):
    raw = bytearray(image_bytes("PNG", (64, 48)))
    raw[16:20] = struct.pack(">I", 9999)  # width changed, checksum now wrong
    with pytest.raises(UnreadableContent, match="IHDR header's checksum does not match"):
        parse(ImageHandler(), tmp_path, "x.png", bytes(raw))


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def test_decompression_bombs_are_refused(tmp_path):
    bomb = (b"\x89PNG\r\n\x1a\n"
            + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 100_000, 100_000, 1, 0, 0, 0, 0))
            + png_chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + png_chunk(b"IEND", b""))
    with pytest.raises(UnreadableContent, match="too large to decode safely"):
        parse(ImageHandler(), tmp_path, "bomb.png", bomb)
    with pytest.raises(UnreadableContent, match=r"100x100 = 10,000 pixels \(limit 5,000\)"):
        parse(ImageHandler(max_pixels=5_000), tmp_path, "x.png", image_bytes("PNG", (100, 100)))


@pytest.mark.parametrize(("fmt", "mode", "media_type"), [
    ("PNG", "RGBA", "image/png"),
    ("GIF", "P", "image/gif"),
    ("WEBP", "RGB", "image/webp"),
    ("TIFF", "RGB", "image/tiff"),
])
def test_other_image_formats(tmp_path, fmt, mode, media_type):
    raw = image_bytes(fmt, (1024, 256), mode)
    assert chosen("x", raw) == "image"
    result = parse(ImageHandler(), tmp_path, "x", raw)
    assert (result.metadata["width"], result.metadata["height"]) == (1024, 256)
    assert result.metadata["format"] == fmt and result.media_type == media_type
    with Image.open(io.BytesIO(result.derivatives[0].data)) as small:
        assert small.size == (512, 128)


# -- audio and video ---------------------------------------------------------------------------
def box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def mvhd(created: int, timescale: int = 1000, duration: int = 12_500) -> bytes:
    return box(b"mvhd", struct.pack(">B3xIIII", 0, created, created, timescale, duration)
               + struct.pack(">IH10x", 0x10000, 0x100)
               + struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
               + bytes(24) + struct.pack(">I", 2))


def mp4_seconds(moment: datetime) -> int:
    return int((moment - datetime(1904, 1, 1, tzinfo=UTC)).total_seconds())


def apple_meta(items: dict[str, str]) -> bytes:
    keys = b"".join(struct.pack(">I", 8 + len(k)) + b"mdta" + k.encode() for k in items)
    values = b"".join(
        box(struct.pack(">I", i), box(b"data", struct.pack(">II", 1, 0) + v.encode()))
        for i, v in enumerate(items.values(), start=1))
    return box(b"meta", box(b"hdlr", bytes(8) + b"mdta" + bytes(13))
               + box(b"keys", struct.pack(">II", 0, len(items)) + keys) + box(b"ilst", values))


def mp4(*, created: int, xyz: str | None = None, apple: dict[str, str] | None = None,
        brand: bytes = b"isom", mdat: bytes = b"") -> bytes:
    children = mvhd(created)
    if xyz is not None:
        text = xyz.encode()
        children += box(b"udta", box(b"\xa9xyz", struct.pack(">HH", len(text), 0x15C7) + text))
    if apple is not None:
        children += apple_meta(apple)
    return (box(b"ftyp", brand + struct.pack(">I", 512) + brand + b"mp41")
            + box(b"moov", children) + box(b"mdat", mdat))


def test_mp4_duration_creation_time_and_xyz_location(tmp_path):
    raw = mp4(created=mp4_seconds(datetime(2022, 4, 8, 7, 15, tzinfo=UTC)),
              xyz="+50.4501+030.5234+150.000/")
    assert chosen("VID.mp4", raw) == "media"
    result = parse(MediaHandler(), tmp_path, "VID.mp4", raw)
    meta = result.metadata
    assert meta["container"] == "mp4" and meta["brand"] == "isom"
    assert meta["duration"] == pytest.approx(12.5)
    assert meta["created"] == "2022-04-08T07:15:00+00:00"
    assert meta["location"] == {"lat": pytest.approx(50.4501, abs=1e-4),
                                "lon": pytest.approx(30.5234, abs=1e-4), "alt": 150.0}
    assert meta["location_source"] == "©xyz"
    assert meta["location_raw"] == "+50.4501+030.5234+150.000/"
    assert result.media_type == "video/mp4"
    assert result.warnings == []


def test_mov_apple_keys_and_an_unset_creation_time(tmp_path):
    raw = mp4(created=0, brand=b"qt  ", apple={
        "com.apple.quicktime.make": "Apple",
        "com.apple.quicktime.location.ISO6709": "+48.7389-037.5842+091.200/",
        "com.apple.quicktime.creationdate": "2022-04-08T10:31:02+0300",
    })
    result = parse(MediaHandler(), tmp_path, "IMG_0002.MOV", raw)
    meta = result.metadata
    assert meta["container"] == "quicktime"
    assert "created" not in meta  # zero means "not set", not 1904
    assert meta["location"] == {"lat": pytest.approx(48.7389, abs=1e-4),
                                "lon": pytest.approx(-37.5842, abs=1e-4),
                                "alt": pytest.approx(91.2)}
    assert meta["location_source"] == "com.apple.quicktime.location.ISO6709"
    assert meta["captured_at"] == "2022-04-08T10:31:02+03:00"
    assert meta["quicktime_keys"]["com.apple.quicktime.make"] == "Apple"


def test_truncated_mp4_still_reads_its_moov_with_a_warning(tmp_path):
    raw = mp4(created=mp4_seconds(datetime(2022, 4, 8, tzinfo=UTC)), xyz="+50.45+030.52/",
              mdat=bytes(4000))
    result = parse(MediaHandler(), tmp_path, "cut.mp4", raw[:-2000])
    assert result.metadata["location"] == {"lat": 50.45, "lon": 30.52, "alt": None}
    assert any("truncated" in w and "mdat" in w for w in result.warnings)


def test_bare_quicktime_and_text_that_only_looks_like_it(tmp_path):
    raw = box(b"moov", mvhd(mp4_seconds(datetime(2022, 4, 8, tzinfo=UTC)))) + box(b"mdat", b"")
    assert chosen("old.mov", raw) == "media"
    result = parse(MediaHandler(), tmp_path, "old.mov", raw)
    assert result.metadata["container"] == "quicktime"
    assert result.metadata["created"] == "2022-04-08T00:00:00+00:00"
    story = b"The free press reported the strike.\n" * 3  # "free" at offset 4, like a box
    assert chosen("story.txt", story) == "text"
    assert chosen("story.mov", story) is None
    assert chosen("note.txt", b"ID3 tags are metadata\n") == "text"


def test_wav_from_the_wave_module(tmp_path):
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x01" * 20_000)
    raw = out.getvalue()
    assert chosen("call.wav", raw) == "media"
    meta = parse(MediaHandler(), tmp_path, "call.wav", raw).metadata
    assert meta["container"] == "wav"
    assert meta["duration"] == pytest.approx(2.5)
    assert (meta["sample_rate"], meta["channels"]) == (8000, 1)


def test_media_that_hachoir_cannot_read_is_unreadable(tmp_path):
    with pytest.raises(UnreadableContent):
        parse(MediaHandler(), tmp_path, "x.ogg", b"OggS" + bytes(20))


@pytest.mark.parametrize(("text", "point"), [
    ("+50.4501+030.5234+150.000/", (50.4501, 30.5234, 150.0)),
    ("+50.4501+030.5234/", (50.4501, 30.5234, None)),
    ("-33.8688+151.2093-012.5/", (-33.8688, 151.2093, -12.5)),
    ("+5027.006+03031.404/", (50 + 27.006 / 60, 30 + 31.404 / 60, None)),
    ("+502712.36+0303124.24+150CRSWGS_84/", (LAT, LON, 150.0)),
    ("+50.4501+030.5234\x00", (50.4501, 30.5234, None)),
])
def test_iso6709(text, point):
    parsed = parse_iso6709(text)
    assert parsed["lat"] == pytest.approx(point[0], abs=1e-9)
    assert parsed["lon"] == pytest.approx(point[1], abs=1e-9)
    assert parsed["alt"] == (None if point[2] is None else pytest.approx(point[2]))


@pytest.mark.parametrize("text", ["", "/", "+50.4501/", "+95.0+030.0/", "+50.0+181.0/",
                                  "+5.0+030.0/", "+5060.0+03000.0/", "50.0 30.0", "+50.0+030.0x"])
def test_bad_iso6709(text):
    with pytest.raises(ValueError):
        parse_iso6709(text)


@FAST
@given(st.floats(min_value=-90, max_value=90), st.floats(min_value=-180, max_value=180),
       st.one_of(st.none(), st.floats(min_value=-1000, max_value=9000)))
def test_iso6709_round_trip(lat, lon, alt):
    text = f"{lat:+08.4f}{lon:+09.4f}" + ("" if alt is None else f"{alt:+.3f}") + "/"
    parsed = parse_iso6709(text)
    assert parsed["lat"] == pytest.approx(round(lat, 4), abs=1e-9)
    assert parsed["lon"] == pytest.approx(round(lon, 4), abs=1e-9)
    assert parsed["alt"] == (None if alt is None else pytest.approx(round(alt, 3), abs=1e-6))


@FAST
@given(st.one_of(st.text(max_size=40), st.from_regex(r"[+\-][0-9.]{0,9}[+\-][0-9.]{0,10}.{0,6}")))
def test_iso6709_raises_only_value_error(text):
    with contextlib.suppress(ValueError):
        parse_iso6709(text)


def test_box_walker_sizes_and_limits():
    large = struct.pack(">I4sQ", 1, b"free", 16 + 3) + b"abc"  # 64-bit size
    to_end = struct.pack(">I4s", 0, b"mdat") + b"rest of file"  # size 0: to the end
    boxes = walk_boxes(box(b"moov", box(b"udta", b"")) + large + to_end)
    assert [(b.type, b.path) for b in boxes] == [
        (b"moov", ()), (b"udta", (b"moov",)), (b"free", ()), (b"mdat", ())]
    assert boxes[2].payload_start == boxes[2].start + 16 and boxes[3].end == boxes[3].start + 20
    with pytest.raises(UnreadableContent, match=r"box 'moov' at offset 0 claims 100 bytes"):
        walk_boxes(struct.pack(">I4s", 100, b"moov") + bytes(10))
    with pytest.raises(UnreadableContent, match="impossible size 4"):
        walk_boxes(struct.pack(">I4s", 4, b"free"))
    nested = b""
    for _ in range(20):
        nested = box(b"trak", nested)
    with pytest.raises(UnreadableContent, match="nested deeper than 16"):
        walk_boxes(nested)
    with pytest.raises(UnreadableContent, match="more than 3 boxes"):
        walk_boxes(box(b"free", b"") * 4, max_boxes=3)


_BOX_TYPES = st.sampled_from([b"moov", b"trak", b"udta", b"meta", b"ilst", b"keys", b"data",
                              b"mdat", b"uuid", b"\xa9xyz", b"free", b"\x00\x00\x00\x01"])


@st.composite
def box_trees(draw, depth=0):
    """Nearly valid box trees whose sizes are sometimes wrong: the walker's hard cases."""
    kind = draw(_BOX_TYPES)
    if depth < 4 and draw(st.booleans()):
        payload = b"".join(draw(st.lists(box_trees(depth=depth + 1), max_size=3)))
    else:
        payload = draw(st.binary(max_size=24))
    size = 8 + len(payload)
    size = draw(st.sampled_from([size, size, size, 0, 1, size + 1, size - 1, 7, 2**32 - 1]))
    return struct.pack(">I4s", size, kind) + payload


@FAST
@given(st.one_of(st.binary(max_size=512), box_trees(), st.lists(box_trees(), max_size=4).map(
    b"".join)))
def test_box_walker_raises_only_unreadable_content(data):
    try:
        boxes = walk_boxes(data)
    except UnreadableContent:
        return
    for found in boxes:
        assert 0 <= found.start < found.payload_start <= found.end <= len(data)


@FAST
@given(st.binary(max_size=400))
def test_quicktime_reader_never_raises_on_a_damaged_moov(data):
    from casebuilder.intake.handlers.media import quicktime_metadata

    quicktime_metadata(box(b"moov", data))


# -- e-mail ------------------------------------------------------------------------------------
def make_email() -> bytes:
    msg = EmailMessage()
    msg["From"] = "Olena Kovalenko <olena@example.org>"
    msg["To"] = "intake@example.org, Desk <desk@example.org>"
    msg["Cc"] = "archive@example.org"
    msg["Subject"] = "Фото з вокзалу"
    msg["Date"] = "Fri, 08 Apr 2022 12:00:00 +0300"
    msg["Message-ID"] = "<abc123@example.org>"
    msg["In-Reply-To"] = "<parent@example.org>"
    msg.set_content("Two files attached.\nThey were taken at 10:31.\n")
    msg.add_attachment(b"\x89PNG fake image bytes", maintype="image", subtype="png",
                       filename="station.png")
    msg.add_attachment(b"\x00\x01binary", maintype="application", subtype="octet-stream")
    forwarded = EmailMessage()
    forwarded["From"] = "witness@example.org"
    forwarded["Subject"] = "original report"
    forwarded.set_content("I saw it happen.\n")
    msg.add_attachment(forwarded)
    return bytes(msg)


def test_email_headers_body_and_attachments(tmp_path):
    raw = make_email()
    assert chosen("message.eml", raw) == "email"
    assert chosen("message", raw) == "email"
    result = parse(EmailHandler(), tmp_path, "message.eml", raw)
    assert result.metadata == {
        "from": "Olena Kovalenko <olena@example.org>",
        "to": ["intake@example.org", "Desk <desk@example.org>"],
        "cc": ["archive@example.org"],
        "subject": "Фото з вокзалу",
        "message_id": "<abc123@example.org>",
        "in_reply_to": "<parent@example.org>",
        "date": "2022-04-08T12:00:00+03:00",
        "body_type": "text/plain",
        "attachment_count": 3,
    }
    assert result.text == "Two files attached.\nThey were taken at 10:31.\n"
    names = [c.name for c in result.children]
    assert names == ["station.png", "attachment-2.bin", "attachment-3.eml"]
    assert {c.relation for c in result.children} == {"attachment"}
    with result.children[0].open() as stream:
        assert stream.read() == b"\x89PNG fake image bytes"
    with result.children[1].open() as stream:
        assert stream.read() == b"\x00\x01binary"
    with result.children[2].open() as stream:
        inner = stream.read()
    assert b"Subject: original report" in inner and b"I saw it happen." in inner
    assert result.children[0].size == len(b"\x89PNG fake image bytes")


def test_html_only_email_is_turned_into_text(tmp_path):
    msg = EmailMessage()
    msg["From"] = "a@example.org"
    msg["Date"] = "Fri, 08 Apr 2022 12:00:00 -0000"
    msg.set_content("<html><body><p>First.</p><p>Second<br>line</p></body></html>",
                    subtype="html")
    result = parse(EmailHandler(), tmp_path, "x.eml", bytes(msg))
    assert result.text == "First.\n\nSecond\nline"
    assert result.metadata["body_type"] == "text/html"
    assert result.metadata["date"] == "2022-04-08T12:00:00"  # -0000: zone unknown, none invented


def test_email_limits(tmp_path):
    raw = make_email()
    with pytest.raises(UnreadableContent, match=r"over the 100-byte limit"):
        parse(EmailHandler(EmailLimits(max_bytes=100)), tmp_path, "x.eml", raw)
    with pytest.raises(UnreadableContent, match="more than 2 attachments"):
        parse(EmailHandler(EmailLimits(max_attachments=2)), tmp_path, "x.eml", raw)


def test_email_sniffing():
    handler = EmailHandler()
    assert handler.bid(sniff("x", b"Received: from a\r\n\tby b\r\nFrom: a@b\r\n\r\nbody")) > 40
    assert handler.bid(sniff("notes.txt", b"Subject: my notes\nDate: today\n\nbody")) == 0
    assert handler.bid(sniff("x", b"Dear editor,\nFrom: me\n")) == 0


# -- ZIP ---------------------------------------------------------------------------------------
def make_zip(members: dict[str, bytes], *, compression=zipfile.ZIP_DEFLATED,
             comment: bytes = b"") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        archive.comment = comment
    return out.getvalue()


def test_zip_members_become_children(tmp_path):
    raw = make_zip({"photos/": b"", "photos/a.txt": b"first\n", "b.bin": b"\x00" * 1000},
                   comment=b"from the field")
    assert chosen("bundle.zip", raw) == "zip"
    result = parse(ArchiveHandler(), tmp_path, "bundle.zip", raw)
    assert result.metadata == {"member_count": 3, "file_count": 2, "total_uncompressed": 1006,
                               "comment": "from the field"}
    assert [(c.name, c.size, c.relation) for c in result.children] == [
        ("photos/a.txt", 6, "archive-member"), ("b.bin", 1000, "archive-member")]
    for _ in range(2):  # a fresh stream each call
        with result.children[0].open() as stream:
            assert stream.read() == b"first\n"
    with result.children[1].open() as stream:
        assert stream.read() == b"\x00" * 1000


def test_empty_zip(tmp_path):
    raw = make_zip({})
    assert raw.startswith(b"PK\x05\x06") and chosen("e.zip", raw) == "zip"
    result = parse(ArchiveHandler(), tmp_path, "e.zip", raw)
    assert result.metadata["member_count"] == 0 and result.children == []


@pytest.mark.parametrize(("name", "rule"), [
    ("../evil.txt", "path traversal"),
    ("docs/../../evil.txt", "path traversal"),
    ("..\\evil.txt", "path traversal"),
    ("/etc/passwd", "absolute path"),
    ("\\\\server\\share\\x", "absolute path"),
    ("C:\\x", "drive letter"),
    ("c:relative.txt", "drive letter"),
])
def test_hostile_member_names_are_refused(tmp_path, name, rule):
    raw = make_zip({"fine.txt": b"ok", name: b"payload"})
    with pytest.raises(ArchiveRefused, match=rule) as caught:
        parse(ArchiveHandler(), tmp_path, "x.zip", raw)
    assert repr(name) in str(caught.value)


def test_symlink_member_is_refused(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        link = zipfile.ZipInfo("link-to-root")
        link.create_system = 3
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/")
    with pytest.raises(ArchiveRefused, match="'link-to-root' is a symbolic link"):
        parse(ArchiveHandler(), tmp_path, "x.zip", out.getvalue())


def test_zip_bomb_by_ratio_is_refused(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive, archive.open(
            "zeros.bin", "w") as member:
        block = bytes(1 << 20)
        for _ in range(8):  # 8 MiB of zeros: about 8 KiB compressed
            member.write(block)
    with pytest.raises(ArchiveRefused, match=r"member 'zeros.bin' expands [0-9,]+:1 .*200:1"):
        parse(ArchiveHandler(), tmp_path, "bomb.zip", out.getvalue())


def test_total_and_count_limits(tmp_path):
    raw = make_zip({f"f{i}.txt": b"x" * 300 for i in range(5)})
    with pytest.raises(ArchiveRefused, match="1,500 uncompressed bytes in all, over the limit"):
        parse(ArchiveHandler(ArchiveLimits(max_total_uncompressed=1000)), tmp_path, "x.zip", raw)
    with pytest.raises(ArchiveRefused, match="declares 5 members, over the limit of 3"):
        parse(ArchiveHandler(ArchiveLimits(max_members=3)), tmp_path, "x.zip", raw)


def test_nesting_over_the_depth_limit_is_refused(tmp_path):
    raw = make_zip({"a.txt": b"a"})
    assert parse(ArchiveHandler(), tmp_path, "x.zip", raw, depth=3).children
    with pytest.raises(ArchiveRefused, match="nested 4 containers deep, over the limit of 3"):
        parse(ArchiveHandler(), tmp_path, "x.zip", raw, depth=4)


def central_entry(raw: bytes) -> int:
    """Offset of the first central directory entry."""
    return raw.index(b"PK\x01\x02")


def test_member_whose_declared_size_lies_is_refused_while_streaming(tmp_path):
    raw = bytearray(make_zip({"report.txt": b"the real contents are much longer\n" * 300}))
    at = central_entry(bytes(raw))
    raw[at + 24 : at + 28] = struct.pack("<I", 100)  # uncompressed size: 100, a lie
    result = parse(ArchiveHandler(), tmp_path, "x.zip", bytes(raw))
    (child,) = result.children
    assert child.size == 100
    with child.open() as stream, pytest.raises(
            ArchiveRefused, match=r"'report.txt' yields more than its declared 100 bytes"):
        stream.read()


def test_member_shorter_than_declared_is_unreadable(tmp_path):
    raw = bytearray(make_zip({"a.txt": b"short"}, compression=zipfile.ZIP_STORED))
    at = central_entry(bytes(raw))
    raw[at + 24 : at + 28] = struct.pack("<I", 50)
    (child,) = parse(ArchiveHandler(), tmp_path, "x.zip", bytes(raw)).children
    with child.open() as stream, pytest.raises(UnreadableContent, match="ended after 5 of"):
        stream.read()


def test_encrypted_member_is_skipped_with_a_warning(tmp_path):
    raw = bytearray(make_zip({"secret.txt": b"hidden", "open.txt": b"visible"},
                             compression=zipfile.ZIP_STORED))
    raw[6] |= 1  # local header flag bits of the first member
    at = central_entry(bytes(raw))
    raw[at + 8] |= 1  # and its central directory entry
    result = parse(ArchiveHandler(), tmp_path, "x.zip", bytes(raw))
    assert [c.name for c in result.children] == ["open.txt"]
    assert "member 'secret.txt' is encrypted; not extracted" in result.warnings


def test_overlapping_members_are_refused(tmp_path):
    raw = make_zip({"a.txt": b"a" * 100})
    at = central_entry(raw)
    end = raw.index(b"PK\x05\x06")
    central = raw[at:end]
    eocd = bytearray(raw[end:])
    struct.pack_into("<HHI", eocd, 8, 2, 2, 2 * len(central))
    doubled = raw[:at] + central + central + bytes(eocd)
    with pytest.raises(ArchiveRefused, match="overlap"):
        parse(ArchiveHandler(), tmp_path, "x.zip", doubled)


def test_damaged_zip_is_unreadable(tmp_path):
    raw = make_zip({"a.txt": b"a" * 100})
    with pytest.raises(UnreadableContent, match=r"^damaged ZIP: "):
        parse(ArchiveHandler(), tmp_path, "x.zip", raw[: len(raw) - 30])


def test_many_small_members_that_expand_too_far_in_all_are_refused(tmp_path):
    import io
    import zipfile

    from casebuilder.errors import ArchiveRefused
    from casebuilder.intake.handlers.archive import ArchiveHandler, ArchiveLimits
    from casebuilder.intake.handlers.base import ParseSource

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(40):  # each member just under the per-member threshold
            zf.writestr(f"m{i}.bin", bytes([i]) * (1024 * 1024 - 1))
    path = tmp_path / "many.zip"
    path.write_bytes(buffer.getvalue())
    handler = ArchiveHandler(ArchiveLimits())
    with pytest.raises(ArchiveRefused, match="in all"):
        handler.parse(ParseSource(path=path, name="many.zip", size=path.stat().st_size))
