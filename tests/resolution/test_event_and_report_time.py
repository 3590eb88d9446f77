"""Event time and report time in an incident's summary: an occupation period whose start no
text states, and (below) figures ordered by the time of day they were given for."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from casebuilder.model.claim_values import DateValue, FigureValue
from casebuilder.model.partial_date import PartialDate
from casebuilder.resolution.listing import incident_properties
from casebuilder.resolution.records import ClaimRecord, DocumentInfo, MentionRecord
from casebuilder.resolution.summary import Incident, dates, open_start


def document(n: int, published: str) -> DocumentInfo:
    return DocumentInfo(n, f"report-{n}.txt", f"{n:064x}", "", "Outlet",
                        date.fromisoformat(published[:10]), published)


def period_claim(n: int, doc: DocumentInfo, iso: str, *, open_start: bool) -> ClaimRecord:
    return ClaimRecord(n, "date", DateValue(iso=iso, precision="range", role="event",
                                            period="occupation", open_start=open_start,
                                            expression="occupation"),
                       "occupation-period", 0, 5, 0, 50, "", "Outlet", "", "outlet", None, "",
                       "stated", [], [], doc)


def occupation_mention(n: int, doc: DocumentInfo, iso: str, *, open_start: bool
                       ) -> MentionRecord:
    return MentionRecord(n, f"k{n}", False, ["detention"], "Zarichne",
                         {"precision": "settlement", "name": "Zarichne", "lat": 48.1,
                          "lon": 37.2}, PartialDate.parse_iso(iso),
                         "occupation", "occupation", doc,
                         [period_claim(n, doc, iso, open_start=open_start)])


def test_an_open_occupation_period_exports_no_start_day():
    doc = document(1, "2022-04-04")
    incident = Incident("inc-1", [occupation_mention(1, doc, "2022-02-24/2022-04-04",
                                                     open_start=True)])
    when, basis = dates(incident)
    assert (when.iso(), basis) == ("2022-02-24/2022-04-04", "occupation")
    assert open_start(incident, when, basis)
    p = incident_properties(incident)
    assert p["date_start"] is None and p["date_end"] == "2022-04-04"
    assert p["date_open_start"] is True and p["date_earliest"] == "2022-02-24"


def test_a_stated_period_beats_an_open_one_and_keeps_its_start():
    incident = Incident("inc-2", [
        occupation_mention(1, document(1, "2022-04-04"), "2022-02-24/2022-04-04",
                           open_start=True),
        occupation_mention(2, document(2, "2022-06-10"), "2022-03-03/2022-03-31",
                           open_start=False)])
    p = incident_properties(incident)
    assert (p["date_start"], p["date_end"], p["date_basis"]) == (
        "2022-03-03", "2022-03-31", "occupation")
    assert p["date_open_start"] is False


# -- figures ordered by the time they are stated as of -------------------------------------------

def toll(n: int, doc: DocumentInfo, low: int, *, stated_at: str = "", kind: str = "official"
         ) -> ClaimRecord:
    value = FigureValue(low=low, high=low, qualifier="exact", population=None, subgroup=False,
                        cumulative=False, text=f"{low} killed", earlier_report=False,
                        shared_by=(), stated_at=stated_at or None,
                        stated_zone="" if stated_at else None)
    return ClaimRecord(n, "killed", value, "rule", n * 10, n * 10 + 5, 0, 100, "", "governor",
                       "", kind, None, "said", "stated", [], [], doc)


def strike(*claims: ClaimRecord) -> Incident:
    return Incident("inc-t", [MentionRecord(i, f"k{i}", False, ["explosive_attack"], "Zarichne",
                                            {"precision": "settlement"}, None, "", "report",
                                            c.document, [c]) for i, c in enumerate(claims)])


def test_a_later_lower_toll_of_the_same_day_is_current_when_both_give_their_time():
    from casebuilder.resolution.summary import best_figure

    morning, afternoon = document(1, "2023-08-08"), document(2, "2023-08-08")
    found = best_figure(strike(toll(1, afternoon, 9, stated_at="2023-08-08T14:10"),
                               toll(2, morning, 12, stated_at="2023-08-08T09:30")), "killed")
    assert found is not None and found.low == 9 and found.stated_at == "2023-08-08T14:10"


def test_a_later_higher_toll_wins_over_the_reliable_source_of_the_morning():
    from casebuilder.resolution.summary import best_figure

    morning, afternoon = document(1, "2023-08-08"), document(2, "2023-08-08")
    found = best_figure(strike(toll(1, morning, 6, stated_at="2023-08-08T09:30"),
                               toll(2, afternoon, 9, stated_at="2023-08-08T14:10",
                                    kind="outlet")), "killed")
    assert found is not None and found.low == 9


def test_a_figure_known_only_to_its_day_stands_beside_the_days_last_timed_one():
    from casebuilder.resolution.summary import best_figure

    timed, untimed = document(1, "2023-08-08"), document(2, "2023-08-08")
    found = best_figure(strike(toll(1, timed, 6, stated_at="2023-08-08T09:30"),
                               toll(2, timed, 8, stated_at="2023-08-08T14:10"),
                               toll(3, untimed, 7, kind="outlet")), "killed")
    assert found is not None and found.low == 8  # the official's 14:10 count, not the 7


def test_stated_times_in_a_zone_are_compared_in_utc():
    from casebuilder.resolution.summary import figures

    doc = document(1, "2023-08-08")
    a = toll(1, doc, 5)
    assert isinstance(a.value, FigureValue)
    a.value = replace(a.value, stated_at="2023-08-08T01:04", stated_zone="EDT")  # 05:04 UTC
    b = toll(2, doc, 7, stated_at="2023-08-08T04:00")  # local, taken as written
    assert [f.low for f in figures(strike(a, b), "killed")] == [7, 5]


def test_the_time_of_day_of_the_event_is_exported():
    doc = document(1, "2023-08-08")
    dated = ClaimRecord(1, "date", DateValue(iso="2023-08-08", precision="day", role="event",
                                             time="14:10", zone="local time",
                                             expression="Tuesday at 14:10"),
                        "weekday", 0, 5, 0, 50, "", "Outlet", "", "outlet", None, "", "stated",
                        [], [], doc)
    incident = Incident("inc-d", [MentionRecord(1, "k1", False, ["explosive_attack"],
                                                "Zarichne", {"precision": "settlement"},
                                                PartialDate.parse_iso("2023-08-08"), "Tuesday",
                                                "event", doc, [dated])])
    p = incident_properties(incident)
    assert (p["time_of_day"], p["time_zone"]) == ("14:10", "local time")
