"""Incident mentions from hand-written texts: what goes where, and what stays stable."""

from __future__ import annotations

from datetime import date

import pytest

from casebuilder.extraction.mentions import SourceText


def extract(tools, text, published=date(2022, 4, 8)):
    return tools.extractor.extract(SourceText(1, text, "", "Desk", published))


def by_place(mentions):
    return {m.place.name: m for m in mentions if m.place}


def test_values_in_a_sentence_naming_two_places_go_to_the_nearest(extraction_tools):
    mentions = by_place(extract(extraction_tools,
        "A missile strike on Friday killed five civilians in Kramatorsk, while shelling in "
        "nearby Sloviansk injured two."))
    kramatorsk, sloviansk = mentions["Kramatorsk"], mentions["Sloviansk"]
    assert [c.value.low for c in kramatorsk.claims if c.kind == "killed"] == [5]
    assert not [c for c in kramatorsk.claims if c.kind == "injured"]
    assert [c.value.low for c in sloviansk.claims if c.kind == "injured"] == [2]
    assert not [c for c in sloviansk.claims if c.kind == "killed"]


def test_a_date_in_march_is_never_after_a_january_report(extraction_tools):
    (mention,) = extract(extraction_tools, "On March 16 an airstrike hit the theatre in "
                         "Mariupol, killing hundreds.", published=date(2023, 1, 14))
    when, _, _ = mention.event_date()
    assert when is not None and when.iso() == "2022-03-16"


def test_military_objects_alone_are_not_attacks_on_civilians(extraction_tools):
    assert extract(extraction_tools, "A destroyed Russian tank column near Brovary.") == []
    assert extract(extraction_tools, "Rocket remnants embedded in the ground in Kharkiv.") == []
    assert extract(extraction_tools, "Damage to a residential building in Kharkiv.") != []


def test_mention_keys_survive_a_new_rule_that_moves_the_first_sentence(extraction_tools):
    text = ("Shelling destroyed houses in Izium on Friday. Later, a missile hit the "
            "market in Izium on Friday, killing three people.")
    first = {m.key("x") for m in extract(extraction_tools, text)}
    shifted = {m.key("x") for m in extract(extraction_tools, "Headline.\n\n" + text)}
    assert first == shifted


def test_according_to_a_regional_governor_does_not_make_a_second_incident(extraction_tools):
    mentions = extract(extraction_tools,
        "On 22 April 2023, Ukrainian forces fired rockets at Shebekino. A woman was killed, "
        "according to the Belgorod governor.", published=date(2023, 4, 23))
    places = [m.place.name for m in mentions if m.place]
    assert places == ["Shebekino"]
    assert [c.value.low for c in mentions[0].claims if c.kind == "killed"] == [1]


def test_a_place_no_gazetteer_knows_is_kept_by_name_without_geometry(extraction_tools,
                                                                     tmp_path):
    (mention,) = extract(extraction_tools, "A drone strike on the village of Zbrukhovetske "
                         "killed two civilians on Tuesday, regional officials said.")
    assert mention.place is None and mention.place_name == "Zbrukhovetske"
    assert [c.value.low for c in mention.claims if c.kind == "killed"] == [2]
    import json

    from casebuilder.extraction.run import extract_items
    from casebuilder.intake.ingest import ingest
    from casebuilder.preservation.case import init_case
    from casebuilder.reporting.export import render
    from casebuilder.resolution.incidents import build_incidents

    report = tmp_path / "r.txt"
    report.write_text("A drone strike on the village of Zbrukhovetske killed two civilians "
                      "on Tuesday, regional officials said.\n")
    case = init_case(tmp_path / "home", environ={})
    try:
        ingest(case, [report])
        extract_items(case, extraction_tools)
        (feature,) = json.loads(render(build_incidents(case), "geojson"))["features"]
    finally:
        case.close()
    assert feature["geometry"] is None
    assert feature["properties"]["place"] == "Zbrukhovetske"
    assert feature["properties"]["precision"] is None


def test_a_running_total_since_a_date_is_not_one_attacks_toll(extraction_tools):
    def killed(text):
        return [c.value.low for m in extract(extraction_tools, text) for c in m.claims
                if c.kind == "killed" and not c.value.cumulative]

    assert killed("Shelling of residential areas in Kharkiv on Monday killed 40 civilians.") \
        == [40]
    assert killed("Since 1 March, shelling of residential areas in Kharkiv has killed 40 "
                  "civilians.") == []


def test_a_monitoring_record_field_gives_the_toll(extraction_tools):
    (mention,) = extract(extraction_tools,
        "Shelling of a residential area in Kharkiv on 3 April. Killed: 2. Injured: 5.")
    values = {c.kind: c.value.low for c in mention.claims if c.kind in ("killed", "injured")}
    assert values == {"killed": 2, "injured": 5}


