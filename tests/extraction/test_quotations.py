"""A speaker's quotation that runs on over several sentences: the toll told inside it is the
speaker's, not the outlet's (issue 10, kind 7). The texts are written for these tests."""

from __future__ import annotations

from datetime import date

import pytest

from casebuilder.extraction.attribution import QUOTATION_CONTINUED, Attributor
from casebuilder.extraction.mentions import SourceText
from casebuilder.extraction.text import TextAnalyser
from casebuilder.extraction.vocabulary import load_vocabulary


@pytest.fixture(scope="module")
def tools():
    return TextAnalyser(), load_vocabulary()


def speakers(tools, text):
    analyser, vocabulary = tools
    attributor = Attributor(analyser, vocabulary, "Desk")
    return [attributor.attribute(s)[0] for s in analyser.sentences(text)]


@pytest.mark.parametrize(("opening", "closing"), [("\"", "\""), ("“", "”")])
def test_the_sentences_of_a_quotation_are_its_speakers(tools, opening, closing):
    found = speakers(tools, f"The regional governor said: {opening}The search ended this "
                     f"morning. Six people were killed. Twenty were wounded.{closing} Rain fell "
                     "on the city later.")
    assert [a.speaker for a in found] == ["The regional governor"] * 3 + ["Desk"]
    assert QUOTATION_CONTINUED in found[1].rules and found[1].kind == "official"


def test_a_quotation_ends_with_its_paragraph(tools):
    found = speakers(tools, "The regional governor said: \"The search ended this morning. Six "
                     "people were killed.\n\nRescuers left the site at noon.")
    assert [a.speaker for a in found] == ["The regional governor"] * 2 + ["Desk"]


def test_a_quotation_with_no_speaker_is_the_outlets(tools):
    found = speakers(tools, "A banner read: \"We will rebuild. Six people were killed here.\"")
    assert {a.speaker for a in found} == {"Desk"}


def test_a_toll_inside_a_long_quotation_is_the_speakers(extraction_tools):
    text = ("A missile hit a market in Kostiantynivka on Monday, the outlet reported, killing "
            "four people. The regional governor said: \"Rescuers worked through the night. "
            "Eleven people were killed. Our hearts are with their families.\"")
    (mention,) = extraction_tools.extractor.extract(
        SourceText(1, text, "", "Desk", date(2024, 3, 12)))
    tolls = {c.value.low: c.attribution.speaker for c in mention.claims
             if c.kind == "killed"}
    assert tolls[11] == "The regional governor"
