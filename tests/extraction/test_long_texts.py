"""Texts of any length are read within bounded memory, and a text the extractor fails on is
recorded, reported with exit status 1, and not tried again with the same rules."""

from __future__ import annotations

import dataclasses
import itertools
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import insider
from casebuilder.extraction import mentions as mentions_module
from casebuilder.extraction import run as run_module
from casebuilder.extraction.mentions import SourceText
from casebuilder.extraction.text import paragraphs, sections

REPORT = (
    "KHARKIV, 12 May 2022. A Russian missile struck a residential building in Kharkiv on "
    "Monday, killing three civilians and injuring twelve, the regional governor Oleh "
    "Syniehubov said.\n\nRescuers were still searching the rubble on Tuesday."
)
FILLER = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. "


def test_a_paragraph_longer_than_spacys_limit_is_split_into_sentences(extraction_tools):
    # One line of 1.05 million characters: spaCy refuses more than a million at once (E088).
    text = FILLER * (1_050_000 // len(FILLER) + 1)
    sentences = extraction_tools.analyser.sentences(text)
    assert sentences[0].start == 0 and sentences[-1].end == len(text.rstrip())
    assert all(s.text == text[s.start:s.end] for s in sentences[:50] + sentences[-50:])
    assert len(sentences) == text.count(". ")


def test_sections_cover_the_text_and_end_at_paragraphs_or_sentences():
    text = ("First paragraph. " * 40 + "\n\n") * 30 + FILLER * 400
    bounds = sections(text, 2_000)
    assert bounds[0][0] == 0 and bounds[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
    assert all(end - start <= 2_000 for start, end in bounds)
    # a cut falls after a blank line or after a full stop and its space, never mid-word
    assert all(text[end - 1] == "\n" or text[end - 2:end] == ". " for _, end in bounds[:-1])


def test_paragraphs_of_one_huge_line_cost_little_memory():
    # The old paragraph pattern kept backtracking state per character: about 1.2 GB for
    # 10 MB. Measured in a fresh interpreter so other tests' memory does not count.
    script = textwrap.dedent("""
        import resource
        from casebuilder.extraction.text import paragraphs, sections
        text = "Shelling hit the market. " * 400_000  # 10 MB, one line
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        found = paragraphs(text)
        cuts = sections(found[0][1])
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        print(len(found), len(cuts), grown)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    count, cuts, grown_kib = (int(x) for x in out)
    assert count == 1 and cuts == 100
    assert grown_kib < 200 * 1024, f"{grown_kib} KiB for a 10 MB line"


def test_paragraphs_are_those_separated_by_blank_lines():
    text = "  Title\n\nfirst line\nwrapped line  \n \t\nsecond\n\n\n third\n"
    assert paragraphs(text) == [(2, "Title"), (9, "first line\nwrapped line  "),
                                (38, "second"), (48, "third\n")]


def test_a_long_text_is_read_in_sections_with_offsets_into_the_whole_text(
        extraction_tools, monkeypatch):
    alone = extraction_tools.extractor.extract(SourceText(1, REPORT, "", "Desk"))
    assert alone and any(c.kind == "killed" for m in alone for c in m.claims)
    prefix = (FILLER * 20 + "\n\n") * 10
    text = prefix + REPORT + "\n\n" + prefix
    monkeypatch.setattr(mentions_module, "SECTION_CHARS", 3_000)
    found = list(extraction_tools.extractor.extract_by_section(SourceText(1, text, "", "Desk")))
    assert len(found) > 3  # read a section at a time
    claims = [c for section in found for m in section for c in m.claims]
    shifted = [c.provenance for m in alone for c in m.claims]
    assert sorted((p.char_start - len(prefix), p.char_end - len(prefix), p.quote)
                  for p in (c.provenance for c in claims)) == \
        sorted((p.char_start, p.char_end, p.quote) for p in shifted)
    for claim in claims:
        p = claim.provenance
        assert text[p.sentence_start:p.sentence_end] == p.quote
        assert p.sentence_start <= p.char_start <= p.char_end <= p.sentence_end


# -- a text the extractor fails on ------------------------------------------------------------


def _case_with_two_texts(tmp_path: Path) -> Path:
    from casebuilder.intake.ingest import ingest
    from casebuilder.preservation.case import init_case

    home = tmp_path / "home"
    case = init_case(home, name="t", environ={})
    try:
        good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
        good.write_text(REPORT)
        bad.write_text("BOOM. " + REPORT)
        ingest(case, [good, bad])
    finally:
        case.close()
    return home


def _failing_tools(extraction_tools, calls: list[str]):
    """The real tools, with an extractor that fails on any text starting with BOOM."""

    class Failing:
        def extract_by_section(self, source: SourceText):
            calls.append(source.text[:4])
            if source.text.startswith("BOOM"):
                raise ValueError("cannot read this text")
            yield from extraction_tools.extractor.extract_by_section(source)

    return dataclasses.replace(extraction_tools, extractor=Failing())


def _extract(home: Path, *args: str):
    from casebuilder.cli.main import cli

    return CliRunner().invoke(cli, ["--home", str(home), "extract", *args])


def _entries(home: Path, action: str) -> list[dict]:
    lines = (home / "custody" / "log.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["action"] == action]


@pytest.fixture
def failing(extraction_tools, monkeypatch) -> list[str]:
    import casebuilder.cli.main  # noqa: F401 - registers the commands (cli.extraction among them)
    from casebuilder.cli import extraction as cli_extraction

    calls: list[str] = []
    monkeypatch.setattr(cli_extraction, "extraction_tools",
                        lambda: _failing_tools(extraction_tools, calls))
    return calls


def test_a_failed_extraction_is_recorded_and_exits_1_and_is_not_retried(
        tmp_path, failing, monkeypatch):
    from casebuilder.preservation.case import open_case
    from casebuilder.preservation.verify import verify_case

    home = _case_with_two_texts(tmp_path)
    first = _extract(home)
    assert first.exit_code == 1, first.output
    assert "1 failed" in first.output
    assert "item 2 (bad.txt): the extractor failed: ValueError: cannot read this text" \
        in first.output
    (entry,) = _entries(home, "extract-failed")
    assert [r["id"] for r in entry["items"]] == [2, entry["items"][1]["id"]]
    assert entry["details"]["reason"].endswith("cannot read this text")
    assert entry["details"]["extractor"] == run_module.EXTRACTOR_ID
    assert len(_entries(home, "extract")) == 1  # the other text was extracted

    failing.clear()
    again = _extract(home)
    assert again.exit_code == 0, again.output
    assert "not tried again: these rules failed on this text" in again.output
    assert failing == []  # neither text was read again
    assert len(_entries(home, "extract-failed")) == 1

    forced = _extract(home, "--force")
    assert forced.exit_code == 1 and "BOOM" in failing
    assert len(_entries(home, "extract-failed")) == 2

    failing.clear()
    monkeypatch.setattr(run_module, "EXTRACTOR_ID", run_module.EXTRACTOR_ID + "-changed")
    changed = _extract(home)
    assert changed.exit_code == 1 and "BOOM" in failing  # a new extractor tries again

    case = open_case(home, environ={})
    try:
        report = verify_case(case)
    finally:
        case.close()
    assert report.ok, report.failures


def test_verify_catches_an_edited_extraction_failure(tmp_path, failing):

    from casebuilder.preservation.case import open_case
    from casebuilder.preservation.verify import verify_case

    home = _case_with_two_texts(tmp_path)
    assert _extract(home).exit_code == 1
    with insider.connect(home) as db:
        db.execute("UPDATE extraction_failures SET reason = 'nothing wrong'")
    case = open_case(home, environ={})
    try:
        report = verify_case(case)
    finally:
        case.close()
    assert any("extraction failure 1 of item 2" in str(f) and "reason" in str(f)
               for f in report.failures), report.failures
