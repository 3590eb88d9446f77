"""An HTML report opened in a real browser (Debian's Chromium, driven by Playwright) with the
network blocked: it asks for nothing outside itself, no script of the case runs, and it looks
like a report. The screenshot is kept under the test's temporary directory for a person to see.

Skips, saying why, where Chromium or Playwright is missing; ``.ci/run`` installs both.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from casebuilder.preservation.case import open_case
from casebuilder.reporting.casefile import making
from casebuilder.reporting.casefile.html import render_html
from casebuilder.reporting.charts import SvgCharts
from casebuilder.reporting.maps import SvgMaps

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists() or shutil.which("chromium") is None,
                                reason="Debian's chromium is not installed")
playwright_sync = pytest.importorskip("playwright.sync_api", reason="playwright not installed")

# Flags without which Chromium reaches for Google's hosts at start-up (this machine's closed
# network refuses them, and a test must not depend on that refusal).
QUIET = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_sync.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=QUIET)
        try:
            yield launched
        finally:
            launched.close()


def open_offline(browser: Any, path: Path, shot: Path) -> dict[str, list[str]]:
    """Open ``path`` with every request but the file itself refused; what was asked for,
    what a script did, and the page's text."""
    seen: dict[str, list[str]] = {"requests": [], "dialogs": [], "errors": [], "text": []}
    context = browser.new_context(java_script_enabled=True)

    def refuse(route: Any) -> None:
        url = route.request.url
        if url == path.as_uri():
            route.continue_()
        else:
            seen["requests"].append(url)
            route.abort()

    context.route("**/*", refuse)
    page = context.new_page()
    page.on("dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.on("request", lambda r: None if r.url in (path.as_uri(),) or r.url.startswith(
        ("data:", "about:")) else seen["requests"].append(r.url))
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_timeout(300)
    seen["text"].append(page.inner_text("body"))
    page.screenshot(path=str(shot), full_page=False)
    context.close()
    return seen


def test_the_dev_case_incident_report_asks_for_nothing_outside_itself(
        browser: Any, dev_case_home: Path, tmp_path: Path) -> None:
    from tests.reporting.test_casefile_content import kramatorsk

    case = open_case(dev_case_home, create=False)
    try:
        incident = kramatorsk(case)
        document, _ = making.assemble(case, making.ReportRequest("incident", "html",
                                                                 incident.id),
                                      making.Drawers(SvgMaps(), SvgCharts()))
    finally:
        case.close()
    path = tmp_path / "incident.html"
    path.write_text(render_html(document), encoding="utf-8")
    seen = open_offline(browser, path, tmp_path / "incident.png")
    assert seen["requests"] == []
    assert seen["dialogs"] == [] and seen["errors"] == []
    assert f"Incident {incident.id}" in seen["text"][0]
    assert (tmp_path / "incident.png").stat().st_size > 10_000


def test_hostile_case_text_and_drawings_never_run_or_fetch(browser: Any, tmp_path: Path
                                                          ) -> None:
    from tests.reporting.test_casefile_render import HOSTILE, sample_document

    path = tmp_path / "hostile.html"
    path.write_text(render_html(sample_document()), encoding="utf-8")
    seen = open_offline(browser, path, tmp_path / "hostile.png")
    assert seen["requests"] == []  # the hostile drawing's evil.example addresses included
    assert seen["dialogs"] == [] and seen["errors"] == []
    assert "<script>alert(1)</script>" in seen["text"][0]  # shown as text, not run
    assert HOSTILE.split("<script>")[0].strip() in " ".join(seen["text"][0].split())
