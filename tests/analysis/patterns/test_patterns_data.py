"""The data of the pattern analysis: parameters (validated, each with why), the weapons
table, and the target type marking rescuers in the extraction vocabulary."""

from __future__ import annotations

import tomllib
from datetime import date

import pytest

from casebuilder.analysis.patterns.parameters import (
    SHIPPED,
    PatternParametersError,
    parse_parameters,
    shipped_parameters,
)
from casebuilder.analysis.patterns.records import named_as_speaker
from casebuilder.analysis.patterns.weapons import weapons_table, wide_area
from casebuilder.extraction.mentions import SourceText
from casebuilder.extraction.vocabulary import shipped_vocabulary


def shipped_data():
    return tomllib.loads(SHIPPED.read_text())


def test_the_shipped_parameters_load_and_each_has_a_reason():
    p = shipped_parameters()
    assert p.run.alpha == 0.05 and p.sites.rescuer_targets == ("rescuers",)
    assert len(p.why) == sum(len(section) for section in shipped_data().values())
    assert all(len(why) > 20 for why in p.why.values())
    assert len(p.digest()) == 64


@pytest.mark.parametrize(("section", "name", "entry", "message"), [
    ("run", "alpha", {"value": 1.5, "why": "x"}, "between 0 and 1"),
    ("series", "eps_km", {"value": "five", "why": "x"}, "a number"),
    ("series", "eps_km", {"value": -1.0, "why": "x"}, "greater than 0"),
    ("series", "min_samples", {"value": 2.5, "why": "x"}, "whole number"),
    ("series", "eps_km", {"value": 5.0}, "value = ..., why"),
    ("series", "eps_km", {"value": 5.0, "why": " "}, "has no why"),
    ("objects", "busy_hours", {"value": [[20, 7]], "why": "x"}, "start < end"),
    ("sites", "unknown_knob", {"value": 1, "why": "x"}, "unknown parameter"),
])
def test_a_bad_parameter_is_refused_by_name(section, name, entry, message):
    data = shipped_data()
    data[section][name] = entry
    with pytest.raises(PatternParametersError, match=message):
        parse_parameters(data)


def test_a_missing_section_is_refused():
    data = shipped_data()
    del data["onsets"]
    with pytest.raises(PatternParametersError, match=r"\[onsets\] is missing"):
        parse_parameters(data)


def test_every_weapon_the_extraction_names_is_in_the_weapons_table():
    table = weapons_table()
    names = {w.name.lower() for w in shipped_vocabulary().weapons.values()}
    assert names <= set(table), sorted(names - set(table))
    for figures in table.values():
        assert figures.source and figures.figure


@pytest.mark.parametrize(("weapon", "wide", "why"), [
    ("Grad", True, "unguided, salvo of 40"),
    ("Smerch", True, "submunitions"),
    ("9M55K", True, "submunitions"),
    ("Kalibr", True, "warhead 450 kg"),
    ("artillery", True, "CEP"),
    ("HIMARS", False, "no figure reaches"),
    ("Shahed drone", False, "no figure reaches"),
    ("missile", True, "extraction vocabulary"),
    ("drone", False, "no figure reaches"),
    ("a catapult", False, "not in the weapons table"),
])
def test_wide_area_verdicts_follow_the_table_and_the_rule(weapon, wide, why):
    verdict = wide_area(weapon, shipped_parameters().wide_area)
    assert verdict.wide_area is wide
    assert why in verdict.reason


def _targets(tools, text):
    mentions = tools.extractor.extract(SourceText(1, text, "", "Desk", date(2023, 5, 2)))
    return {c.value.target_type for m in mentions for c in m.claims if c.kind == "target"}


@pytest.mark.parametrize("text", [
    "A second missile struck the same street in Kharkiv forty minutes later, wounding three "
    "rescuers.",
    "In Odesa a drone hit a warehouse on Monday; an hour later another drone struck, killing "
    "two firefighters who were putting out the blaze.",
    "Shelling of Kherson on Sunday injured two paramedics as they carried a wounded man to an "
    "ambulance.",
])
def test_rescuers_hit_are_a_target_type(extraction_tools, text):
    assert "rescuers" in _targets(extraction_tools, text)


def test_rescuers_who_only_speak_are_not_taken_as_hit():
    assert named_as_speaker("rescuers", "Rescuers")
    assert named_as_speaker("emergency services", "the regional emergency services")
    assert not named_as_speaker("rescuers", "the mayor")