def test_an_unknown_village_attacked_on_two_days_is_two_mentions(extraction_tools):
    mentions = extract(extraction_tools,
        "On 3 March shelling killed three civilians in the village of Zbrukhovetske. On 9 March "
        "another strike on the village of Zbrukhovetske killed nine people.")
    assert [(m.place_name, m.place, m.event_date()[0].iso(),
             [c.value.low for c in m.claims if c.kind == "killed"]) for m in mentions] == [
        ("Zbrukhovetske", None, "2022-03-03", [3]), ("Zbrukhovetske", None, "2022-03-09", [9])]


def test_an_unknown_village_named_as_the_speakers_office_is_not_the_attack_place(
        extraction_tools):
    mentions = extract(extraction_tools,
        "On Monday a missile hit a school in the village of Zbrukhovetske, killing two. The "
        "strike also destroyed five houses, the head of the village of Novyi Zbruch said.")
    assert [m.place_name for m in mentions] == ["Zbrukhovetske"]
    # with nothing else to go on, the speaker's village is the best place, as for known ones
    (alone,) = extract(extraction_tools, "Shelling destroyed ten houses on Monday, the head "
                       "of the village of Novyi Zbruch said.")
    assert alone.place_name == "Novyi Zbruch"


def test_one_toll_and_weapon_for_two_places_stays_with_both(extraction_tools):
    mentions = by_place(extract(extraction_tools,
        "On Monday Russian forces shelled Kramatorsk and Sloviansk with Smerch rockets, "
        "killing three."))
    for name in ("Kramatorsk", "Sloviansk"):
        claims = mentions[name].claims
        assert [(c.value.low, c.value.shared_by) for c in claims
                if c.kind == "killed"] == [(3, ("Kramatorsk", "Sloviansk"))]
        assert "Smerch" in {c.value.weapon for c in claims if c.kind == "weapon"}


def test_a_scene_setting_sentence_gives_place_and_date_to_the_harm_after_it(extraction_tools):
    text = ("Between 3 and 30 March 2022, while the village of Yahidne was under the control of "
            "Russian armed forces, soldiers forced the population into the school basement. "
            "HRMMU interviewed 14 former detainees.")
    (mention,) = extract(extraction_tools, text, published=date(2022, 6, 29))
    assert mention.place_name == "Yahidne" and mention.categories == ["detention"]
    when, _, rule = mention.event_date()
    assert (when.iso(), rule) == ("2022-03-03/2022-03-30", "date-setting")
    place = next(c for c in mention.claims if c.kind == "place")
    assert text[place.provenance.char_start:place.provenance.char_end] == "Yahidne"


def test_a_place_only_the_headline_names_is_cited_to_the_headline(extraction_tools):
    title = "Uman: 23 dead after missile destroys apartment block"
    (mention,) = extraction_tools.extractor.extract(SourceText(
        1, "A Russian cruise missile hit an apartment block in the city early on Friday.\n\n"
           "Ihor Taburets, head of the Cherkasy regional administration, said the missile was "
           "one of about twenty launched that night.", title, "Desk", date(2023, 4, 29)))
    assert mention.place_name == "Uman"
    (place,) = [c for c in mention.claims if c.kind == "place"]
    assert place.value.field == "title" and place.provenance.quote == title
    assert title[place.provenance.char_start:place.provenance.char_end] == "Uman"


def test_soldiers_who_act_are_not_the_military_object_attacked(extraction_tools):
    (mention,) = extract(extraction_tools,
        "The mayor of Melitopol, Ivan Fedorov, was abducted by Russian soldiers on Friday.",
        published=date(2022, 3, 12))
    assert mention.categories == ["detention"]
    assert mention.event_date()[0].iso() == "2022-03-11"


def test_where_fire_came_from_is_not_where_it_landed(extraction_tools):
    mentions = extract(extraction_tools,
        "A bakery in Lysychansk collapsed on Saturday after it was hit by a strike, killing 20 "
        "people. The rockets had been launched from the area of Kramatorsk, officials said.",
        published=date(2023, 1, 2))
    assert [m.place_name for m in mentions] == ["Lysychansk"]


def test_the_day_a_toll_rose_is_not_the_day_of_the_attack(extraction_tools):
    (mention,) = extract(extraction_tools,
        "A missile hit a bakery in Lysychansk on Saturday. The death toll rose to 28 on "
        "Monday, officials said.", published=date(2023, 1, 3))
    assert mention.event_date()[0].iso() == "2022-12-31"
    report = [c for c in mention.claims if c.kind == "date" and c.value.role == "report"]
    assert [c.value.expression for c in report] == ["Monday"]


