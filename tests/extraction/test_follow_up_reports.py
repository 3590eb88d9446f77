"""Reports that look back on an attack, and dates of something else in a report (issue 10,
kinds 2 and 8): a follow-up written days later is dated by the attack it refers to ("the
attack on Kherson on May 30", "the May 30 attack"), not by an "overnight" counted from its
own publication; the day a military offensive began is background, not the attack's day.
The texts are written for these tests."""

from __future__ import annotations

from datetime import date

from casebuilder.extraction.mentions import SourceText


def extract(tools, text, published):
    return tools.extractor.extract(SourceText(1, text, "", "Desk", published))


def test_a_follow_up_is_dated_by_the_attack_it_refers_to(extraction_tools):
    text = ("The death toll of the missile attack on Kherson on May 30 has risen to six, the "
            "regional governor said on June 3.\n\nThe May 30 attack was the heaviest on the "
            "city this spring. Missiles struck the covered market overnight, killing six "
            "people and wounding 20.")
    (mention,) = extract(extraction_tools, text, date(2024, 6, 3))
    when, words, _ = mention.event_date()
    assert when is not None and when.iso() == "2024-05-30", words
    assert 6 in [c.value.low for c in mention.claims if c.kind == "killed"]


def test_an_attack_set_against_another_is_not_named_as_the_attacks_day(extraction_tools):
    text = ("A drone hit a bakery in Kherson on Sunday, killing two people, a week after the "
            "missile attack on May 26.")
    (mention,) = extract(extraction_tools, text, date(2024, 6, 3))
    distances = {v.expression: v.distance for _, v in mention.dates("event")}
    assert distances["May 26"] != -1  # "a week after the attack on": another event's day


def test_the_start_of_an_offensive_does_not_date_the_attack(extraction_tools):
    text = ("KHERSON, June 3 - A missile struck a printing works in Kherson, killing three "
            "workers.\n\nStrikes on the city have grown heavier since the army began its new "
            "offensive across the river on May 10.")
    mentions = extract(extraction_tools, text, date(2024, 6, 3))
    dated = {m.event_date()[0].iso() if m.event_date()[0] else None for m in mentions}
    assert "2024-05-10" not in dated
    traces = [c for m in mentions for c in m.claims if c.kind == "not_taken"]
    assert any(c.rule.endswith("start-of-a-military-operation") for c in traces)
