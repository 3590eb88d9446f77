"""Follow-up reports, round 2 (issue 10, kinds 2, 7, 8). A tally of a besieged town's dead in
a report that tells no attack ("300 civilians have been killed and 700 wounded", with no
place, day or attack of its own) is the continuing situation of the place the report is
about, dated from the war's start to the report: it makes no one-day incident, and it merges
into the siege incident of that place, giving it the latest toll; every report's figure is
kept. A weekday in a report stamped late in the evening may name the next day. Days counted
from an attack the report names ("four days after the strike") date that attack. The texts
are written for these tests."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from casebuilder.extraction.mentions import SourceText
from casebuilder.preservation.case import init_case, open_case
from casebuilder.resolution.incidents import build_incidents
from casebuilder.resolution.listing import incident_properties

SIEGE = ("As of the morning of 12 November, about 900 people remain in Kupiansk despite "
         "round-the-clock shelling.\n\nThe head of the town's military administration spoke on "
         "television.\n\n\"They are still shelling around the clock,\" he said.")
TALLY = ("Kharkiv\n\nThe mayor of Kupiansk met reporters in Kharkiv.\n\nBefore the war, 27,000 "
         "people lived in Kupiansk. Now, he says, fewer than 2,000 remain.\n\n300 civilians "
         "have been killed and 700 wounded.\n\nMost of those left are elderly and live in "
         "cellars.")


def extract(tools, text, published, title=""):
    return tools.extractor.extract(SourceText(1, text, title, "Desk", published))


def test_a_tally_in_a_report_of_no_attack_is_the_situation_of_its_place(extraction_tools):
    (mention,) = extract(extraction_tools, TALLY, date(2024, 1, 20),
                         title="The mayor of Kupiansk on a town under fire")
    assert mention.situation and mention.categories == []
    assert mention.place is not None and mention.place.name == "Kupiansk"
    killed = [c.value for c in mention.claims if c.kind == "killed"]
    assert [(v.low, v.cumulative) for v in killed] == [(300, True)]
    span = mention.situation_span(date(2022, 2, 24), date(2024, 1, 20))
    assert span is not None and span.iso() == "2022-02-24/2024-01-20"
    # the trace says why the figure is no one-day toll
    assert any(c.rule == "running_totals/a-tally-with-no-attack-told"
               for c in mention.claims if c.kind == "not_taken")


def test_a_tally_before_an_attack_is_background_not_a_situation(extraction_tools):
    text = ("Since the war began, 120 civilians have been killed.\n\nA missile hit a school in "
            "Izium on Monday, killing two teachers.")
    mentions = extract(extraction_tools, text, date(2024, 1, 20))
    assert [m.situation for m in mentions] == [False]
    assert not any(c.kind == "killed" and c.value.low == 120 for c in mentions[0].claims)


def _write(reports: Path, name: str, text: str, published: str, title: str) -> None:
    (reports / name).write_text(text)
    (reports / f"{name}.meta.json").write_text(json.dumps(
        {"title": title, "outlet": "Desk", "published": published}))


def test_the_tally_gives_the_siege_incident_its_toll(tmp_path, extraction_tools):
    from casebuilder.extraction.run import extract_items
    from casebuilder.intake.ingest import ingest

    reports = tmp_path / "reports"
    reports.mkdir()
    _write(reports, "siege.txt", SIEGE, "2023-11-12", "About 900 people remain in Kupiansk")
    _write(reports, "tally.txt", TALLY, "2024-01-20",
           "The mayor of Kupiansk on a town under fire")
    home = tmp_path / "home"
    case = init_case(home, name="tallies", environ={})
    try:
        ingest(case, [reports])
        extract_items(case, extraction_tools)
    finally:
        case.close()
    case = open_case(home, environ={})
    try:
        incidents = [incident_properties(i) for i in build_incidents(case)]
    finally:
        case.close()
    (siege,) = [p for p in incidents if p["situation"]]
    assert len(incidents) == 1
    assert sorted(siege["documents"]) == ["siege.txt", "tally.txt"]
    assert siege["killed_max"] == 300 and siege["injured_max"] == 700
    assert (siege["date_start"], siege["date_end"]) == ("2022-02-24", "2024-01-20")


# -- a weekday in a report stamped late in the evening (issue 10, kind 2) --------------------

def test_a_weekday_after_a_late_stamp_is_the_next_day_not_six_days_before(extraction_tools):
    text = ("30 May, 2023 22:11\n\nShelling hit a shelter for displaced people in "
            "Kupiansk on Wednesday, killing a guard, the governor said.")
    (mention,) = extract(extraction_tools, text, date(2023, 5, 30))  # a Tuesday
    when, words, _ = mention.event_date()
    assert when is not None and (when.iso(), words) == ("2023-05-31", "Wednesday")
    (trace,) = [c for c in mention.claims if c.kind == "not_taken"
                and c.rule == "stamp_days/weekday-after-a-late-stamp"]
    assert trace.value.iso == "2023-05-24"  # the day first read, kept


def test_a_weekday_in_a_report_stamped_in_the_morning_counts_back(extraction_tools):
    text = ("30 May, 2023 08:05\n\nShelling hit a shelter for displaced people in "
            "Kupiansk on Wednesday, killing a guard, the governor said.")
    (mention,) = extract(extraction_tools, text, date(2023, 5, 30))
    when, _, _ = mention.event_date()
    assert when is not None and when.iso() == "2023-05-24"


# -- days counted from the attack a report names (issue 10, kind 2) ---------------------------

def test_days_counted_from_the_attack_date_it_by_counting_back(extraction_tools):
    text = ("Four days after the missile strike on the covered market in Kherson, the death "
            "toll has risen to six, the regional governor said.")
    (mention,) = extract(extraction_tools, text, date(2024, 6, 3))
    when, words, rule = mention.event_date()
    assert when is not None and when.iso() == "2024-05-30", words
    assert rule == "counted-back"
    assert 6 in [c.value.low for c in mention.claims if c.kind == "killed"]


def test_days_counted_from_a_day_the_sentence_gives(extraction_tools):
    text = ("On Sunday, a week after the missile strike on the covered market in Kherson, "
            "rescuers found two more bodies under the ruins.")
    (mention,) = extract(extraction_tools, text, date(2024, 6, 3))  # a Monday
    when, _, _ = mention.event_date()
    assert when is not None and when.iso() == "2024-05-26"  # Sunday 2 June less a week


def test_an_attack_told_a_week_after_another_keeps_its_own_day(extraction_tools):
    text = ("A drone hit a bakery in Kherson on Sunday, killing two people, a week after the "
            "missile strike on the covered market.")
    (mention,) = extract(extraction_tools, text, date(2024, 6, 3))
    when, _, _ = mention.event_date()
    assert when is not None and when.iso() == "2024-06-02"


def test_a_stamp_with_the_half_of_the_day_or_a_zone_is_the_reports_time(extraction_tools):
    body = ("\n\nShelling hit a shelter for displaced people in Kupiansk on Wednesday, killing "
            "a guard, the governor said.")
    for stamp in ("May 30, 2023 10:11 PM", "Updated May 30, 2023 at 10:11 p.m. EDT"):
        reading = extraction_tools.extractor.read(
            SourceText(1, stamp + body, "", "Desk", date(2023, 5, 30)))
        assert reading.report_time is not None and reading.report_time.time == "22:11", stamp
        (mention,) = reading.mentions
        when, _, _ = mention.event_date()
        assert when is not None and when.iso() == "2023-05-31", stamp