def test_a_deportation_happens_where_people_were_taken_from(extraction_tools):
    (mention,) = extract(extraction_tools,
        "Dozens of children from an orphanage in Kherson were taken to occupied Crimea in "
        "October 2022, staff said.", published=date(2023, 1, 3))
    assert (mention.place_name, mention.categories) == ("Kherson", ["displacement"])


def test_a_capital_that_speaks_or_acts_is_its_government_not_a_place(extraction_tools):
    mentions = extract(extraction_tools,
        "Russian missiles hit port facilities in Odesa on Tuesday, destroying grain. The strikes "
        "came two days after Moscow pulled out of the grain deal.", published=date(2023, 7, 20))
    assert [m.place_name for m in mentions] == ["Odesa"]


def test_an_attack_given_as_a_motive_is_not_reported_by_that_sentence(extraction_tools):
    mentions = extract(extraction_tools,
        "Missiles hit grain terminals in Odesa on Tuesday. Russia's defence ministry called "
        "them \"retaliation\" for the attack on the Crimean bridge.", published=date(2023, 7, 20))
    assert [m.place_name for m in mentions] == ["Odesa"]


def test_a_final_toll_days_later_joins_the_attack_it_counts(extraction_tools):
    text = ("A Russian missile hit the regional administration building in Mykolaiv on the "
            "morning of 29 March, killing at least 12 people.\n\nRescuers searched the rubble for "
            "days.\n\nOn April 4 the State Emergency Service said the final death toll had "
            "reached 37.")
    (mention,) = extract(extraction_tools, text)
    assert mention.event_date()[0].iso() == "2022-03-29"
    assert sorted(c.value.low for c in mention.claims if c.kind == "killed") == [12, 37]


def test_filtration_is_detention(extraction_tools):
    (mention,) = extract(extraction_tools,
        "Residents leaving Mariupol say they were forced to pass filtration in the village of "
        "Bezimenne in mid-April.", published=date(2022, 4, 21))
    assert (mention.place_name, mention.categories) == ("Bezimenne", ["detention"])


def test_a_toll_makes_a_sentence_about_one_attack_despite_words_of_duration(extraction_tools):
    (mention,) = extract(extraction_tools,
        "Russian shelling of Kharkiv, relentless for weeks, killed four people in a queue for "
        "bread.")
    assert not mention.situation


def test_every_place_in_a_list_of_origins_is_an_origin(extraction_tools):
    mentions = extract(extraction_tools,
        "Shelling of a market in Donetsk killed 27 people on Sunday. The shells were fired from "
        "the direction of Krasnohorivka and Kurakhove, officials said.",
        published=date(2024, 1, 22))
    assert [m.place_name for m in mentions] == ["Donetsk"]


@pytest.mark.parametrize("text", [
    "HRMMU recorded a case of sexual violence in August 2022 in Stepanivka, a village on the "
    "northern edge of Kherson city.",
    "On 22 April 2023, Ukrainian forces fired rockets at Shebekino (Shebekinskiy, Belgorod), "
    "wounding three people.",
])
def test_a_name_that_only_locates_another_is_not_a_second_incident(extraction_tools, text):
    assert len(extract(extraction_tools, text, published=date(2023, 4, 23))) == 1


def test_a_dateline_is_where_the_report_was_filed(extraction_tools):
    mentions = extract(extraction_tools,
        "KYIV, June 16 (wire) — Russian missiles struck cities across the country this week, "
        "killing at least 18 civilians.\n\nA cruise missile hit an apartment building in Kryvyi "
        "Rih on Tuesday, killing 12 people.", published=date(2023, 6, 16))
    assert [m.place_name for m in mentions] == ["Kryvyi Rih"]


def test_a_dateline_places_a_report_that_names_no_other_place(extraction_tools):
    mentions = extract(extraction_tools,
        "ZAPORIZHZHIA (Ukraine) — A Russian missile tore through an apartment building in the "
        "southern city early on Thursday, killing at least four people, officials said.\n\n"
        "By Friday evening 13 bodies had been recovered.", published=date(2023, 3, 3))
    assert [(m.place_name, m.event_date()[0].iso()) for m in mentions] == [
        ("ZAPORIZHZHIA", "2023-03-02")]
    assert max(c.value.low for c in mentions[0].claims if c.kind == "killed") == 13


