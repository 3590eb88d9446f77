"""Speakers in real pages (issue 10, kind 9): "This was reported by X" and "X reported this on
Monday" name the source of the outlet's sentences before them; "the occupiers have claimed the
lives of" is no source; a headline or caption line is never glued to a speaker's name; a full
stop inside a name ("Newsdesk.NET") ends no sentence. Texts are ours."""

from __future__ import annotations

from datetime import date

import pytest

from casebuilder.extraction.mentions import MentionExtractor, SourceText
from casebuilder.extraction.text import TextAnalyser


@pytest.fixture(scope="module")
def extractor(extraction_tools) -> MentionExtractor:
    return extraction_tools.extractor


def speakers(extractor: MentionExtractor, text: str) -> dict[str, set[str]]:
    """The speakers of each kind of claim of the document's mentions."""
    out: dict[str, set[str]] = {}
    for mention in extractor.extract(SourceText(item_id=9, text=text, title="",
                                                outlet="Desk", published=date(2023, 6, 1))):
        for claim in mention.claims:
            out.setdefault(claim.kind, set()).add(claim.attribution.speaker)
    return out


@pytest.mark.parametrize("naming", [
    "This was reported by the head of the regional administration Ivan Petrenko.",
    "This was announced on Telegram by the head of the regional administration Ivan Petrenko.",
    "According to Newsdesk.NET, this was reported by the regional governor Ivan Petrenko.",
    "The regional governor Ivan Petrenko reported this on Telegram on Wednesday.",
])
def test_a_source_named_after_the_sentences_is_their_source(extractor, naming):
    text = (f"A drone hit a house in Sumy on Wednesday, killing two people.\n\n{naming}")
    found = speakers(extractor, text)
    assert any("Petrenko" in s for s in found["killed"]), found
    assert "Desk" not in found["killed"]


def test_a_later_speaker_does_not_take_a_sentence_with_its_own(extractor):
    text = ("A drone hit a house in Sumy on Wednesday, killing two people, the mayor said. "
            "This was reported by the regional governor Ivan Petrenko.")
    found = speakers(extractor, text)
    assert found["killed"] == {"the mayor"}


def test_occupiers_who_claimed_lives_are_not_a_source(extractor):
    text = ("Since the spring, the occupiers have claimed the lives of 40 civilians in "
            "Vovchansk, shelling it every day.")
    found = speakers(extractor, text)
    assert all("occupiers" not in s for names in found.values() for s in names)


def test_a_headline_line_is_not_glued_to_the_speaker(extractor):
    text = ("Video: shelling hits a bus in Horlivka\nSeven people died as a shell hit a bus in "
            "Horlivka, Ivan Petrenko, the city's mayor, said on Friday.")
    found = speakers(extractor, text)
    assert found["killed"] == {"Ivan Petrenko"}


def test_no_sentence_ends_inside_a_web_address():
    analyser = TextAnalyser()
    text = "According to Newsdesk.NET, two people died. The mayor said so."
    assert [s.text for s in analyser.sentences(text)] == [
        "According to Newsdesk.NET, two people died.", "The mayor said so."]


@pytest.mark.parametrize("dateline", ["#Sumy", "SUMY:", "SUMY, May 31 (Reuters) -"])
def test_a_dateline_is_not_glued_to_the_speaker(extractor, dateline):
    text = (f"{dateline} Regional governor Ivan Petrenko said shelling killed a man in "
            "Okhtyrka on Wednesday.")
    found = speakers(extractor, text)
    assert found["killed"] == {"Regional governor Ivan Petrenko"}
