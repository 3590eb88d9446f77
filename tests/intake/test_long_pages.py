"""A page of tens of megabytes on one line is read within bounded memory."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from casebuilder.intake.handlers import html
from casebuilder.intake.handlers.base import ParseSource


def test_visible_text_of_a_huge_line_costs_little_more_than_the_text():
    # Splitting a 10 MB line into words cost 120 MB; a window at a time costs about 30 MB.
    script = textwrap.dedent("""
        import resource
        from casebuilder.intake.handlers.html import html_to_text
        page = "<html><body><p>" + "Shelling hit the market. " * 400_000 + "</p></body></html>"
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        text = html_to_text(page)
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        print(len(text), grown)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    length, grown_kib = int(out[0]), int(out[1])
    assert length == len("Shelling hit the market. ") * 400_000 - 1
    assert grown_kib < 60 * 1024, f"{grown_kib // 1024} MB for a 10 MB line"


def test_white_space_is_collapsed_as_before_across_windows(monkeypatch):
    def by_words(raw: str) -> str:  # how visible text was laid out before
        lines = [" ".join(line.split()) for line in raw.split("\n")]
        return "\n".join(line for line in lines if line)

    monkeypatch.setattr(html, "_WINDOW", 5)
    samples = ["", "  ", "a", " a  b\t\tc \n\n d \r\n e\u00a0 f\u2028g \x1c ", "x\n \n \ny",
               "word " * 7, "\n\nlead and trail\n\n"]
    for raw in samples:
        assert html.collapse_white_space(raw) == by_words(raw), repr(raw)


def test_a_page_over_trafilaturas_limit_keeps_its_visible_text_without_trafilatura(
        tmp_path: Path, monkeypatch):
    page = tmp_path / "long.html"
    page.write_text("<!doctype html><html><head><title>Long</title></head><body><p>"
                    + "The shelling went on all night. " * 200 + "</p></body></html>")
    monkeypatch.setattr(html, "trafilatura_limit", lambda: 1_000)

    def not_called(_: str) -> str:
        raise AssertionError("trafilatura ran on a page over its limit")

    monkeypatch.setattr(html, "main_text", not_called)
    result = html.HtmlHandler().parse(ParseSource(page, page.name, page.stat().st_size))
    assert result.text is not None and result.text.startswith("The shelling went on")
    assert result.metadata["title"] == "Long"
    assert any("over trafilatura's limit of 1,000" in w for w in result.warnings)
    assert result.derivatives[0].tool == "html.parser"
