"""Places in news copy (issue 10, kind 4): a town spelt in another transliteration, a
namesake chosen by the tie-break on a dateline, a surname after a title. Texts are ours."""

from __future__ import annotations

import pytest

from casebuilder.gazetteer import Gazetteer, distance_km


@pytest.fixture(scope="module")
def gazetteer(suite_gazetteer: Gazetteer) -> Gazetteer:
    return suite_gazetteer


def placed(gazetteer: Gazetteer, text: str) -> list[tuple[str, str, str]]:
    mentions = gazetteer.find_toponyms(text)
    return [(m.text, r.place.name, r.place.admin1) for m, r in
            zip(mentions, gazetteer.resolve_mentions(mentions), strict=True)
            if r.place is not None and r.place.feature_kind == "settlement"]


def test_a_town_written_with_j_for_dzh_is_the_town_of_the_region_the_text_names(
        gazetteer: Gazetteer) -> None:
    text = ("Shelling of the Kursk region injured six people on Tuesday, the governor said. "
            "Two of them were hurt in the town of Suja.")
    assert placed(gazetteer, text) == [("Suja", "Sudzha", "Kursk Oblast")]


def test_the_same_spelling_with_no_region_named_stays_what_it_was(gazetteer: Gazetteer
                                                                   ) -> None:
    text = "A textile fair opened in Suja on Tuesday."
    assert [place for _t, place, _a in placed(gazetteer, text)] == ["Shuya"]


def test_a_dateline_chosen_by_the_tie_break_takes_the_namesake_the_text_locates(
        gazetteer: Gazetteer) -> None:
    text = ("HOSTYNNE, Ukraine — Families of Hostynne went back to their houses this week.\n\n"
            "Soldiers occupied Hostynne, a village east of Sumy, in March and held its people "
            "for a month.")
    found = placed(gazetteer, text)
    assert {(t, a) for t, _p, a in found if t.lower() == "hostynne"} == {
        ("HOSTYNNE", "Sumy Oblast"), ("Hostynne", "Sumy Oblast")}


def test_a_guess_anchors_nothing(gazetteer: Gazetteer) -> None:
    # nothing tells the namesakes apart: each stays a tie, none pulls the other
    text = "Families of Hostynne went back this week.\n\nHostynne had been shelled in May."
    mentions = gazetteer.find_toponyms(text)
    results = gazetteer.resolve_mentions(mentions)
    assert all(r.undecided for r in results)


def test_a_surname_after_a_title_is_no_place(gazetteer: Gazetteer) -> None:
    text = ("The village had been kept clean and tidy, said Ms. Semenova, who ran its "
            "council. Mr Kursk, a neighbour, agreed.")
    assert placed(gazetteer, text) == []


@pytest.mark.parametrize(("text", "name", "admin1"), [
    ("Troops held the Yakhidne village for a month, twenty kilometres south of Chernihiv.",
     "Yahidne", "Chernihiv Oblast"),
    ("A missile hit a depot in the settlement of Lubotyn west of Kharkiv.",
     "Liubotyn", "Kharkiv Oblast"),
    ("Shells fell on the village of Graivoron in Russia's Belgorod region.",
     "Grayvoron", "Belgorod Oblast"),
])
def test_a_settlement_a_word_announces_may_be_spelt_another_way(
        gazetteer: Gazetteer, text: str, name: str, admin1: str) -> None:
    assert (name, admin1) in {(p, a) for _t, p, a in placed(gazetteer, text)}


def test_without_such_a_word_a_document_takes_names_as_written(gazetteer: Gazetteer) -> None:
    assert "Liubotyn" not in {p for _t, p, _a in placed(gazetteer, "Lubotyn was hit.")}


@pytest.mark.parametrize(("text", "district", "centre"), [
    ("Shells hit a farm in the Shebekinsky district on Monday.", "Shebekinsky district",
     "Shebekino"),
    ("Shells hit a farm in the Shebekinskiy district on Monday.", "Shebekinsky district",
     "Shebekino"),
    ("A drone fell in Sudzhansky rayon overnight.", "Sudzhansky district", "Sudzha"),
    ("Residents of the Shebekino urban district were moved out.", "Shebekinsky district",
     "Shebekino"),
])
def test_a_district_abroad_named_after_its_centre_is_placed_there(
        gazetteer: Gazetteer, text: str, district: str, centre: str) -> None:
    mentions = gazetteer.find_toponyms(text)
    results = gazetteer.resolve_mentions(mentions)
    areas = [r.place for r in results if r.place is not None and r.place.feature_kind == "region"]
    assert [p.name for p in areas] == [district]
    place = areas[0]
    assert place.is_raion and place.precision == "region" and place.country == "RU"
    town = gazetteer.resolve(f"{centre}, {place.admin1}").place
    assert town is not None and distance_km(town, place) < 1.0