def test_an_unverified_marker_naming_a_party_qualifies_that_partys_claim(extraction_tools):
    (mention,) = extract(extraction_tools,
        "A missile hit the railway station in Chaplyne on Wednesday, killing 25 civilians, "
        "officials said. Russia's defence ministry said the strike killed more than 200 "
        "soldiers on a military train. Ukraine said the train was a civilian one. The Russian "
        "account could not be independently verified.", published=date(2022, 8, 25))
    evidence = {c.attribution.speaker: c.attribution.evidentiality for c in mention.claims}
    assert evidence["Russia's defence ministry"] == "unverified"
    assert evidence.get("Ukraine", "stated") == "stated"


@pytest.mark.parametrize("text", [
    "Dozens of prisoners were killed at Olenivka; Moscow and Kyiv trade blame.",
    "A missile killed 15 people at the station in Chaplyne on Wednesday. Authorities had "
    "warned that Moscow might try to launch heavy strikes around Independence Day.",
    "Shelling killed 24 people in Belgorod on Saturday. At an emergency meeting of the UN "
    "Security Council in New York called at Moscow's request, the ambassador said the strike "
    "was deliberate.",
    "A missile killed 15 people at the station in Chaplyne on Wednesday. Public celebrations "
    "were banned in Kyiv, and residents were urged to heed air raid warnings.",
])
def test_capitals_venues_warnings_and_fears_are_not_incident_places(extraction_tools, text):
    mentions = extract(extraction_tools, text, published=date(2022, 8, 25))
    assert {m.place.name for m in mentions if m.place} <= {"Olenivka", "Chaplyne", "Belgorod"}
    assert len(mentions) == 1


def test_where_missiles_were_launched_from_is_not_an_incident(extraction_tools):
    mentions = extract(extraction_tools,
        "Russian missiles hit a printing house in Kharkiv on Thursday, killing seven people. "
        "The governor said 15 missiles had been fired at the city, launched from across the "
        "border in Russia's Belgorod region.", published=date(2024, 5, 23))
    assert [m.place.name for m in mentions if m.place] == ["Kharkiv"]


@pytest.mark.parametrize("sentence", [
    "The wounded were flown to hospitals in Moscow.",
    "About 20 people were still in hospital, the governor said.",
    "Putin spoke during a visit to a military hospital after the attack.",
])
def test_a_hospital_where_victims_are_cared_for_is_not_the_target(extraction_tools, sentence):
    mentions = extract(extraction_tools,
        "Shelling hit a shopping centre in Belgorod on Saturday, killing 24 people. " + sentence,
        published=date(2023, 12, 31))
    targets = {c.value.target_type for m in mentions for c in m.claims if c.kind == "target"}
    assert "hospital" not in targets


def test_aftermath_and_rhetoric_after_an_attack_do_not_make_a_siege(extraction_tools):
    mentions = extract(extraction_tools,
        "A Russian missile hit an apartment building in Dnipro on Saturday, killing 12 "
        "people.\n\nRescuers said contact had been lost with people trapped under the rubble. "
        "\"Every day Russia kills Ukrainian children,\" the president said.",
        published=date(2023, 1, 14))
    assert [(m.place.name, m.situation) for m in mentions if m.place] == [("Dnipro", False)]
    # what the rescuers said is still part of the attack's record, attributed to them
    assert "Rescuers" in {c.attribution.speaker for c in mentions[0].claims}


def test_a_soldiers_death_told_as_background_is_not_a_killing(extraction_tools):
    mentions = extract(extraction_tools,
        "Villagers in Hroza had gathered to honour a soldier killed in 2022.",
        published=date(2023, 10, 6))
    assert mentions == []


def test_a_place_name_the_document_cannot_settle_keeps_its_namesakes(extraction_tools):
    (vague,) = extract(extraction_tools, "A missile hit a cafe in Hroza on Thursday, killing "
                       "59 people.", published=date(2023, 10, 6))
    assert vague.place is not None and vague.undecided
    assert {p.name for p in vague.undecided} == {"Hroza"}
    assert vague.place.gazetteer_id not in {p.gazetteer_id for p in vague.undecided}
    (placed,) = extract(extraction_tools, "A missile hit a cafe in Hroza in the Kharkiv "
                        "region on Thursday, killing 59 people.", published=date(2023, 10, 6))
    assert placed.place is not None and placed.place.admin1 == "Kharkiv Oblast"
    assert placed.undecided == ()


def test_a_place_named_where_no_harm_is_told_is_kept_as_the_setting(extraction_tools):
    (mention,) = extract(extraction_tools,
        "A missile hit a cafe in Hroza in the Kharkiv region on Thursday, killing 59 people, "
        "Governor Oleh Syniehubov said. Syniehubov said many villagers had spent the night "
        "before in the school.",
        published=date(2023, 10, 10))
    targets = {c.value.target_type: bool(c.value.setting)
               for c in mention.claims if c.kind == "target"}
    assert targets == {"cafe": False, "school": True}


