"""Page furniture (issue 10): captions, teasers, prompts, time stamps, bylines and datelines of
captured pages are kept in the text with their offsets but give no incident, figure, date or
speaker, and what they held is shown as not taken with the rule that marked them. The texts
are ours, written in the shapes saved and pasted news pages have."""

from __future__ import annotations

from datetime import date

import pytest

from casebuilder.extraction.claims import NOT_TAKEN
from casebuilder.extraction.mentions import MentionExtractor, SourceText
from casebuilder.extraction.page_segments import blocks, hard_wrapped

PUBLISHED = date(2023, 6, 1)


@pytest.fixture(scope="module")
def extractor(extraction_tools) -> MentionExtractor:
    return extraction_tools.extractor


def read(extractor: MentionExtractor, text: str, title: str = ""):
    return extractor.read(SourceText(item_id=7, text=text, title=title, outlet="Desk",
                                     published=PUBLISHED))


PASTED_PAGE = "\n".join([
    "Drone hits a bus depot in Sumy",
    "Reuters",
    "31 May, 2023, 08:15 pm",
    "FILE PHOTO: Firefighters put out a fire at a warehouse hit by a missile in Kramatorsk, "
    "Donetsk region, May 2, 2022. Agency/Jane Doe",
    "A drone hit a bus depot in Sumy on Wednesday, killing two workers and wounding five, "
    "the regional governor said.",
    "Read more: Eleven killed as a missile hits a block of flats in Dnipro",
    "For the latest updates on the war, visit our live page.",
    ""])


def test_a_caption_and_a_teaser_make_no_incident_and_lend_no_figure(extractor):
    reading = read(extractor, PASTED_PAGE)
    places = sorted(m.place.name for m in reading.mentions if m.place is not None)
    assert places == ["Sumy"]
    (sumy,) = reading.mentions
    killed = {c.value.low for c in sumy.claims if c.kind == "killed"}
    assert killed == {2}
    dates = {c.value.iso for c in sumy.claims if c.kind == "date"}
    assert dates == {"2023-05-31"}


def test_what_furniture_held_is_traced_with_its_rule(extractor):
    reading = read(extractor, PASTED_PAGE)
    rules = {s.rule for s in reading.segments}
    assert {"photo-caption-opener", "related-article-teaser", "reader-prompt", "time-stamp",
            "agency-line", "heading"} <= rules
    (sumy,) = reading.mentions
    traced = {(c.value.what, c.value.words, c.rule) for c in sumy.claims
              if c.kind == NOT_TAKEN and c.rule.startswith("page_segments/")}
    # the teaser's toll and city went to no incident, and say why
    assert ("figure", "Eleven killed", "page_segments/related-article-teaser") in traced
    assert ("place", "Dnipro", "page_segments/related-article-teaser") in traced
    # every segment keeps its offsets into the stored text
    for segment in reading.segments:
        assert PASTED_PAGE[segment.start:segment.end].strip() == \
            PASTED_PAGE[segment.start:segment.end]


def test_a_heading_is_not_run_into_the_line_after_it(extractor):
    reading = read(extractor, PASTED_PAGE)
    speakers = {c.attribution.speaker for m in reading.mentions for c in m.claims}
    assert not any(s == "Reuters" or "depot in Sumy\n" in s for s in speakers)
    assert any("governor" in s for s in speakers)


def test_a_place_alone_on_the_first_line_is_a_dateline(extractor):
    text = ("Zaporizhzhia\n\nThe front is 30 km away. Since the spring, 40 civilians have been "
            "killed by shelling, the mayor of Orikhiv said.")
    reading = read(extractor, text)
    assert not any(m.place is not None and m.place.name == "Zaporizhzhia"
                   for m in reading.mentions)
    assert any(s.kind == "dateline" and s.rule == "place-name-line" for s in reading.segments)


def test_an_agency_dateline_places_nothing_and_dates_nothing(extractor):
    text = ("Odesa, May 30 (Reuters) - A drone struck a grain silo in Izmail on Tuesday, "
            "injuring three workers, the regional governor said.")
    reading = read(extractor, text)
    assert [m.place.name for m in reading.mentions if m.place is not None] == ["Izmail"]
    (izmail,) = reading.mentions
    roles = {c.value.expression: c.value.role for c in izmail.claims if c.kind == "date"}
    assert roles.get("May 30", "report") == "report"
    assert roles.get("Tuesday") == "event"


def test_tags_and_repeated_captions_are_furniture(extractor):
    text = ("A shell hit a bus stop in Horlivka on Friday, killing two, the city's mayor said.\n"
            "horlivka\nshelling\n"
            "A shell hit a bus stop in Horlivka on Friday, killing two, the city's mayor said.\n"
            "#Horlivka #shelling #war\n")
    reading = read(extractor, text)
    kinds = [(s.kind, s.rule) for s in reading.segments]
    assert kinds == [("furniture", "tag-list"), ("furniture", "tag-list"),
                     ("furniture", "repeated-block"), ("furniture", "hashtag-list")]
    assert len(reading.mentions) == 1


def test_a_hard_wrapped_text_is_cut_into_paragraphs_not_lines():
    text = ("A missile struck a residential building in the centre of the city\n"
            "on Sunday morning, killing four people and wounding eleven, the\n"
            "mayor said in a statement posted on the council's channel.\n\n"
            "Rescuers were still searching the rubble late in the evening and\n"
            "the regional governor said more people might be under it.\n")
    assert hard_wrapped(text)
    assert len(blocks(text, wrapped=True)) == 2


def test_a_plain_report_has_no_segments(extractor):
    text = ("A missile struck a school in Kharkiv on Monday, killing two teachers, the "
            "governor said.\n\nRescuers searched the rubble for hours.")
    assert read(extractor, text).segments == []


SAVED_PAGE = """<!doctype html><html lang="en"><head><title>Drone hits a bus depot</title></head>
<body><nav><a href="/">Home</a> <a href="/world">World</a></nav>
<article><h1>Drone hits a bus depot in Sumy</h1><p class="byline">By Jane Doe</p>
<figure><img src="depot.jpg"><figcaption>Firefighters at a warehouse hit by a missile in
Kramatorsk, May 2, 2022. Photo: Agency</figcaption></figure>
<p>A drone hit a bus depot in Sumy on Wednesday, killing two workers and wounding five, the
regional governor said.</p>
<p>Read more: Eleven killed as a missile hits a block of flats in Dnipro</p>
<p>Rescuers worked at the depot through the night, the governor said on Telegram.</p>
<aside><h3>Related</h3><ul><li><a href="/a">Three killed in a strike on a Kherson
market</a></li></ul></aside></article><footer>Subscribe to our newsletter</footer>
</body></html>"""


def test_a_saved_page_keeps_its_furniture_out_whichever_way_its_text_was_made(extractor):
    from casebuilder.intake.handlers.html import html_to_text, main_text

    for text in (main_text(SAVED_PAGE), html_to_text(SAVED_PAGE)):
        assert text is not None
        reading = read(extractor, text)
        assert [m.place.name for m in reading.mentions if m.place is not None] == ["Sumy"]
        (sumy,) = reading.mentions
        assert {c.value.low for c in sumy.claims if c.kind == "killed"} == {2}
