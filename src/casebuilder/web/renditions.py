"""What the evidence viewer shows of a stored item in place of its bytes: an HTML capture made
harmless, a PDF page as an image, a picture or a video's poster frame blurred until someone
asks to see it.

Place in the flow: the web front end only. These are renditions for a screen, made on request
from the stored original and never stored (nothing here is evidence, and the original is
never changed); each showing is a custody entry written by the route that asks for it.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import nh3
from PIL import Image, ImageFilter

from casebuilder.errors import CasebuilderError

#: What a captured page may keep: its structure and text. No script, style, form, frame,
#: image or link target: what a capture loads or runs is gone, what it says is kept.
HTML_TAGS = {
    "a", "abbr", "article", "aside", "b", "blockquote", "br", "caption", "cite", "code",
    "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "footer",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "i", "ins", "kbd", "li", "main",
    "mark", "nav", "ol", "p", "pre", "q", "s", "section", "small", "span", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul",
}
HTML_ATTRIBUTES: dict[str, set[str]] = {"td": {"colspan", "rowspan"}, "th": {"colspan",
                                                                              "rowspan"},
                                        "time": {"datetime"}, "abbr": {"title"}}
#: Widest page image, in pixels: readable on a screen, small enough to send quickly.
PAGE_WIDTH = 1100
#: Most pages of one PDF the viewer draws (a longer one says how many it left out).
MOST_PAGES = 60


class RenditionError(CasebuilderError):
    """A stored file could not be shown as asked (not a PDF, no such page, not a picture)."""


def harmless_html(data: bytes) -> str:
    """A captured page's text and structure as HTML that cannot run or load anything."""
    text = data.decode("utf-8", "replace")
    return nh3.clean(text, tags=HTML_TAGS, attributes=HTML_ATTRIBUTES, url_schemes=set(),
                     strip_comments=True, link_rel=None,
                     clean_content_tags={"script", "style", "template", "noscript"})


# pdfium is not safe to call from two threads at once.
_PDFIUM = threading.Lock()


@contextmanager
def _pdf(data: bytes) -> Iterator[Any]:
    """The PDF opened by pdfium, one thread at a time, closed after."""
    import pypdfium2

    with _PDFIUM:
        try:
            document = pypdfium2.PdfDocument(data)
        except pypdfium2.PdfiumError as exc:
            raise RenditionError(f"not a PDF pdfium can read: {exc}") from exc
        try:
            yield document
        finally:
            document.close()


def pdf_page_count(data: bytes) -> int:
    with _pdf(data) as document:
        return len(document)


def pdf_page_png(data: bytes, number: int) -> bytes:
    """Page ``number`` (from 1) of a PDF as a PNG at most PAGE_WIDTH wide."""
    with _pdf(data) as document:
        if not 1 <= number <= len(document):
            raise RenditionError(f"no page {number}: the PDF has {len(document)}")
        page = document[number - 1]
        scale = min(2.0, PAGE_WIDTH / (page.get_width() or 1))
        image = page.render(scale=scale).to_pil()
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def picture_png(data: bytes, *, blurred: bool) -> bytes:
    """A picture as a PNG at most PAGE_WIDTH wide, blurred past recognition if asked: what
    is shown of graphic media before a person has given a reason to see it."""
    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.seek(0)
            image = opened.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise RenditionError(f"not a picture Pillow can read: {exc}") from exc
    return _png(image, blurred=blurred)


def video_poster_png(data: bytes, *, blurred: bool) -> bytes:
    """A video's poster: its first frame that decodes, as :func:`picture_png` shows a
    picture (FFmpeg's decoders, through PyAV's wheel: nothing to install)."""
    import av

    try:
        with av.open(io.BytesIO(data), mode="r") as container:
            for frame in container.decode(video=0):
                image: Image.Image = frame.to_image()  # type: ignore[no-untyped-call]
                return _png(image.convert("RGB"), blurred=blurred)
    except (av.FFmpegError, ValueError, IndexError) as exc:
        raise RenditionError(f"no frame of this video can be decoded: {exc}") from exc
    raise RenditionError("the video holds no frame")


def _png(image: Image.Image, *, blurred: bool) -> bytes:
    image.thumbnail((PAGE_WIDTH, PAGE_WIDTH))
    if blurred:
        # shrunk, blurred and grown again: shapes and colours, no face, wound or name
        small = image.resize((max(1, image.width // 16), max(1, image.height // 16)))
        image = small.filter(ImageFilter.GaussianBlur(2)).resize(image.size)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
