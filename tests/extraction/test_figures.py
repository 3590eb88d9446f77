"""Casualty figures: every form the extractor must read, with exact bounds, qualifier,
population and subgroup; numbers that are not casualties; properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casebuilder.extraction.figures import find_fatality_fields, find_figures
from casebuilder.extraction.vocabulary import load_vocabulary

LEXICON = load_vocabulary().lexicon


def summary(sentence):
    return [(f.measure, f.low, f.high, f.qualifier, f.population, f.subgroup)
            for f in find_figures(sentence, LEXICON)]


# (sentence, [(measure, low, high, qualifier, population, subgroup), ...]) in text order.
FORMS = [
    # verbs before the number
    ("Russian troops opened fire on people standing in line for bread, killing at least ten "
     "people.", [("killed", 10, None, "at least", "people", False)]),
    ("Russian forces had shot and killed 10 people who were queuing for bread.",
     [("killed", 10, 10, "exact", "people", False)]),
    ("Artillery destroyed a school, killing 21 people and wounding 25, prosecutors said.",
     [("killed", 21, 21, "exact", "people", False), ("injured", 25, 25, "exact", None, False)]),
    ("A missile slammed into the station, killing at least 50 people and wounding more than "
     "100.", [("killed", 50, None, "at least", "people", False),
              ("injured", 100, None, "more than", None, False)]),
    ("The strike killed 21 people and injured 25.",
     [("killed", 21, 21, "exact", "people", False), ("injured", 25, 25, "exact", None, False)]),
    ("The blast claimed the lives of 14 villagers.",
     [("killed", 14, 14, "exact", "civilians", False)]),
    ("Shelling killed 45 Ukrainian prisoners of war.",
     [("killed", 45, 45, "exact", "prisoners of war", False)]),
    ("Troops fired on the convoy, killing a teenager.",
     [("killed", 1, 1, "exact", "children", False)]),
    # predicates after the number
    ("Ten killed as troops fire on bread queue", [("killed", 10, 10, "exact", None, False)]),
    ("Eleven people were killed in the strike.", [("killed", 11, 11, "exact", "people", False)]),
    ("According to a later statement, ten civilians were killed.",
     [("killed", 10, 10, "exact", "civilians", False)]),
    ("21 people killed and 25 wounded in the shelling of a school",
     [("killed", 21, 21, "exact", "people", False), ("injured", 25, 25, "exact", None, False)]),
    ("More than 30 people were killed and more than 100 injured when rockets hit the station.",
     [("killed", 30, None, "more than", "people", False),
      ("injured", 100, None, "more than", None, False)]),
    ("At least 18 people had been killed and 59 taken to hospital, the governor said.",
     [("killed", 18, None, "at least", "people", False),
      ("injured", 59, 59, "exact", None, False)]),
    ("About 300 people are believed to have died in the airstrike.",
     [("killed", 300, 300, "about", "people", False)]),
    ("Two more residents had died in hospital by the evening.",
     [("killed", 2, 2, "exact", "civilians", False)]),
    ("Seven people lost their lives in the fire.", [("killed", 7, 7, "exact", "people", False)]),
    ("Thirty-eight civilians were killed.", [("killed", 38, 38, "exact", "civilians", False)]),
    ("Twenty-one soldiers were seriously wounded.",
     [("injured", 21, 21, "exact", "military", False)]),
    ("Nine people were hospitalised.", [("injured", 9, 9, "exact", "people", False)]),
    ("Three people are still missing.", [("missing", 3, 3, "exact", "people", False)]),
    ("The attack left 12 dead and dozens wounded.",
     [("killed", 12, 12, "exact", None, False), ("injured", 24, None, "vague", None, False)]),
    ("A man was killed and two neighbours were hurt.",
     [("killed", 1, 1, "exact", "people", False), ("injured", 2, 2, "exact", "people", False)]),
    ("Fifteen civilians were killed or injured.",
     [("casualties", 15, 15, "exact", "civilians", False)]),
    # tolls
    ("A spokeswoman for the administration gave a death toll of 27.",
     [("killed", 27, 27, "exact", None, False)]),
    ("The death toll rose to 50 on Saturday.", [("killed", 50, 50, "exact", None, False)]),
    ("Death toll at the station rises to 50", [("killed", 50, 50, "exact", None, False)]),
    ("Rescuers put the toll at 20 dead.", [("killed", 20, 20, "exact", None, False)]),
    ("The toll rose from 27 to 52 overnight.", [("killed", 52, 52, "exact", None, False)]),
    ("The death toll from Friday's strike on the city of Kramatorsk rose to 52.",
     [("killed", 52, 52, "exact", None, False)]),
    ("The number of injured has climbed to 112.", [("injured", 112, 112, "exact", None, False)]),
    ("The number of victims rose to 30.", [("casualties", 30, 30, "exact", None, False)]),
    # vague and estimated quantities
    ("Police at the scene were reporting dozens of dead and injured.",
     [("killed", 24, None, "vague", None, False), ("injured", 24, None, "vague", None, False)]),
    ("Dozens of residents were found killed on the streets.",
     [("killed", 24, None, "vague", "civilians", False)]),
    ("Hundreds of civilians were killed in the siege.",
     [("killed", 200, None, "vague", "civilians", False)]),
    ("Scores were wounded.", [("injured", 40, None, "vague", None, False)]),
    ("A handful of people were hurt.", [("injured", 2, None, "vague", "people", False)]),
    ("Several passengers were injured.", [("injured", 3, None, "vague", "civilians", False)]),
    ("A dozen people were injured.", [("injured", 12, 12, "about", "people", False)]),
    ("More than a dozen people were killed.", [("killed", 12, None, "more than", "people",
                                                False)]),
    ("Some 50 people were killed in the attack.", [("killed", 50, 50, "about", "people", False)]),
    ("Nearly 300 civilians have died in the district.",
     [("killed", 300, 300, "about", "civilians", False)]),
    ("Up to 40 people may have been killed.", [("killed", None, 40, "up to", "people", False)]),
    ("Between 10 and 15 people were injured.", [("injured", 10, 15, "between", "people", False)]),
    ("Two or three workers were injured.", [("injured", 2, 3, "between", "people", False)]),
    ("At least 1 200 civilians have been killed in the region.",
     [("killed", 1200, None, "at least", "civilians", False)]),
    ("One hundred and twenty people were wounded.",
     [("injured", 120, 120, "exact", "people", False)]),
    # bodies
    ("AP journalists saw soldiers remove at least six bodies from a street.",
     [("killed", 6, None, "at least", None, False)]),
    ("The bodies of 410 civilians were found in towns around the capital.",
     [("killed", 410, 410, "exact", "civilians", False)]),
    # parts of another figure
    ("Eight were wounded, six of them children.",
     [("injured", 8, 8, "exact", None, False), ("injured", 6, 6, "exact", "children", True)]),
    ("Death toll at the station rises to 50, including five children",
     [("killed", 50, 50, "exact", None, False), ("killed", 5, 5, "exact", "children", True)]),
    ("He said five children were among the dead.",
     [("killed", 5, 5, "exact", "children", True)]),
    ("A four-year-old girl was among the dead.", [("killed", 1, 1, "exact", "children", True)]),
    ("The shelling killed seven people, among them a child.",
     [("killed", 7, 7, "exact", "people", False), ("killed", 1, 1, "exact", "children", True)]),
    ("Ten people, including two children, were killed.",
     [("killed", 10, 10, "exact", "people", False), ("killed", 2, 2, "exact", "children", True)]),
    ("Prosecutors said 3 of the dead were children.",
     [("killed", 3, 3, "exact", "children", True)]),
    ("Of those killed, 4 were children.", [("killed", 4, 4, "exact", "children", True)]),
    ("Twelve were injured, four of whom were soldiers.",
     [("injured", 12, 12, "exact", None, False), ("injured", 4, 4, "exact", "military", True)]),
    # none
    ("Ukrainian army spokesman Vladyslav Nazarov said the attack caused no casualties.",
     [("killed", 0, 0, "none", None, False), ("injured", 0, 0, "none", None, False)]),
    ("No one was killed in the attack.", [("killed", 0, 0, "none", None, False)]),
    ("Nobody was hurt, the mayor said.", [("injured", 0, 0, "none", None, False)]),
    ("There were no civilian casualties.",
     [("killed", 0, 0, "none", "civilians", False), ("injured", 0, 0, "none", "civilians", False)]),
    # not casualties, but people affected
    ("Deputy mayor Serhiy Orlov said between 1,000 and 1,200 people had sought refuge in the "
     "building.", [("affected", 1000, 1200, "between", "people", False)]),
    ("Around 300,000 residents remain trapped in the city without running water.",
     [("affected", 300000, 300000, "about", "civilians", False)]),
    ("He said 5,000 people were evacuated on Friday.",
     [("affected", 5000, 5000, "exact", "people", False)]),
]


@pytest.mark.parametrize(("sentence", "expected"), FORMS)
def test_forms(sentence, expected):
    assert summary(sentence) == expected


@pytest.mark.parametrize(("sentence", "text", "rule"), [
    ("Russian troops opened fire, killing at least ten people, Suspilne reported.",
     "killing at least ten people", "verb-before"),
    ("More than 30 people were killed when rockets hit the station.",
     "More than 30 people were killed", "predicate-after"),
    ("A spokeswoman gave a death toll of 27.", "death toll of 27", "toll"),
    ("Police were reporting dozens of dead and injured.", "dozens of dead and injured",
     "of-the-dead"),
    ("Journalists saw at least six bodies.", "at least six bodies", "bodies"),
    ("He said five children were among the dead.", "five children were among the dead",
     "subgroup"),
    ("The attack caused no casualties.", "no casualties", "none"),
    ("Initial reports had put the number of dead at about 30.", "number of dead at about 30",
     "reported-earlier"),
    ("Earlier reports said 12 people were killed.", "12 people were killed", "reported-earlier"),
])
def test_spans_and_rules(sentence, text, rule):
    figures = find_figures(sentence, LEXICON)
    assert figures, sentence
    assert figures[0].text == text
    assert figures[0].rule == rule


def test_an_earlier_report_figure_keeps_its_value():
    (figure,) = find_figures("Initial reports had put the number of dead at about 30.", LEXICON)
    assert (figure.measure, figure.low, figure.high, figure.qualifier) == ("killed", 30, 30,
                                                                           "about")


def test_a_far_cue_about_something_else_does_not_mark_a_figure_as_earlier():
    sentence = ("The governor said the ten people killed in the queue had died in an artillery "
                "bombardment rather than from gunfire, contradicting earlier accounts.")
    (figure,) = find_figures(sentence, LEXICON)
    assert figure.rule != "reported-earlier"


@pytest.mark.parametrize(("sentence", "cumulative"), [
    ("Local authorities say at least 2,400 people have been killed in Mariupol since the start "
     "of the war.", True),
    ("In total, 120 civilians have been killed in the district.", True),
    ("So far this year 30 people have been killed in the region.", True),
    ("Nearly 300 civilians have died in the city since March.", True),
    ("The strike killed 21 people.", False),
])
def test_cumulative(sentence, cumulative):
    (figure,) = find_figures(sentence, LEXICON)
    assert figure.cumulative is cumulative


def test_figures_joined_by_and_share_their_period():
    figures = find_figures("The monitors verified 9,177 civilian deaths and 16,384 injuries "
                           "since February 2022.", LEXICON)
    assert [(f.measure, f.low, f.population, f.cumulative) for f in figures] == [
        ("killed", 9177, "civilians", True), ("injured", 16384, None, True)]


def test_cumulative_cue_stays_with_its_own_figure():
    figures = find_figures("The strike killed 5 people, bringing the number killed since the "
                           "start of the war to 2,400.", LEXICON)
    assert [(f.low, f.cumulative) for f in figures] == [(5, False), (2400, True)]


@pytest.mark.parametrize("sentence", [
    "Russian artillery and tanks had carried out more than 20 strikes on the city.",
    "Two rockets struck the railway station while thousands of people waited for trains.",
    "The war has sent more than 4 million people fleeing the country as refugees.",
    "The Red Cross sent a team of nine staff and three vehicles to help evacuate residents.",
    "Relentless shelling had destroyed 70% of the northern city.",
    "I live in this eight-storey building.",
    "Prosecutors opened proceedings under part 2 of Article 438 of the Criminal Code.",
    "The attack took place at about 10:00 in one of the city's residential districts.",
    "A four-year-old girl waited with her mother at the station.",
    "The Geopost said there were victims.",
    "The number of casualties was not yet known because the city was still being shelled.",
    "The exact number of victims could not yet be established.",
    "There were no reports of casualties.",
    "The assault was not without casualties.",
    "It was the 39th day of a war.",
    "The city had 430,000 inhabitants before the war.",
    "He was killed 10 km from the border.",
    "Troops were killed on 16 March near the river.",
    "Many civilians were killed.",
    "Some people were shot in the head and had their hands tied.",
    "At six in the morning, Russia launched an attack.",
    "Separatists have been fighting for eight years.",
    "The school had 300 pupils and 40 teachers.",
    "No one knows how many died.",
    "The war took a heavy toll on the city of 300,000.",
])
def test_not_casualty_figures(sentence):
    assert summary(sentence) == []


def test_numbers_of_people_at_a_scene_are_never_killed_or_injured():
    sentence = ("Deputy mayor Serhiy Orlov said between 1,000 and 1,200 people had sought refuge "
                "in the building.")
    assert {f.measure for f in find_figures(sentence, LEXICON)} == {"affected"}


def test_offsets_are_document_offsets():
    document = "Title\n\nThe strike killed 21 people and injured 25."
    start = document.index("The strike")
    figures = find_figures(document[start:], LEXICON, base=start)
    assert [document[f.start:f.end] for f in figures] == ["killed 21 people", "injured 25"]


# -- properties -------------------------------------------------------------------------------

FRAGMENTS = [
    "killing", "at least", "ten", "10", "2,400", "1 200", "people", "were", "killed", "and",
    "wounded", "injured", "more than", "about", "dozens", "of", "dead", "the", "death toll",
    "rose to", "including", "five", "children", "among", "them", "a", "child", "no", "one",
    "casualties", "bodies", "Thirty-eight", "twenty-one", "between", "up to", "70%", "10:00",
    "Article 438", "four-year-old", "girl", "was", "since the start of the war", "initial reports",
    ",", ".", "–", "-", "hundred", "thousand", "million", "a dozen", "of whom", "9" * 30,
]
sentences = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(FRAGMENTS), max_size=25).map(" ".join),
    st.lists(st.sampled_from(FRAGMENTS), max_size=25).map("".join),
)


@settings(max_examples=300, deadline=None)
@given(sentences, st.integers(min_value=0, max_value=10**6))
def test_find_figures_never_raises_and_spans_match(text, base):
    for figure in find_figures(text, LEXICON, base=base):
        assert text[figure.start - base:figure.end - base] == figure.text
        assert figure.low is None or figure.low >= 0
        assert figure.high is None or figure.low is None or figure.low <= figure.high
        assert figure.low is not None or figure.high is not None


@pytest.mark.parametrize(("text", "expected"), [
    ("Fatalities: 3", [("killed", 3, None)]),
    ("Killed: 2. Injured: 5", [("killed", 2, None), ("injured", 5, None)]),
    ("Strike on a bus stop, 2 civ KIA, 3 WIA", [("killed", 2, "civilians"),
                                               ("injured", 3, None)]),
    ("Type: shelling. Dead = 1,204", [("killed", 1204, None)]),
])
def test_record_fields_and_monitor_shorthand(text, expected):
    figures = sorted(find_fatality_fields(text, LEXICON), key=lambda f: f.start)
    assert [(f.measure, f.low, f.population) for f in figures] == expected
    assert all(text[f.start:f.end] == f.text and f.rule == "record-field" for f in figures)


@pytest.mark.parametrize("text", ["The KIA Sportage was hit.", "Killed: none reported",
                                  "He was wounded: badly."])
def test_record_fields_need_a_number(text):
    assert find_fatality_fields(text, LEXICON) == []


@pytest.mark.parametrize(("text", "low"), [
    ("The number of people killed in the June 27 missile strike has risen to 13.", 13),
    ("The death toll from the 14 January strike rose to 45.", 45),
])
def test_a_date_inside_a_toll_phrase_does_not_break_it(text, low):
    assert [(f.measure, f.low) for f in find_figures(text, LEXICON)] == [("killed", low)]


@pytest.mark.parametrize(("text", "low"), [
    ("A missile hit a house, killing a 31-year-old woman and her two-year-old daughter.", 2),
    ("Shelling killed a man and his wife in the village.", 2),
    ("A strike killed one person and a dog.", 1),
    ("The number of people killed by the two Russian missiles that hit central Pokrovsk on "
     "Monday evening has risen to nine.", 9),
])
def test_victims_named_together_and_long_toll_phrases(text, low):
    killed = [f.low for f in find_figures(text, LEXICON) if f.measure == "killed"]
    assert killed == [low]


@pytest.mark.parametrize(("text", "measure", "low"), [
    ("In Vovchansk, two women aged 64 and 71 were injured in mortar shelling.", "injured", 2),
    ("A man aged 57 was killed.", "killed", 1),
])
def test_ages_are_not_counts(text, measure, low):
    assert [(f.measure, f.low) for f in find_figures(text, LEXICON)] == [(measure, low)]
