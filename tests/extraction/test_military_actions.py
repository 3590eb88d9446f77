"""Military actions and alerts told with no harm to civilians make no incident (issue 10,
kind 6): troops encircled, a supply line cut, forces that fled, a town captured, a battle for
a place, an air-raid alert, a drone shot down, combatants killed. What a rule keeps out
leaves a negative trace with its name. The texts are written for these tests."""

from __future__ import annotations

from datetime import date

import pytest

from casebuilder.extraction.mentions import SourceText


def extract(tools, text, published=date(2024, 3, 14)):
    return tools.extractor.extract(SourceText(1, text, "", "Desk", published))


@pytest.mark.parametrize("text", [
    "Ukrainian units near Marinka were encircled on Tuesday, the Russian ministry claimed.",
    "The army hopes to cut off the land bridge to Crimea before the winter.",
    "Russian forces fled Izium on Saturday as the front collapsed.",
    "Kreminna, once a town of 18,000 residents, was captured by Russian troops in April.",
    "Russian forces attacked Vuhledar for months before they finally captured it.",
    "Sirens sounded over Poltava on Tuesday afternoon, warning of possible missile strikes.",
    "Air defences shot down four missiles over Vinnytsia on Tuesday night.",
    "The ministry said its strikes near Avdiivka on Tuesday killed 40 Ukrainian soldiers.",
    "The ministry said its artillery near Avdiivka destroyed up to 200 militants on Tuesday.",
    "The ministry said 30 Ukrainian soldiers were eliminated near Avdiivka on Tuesday.",
    "Missiles struck Ukrainian airfields and military facilities near Starokostiantyniv on "
    "Tuesday, the ministry said.",
    "Drones attacked a military airfield near Morozovsk on Tuesday.",
])
def test_a_military_action_or_an_alert_makes_no_incident(extraction_tools, text):
    assert extract(extraction_tools, text) == []


@pytest.mark.parametrize("text", [
    "Residents fled Izium on Saturday as Russian shells hit their homes.",
    "Sirens sounded over Poltava on Tuesday minutes before a missile hit a school.",
    "Debris from a drone shot down over Vinnytsia on Tuesday fell on a house, wounding a man.",
    "Russian forces blockaded Mariupol for weeks, leaving civilians without water.",
])
def test_harm_told_beside_military_words_still_makes_an_incident(extraction_tools, text):
    assert extract(extraction_tools, text) != []


def test_a_military_action_set_aside_leaves_a_negative_trace(extraction_tools):
    (mention,) = extract(extraction_tools,
                         "After Russian forces fled Izium in September, investigators found "
                         "the bodies of 440 people in a forest.")
    rules = {c.rule for c in mention.claims if c.kind == "not_taken"}
    assert "military_actions/forces-fled" in rules
