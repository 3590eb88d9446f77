"""Files an outside audit found mishandled, each built here, small: UTF-16 without a byte-order
mark, a JPEG whose EXIF or GPS block is damaged, PDFs with active content, and the summary's
list of what was read only in part."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    NameObject,
    TextStringObject,
)
from sqlalchemy import select

from casebuilder.intake.handlers import choose_handler, default_handlers
from casebuilder.intake.handlers.base import ParseSource, Sniff
from casebuilder.intake.handlers.image import ImageHandler
from casebuilder.intake.handlers.pdf import PdfHandler
from casebuilder.intake.handlers.text import TextHandler, decode_text
from casebuilder.intake.ingest import ingest
from casebuilder.store.schema import Item
from conftest import run_cli

REPORT = ("Обстріл Харкова: загинули троє цивільних, 12 травня 2022 року.\r\n"
          "Shelling hit Kharkiv.\r\n")


def _parse(handler, path: Path):
    return handler.parse(ParseSource(path, path.name, path.stat().st_size))


def _item(case, item_id: int) -> Item:
    with case.session() as session:
        item = session.get(Item, item_id)
        assert item is not None
        return item


# -- UTF-16 without a byte-order mark -----------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_text_without_a_bom_is_read_as_text(case, tmp_path, encoding):
    path = tmp_path / "statement.txt"
    path.write_bytes(REPORT.encode(encoding))
    (outcome,) = ingest(case, [path]).outcomes
    assert (outcome.format, outcome.parse_status) == ("text", "ok"), outcome.reason
    item = _item(case, outcome.item_id)
    assert item.item_metadata["encoding"] == encoding and item.item_metadata["bom"] is False
    text_item = _item(case, item.text_item_id)
    assert case.objects.path_for(text_item.sha256).read_bytes().decode("utf-8") == REPORT
    assert path.read_bytes() == case.objects.path_for(item.sha256).read_bytes()


def test_utf16_html_without_a_bom_is_read_as_html(tmp_path):
    page = tmp_path / "page"
    page.write_bytes(("<!doctype html><html><head><title>Харків</title></head><body><p>"
                      + REPORT + "</p></body></html>").encode("utf-16-le"))
    head = page.read_bytes()
    handler = choose_handler(Sniff(page.name, head, len(head)), default_handlers())
    assert handler is not None and handler.name == "html"
    decoded = decode_text(head)
    assert decoded.encoding == "utf-16-le" and "<title>Харків</title>" in decoded.text


def test_utf16_text_with_a_bom_is_not_taken_for_an_mp3_frame(tmp_path):
    # FF FE then "R\0" reads as an MPEG audio frame header; the content is plainly text.
    data = ("Rescuers searched the rubble. " * 20).encode("utf-16")
    handler = choose_handler(Sniff("statement.txt", data, len(data)), default_handlers())
    assert handler is not None and handler.name == "text"


def test_binary_with_nul_bytes_is_not_mistaken_for_utf16():
    noise = bytes(range(256)) * 64  # NULs on one side only every 256 bytes: not text
    assert TextHandler().bid(Sniff("x.bin", noise, len(noise))) == 0


# -- damaged EXIF ------------------------------------------------------------------------------


def _jpeg_with_gps() -> bytes:
    exif = Image.Exif()
    exif[0x010F] = "Canon"
    exif[0x8825] = {1: "N", 2: (50.0, 0.0, 0.0), 3: "E", 4: (36.0, 13.0, 0.0)}
    out = io.BytesIO()
    Image.new("RGB", (32, 32), "red").save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def _tiff_start(data: bytes) -> tuple[int, str]:
    tiff = data.index(b"Exif\x00\x00") + 6
    return tiff, ">" if data[tiff:tiff + 2] == b"MM" else "<"


def _point_gps_outside(data: bytes) -> bytes:
    tiff, order = _tiff_start(data)
    ifd0 = tiff + struct.unpack(order + "I", data[tiff + 4:tiff + 8])[0]
    out = bytearray(data)
    for k in range(struct.unpack(order + "H", data[ifd0:ifd0 + 2])[0]):
        entry = ifd0 + 2 + 12 * k
        if struct.unpack(order + "H", data[entry:entry + 2])[0] == 0x8825:
            out[entry + 8:entry + 12] = struct.pack(order + "I", 0x7FFFFFF0)
            return bytes(out)
    raise AssertionError("no GPS pointer")


def _break_exif_header(data: bytes) -> bytes:
    tiff, _ = _tiff_start(data)
    return data[:tiff] + b"XX\x00\x00" + data[tiff + 4:]


def test_a_sound_jpeg_reads_its_gps_without_warnings(tmp_path):
    path = tmp_path / "ok.jpg"
    path.write_bytes(_jpeg_with_gps())
    result = _parse(ImageHandler(), path)
    assert result.metadata["gps"]["lat"] == 50.0 and result.warnings == []


@pytest.mark.parametrize(("damage", "named"), [
    (_point_gps_outside, "GPS block (position, GPS time) could not be read"),
    (_break_exif_header, "EXIF block of 152 bytes could not be read"),
])
def test_a_jpeg_with_damaged_exif_warns_of_what_was_lost(tmp_path, damage, named):
    path = tmp_path / "IMG_0042.jpg"
    path.write_bytes(damage(_jpeg_with_gps()))
    result = _parse(ImageHandler(), path)
    assert any(named in w for w in result.warnings), result.warnings  # so: status "partial"
    assert "gps" not in result.metadata
    assert result.derivatives  # the pixels are fine: the thumbnail is made all the same


# -- PDFs with active content --------------------------------------------------------------------


def _pdf(build) -> bytes:
    """A one-page PDF with a line of text (a blank page would be "partial": no text layer)."""
    writer = PdfWriter()
    page = writer.add_blank_page(200, 100)
    font = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica")}))
    page[NameObject("/Resources")] = DictionaryObject({
        NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
    content = DecodedStreamObject()
    content.set_data(b"BT /F1 12 Tf 10 40 Td (Shelling hit the market.) Tj ET")
    page[NameObject("/Contents")] = writer._add_object(content)
    build(writer)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _js_open_action(writer: PdfWriter) -> None:
    writer._root_object[NameObject("/OpenAction")] = DictionaryObject({
        NameObject("/S"): NameObject("/JavaScript"),
        NameObject("/JS"): TextStringObject("app.alert('x')")})


def _launch_on_page(writer: PdfWriter) -> None:
    writer.pages[0][NameObject("/AA")] = DictionaryObject({NameObject("/O"): DictionaryObject({
        NameObject("/S"): NameObject("/Launch"), NameObject("/F"): TextStringObject("cmd.exe")})})


def _script_in_names(writer: PdfWriter) -> None:
    script = writer._add_object(DictionaryObject({
        NameObject("/S"): NameObject("/JavaScript"), NameObject("/JS"): TextStringObject("1")}))
    writer._root_object[NameObject("/Names")] = DictionaryObject({
        NameObject("/JavaScript"): DictionaryObject({
            NameObject("/Names"): ArrayObject([TextStringObject("a"), script])})})


@pytest.mark.parametrize(("build", "expected"), [
    (_js_open_action, ["JavaScript OpenAction"]),
    (lambda w: w.add_attachment("payload.exe", b"MZ..."), ["embedded files"]),
    (_launch_on_page, ["automatic actions (/AA)", "a Launch action"]),
    (_script_in_names, ["JavaScript"]),
    (lambda w: w._root_object.__setitem__(NameObject("/OpenAction"), ArrayObject(
        [w.pages[0].indirect_reference, NameObject("/Fit")])), []),  # opens at a page: no alert
])
def test_pdf_active_content_is_flagged(tmp_path, build, expected):
    path = tmp_path / "doc.pdf"
    path.write_bytes(_pdf(build))
    result = _parse(PdfHandler(), path)
    assert result.metadata.get("active_content", []) == expected
    assert result.warnings == []  # read in full: an alert, not a partial reading
    assert result.text is not None and "Shelling hit the market" in result.text
    assert bool(result.alerts) == bool(expected)


def test_pdf_active_content_hidden_behind_name_escapes_is_flagged(tmp_path):
    path = tmp_path / "hidden.pdf"
    path.write_bytes(_pdf(_js_open_action).replace(b"/JavaScript", b"/J#61vaScript")
                     .replace(b"/OpenAction", b"/Op#65nAction"))
    assert _parse(PdfHandler(), path).metadata["active_content"] == ["JavaScript OpenAction"]


# -- the summary -----------------------------------------------------------------------------


def _truncated_mp4() -> bytes:
    def box(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", 8 + len(payload)) + kind + payload

    mvhd = box(b"mvhd", bytes(4) + struct.pack(">IIII", 0, 0, 1000, 5000) + bytes(80))
    return (box(b"ftyp", b"isom" + struct.pack(">I", 512) + b"isomiso2mp41") + box(b"moov", mvhd)
            + struct.pack(">I", 100_000) + b"mdat" + bytes(500))  # mdat claims far more


def _damaged_pdf() -> bytes:
    data = _pdf(lambda w: None)
    return data.replace(b"startxref\n", b"startxref\n9").replace(b"/Size 5", b"/Size 50")


def test_the_summary_lists_partial_readings_and_alerts_with_their_reasons(tmp_path):
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / "clip.mp4").write_bytes(_truncated_mp4())
    (batch / "report.pdf").write_bytes(_damaged_pdf())
    (batch / "mixed.txt").write_bytes("Удар по Харкову. ".encode() + "Ещё удар.".encode("cp1251"))
    (batch / "open-me.pdf").write_bytes(_pdf(_js_open_action))
    (batch / "IMG_0042.jpg").write_bytes(_point_gps_outside(_jpeg_with_gps()))
    result = run_cli("ingest", "--no-extract", batch, home=tmp_path / "home")
    out = result.stdout
    problems = out.split("Problems")[1].split("Custody log")[0]
    assert "clip.mp4: read in part: file is truncated: box 'mdat'" in problems
    assert "report.pdf: read in part: damaged PDF" in problems
    assert "mixed.txt: read in part: not UTF-8" in problems
    photo = next(line for line in problems.splitlines() if "IMG_0042.jpg" in line)
    assert "read in part: " in photo and "[kept as #" in photo
    assert "GPS block (position, GPS time) could not be read" in photo
    assert "4 with problems" in out
    assert "open-me.pdf: contains active content: JavaScript OpenAction" in out
    assert "open-me.pdf" not in problems.split("Alerts")[0]  # read in full


def test_a_path_not_taken_in_says_so_once(case):
    from casebuilder.cli.intake_summary import problem_line

    (outcome,) = ingest(case, [case.paths.config]).outcomes
    line = problem_line(outcome)
    assert line.endswith("inside the case home (its database, key and store are not "
                         "evidence) [not taken in]"), line
    assert line.count("not taken in") == 1


def test_a_duplicate_of_an_unreadable_file_names_its_reason(case, tmp_path):
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"not a pdf at all")
    ingest(case, [junk])
    again = tmp_path / "again.pdf"
    again.write_bytes(junk.read_bytes())
    (outcome,) = ingest(case, [again]).outcomes
    assert outcome.status == "duplicate" and "not a PDF" in (outcome.problem or "")
    with case.session() as session:
        assert len(list(session.execute(select(Item)).scalars())) == 1