def test_a_named_sources_words_on_the_attack_are_kept_even_without_facts(extraction_tools):
    (mention,) = extract(extraction_tools,
        "A Russian missile hit a cafe in Hroza on Thursday, killing 52 people, the governor "
        "said.\n\nRescuers searched the rubble until dark.\n\nThe village lies 30 km from the "
        "front line.\n\n\"It is impossible to imagine the grief,\" President Volodymyr "
        "Zelenskiy wrote, calling the attack a deliberate crime.",
        published=date(2023, 10, 6))
    said = [c for c in mention.claims if c.attribution.speaker == "President Volodymyr Zelenskiy"]
    taken = {c.kind for c in said if c.kind != "not_taken"}
    assert taken and taken <= {"statement", "category", "perpetrator"}
    # "calling the attack a deliberate crime": the weak word alone says why no category
    assert {(c.value.words, c.rule) for c in said if c.kind == "not_taken"} == {
        ("attack", "category_filters/weak-word-alone")}


LYSYCHANSK = "A missile hit a bakery in Lysychansk on Saturday, killing 20 people. "
DONETSK = "Shelling hit a market in Donetsk on Sunday, killing 27 people. "


@pytest.mark.parametrize(("report", "context"), [
    (LYSYCHANSK, "Explosions were also heard in Kyiv, where air defence units were in action."),
    (LYSYCHANSK, "Leonid Pasechnik, the Moscow-appointed head of the self-proclaimed Luhansk "
                 "People's Republic, said the building had been hit."),
    (LYSYCHANSK, "In Moscow, Foreign Ministry spokeswoman Maria Zakharova called the attack "
                 "a provocation."),
    (LYSYCHANSK, "It accused Kyiv of using civilians as a human shield after the attack."),
    (LYSYCHANSK, "Leaders in Berlin, Paris and London condemned the strike."),
    (LYSYCHANSK, "The attack came as the US Secretary of State was visiting Kyiv."),
    (DONETSK, "Denis Pushilin, Moscow's appointed head of the region, said the market had "
              "been struck by artillery."),
    (DONETSK, "Funerals held in Donetsk after market shelling; Moscow opens terrorism case."),
])
def test_places_that_only_frame_the_report_are_not_incidents(extraction_tools, report,
                                                             context):
    mentions = extract(extraction_tools, report + context, published=date(2024, 2, 4))
    assert [m.place.name for m in mentions if m.place] == [report.split(" in ")[1].split()[0]]


def test_a_toll_for_two_attacks_together_is_not_either_attacks_own(extraction_tools):
    mentions = by_place(extract(extraction_tools,
        "A missile struck Sumy on 13 April, killing 35 civilians. On 4 April a missile hit "
        "Kryvyi Rih, killing 20 civilians. The head of the mission said the two attacks "
        "together had killed 55 civilians.", published=date(2025, 4, 17)))
    tolls = {name: {c.value.low for c in m.claims if c.kind == "killed"
                    and not c.value.cumulative} for name, m in mentions.items()}
    assert tolls == {"Sumy": {35}, "Kryvyi Rih": {20}}


def test_the_day_a_rescue_ended_is_not_the_day_of_the_attack(extraction_tools):
    (mention,) = extract(extraction_tools,
        "A Russian missile hit an apartment block in Uman early on Friday. When the rescue "
        "operation in Uman ended on Sunday, the toll had settled at 23.",
        published=date(2023, 5, 1))
    assert mention.event_date()[0].iso() == "2023-04-28"


def test_harm_told_before_the_place_is_named_joins_the_incident(extraction_tools):
    (mention,) = extract(extraction_tools,
        "The number of people killed in the June 27 missile strike on a restaurant has risen "
        "to 13, officials said.\n\nThe writer had been sitting in the restaurant in Kramatorsk "
        "when the missile struck.", published=date(2023, 7, 2))
    assert mention.place is not None and mention.place.name == "Kramatorsk"
    assert mention.event_date()[0].iso() == "2023-06-27"
    assert 13 in {c.value.low for c in mention.claims if c.kind == "killed"}


def test_the_day_named_as_the_strikes_own_wins_over_a_later_day(extraction_tools):
    (mention,) = extract(extraction_tools,
        "Families in Kryvyi Rih buried the last of the victims of Friday's missile strike on "
        "Monday.", published=date(2025, 4, 7))
    assert mention.event_date()[0].iso() == "2025-04-04"


