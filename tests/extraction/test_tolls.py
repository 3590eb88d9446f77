"""Which figures are an attack's toll (issue 10, kinds 6 and 7): people counted by name
("the driver and a paramedic" are two), and figures that are kept as claims but are no
attack's toll. The texts are written for these tests."""

from __future__ import annotations

from datetime import date

import pytest

from casebuilder.extraction.mentions import SourceText


def extract(tools, text, published=date(2024, 3, 14)):
    return tools.extractor.extract(SourceText(1, text, "", "Desk", published))


def killed(mention):
    return [c.value.low for c in mention.claims if c.kind == "killed"]


@pytest.mark.parametrize(("text", "count"), [
    ("A drone struck an ambulance near Sumy on Tuesday, killing the driver and a paramedic.",
     2),
    ("A drone struck an ambulance near Sumy on Tuesday, killing the driver and paramedic.", 2),
    ("A drone struck an ambulance near Sumy on Tuesday. The driver and the paramedic were "
     "killed.", 2),
    ("A shell hit a house in Kherson on Tuesday, killing a woman and her two children.", 3),
    ("A shell hit a house in Kherson on Tuesday. A woman and her two children were killed.",
     3),
    ("A shell hit a house in Kherson on Tuesday, killing an elderly couple.", 2),
    ("A shell hit a house in Kherson on Tuesday. An elderly couple was killed.", 2),
    ("A shell hit a house in Kherson on Tuesday, killing a man and a woman.", 2),
    ("A shell hit a house in Kherson on Tuesday, killing a man and wounding a woman.", 1),
])
def test_people_counted_by_name(extraction_tools, text, count):
    (mention,) = extract(extraction_tools, text)
    assert max(killed(mention)) == count


def test_people_counted_by_name_are_counted_once(extraction_tools):
    (mention,) = extract(extraction_tools,
                         "A shell hit a house in Kherson on Tuesday. A man and a woman were "
                         "wounded.")
    assert [c.value.low for c in mention.claims if c.kind == "injured"] == [2]


@pytest.mark.parametrize("total", [
    "Over the past day, Russian attacks killed 11 civilians across the Kherson region, the "
    "governor said.",
    "Russian shelling killed 14 people across the Kherson region on Tuesday.",
    "During the war, 1,200 civilians have been killed in Kherson.",
])
def test_a_total_of_a_day_a_region_or_a_war_is_no_attacks_toll(extraction_tools, total):
    mentions = extract(extraction_tools,
                       "A missile hit a school in Kherson on Tuesday, killing three people. "
                       + total)
    tolls = [c.value.low for m in mentions for c in m.claims if c.kind == "killed"
             and not getattr(c.value, "cumulative", None)]
    assert tolls == [3]


@pytest.mark.parametrize("other", [
    "In the Sumy region, shelling killed 14 people.",
    "Attacks on other cities killed 14 more people, officials said.",
])
def test_another_places_figure_in_the_next_sentence_is_no_toll_of_the_attack(
        extraction_tools, other):
    mentions = extract(extraction_tools,
                       "A missile hit a school in Kherson on Tuesday, killing three people. "
                       + other)
    kherson = [m for m in mentions if m.place is not None and m.place.name == "Kherson"]
    tolls = [c.value.low for m in kherson for c in m.claims if c.kind == "killed"
             and not getattr(c.value, "cumulative", None)]
    assert tolls == [3]


def test_a_teasers_figure_is_kept_but_is_no_toll(extraction_tools):
    mentions = extract(extraction_tools,
                       "A missile hit a school in Kherson on Tuesday, killing three people. "
                       "Read more: Shelling of Kherson in May killed 40 residents.")
    figures = [(c.value.low, bool(getattr(c.value, "cumulative", None))) for m in mentions
               for c in m.claims if c.kind == "killed"]
    assert (3, False) in figures and (40, False) not in figures
