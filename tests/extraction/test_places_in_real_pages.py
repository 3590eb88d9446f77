"""Place names in real pages (issue 10, the text side of kind 4): a region across the border
stays a region, an agreement, a time zone, a reference point or a meeting's venue is no place
of harm. Texts are ours."""

from __future__ import annotations

from datetime import date

import pytest

from casebuilder.extraction.mentions import MentionExtractor, SourceText


@pytest.fixture(scope="module")
def extractor(extraction_tools) -> MentionExtractor:
    return extraction_tools.extractor


def placed(extractor: MentionExtractor, text: str) -> list[tuple[str, str]]:
    mentions = extractor.extract(SourceText(item_id=5, text=text, title="", outlet="Desk",
                                            published=date(2024, 8, 7)))
    return [(m.place.name, m.place.feature_kind) for m in mentions if m.place is not None]


def test_a_city_in_a_region_across_the_border_is_not_the_regional_centre(extractor):
    text = ("A drone struck a car near a city in Russia's Belgorod region on Wednesday, killing "
            "the driver, the acting governor said.")
    assert placed(extractor, text) == [("Belgorod Oblast", "region")]


def test_the_city_of_the_regional_governor_is_still_the_centre(extractor):
    text = ("The Kharkiv regional governor said missiles struck the city on Wednesday, killing "
            "two people.")
    assert [name for name, _ in placed(extractor, text)] == ["Kharkiv"]


def test_agreements_time_zones_and_reference_points_place_nothing(extractor):
    text = ("Shelling hit a school in Horlivka at 07:40 Moscow time on Wednesday, injuring "
            "three, in breach of the Minsk agreements, the city's mayor said.")
    assert [name for name, _ in placed(extractor, text)] == ["Horlivka"]


def test_a_headline_that_shortens_the_region_to_its_centre_makes_no_incident_there(extractor):
    text = ("Drone kills two rescuers in Russia's Belgorod\n\n"
            "A drone hit a fire engine near the village of Grayvoron in Russia's Belgorod "
            "region on Wednesday, killing two rescuers, the regional governor said.")
    mentions = extractor.extract(SourceText(item_id=5, text=text, title="", outlet="Desk",
                                            published=date(2024, 8, 7)))
    assert [m.place.name for m in mentions if m.place is not None] == ["Grayvoron"]
    kept_out = [c for m in mentions for c in m.claims if c.kind == "not_taken"
                and c.rule == "place_levels/headline-short-for-the-region"]
    assert [c.value.words for c in kept_out] == ["Belgorod"]


def test_a_headline_on_the_centre_itself_keeps_the_city(extractor):
    text = ("Drone kills two rescuers in Russia's Belgorod\n\n"
            "A drone hit a fire engine in Belgorod on Wednesday, killing two rescuers, the "
            "governor of the Belgorod region said.")
    assert [name for name, _ in placed(extractor, text)] == ["Belgorod"]