def test_background_history_in_a_report_of_an_attack_is_not_an_incident(extraction_tools):
    mentions = extract(extraction_tools,
        "A missile hit a restaurant in Kramatorsk on Tuesday, killing two people.\n\n"
        "Kramatorsk is one of the largest cities held by Ukraine in the Donetsk region. It has "
        "been shelled repeatedly since the full-scale invasion began.",
        published=date(2023, 6, 28))
    assert [(m.place.name, m.situation) for m in mentions] == [("Kramatorsk", False)]
    # a report that is about a siege keeps it
    (siege,) = extract(extraction_tools,
        "More than 100,000 people remain trapped in Mariupol without water, the city council "
        "said, as Russian troops kept the port encircled for a third week.",
        published=date(2022, 3, 15))
    assert siege.situation


def test_a_months_national_total_is_not_the_first_attacks_toll(extraction_tools):
    mentions = by_place(extract(extraction_tools,
        "In January 2024, the mission verified that at least 158 civilians were killed in "
        "Ukraine.\n\nOn 6 January, missiles struck Pokrovsk, killing 11 civilians.",
        published=date(2024, 2, 9)))
    assert {c.value.low for c in mentions["Pokrovsk"].claims if c.kind == "killed"} == {11}


def test_flowers_at_the_damaged_street_the_next_day_are_not_a_second_attack(extraction_tools):
    mentions = extract(extraction_tools,
        "A missile hit a market in Kostiantynivka on Wednesday, killing 17 people.\n\n"
        "Residents laid flowers outside the burned market on Thursday morning.",
        published=date(2023, 9, 7))
    assert [m.event_date()[0].iso() for m in mentions] == ["2023-09-06"]


def test_a_round_up_signed_by_the_governor_is_his_account(extraction_tools):
    (mention,) = extract(extraction_tools,
        "In Kupiansk a 57-year-old man was killed by artillery fire near his house.\n\n"
        "Oleh Syniehubov, head of the Kharkiv regional military administration",
        published=date(2024, 2, 18))
    speakers = {c.attribution.speaker for c in mention.claims}
    assert speakers == {"Oleh Syniehubov"}
    assert {c.attribution.kind for c in mention.claims} == {"official"}


def test_half_of_a_hyphenated_surname_is_not_a_place(extraction_tools):
    mentions = extract(extraction_tools,
        "The court also sought Maria Lvova-Belova over the deportation of children from "
        "Kherson region in October 2022.", published=date(2023, 3, 17))
    assert all(m.place is None or m.place.country == "UA" for m in mentions)


def test_a_regional_police_department_is_not_an_incident_place(extraction_tools):
    mentions = extract(extraction_tools,
        "Investigators found the bodies of 440 people killed during the occupation in a "
        "forest outside Izium on Thursday. The head of "
        "the investigative department of the Kharkiv regional police said some of the dead "
        "had been shot.", published=date(2022, 9, 15))
    assert {m.place.name for m in mentions if m.place} == {"Izium"}


# -- what was not taken, and which rule said so ------------------------------------------------

TRACED = ("A missile strike on 4 April 2022 killed three civilians at a market in Kramatorsk, "
          "about 600 km east of Kyiv. Russia could launch more strikes on the city, the "
          "governor warned.")


def not_taken(mention):
    return [c for c in mention.claims if c.kind == "not_taken"]


def test_a_value_a_rule_sets_aside_is_kept_with_the_rule_beside_what_was_taken(
        extraction_tools):
    (mention,) = extract(extraction_tools, TRACED)
    traces = {(c.value.what, c.value.words, getattr(c.value, "taken_as", None)): c.rule
              for c in not_taken(mention)}
    assert traces[("place", "Kyiv", "reference")] == "place_roles/reference-point"
    assert traces[("category", "strikes on", None)] == "category_filters/feared-not-done"
    kyiv = next(c for c in not_taken(mention) if c.value.words == "Kyiv")
    assert TRACED[kyiv.provenance.char_start:kyiv.provenance.char_end] == "Kyiv"
    # the traces come after every claim taken, and change none of them
    kinds = [c.kind for c in mention.claims]
    assert kinds.index("not_taken") > max(i for i, k in enumerate(kinds) if k != "not_taken")
    assert [c.value.low for c in mention.claims if c.kind == "killed"] == [3]


def test_a_sentence_that_gives_a_mention_nothing_leaves_no_trace_on_it(extraction_tools):
    (mention,) = extract(extraction_tools,
        "A missile strike on 4 April 2022 killed three civilians at a market in Kramatorsk."
        "\n\nIn Kyiv, officials met to discuss the budget.\n\nExplosions were heard in Odesa.")
    assert {c.provenance.sentence_start for c in not_taken(mention)} == {0}


