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
    # "overnight" right after "The May 30 attack ..." is that attack's night, and the day it
    # was first counted as (the night before publication) stays as a negative trace
    (overnight,) = [v for _, v in mention.dates("event") if v.expression == "overnight"]
    assert overnight.iso == "2024-05-30"
    assert any(c.rule == "look_back_days/night-of-the-named-attack" and
               c.value.iso == "2024-06-03" for c in mention.claims if c.kind == "not_taken")


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


# -- long sieges (issue 10, kinds 7 and 8) ----------------------------------------------------

def test_a_town_shelled_round_the_clock_is_one_continuing_situation(extraction_tools):
    text = ("As of the morning of 15 October, 900 people remain in Kupiansk despite "
            "round-the-clock shelling.\n\nThe mayor spoke on television.\n\n\"There is a "
            "little less shelling now, but they are still shelling around the clock,\" he said.")
    mentions = extract(extraction_tools, text, date(2023, 10, 15))
    assert [m.situation for m in mentions] == [True]
    (mention,) = mentions
    assert {v.role for _, v in mention.dates()} <= {"report"}  # "as of": the day of a count


def test_a_tally_of_civilians_in_a_report_of_no_attack_is_no_one_day_toll(extraction_tools):
    text = ("The mayor of Kupiansk met reporters in Kharkiv.\n\nBefore the war, 27,000 people "
            "lived in Kupiansk. Now fewer than 2,000 remain.\n\n300 civilians have been killed "
            "and 700 wounded.")
    mentions = extract(extraction_tools, text, date(2024, 1, 20))
    assert not [m for m in mentions if not m.situation and "killing" in m.categories]
