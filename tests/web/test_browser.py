"""The web interface in a real browser (Debian's Chromium, driven by Playwright): sign in,
the list, an incident, its cited words in the original text, the custody log naming the user;
a viewer refused the log; ingested markup that never runs. Screenshots of the main pages go
to build/screenshots/ (docs/images/ holds two of them)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from sqlalchemy import select

from casebuilder.preservation.case import open_case
from casebuilder.store.schema import Origin
from casebuilder.web.app import make_app
from web.conftest import HOSTILE_NAME, PASSWORD, RESTRICTED_WORDS

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")


@pytest.fixture(scope="module")
def server(web_home: Path) -> Iterator[str]:
    case = open_case(web_home, environ={})
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(make_app(case), host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    for _ in range(100):
        if running.started:
            break
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        running.should_exit = True
        thread.join(10)
        case.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            yield launched
        finally:
            launched.close()


def signed_in_page(browser, server, user):  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    # A page breaking its own security policy (an inline script or style, a load from
    # elsewhere) is reported by the browser on the console: counted as a failure here.
    page.on("console", lambda m: dialogs.append(m.text)
            if "Content Security Policy" in m.text or m.type == "error" else None)
    page.goto(f"{server}/incidents")
    assert page.url.endswith("/login")
    page.fill("input[name=name]", user)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{server}/incidents")
    return page, dialogs


def shot(page, name: str, *, full_page: bool = False) -> None:  # type: ignore[no-untyped-def]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def test_an_analyst_reads_an_incident_and_the_log_names_them(browser, server):
    page, dialogs = signed_in_page(browser, server, "analyst")
    rows = page.locator("table.list tbody tr")
    assert rows.count() >= 5
    shot(page, "incidents")
    page.fill("input[name=place]", "Kramatorsk")
    page.click("form.filters button[type=submit]")
    page.wait_for_load_state()
    assert "Kramatorsk" in page.locator("table.list tbody").inner_text()
    page.locator("table.list tbody a").first.click()
    page.wait_for_load_state()
    assert page.locator("h2", has_text="Sources and their words").count() == 1
    assert page.locator("h2", has_text="Legal elements").count() == 1
    assert page.locator(".narrative p a").count() >= 1  # each sentence links to its words
    assert page.locator("table.elements tbody tr").count() >= 1
    shot(page, "incident")
    shot(page, "incident-whole", full_page=True)
    quote = page.locator("ol.sources blockquote a").first
    words = quote.inner_text().strip("“”")
    quote.click()
    page.wait_for_load_state()
    assert page.locator("mark#span").inner_text() == words
    shot(page, "item-text")
    page.click("nav >> text=Custody log")
    page.wait_for_load_state()
    log = page.locator("table.custody tbody").inner_text()
    assert "analyst\tlogin" in log and "web: incident" in log and "web: item text" in log
    shot(page, "custody-log")
    assert dialogs == []


def test_a_viewer_sees_incidents_but_not_the_custody_log(browser, server):
    page, _ = signed_in_page(browser, server, "viewer")
    assert page.locator("nav >> text=Custody log").count() == 0
    answer = page.goto(f"{server}/custody")
    assert answer is not None and answer.status == 403


def test_a_viewer_never_sees_a_restricted_item_anywhere(browser, server):
    """Every page a viewer can reach by following links, and the searches that would find the
    two restricted witness statements: none shows a word of them, their names or incidents."""
    page, _ = signed_in_page(browser, server, "viewer")
    seen = [page.content()]
    links = page.eval_on_selector_all("table.list tbody a", "els => els.map(e => e.href)")
    for incident in sorted(set(links)):
        page.goto(incident)
        seen.append(page.content())
        texts = page.eval_on_selector_all("a[href*='/items/']", "els => els.map(e => e.href)")
        for text in sorted(set(texts))[:3]:
            page.goto(text)
            seen.append(page.content())
    for words in ("Zirkovska", "Zalizniak", "witness", "Irpin"):
        page.goto(f"{server}/incidents")
        page.fill("input[name=q]", words)
        page.click("form.filters button[type=submit]")
        page.wait_for_load_state()
        seen.append(page.locator("table.list tbody").inner_text())
        seen.append(page.locator("h1").inner_text())
    shot(page, "viewer-search")
    for content in seen:
        for words in RESTRICTED_WORDS:
            assert words not in content
    assert any("0 of" in content for content in seen)


def test_the_map_and_timeline_filter_each_other_and_load_nothing_from_outside(browser, server):
    page, dialogs = signed_in_page(browser, server, "analyst")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.click("nav >> text=Map and timeline")
    page.wait_for_selector("#map[data-ready]")
    drawn = int(page.get_attribute("#map", "data-ready") or 0)
    assert drawn >= 5
    counts = page.locator("#counts")
    assert counts.inner_text().startswith(f"{drawn} of {drawn}")
    assert page.locator("#picked tbody tr").count() == drawn
    assert page.locator("#timeline rect.bar").count() >= 1
    assert page.locator(".leaflet-overlay-pane path, .leaflet-overlay-pane canvas").count() >= 1
    shot(page, "map")
    # brushing the timeline: a narrow period at its start keeps fewer incidents, in the list
    # under the map as in the count
    box = page.locator("#timeline").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 2, box["y"] + 40)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.05, box["y"] + 40, steps=4)
    page.mouse.up()
    kept = int(counts.inner_text().split()[0])
    assert 0 < kept < drawn
    assert page.locator("#picked tbody tr").count() == kept
    assert page.locator("#timeline rect.brush").count() == 1
    shot(page, "map-brushed")
    page.click("#everything")
    assert int(counts.inner_text().split()[0]) == drawn
    # the map's view filters the timeline: zoomed in on one incident, fewer are counted
    page.locator("#picked tbody a").first.click()
    page.wait_for_load_state()
    page.go_back()
    page.wait_for_selector("#map[data-ready]")
    page.evaluate("() => { const b = document.querySelector('#map'); }")
    for _ in range(6):
        page.locator(".leaflet-control-zoom-in").click()
        page.wait_for_timeout(150)
    assert int(page.locator("#counts").inner_text().split()[0]) < drawn
    assert all(url.startswith(server) for url in asked), [u for u in asked
                                                          if not u.startswith(server)]
    assert dialogs == []


def test_the_evidence_viewer_shows_each_kind_and_runs_nothing_it_holds(browser, server):
    page, dialogs = signed_in_page(browser, server, "analyst")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.click("nav >> text=Evidence")
    page.wait_for_load_state()
    shot(page, "items")
    page.click("table.list >> text=market-capture.html")
    page.wait_for_load_state()
    frame = page.frame_locator("iframe.capture")
    assert frame.locator("h1").inner_text() == "Report from the market"
    assert frame.locator("script, img, iframe, form, svg").count() == 0
    shot(page, "item-capture")
    page.goto(f"{server}/items")
    page.click("table.list >> text=two-pages.pdf")
    page.wait_for_function("() => [...document.querySelectorAll('figure.page img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)")
    assert page.locator("figure.page img").count() == 2
    shot(page, "item-pdf")
    page.goto(f"{server}/items")
    page.click("table.list >> text=crater.png")
    page.wait_for_load_state()
    assert page.locator("img.picture.blurred").count() == 1
    page.fill("form.reveal input[name=reason]", "to measure the crater against the report")
    page.click("form.reveal button")
    page.wait_for_load_state()
    assert page.locator("img.picture.blurred").count() == 0
    assert "you gave a reason" in page.locator("main").inner_text()
    shot(page, "item-picture")
    assert all(url.startswith(server) for url in asked)
    assert dialogs == []


def test_ingested_markup_never_runs_in_the_browser(browser, server, web_home):
    case = open_case(web_home, environ={})
    try:
        with case.session() as session:
            item = session.scalars(select(Origin).where(Origin.name == HOSTILE_NAME)).one()
    finally:
        case.close()
    page, dialogs = signed_in_page(browser, server, "legal")
    page.goto(f"{server}/items/{item.item_id}/text?start=0&end=8")
    page.wait_for_timeout(300)
    page.hover("pre.text")
    assert dialogs == []
    assert page.locator("script, svg, img").count() == 0
    assert "<script>alert('text')</script>" in page.locator("pre.text").inner_text()


def test_screenshots_are_kept_where_the_docs_expect_them():
    docs = Path(__file__).resolve().parents[2] / "docs" / "images"
    for name in ("web-incidents.png", "web-incident.png", "web-map.png", "web-evidence.png"):
        assert (docs / name).is_file(), name


def _decide(page, form: str, reason: str) -> None:  # type: ignore[no-untyped-def]
    """Fill a decision form's reason, send it, and wait for the incident page it returns to."""
    page.locator(form).locator("input[name=reason]").fill(reason)
    page.locator(form).locator("button[type=submit]").click()
    page.wait_for_selector("p.done")