def test_not_taken_claims_are_stored_digested_shown_and_never_evidence(extraction_tools,
                                                                       tmp_path):
    import json

    from casebuilder.extraction.run import extract_items
    from casebuilder.intake.ingest import ingest
    from casebuilder.preservation.case import init_case
    from casebuilder.reporting.export import render
    from casebuilder.resolution.incidents import build_incidents
    from casebuilder.store import schema
    from conftest import run_cli

    report = tmp_path / "r.txt"
    report.write_text(TRACED + "\n")
    home = tmp_path / "home"
    case = init_case(home, environ={})
    try:
        ingest(case, [report])
        extract_items(case, extraction_tools)
        with case.session() as session:
            stored = [c for c in session.query(schema.Claim) if c.kind == "not_taken"]
        (incident,) = build_incidents(case)
        (record,) = json.loads(render([incident], "json"))
    finally:
        case.close()
    assert {c.rule for c in stored} >= {"place_roles/reference-point",
                                        "category_filters/feared-not-done"}
    # resolution keeps them apart: no grade, figure, source or origin counts them
    assert all(c.kind != "not_taken" for c in incident.claims)
    assert {c.rule for c in incident.not_taken} == {c.rule for c in stored}
    assert all(s["claims"] != ["not_taken"] for s in record["sources"])
    assert {(n["words"], n["rule"]) for n in record["not_taken"]} >= {
        ("Kyiv", "place_roles/reference-point")}
    # verify recomputes the results digest over the stored claims, these included
    assert run_cli("verify", home=home).returncode == 0
    shown = run_cli("incident", "show", incident.id, home=home)
    assert shown.returncode == 0, shown.stderr
    section = shown.stdout.split("not taken")[1]
    assert "place 'Kyiv', taken as reference — place_roles/reference-point" in section
    as_json = json.loads(run_cli("incident", "show", incident.id, "--json", home=home).stdout)
    assert {n["rule"] for n in as_json["not_taken"]} == {c.rule for c in stored}


# -- one extractor, many documents ---------------------------------------------------------------

def test_the_extractor_keeps_nothing_of_a_document_and_serves_threads_alike(extraction_tools):
    """Reading a document leaves no state behind: the same text read before and after other
    texts, or in several threads at once, gives the same claims."""
    from concurrent.futures import ThreadPoolExecutor

    texts = [TRACED,
             "ZAPORIZHZHIA, Ukraine — A missile tore through a block of flats in the southern "
             "city on Friday, killing four.",
             "Later that day, a drone hit a bus in Kherson, killing two. The strike came a day "
             "after an air attack near Barvinkove."]

    def claims(text):
        return [[c.as_json() for c in m.claims] for m in extract(extraction_tools, text)]

    alone = [claims(text) for text in texts]
    assert [claims(text) for text in reversed(texts)] == list(reversed(alone))
    with ThreadPoolExecutor(max_workers=3) as pool:
        together = list(pool.map(claims, texts * 4))
    assert together == alone * 4


def test_a_year_of_birth_dates_nothing_and_leaves_a_trace(extraction_tools):
    text = ("A missile struck a cafe in Kramatorsk, killing two people. Among the dead was a "
            "girl born in 2009, the police said.")
    mentions = extract(extraction_tools, text, published=date(2023, 5, 24))
    assert mentions
    claims = [c for m in mentions for c in m.claims]
    assert not [c for c in claims if c.kind == "date" and c.value.iso == "2009"]
    traces = [c for c in claims
              if c.kind == "not_taken" and getattr(c.value, "what", None) == "date"]
    assert [(c.value.words, c.rule) for c in traces] == [
        ("in 2009", "date_roles/year-of-birth")]


# -- crimes of an occupation (issue 10) ---------------------------------------------------------

def _period(mention):
    return next(c for c in mention.claims if c.kind == "date"
                and getattr(c.value, "period", None) == "occupation")


def test_detention_found_after_a_liberation_is_dated_by_the_occupation(extraction_tools):
    text = ("Soldiers entered the village of Zarichne on 4 March. Until 29 March, when the "
            "village was liberated, they held 200 villagers hostage in the basement of the "
            "Zarichne school.")
    [mention] = [m for m in extract(extraction_tools, text, published=date(2022, 5, 20))
                 if m.place]
    value, _, rule = mention.event_date()
    assert (value.iso(), rule) == ("2022-03-04/2022-03-29", "occupation-period")
    period = _period(mention)
    assert period.value.open_start is False
    assert text[period.provenance.char_start:period.provenance.char_end] == "29 March"
    assert text[period.value.start_char_start:period.value.start_char_end] == "4 March"
    assert period.value.decided_by.startswith("occupation_dates/")


