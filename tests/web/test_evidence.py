"""The evidence browser: the items list, an HTML capture made harmless, a PDF's pages as
images, a picture blurred until a reason is given (and the reason in the custody log), and
restricted items absent for the roles not cleared for them."""

from __future__ import annotations

import io
import json
import re

from PIL import Image, ImageFilter
from sqlalchemy import select

from casebuilder.store.schema import CustodyEvent, Origin

from .conftest import EXHIBITS, PICTURE, STATEMENTS, VIDEO, client_for, csrf_of


def _ids(case):  # type: ignore[no-untyped-def]
    with case.session() as session:
        return {o.name: o.item_id for o in session.scalars(select(Origin))}


def _sharpness(png: bytes) -> float:
    """How sharp a picture's sharpest edge is (0 to 255): a crisp outline is a jump of the
    whole range between neighbouring pixels; a blurred one a gentle slope."""
    edges = Image.open(io.BytesIO(png)).convert("L").filter(ImageFilter.FIND_EDGES)
    return float(edges.crop((2, 2, edges.width - 2, edges.height - 2)).getextrema()[1])


def _last_entries(case, count=5):  # type: ignore[no-untyped-def]
    with case.session() as session:
        rows = session.scalars(select(CustodyEvent).order_by(CustodyEvent.seq.desc())
                               .limit(count))
        return [json.loads(r.entry) for r in rows]


def test_the_items_list_names_the_received_files_and_logs_the_view(web_case):
    client = client_for(web_case, "viewer")
    page = client.get("/items")
    assert page.status_code == 200
    for name in [*EXHIBITS, PICTURE]:
        assert name in page.text
    assert "market-capture" in client.get("/items?name=market").text
    assert "two-pages.pdf" not in client.get("/items?name=market").text
    listed = _last_entries(web_case)[0]
    assert listed["actor"] == "viewer" and listed["details"]["what"] == "web: item list"


def test_a_captured_page_is_shown_without_anything_that_runs_or_loads(web_case):
    client = client_for(web_case, "analyst")
    item_id = _ids(web_case)["market-capture.html"]
    page = client.get(f"/items/{item_id}")
    assert '<iframe class="capture" sandbox=""' in page.text
    capture = client.get(f"/items/{item_id}/capture")
    assert capture.status_code == 200
    policy = capture.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "sandbox" in policy
    assert "frame-ancestors 'self'" in policy and capture.headers["x-frame-options"] == \
        "SAMEORIGIN"
    body = capture.text.lower()
    assert "report from the market" in body and "shelling hit the market" in body
    for never in ("<script", "<style", "<iframe", "<form", "<img", "<svg", "onclick",
                  "onerror", "javascript:", "tracker.invalid", "alert("):
        assert never not in body, never


def test_a_pdf_is_shown_page_by_page_as_images(web_case):
    client = client_for(web_case, "viewer")
    item_id = _ids(web_case)["two-pages.pdf"]
    page = client.get(f"/items/{item_id}")
    assert page.text.count(f'src="/items/{item_id}/pages/') == 2
    first = client.get(f"/items/{item_id}/pages/1.png")
    assert first.headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(first.content)).width > 300
    assert client.get(f"/items/{item_id}/pages/1.png").content == first.content
    assert client.get(f"/items/{item_id}/pages/3.png").status_code == 400
    entry = _last_entries(web_case)[0]
    assert entry["details"]["what"] == "web: PDF page" and entry["details"]["page"] == 1


def test_a_picture_is_blurred_until_a_reason_is_given_and_the_reason_is_logged(web_case):
    client = client_for(web_case, "analyst")
    item_id = _ids(web_case)["crater.png"]
    page = client.get(f"/items/{item_id}")
    assert "Blurred" in page.text and 'class="picture blurred"' in page.text
    blurred = client.get(f"/items/{item_id}/picture.png").content
    refused = client.post(f"/items/{item_id}/reveal", data={"csrf": csrf_of(client),
                                                            "reason": "  "})
    assert refused.status_code == 400
    assert client.get(f"/items/{item_id}/picture.png").content == blurred
    shown = client.post(f"/items/{item_id}/reveal", follow_redirects=False,
                        data={"csrf": csrf_of(client), "reason": "to compare the crater"})
    assert shown.status_code == 303
    entry = next(e for e in _last_entries(web_case, 10)
                 if e["details"].get("what") == "web: graphic media shown")
    assert entry["actor"] == "analyst" and entry["details"]["reason"] == "to compare the crater"
    assert entry["items"][0]["id"] == item_id
    sharp = client.get(f"/items/{item_id}/picture.png").content
    assert _sharpness(sharp) > 2 * _sharpness(blurred)
    # the reason was this person's: someone else still sees it blurred
    other = client_for(web_case, "viewer")
    assert other.get(f"/items/{item_id}/picture.png").content == blurred


def test_restricted_items_are_not_in_the_evidence_browser_for_those_not_cleared(web_case):
    ids = _ids(web_case)
    viewer = client_for(web_case, "viewer")
    listing = viewer.get("/items").text
    legal = client_for(web_case, "legal").get("/items").text
    for name in STATEMENTS:
        assert name not in listing and name in legal
        assert viewer.get(f"/items/{ids[name]}").status_code == 404
    assert "restricted: witness statement" in legal
    count = re.search(r"<small>(\d+) items", listing)
    legal_count = re.search(r"<small>(\d+) items", legal)
    assert count and legal_count and int(legal_count.group(1)) - int(count.group(1)) == 2


def test_searching_the_texts_finds_the_words_and_never_a_restricted_text(web_case):
    viewer = client_for(web_case, "viewer")
    page = viewer.get("/search?q=Kramatorsk railway")
    assert page.status_code == 200
    assert "2022-04-08-kramatorsk" in page.text and "<mark>" in page.text
    entry = _last_entries(web_case)[0]
    assert entry["details"]["what"] == "web: text search"
    assert entry["details"]["words"] == ["kramatorsk", "railway"]
    assert "<small>0 items" in viewer.get("/search?q=Zirkovska").text
    legal = client_for(web_case, "legal").get("/search?q=Zirkovska").text
    assert "witness-statement-W17.txt" in legal and "<small>1 item " in legal
    # the engine's own syntax is only words: no error, no column or operator
    assert viewer.get('/search?q="market" OR body:NEAR(x').status_code == 200


def test_a_video_shows_its_first_frame_blurred_until_a_reason_is_given(own_case):
    client = client_for(own_case, "analyst")
    item_id = _ids(own_case)[VIDEO]
    page = client.get(f"/items/{item_id}")
    assert "The video&#39;s first frame" in page.text or "The video's first frame" in page.text
    assert f'src="/items/{item_id}/poster.png"' in page.text
    blurred = client.get(f"/items/{item_id}/poster.png")
    assert blurred.headers["content-type"] == "image/png"
    assert client.post(f"/items/{item_id}/reveal", follow_redirects=False, data={
        "csrf": csrf_of(client), "reason": "to read the shop sign"}).status_code == 303
    sharp = client.get(f"/items/{item_id}/poster.png").content
    assert _sharpness(sharp) > 2 * _sharpness(blurred.content)
    assert Image.open(io.BytesIO(sharp)).size == (240, 160)
