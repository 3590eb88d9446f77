"""Date expressions: golden sentences (from the dev corpus and invented), false alarms, what
resolves without a publication date, relative-event markers, the war calendar and properties.
Their speed is measured by benchmarks/dates_figures_speed.py, never by a timed test."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casebuilder.errors import CasebuilderError
from casebuilder.extraction.dates import (
    DateResolver,
    War,
    WarCalendar,
    WarCalendarError,
    find_relative_events,
    resolve_anchor,
)
from casebuilder.extraction.vocabulary import load_vocabulary
from casebuilder.model.partial_date import PartialDate

D = date.fromisoformat
VOCABULARY = load_vocabulary()
LEXICON = VOCABULARY.lexicon


@pytest.fixture(scope="module")
def resolver() -> DateResolver:
    return DateResolver.of(VOCABULARY)


def only(mentions, expression):
    found = [m for m in mentions if m.expression == expression]
    assert len(found) == 1, f"{expression!r} not found once in {mentions}"
    return found[0]


# (sentence, published, expression, value, role)
CORPUS = [
    ("Russian troops on Wednesday opened fire on people standing in line for bread in "
     "Chernihiv, killing at least ten people.", "2022-03-16", "Wednesday", "2022-03-16", "event"),
    ("The United States embassy in Kyiv said on Wednesday that Russian forces had shot and "
     "killed 10 people.", "2022-03-16", "Wednesday", "2022-03-16", "report"),
    ("Vyacheslav Chaus said on Thursday that the ten people killed while queuing for bread in "
     "the city the day before had died in an artillery bombardment.", "2022-03-17",
     "the day before", "2022-03-16", "event"),
    ("Vyacheslav Chaus said on Thursday that the ten people killed while queuing for bread in "
     "the city the day before had died in an artillery bombardment.", "2022-03-17",
     "Thursday", "2022-03-17", "report"),
    ("Officials struggled to learn the fate of the hundreds of civilians in the Mariupol drama "
     "theatre, which was smashed by an airstrike the previous evening.", "2022-03-17",
     "the previous evening", "2022-03-16", "event"),
    ("It was the first official estimate of the death toll from the March 16 attack on the "
     "building.", "2022-03-25", "March 16", "2022-03-16", "event"),
    ("About 300 people are believed to have died in the Russian airstrike on the Mariupol drama "
     "theatre last week, the city council said on Friday, citing eyewitnesses.", "2022-03-25",
     "last week", "2022-03-14/2022-03-20", "event"),
    ("About 300 people are believed to have died in the Russian airstrike on the Mariupol drama "
     "theatre last week, the city council said on Friday, citing eyewitnesses.", "2022-03-25",
     "Friday", "2022-03-25", "report"),
    ("The mayor of Chernihiv, also under attack for weeks, said on Sunday that relentless "
     "Russian shelling had destroyed 70% of the northern city.", "2022-04-03",
     "Sunday", "2022-04-03", "report"),
    ("As the geography of the battlefield has transformed, little has changed for many "
     "Ukrainians on the 39th day of a war that has sent more than 4 million people fleeing.",
     "2022-04-03", "the 39th day of a war", "2022-04-03", "event"),
    ("The Kharkiv regional governor said on Sunday that Russian artillery and tanks had carried "
     "out more than 20 strikes on the city and its outskirts over the past day.", "2022-04-03",
     "over the past day", "2022-04-02/2022-04-03", "event"),
    ("Two rockets struck the railway station in Kramatorsk on Friday morning while thousands of "
     "people waited for trains.", "2022-04-08", "Friday morning", "2022-04-08", "event"),
    ("A day earlier, AP journalists saw Ukrainian soldiers remove at least six bodies from a "
     "street in Bucha.", "2022-04-03", "A day earlier", "2022-04-02", "event"),
    ("In the town of Merefa, near Kharkiv, Russian artillery destroyed a school and a community "
     "centre early on Thursday, killing 21 people.", "2022-03-17", "early on Thursday",
     "2022-03-17", "event"),
    ("“We can only have peace by fighting,” Zelenskyy said Saturday night.", "2022-04-03",
     "Saturday night", "2022-04-02", "report"),
    ("Chernihiv, about 140 km north of Kyiv, has been largely encircled by Russian forces since "
     "early March.", "2022-03-17", "since early March", "2022-03-01/2022-03-17", "event"),
    ("Local authorities say at least 2,400 people have been killed in Mariupol since the start "
     "of the war.", "2022-03-16", "since the start of the war", "2022-02-24/2022-03-16",
     "event"),
    ("Kuleba tweeted on Sunday that the “Bucha massacre was deliberate”.", "2022-04-03",
     "Sunday", "2022-04-03", "report"),
    ("Satellite images taken by Maxar Technologies as recently as Monday showed the word "
     "written on the pavement.", "2022-03-17", "Monday", "2022-03-14", "event"),
    ("Russian troops entered Ukraine from three sides on February 24.", "2022-04-03",
     "February 24", "2022-02-24", "event"),
    ("Moscow said this week it would focus the invasion elsewhere.", "2022-04-03",
     "this week", "2022-03-28/2022-04-03", "report"),
    ("KRAMATORSK, Ukraine (April 8) - Two rockets struck the railway station.", "2022-04-08",
     "April 8", "2022-04-08", "report"),
]

# Written for these tests: one sentence per rule or twist.
INVENTED = [
    ("The regional governor told reporters on Tuesday that shelling had continued.",
     "2023-05-18", "Tuesday", "2023-05-16", "report"),
    ("The ministry said in a statement on Telegram on Wednesday that two shops burned.",
     "2023-05-26", "Wednesday", "2023-05-24", "report"),
    ("The head of the region said in a televised address on Thursday that 12 were killed.",
     "2023-05-26", "Thursday", "2023-05-25", "report"),
    ("Shells landed near the clinic Saturday night, residents said.", "2023-05-22",
     "Saturday night", "2023-05-20", "event"),
    ("A drone hit a bakery in the village late on Saturday.", "2023-05-22", "late on Saturday",
     "2023-05-20", "event"),
    ("Drones struck the grain terminal in the early hours of Monday.", "2023-05-22",
     "the early hours of Monday", "2023-05-22", "event"),
    ("Overnight, drones hit the power station.", "2023-05-22", "Overnight", "2023-05-22",
     "event"),
    ("A missile struck a residential block last night.", "2023-05-22", "last night",
     "2023-05-21", "event"),
    ("Strikes overnight into Friday damaged two schools.", "2023-05-26",
     "overnight into Friday", "2023-05-26", "event"),
    ("The village was shelled two days ago.", "2023-05-22", "two days ago", "2023-05-20",
     "event"),
    ("A week ago the station was struck.", "2023-05-24", "A week ago",
     "2023-05-15/2023-05-21", "event"),
    ("Attacks on the port intensified this week.", "2023-05-24", "this week",
     "2023-05-22/2023-05-28", "event"),
    ("Earlier this month a hospital was hit.", "2023-05-24", "Earlier this month",
     "2023-05-01/2023-05-24", "event"),
    ("Last month saw the heaviest bombardment.", "2023-05-24", "Last month", "2023-04",
     "event"),
    ("The town was besieged in March.", "2023-05-24", "March", "2023-03", "event"),
    ("Fighting flared in mid-March.", "2023-05-24", "mid-March", "2023-03-11/2023-03-20",
     "event"),
    ("Evacuations stopped in late March.", "2023-05-24", "late March",
     "2023-03-21/2023-03-31", "event"),
    ("Convoys got through in early March.", "2023-05-24", "early March",
     "2023-03-01/2023-03-10", "event"),
    ("The town has been cut off since the invasion began.", "2023-05-24",
     "since the invasion began", "2022-02-24/2023-05-24", "event"),
    ("Residents have buried their neighbours since the full-scale invasion.", "2023-05-24",
     "since the full-scale invasion", "2022-02-24/2023-05-24", "event"),
    ("Shelling has not stopped since February 24.", "2022-04-03", "since February 24",
     "2022-02-24/2022-04-03", "event"),
    ("In the past 24 hours, eleven towns came under fire.", "2023-05-24", "the past 24 hours",
     "2023-05-23/2023-05-24", "event"),
    ("Over the past week, the army recorded 300 strikes.", "2023-05-24", "Over the past week",
     "2023-05-17/2023-05-24", "event"),
    ("Talks will resume next Monday.", "2023-05-24", "next Monday", "2023-05-29", "event"),
    ("The envoy will visit the city on Friday.", "2023-05-24", "Friday", "2023-05-26",
     "event"),
    ("Yesterday morning a shell hit the queue.", "2023-05-24", "Yesterday morning",
     "2023-05-23", "event"),
    ("Today the city buried its dead.", "2023-05-24", "Today", "2023-05-24", "event"),
    ("The depot burned on April 3rd.", "2023-05-24", "April 3rd", "2023-04-03", "event"),
    ("The attack on Dec. 28 killed four.", "2023-01-05", "Dec. 28", "2022-12-28", "event"),
    ("A memorial is planned for January 10.", "2022-12-20", "January 10", "2023-01-10",
     "event"),
    ("The school was hit on the 16th of March.", "2022-03-25", "the 16th of March",
     "2022-03-16", "event"),
    ("On Wednesday, March 16, the theatre was bombed.", "2022-03-25", "Wednesday, March 16",
     "2022-03-16", "event"),
    ("Strikes continued between 14 and 20 March.", "2023-05-24", "between 14 and 20 March",
     "2023-03-14/2023-03-20", "event"),
    ("Shelling was heavy from March 21 to March 25.", "2023-05-24", "March 21 to March 25",
     "2023-03-21/2023-03-25", "event"),
    ("The city was shelled on the night of Saturday to Sunday.", "2023-05-22",
     "the night of Saturday to Sunday", "2023-05-20/2023-05-21", "event"),
    ("It was the 2nd day of the war.", "2019-01-01", "the 2nd day of the war", "2014-04-07",
     "event"),
    ("Monitors wrote on the 300th day of the war in Donbas that ceasefires failed.",
     "2015-02-01", "the 300th day of the war in Donbas", "2015-01-30", "report"),
    ("Day 100 of the invasion passed quietly.", "2022-06-03", "Day 100 of the invasion",
     "2022-06-03", "event"),
    ("Fighting began in 2014.", "2023-05-24", "2014", "2014", "event"),
    ("Shelling in spring 2015 destroyed the bridge.", "2023-05-24", "spring 2015",
     "2015-03-01/2015-05-31", "event"),
    ("Power cuts spread in early 2023.", "2023-05-24", "early 2023", "2023-01-01/2023-04-30",
     "event"),
]


@pytest.mark.parametrize(("sentence", "published", "expression", "iso", "role"),
                         CORPUS + INVENTED)
def test_golden(resolver, sentence, published, expression, iso, role):
    mention = only(resolver.find(sentence, D(published)), expression)
    assert mention.value == PartialDate.parse_iso(iso)
    assert mention.value.iso() == iso
    assert mention.role == role
    assert sentence[mention.start:mention.end] == expression
    assert mention.rule


@pytest.mark.parametrize(("sentence", "published", "precision"), [
    ("Russian troops on Wednesday opened fire.", "2022-03-16", "day"),
    ("Fighting flared in mid-March.", "2023-05-24", "range"),
    ("Attacks on the port intensified this week.", "2023-05-24", "week"),
    ("The town was besieged in March.", "2023-05-24", "month"),
    ("Fighting began in 2014.", "2023-05-24", "year"),
])
def test_precision_is_what_the_words_allow(resolver, sentence, published, precision):
    (mention,) = resolver.find(sentence, D(published))
    assert mention.value.precision == precision


@pytest.mark.parametrize("sentence", [
    "Officials said the toll may be higher.",
    "May God protect them.",
    "A march through the city centre was planned.",
    "The Sunday Times reported the figures.",
    "Commemorations for Bloody Sunday took place.",
    "Ukraine Today broadcast the footage.",
    "The attack took place at about 10:00.",
    "At least 2,400 people have been killed.",
    "Prosecutors acted under part 2 of Article 438 of the Criminal Code.",
    "They have been under attack for weeks.",
    "In recent days the shelling intensified.",
    "A few days ago the shelling intensified.",
    "The market opens every Sunday.",
    "Shops close on Sundays.",
    "The strike came a day after an air attack on a railway overpass.",
    "Two days before the vote, a school was shelled.",
    "The day before the strike, leaflets were dropped.",
    "A few days later the bridge fell.",
    "Three days later a second strike hit.",
    "The next day rescuers found more bodies.",
    "The population was 430,000 before the war.",
    "A convoy of 12 buses left at 6.30.",
])
def test_not_dates(resolver, sentence):
    assert resolver.find(sentence, D("2022-05-11")) == []


@pytest.mark.parametrize(("sentence", "expected"), [
    ("Russian troops on Wednesday opened fire.", []),
    ("The ten people killed the day before were buried.", []),
    ("On March 16 the theatre was bombed.", []),
    ("Attacks intensified this week and since early March.", []),
    ("On March 16, 2022 the theatre was bombed.", [("March 16, 2022", "2022-03-16")]),
    ("The bridge was hit on 3 April 2023.", [("3 April 2023", "2023-04-03")]),
    ("The report is dated 08.04.2022.", [("08.04.2022", "2022-04-08")]),
    ("Shelling was recorded on 2022-04-08.", [("2022-04-08", "2022-04-08")]),
    ("Shelling resumed in April 2022.", [("April 2022", "2022-04")]),
    ("It was the 39th day of the war.", [("the 39th day of the war", "2022-04-03")]),
    ("It was the hundredth day of the invasion.",
     [("the hundredth day of the invasion", "2022-06-03")]),
])
def test_without_a_publication_date_only_self_contained_dates(resolver, sentence, expected):
    found = [(m.expression, m.value.iso()) for m in resolver.find(sentence, None)]
    assert found == expected


def test_slashed_dates_read_as_written_and_ambiguous_ones_day_first(resolver):
    found = resolver.find("Filed 25/03/2022, amended 03/25/2022, signed 04/03/2022.", None)
    assert [(m.expression, m.value.iso()) for m in found] == [
        ("25/03/2022", "2022-03-25"), ("03/25/2022", "2022-03-25"),
        ("04/03/2022", "2022-03-04")]


def test_publication_as_datetime_is_its_date(resolver):
    from datetime import datetime, timedelta, timezone

    published = datetime(2022, 3, 16, 13, 20, tzinfo=timezone(timedelta(hours=2)))
    (mention,) = resolver.find("Troops on Wednesday opened fire.", published)
    assert mention.value == PartialDate.day(D("2022-03-16"))


def test_offsets_are_document_offsets(resolver):
    document = "Headline.\n\nThe city council said on Friday that the theatre was hit last week."
    sentence_start = document.index("The city")
    sentence = document[sentence_start:]
    mentions = resolver.find(sentence, D("2022-03-25"), base=sentence_start)
    assert [document[m.start:m.end] for m in mentions] == ["Friday", "last week"]
    assert [m.role for m in mentions] == ["report", "event"]


def test_weekday_rules_around_publication_day(resolver):
    friday = D("2023-05-26")

    def value(sentence):
        (mention,) = resolver.find(sentence, friday)
        return mention.value.iso()

    assert value("The depot burned on Friday.") == "2023-05-26"
    assert value("The depot burned last Friday.") == "2023-05-19"
    assert value("The depot burned on Saturday.") == "2023-05-20"
    assert value("The talks are scheduled for Saturday.") == "2023-05-27"
    assert value("The depot will be rebuilt by next Friday.") == "2023-06-02"


# -- relative-event markers -------------------------------------------------------------------


@pytest.mark.parametrize(("sentence", "expression", "offset", "direction"), [
    ("The strike came a day after an air attack on a railway overpass.", "a day after", 1,
     "after"),
    ("Two days before the vote, a school was shelled.", "Two days before", -2, "before"),
    ("The ten people killed the day before had died in the bombardment.", "the day before", -1,
     "before"),
    ("A week after the first strike, another missile hit.", "A week after", 7, "after"),
    ("Three days later, a second strike hit the same street.", "Three days later", 3, "after"),
    ("The next day rescuers found more bodies.", "The next day", 1, "after"),
    ("The theatre was smashed by an airstrike the previous evening.", "the previous evening", -1,
     "before"),
    ("Hours after the attack, rescuers arrived.", "Hours after", 0, "after"),
    ("A day earlier, journalists saw the bodies.", "A day earlier", -1, "before"),
])
def test_relative_event_markers(sentence, expression, offset, direction):
    (marker,) = find_relative_events(sentence, LEXICON, 100)
    assert marker.expression == expression
    assert marker.days_offset == offset
    assert marker.direction == direction
    assert sentence[marker.start - 100:marker.end - 100] == expression
    _start, _end, text, days_offset, which = marker  # a plain tuple for callers that unpack
    assert (text, days_offset, which) == (expression, offset, direction)


def test_no_relative_marker_without_a_count():
    text = "Days after the attack, and the day before yesterday."
    assert find_relative_events(text, LEXICON) == []


def test_resolve_anchor_dates_one_event_from_another():
    strike = PartialDate.day(D("2022-04-08"))
    (marker,) = find_relative_events("The strike came a day after an air attack on an overpass.",
                                     LEXICON)
    # The strike is a day after the air attack, so the air attack is a day before the strike.
    assert resolve_anchor(-marker.days_offset, strike) == PartialDate.day(D("2022-04-07"))
    assert resolve_anchor(marker.days_offset, PartialDate.day(D("2022-04-07"))) == strike
    week = PartialDate.week_of(D("2022-03-16"))
    assert resolve_anchor(7, week) == PartialDate.week_of(D("2022-03-23"))
    assert resolve_anchor(1, PartialDate.month(2022, 3)).precision == "range"


# -- the war calendar ---------------------------------------------------------------------------


def test_shipped_calendar_and_generic_aliases():
    calendar = WarCalendar.load()
    assert {war.id for war in calendar.wars} >= {"ru-ua-2022", "donbas-2014"}
    assert calendar.war_for("the war", D("2019-06-01")).id == "donbas-2014"
    assert calendar.war_for("the war", D("2022-04-03")).id == "ru-ua-2022"
    assert calendar.war_for("The Full-Scale Invasion", D("2023-01-01")).start == D("2022-02-24")
    assert calendar.war_for("the invasion", D("2019-06-01")) is None
    assert calendar.war_for("the war", None).id == "ru-ua-2022"
    assert calendar.war_for("the harvest", D("2022-04-03")) is None


def test_a_calendar_of_ones_own():
    calendar = WarCalendar([War("test", "A test war", D("2020-01-01"), ("test war",))])
    resolver = DateResolver.of(replace(VOCABULARY, wars=calendar))
    (mention,) = resolver.find("It was the 10th day of the test war.", None)
    assert mention.value == PartialDate.day(D("2020-01-10"))
    assert resolver.find("It was the 10th day of the war.", None) == []


def test_a_calendar_file_on_disk(tmp_path: Path):
    path = tmp_path / "wars.toml"
    path.write_text('[[war]]\nid = "x"\nname = "X"\nstart = 2001-02-03\naliases = ["x war"]\n')
    assert WarCalendar.load(path).wars[0].start == D("2001-02-03")


@pytest.mark.parametrize("text", [
    "[[war]\n",
    '[[war]]\nid = "x"\nname = "X"\nstart = "2022-02-24"\naliases = []\n',
    '[[war]]\nid = "x"\nname = "X"\nstart = 2022-02-24\naliases = "war"\n',
    '[[war]]\nname = "X"\nstart = 2022-02-24\naliases = []\n',
    "# no wars at all\n",
])
def test_malformed_calendars_are_refused(text):
    with pytest.raises(WarCalendarError) as raised:
        WarCalendar.from_toml(text)
    assert isinstance(raised.value, CasebuilderError)


# -- the dev corpus against its gold -----------------------------------------------------------


def _corpus_documents(reports: Path) -> dict[str, tuple[str, date]]:
    documents = {}
    for path in sorted(reports.iterdir()):
        if path.suffix == ".txt":
            meta = json.loads(path.with_suffix(".meta.json").read_text(encoding="utf-8"))
            documents[path.stem] = (path.read_text(encoding="utf-8"),
                                    D(meta["published"][:10]))
        elif path.suffix == ".html":
            raw = path.read_text(encoding="utf-8")
            published = re.search(r'article:published_time" content="([^"]+)"', raw)
            assert published is not None
            body = re.sub(r"<[^>]+>", " ", raw.split("<body>", 1)[1])
            documents[path.stem] = (body, D(published.group(1)[:10]))
    return documents


def test_every_single_day_gold_incident_is_dated_in_its_documents(resolver, dev_reports):
    gold = json.loads((dev_reports.parent / "gold.json").read_text(encoding="utf-8"))
    documents = _corpus_documents(dev_reports)
    checked = 0
    for incident in gold["incidents"]:
        first, last = incident["date_window"]
        if first != last:
            continue
        day = PartialDate.day(D(first))
        values = set()
        for name in incident["documents"]:
            text, published = documents[name]
            values |= {m.value for m in resolver.find(text, published) if m.role == "event"}
            for marker in find_relative_events(text, LEXICON):
                # "The strike came a day after an air attack": date the earlier event from
                # the later one, as the incident extractor will.
                values.add(resolve_anchor(-marker.days_offset, PartialDate.day(published)))
        assert day in values, f"{incident['key']}: {day.iso()} not among {sorted(map(str, values))}"
        checked += 1
    assert checked >= 5


# -- properties -------------------------------------------------------------------------------

FRAGMENTS = [
    "on", "Wednesday", "Friday morning", "early on", "late", "said", "told reporters", "March",
    "May", "16", "16th", "of", "2022", "2,400", "10:00", "the day before", "a day after",
    "since", "the start of the war", "the 39th day of a war", "over the past day", "last week",
    "this", "month", "overnight into", "Sunday", "Times", "mid-", "early", "in", "ago", "two",
    "days", "08.04.2022", "2022-04-08", "25/03/2022", "(", ")", "-", ",", ".", "between", "and",
    "to", "night", "9999", "day 9999 of the war", "999 years ago", "the", "next", "year",
]
sentences = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(FRAGMENTS), max_size=25).map(" ".join),
    st.lists(st.sampled_from(FRAGMENTS), max_size=25).map("".join),
)
publications = st.one_of(st.none(), st.dates(min_value=date(1950, 1, 1),
                                             max_value=date(2080, 12, 31)))


@settings(max_examples=300, deadline=None)
@given(sentences, publications, st.integers(min_value=0, max_value=10**6))
def test_find_never_raises_and_spans_match(resolver, text, published, base):
    for mention in resolver.find(text, published, base=base):
        assert text[mention.start - base:mention.end - base] == mention.expression
        assert mention.role in {"event", "report"}
        assert mention.value.start <= mention.value.end
    for marker in find_relative_events(text, LEXICON, base):
        assert text[marker.start - base:marker.end - base] == marker.expression


def test_the_day_named_as_the_attacks_own_is_not_a_count_date(extraction_tools):
    from casebuilder.extraction.mentions import SourceText

    (mention,) = extraction_tools.extractor.extract(SourceText(
        1, "Rescue crews in Dnipro ended their search on Tuesday, with the number of people "
        "killed by Saturday's Russian missile strike standing at 45.", "", "Desk",
        date(2023, 1, 17)))
    assert mention.event_date()[0].iso() == "2023-01-14"


# -- years and periods named in passing (issue 10) ----------------------------------------------

@pytest.mark.parametrize(("sentence", "words", "rule"), [
    ("Among the dead was a teenager born in 2007, the police said.", "in 2007", "year-of-birth"),
    ("Two of the wounded, born in 2015 and 2018, are in hospital.", "in 2015", "year-of-birth"),
    ("The victims include a man born on 2 May 1950.", "2 May 1950", "year-of-birth"),
    ("It was the heaviest attack on the port since 2022.", "since 2022", "yardstick-since"),
    ("People still remember the floods of summer 2021.", "summer 2021", "period-of-another-event"),
    ("Unlike the summer 2021 protests, the rally was calm.", "summer 2021",
     "period-before-a-noun"),
])
def test_dates_named_in_passing_date_nothing(resolver, sentence, words, rule):
    trace: list = []
    assert resolver.find(sentence, D("2023-05-24"), trace=trace) == []
    passing = [t for t in trace if t.expression == words]
    assert passing and passing[0].decision.outcome == "passing"
    assert passing[0].decision.rule == rule



# -- times of day (issue 10) --------------------------------------------------------------------

@pytest.mark.parametrize(("sentence", "expression", "iso", "time", "zone"), [
    ("As of 09:30 on 8 August, 12 bodies had been recovered.", "09:30 on 8 August",
     "2023-08-08", "09:30", ""),
    ("The missile struck on Tuesday at 14:10 local time.", "Tuesday at 14:10 local time",
     "2023-08-08", "14:10", "local time"),
    ("Drones hit the depot on 7 August at 11 p.m.", "7 August at 11 p.m.", "2023-08-07",
     "23:00", ""),
])
def test_a_time_beside_a_date_is_kept_with_it(resolver, sentence, expression, iso, time, zone):
    (mention,) = resolver.find(sentence, D("2023-08-09"))
    assert (mention.expression, mention.value.iso(), mention.time, mention.zone) == (
        expression, iso, time, zone)


def test_a_time_alone_is_no_date_but_a_time_of_the_report(resolver):
    from casebuilder.extraction.dates import TimeOfDay

    times: list[TimeOfDay] = []
    assert resolver.find("As of 11am (9am BST), nine had died.", D("2023-08-08"),
                         base=100, times=times) == []
    assert [(t.time, t.zone, t.cue, t.start) for t in times] == [
        ("11:00", "", "as of", 106), ("09:00", "BST", "", 112)]


def test_a_dateline_on_its_own_line_dates_the_report(resolver):
    text = "Last updated: 8 August 2023, 12:00\nShelling killed seven people on Monday night."
    found = resolver.find(text, D("2023-08-08"))
    assert [(m.expression, m.role, m.time) for m in found] == [
        ("8 August 2023, 12:00", "report", "12:00"), ("Monday night", "event", None)]


@pytest.mark.parametrize(("sentence", "expression", "iso"), [
    ("A year ago today, a missile hit the market.", "A year ago today", "2023-08-08"),
    ("Exactly two years ago, shelling killed ten people.", "Exactly two years ago",
     "2022-08-08"),
    ("On this day last year the theatre was bombed.", "this day last year", "2023-08-08"),
    ("Six months ago to the day, the dam was blown up.", "Six months ago to the day",
     "2024-02-08"),
])
def test_a_look_back_to_the_day_names_that_day(resolver, sentence, expression, iso):
    (mention,) = resolver.find(sentence, D("2024-08-08"))
    assert (mention.expression, mention.value.iso(), mention.rule) == (
        expression, iso, "ago-to-the-day")


def test_a_look_back_from_a_leap_day_lands_on_the_last_day_of_february(resolver):
    (mention,) = resolver.find("A year ago today the bridge fell.", D("2024-02-29"))
    assert mention.value.iso() == "2023-02-28"


def test_the_day_an_anniversary_recalls_dates_nothing(resolver):
    trace: list = []
    assert resolver.find("Drones hit the port on the anniversary of the 14 January strike.",
                         D("2024-01-14"), trace=trace) == []
    assert [t.decision.outcome for t in trace] == ["passing"]