def test_bodies_found_without_a_stated_start_have_an_open_period(extraction_tools):
    text = ("Troops retook Zarichne on 30 March. On Sunday residents of Zarichne found the "
            "bodies of three men who had been shot.")
    [mention] = [m for m in extract(extraction_tools, text, published=date(2022, 4, 4))
                 if m.place]
    value, _, rule = mention.event_date()
    assert rule == "occupation-period"
    assert value.end == date(2022, 3, 30)  # the retaking, not the Sunday they were found
    assert _period(mention).value.open_start is True
    found_on = [c for c in mention.claims if c.kind == "date" and c.rule == "weekday"]
    assert found_on and found_on[0].value.role == "report"  # the day they were found


def test_a_day_inside_the_occupation_still_dates_its_crime(extraction_tools):
    text = ("Troops withdrew from Zarichne last week. In Zarichne the occupiers tortured and "
            "killed the village head, who had been taken away on 20 March, an adviser said.")
    [mention] = [m for m in extract(extraction_tools, text, published=date(2022, 4, 4))
                 if m.place]
    value, _, rule = mention.event_date()
    assert value.iso() == "2022-03-20" and rule != "occupation-period"
    assert _period(mention).value.iso == "2022-02-24/2022-04-03"


def test_a_shelling_in_a_report_of_a_retaking_keeps_its_own_day(extraction_tools):
    text = ("A week after troops retook Zarichne, shelling on Sunday killed two people and "
            "damaged the school in Zarichne.")
    [mention] = [m for m in extract(extraction_tools, text, published=date(2022, 4, 13))
                 if m.place]
    assert mention.event_date()[0].iso() == "2022-04-10"
    assert not [c for c in mention.claims if getattr(c.value, "period", None) == "occupation"]


# -- report times of figures (issue 10) ---------------------------------------------------------

def _tolls(mentions):
    return [c for m in mentions for c in m.claims if c.kind == "killed"]


def test_a_figure_keeps_the_time_it_is_stated_as_of(extraction_tools):
    text = ("A missile hit a hotel in Kramatorsk on Monday night. As of 09:30 on Tuesday, "
            "rescuers said seven people had been killed in Kramatorsk.")
    mentions = extract(extraction_tools, text, published=date(2023, 8, 8))
    [toll] = _tolls(mentions)
    assert toll.value.stated_at == "2023-08-08T09:30"
    assert text[toll.value.stated_char_start:toll.value.stated_char_end] == \
        "09:30 on Tuesday"
    assert mentions[0].event_date()[0].iso() == "2023-08-07"  # the report time dates nothing


def test_a_datelines_time_is_when_the_reports_figures_are_stated(extraction_tools):
    text = ("Last updated: 8 August 2023, 12:00\nA missile strike on Kramatorsk on Monday "
            "night killed seven people, officials said.")
    [toll] = _tolls(extract(extraction_tools, text, published=date(2023, 8, 8)))
    assert toll.value.stated_at == "2023-08-08T12:00"
    assert toll.value.stated_words == "8 August 2023, 12:00"


def test_a_look_back_a_year_later_is_dated_by_the_attack_not_the_article(extraction_tools):
    text = ("A year ago today, a missile struck the shopping centre in Kremenchuk, killing "
            "twenty people. Residents gathered there on Wednesday to remember them.")
    mentions = [m for m in extract(extraction_tools, text, published=date(2023, 6, 27))
                if m.place]
    assert [m.event_date()[0].iso() for m in mentions] == ["2022-06-27"]


def test_weekdays_of_republished_wire_copy_count_from_its_dateline(extraction_tools):
    """Copy filed on Thursday 6 July and republished the next Tuesday: "on Wednesday" is
    5 July, counted from the dateline, not 10 days later from the copy's own date."""
    text = ("LVIV, July 6 (Wire) - A missile hit an apartment block in Lviv on Wednesday, "
            "killing four people, officials said.")
    mentions = [m for m in extract(extraction_tools, text, published=date(2023, 7, 11))
                if m.place]
    assert [m.event_date()[0].iso() for m in mentions] == ["2023-07-05"]
    dateline = [c for m in mentions for c in m.claims if c.kind == "date"
                and c.value.expression == "July 6"]
    assert dateline and dateline[0].value.role == "report"


def test_today_in_a_statement_quoted_a_day_later_is_the_day_it_was_said(extraction_tools):
    text = ("The governor of the region said on Tuesday that a shelter had been hit.\n"
            "\u201cToday the shelter in Zarichne was shelled, a guard was killed,\u201d he "
            "wrote.\nToday residents of Zarichne were moved to a school.")
    mentions = extract(extraction_tools, text, published=date(2023, 5, 31))
    dates = {(c.value.expression, c.value.iso, c.rule) for m in mentions
             for c in m.claims if c.kind == "date"}
    assert ("Today", "2023-05-30", "today-as-said") in dates
    assert not [d for d in dates if d[2] == "today" and d[1] != "2023-05-31"]