def test_review_merge_and_a_second_persons_approval_are_both_in_the_custody_log(browser,
                                                                                 server):
    # last in this module: it changes the case the module's server holds
    page, dialogs = signed_in_page(browser, server, "analyst")
    links = page.locator("table.list tbody a[href^='/incidents/']")
    first, second = (links.nth(n).get_attribute("href").rsplit("/", 1)[1] for n in (0, 1))
    page.goto(f"{server}/incidents/{first}")
    assert page.locator("section.review .status").inner_text().lower() == "new"
    _decide(page, "form:has(input[value=start_review])", "taking this one")
    page.click("section.review details summary")
    page.fill("form:has(input[value=merge]) input[name=others]", second)
    _decide(page, "form:has(input[value=merge])", "same strike reported twice")
    assert "merge of " + second in page.locator("table.history").inner_text()
    _decide(page, "form:has(input[value=mark_reviewed])", "sources and place checked")
    assert page.locator("section.review .status").inner_text().lower() == "reviewed"
    assert page.locator("button[value=approve]").count() == 0  # an analyst cannot approve
    shot(page, "incident-reviewed")

    second_pair, more = signed_in_page(browser, server, "reviewer")
    second_pair.goto(f"{server}/incidents/{first}")
    _decide(second_pair, "form:has(input[value=approve])", "agree with the merge")
    assert second_pair.locator("section.review .status").inner_text().lower() == "legal review"
    second_pair.goto(f"{server}/incidents/{second}")  # merged away: its old link leads on
    assert second_pair.url.endswith(f"/incidents/{first}?merged_from={second}")
    assert second in second_pair.locator("p.done").inner_text()
    second_pair.click("nav >> text=Custody log")
    second_pair.wait_for_load_state()
    rows = second_pair.locator("table.custody tbody tr")
    log = [rows.nth(n).inner_text() for n in range(min(rows.count(), 40))]
    assert any("\tanalyst\tannotate\t" in r and "decision: merge" in r for r in log)
    assert any("\treviewer\tannotate\t" in r and "move: approve" in r
               and "agree with the merge" in r for r in log)
    shot(second_pair, "custody-log-review")
    assert dialogs == [] and more == []
