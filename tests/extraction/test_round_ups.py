"""Round-ups (issue 10, kind 3): a list of other places also targeted that night is no
incident at each place unless the text gives a place harm of its own. Texts are ours."""

from __future__ import annotations

from datetime import date

import pytest

from casebuilder.extraction.claims import NOT_TAKEN
from casebuilder.extraction.mentions import MentionExtractor, SourceText


@pytest.fixture(scope="module")
def extractor(extraction_tools) -> MentionExtractor:
    return extraction_tools.extractor


def places(extractor: MentionExtractor, text: str) -> list[str]:
    mentions = extractor.extract(SourceText(item_id=3, text=text, title="", outlet="Desk",
                                            published=date(2023, 6, 1)))
    return sorted(m.place.name for m in mentions if m.place is not None)


def test_a_list_of_regions_also_targeted_makes_no_incidents(extractor):
    text = ("A missile hit a block of flats in Lviv overnight, killing four people, the mayor "
            "said on Thursday.\n\nOther regions, including Rivne, Volyn and Ternopil, were "
            "also targeted in what officials called a massive attack.")
    assert places(extractor, text) == ["Lviv"]


def test_a_listed_place_with_its_own_harm_is_an_incident(extractor):
    text = ("A missile hit a block of flats in Lviv overnight, killing four people, the mayor "
            "said on Thursday.\n\nThe attack also hit Rivne and Lutsk, where two people were "
            "injured, officials said.")
    assert "Lutsk" in places(extractor, text) or "Rivne" in places(extractor, text)


def test_the_round_up_is_traced(extractor):
    text = ("A missile hit a block of flats in Lviv overnight, killing four people, the mayor "
            "said.\n\nOther cities, including Rivne and Ternopil, were also targeted.")
    (lviv,) = extractor.extract(SourceText(item_id=3, text=text, title="", outlet="Desk",
                                           published=date(2023, 6, 1)))
    traced = {c.value.words for c in lviv.claims
              if c.kind == NOT_TAKEN and c.rule == "round_ups/also-targeted-list"}
    assert {"Rivne", "Ternopil"} <= traced
