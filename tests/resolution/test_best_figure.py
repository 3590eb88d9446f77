"""The current best casualty figure of an incident: which of the sources' figures wins."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from casebuilder.model.claim_values import FigureValue
from casebuilder.resolution.records import ClaimRecord, DocumentInfo, MentionRecord
from casebuilder.resolution.summary import Incident, best_figure


def document(n: int, published: str) -> DocumentInfo:
    return DocumentInfo(n, f"report-{n}.txt", f"{n:064x}", "", "Outlet",
                        date.fromisoformat(published[:10]), published)


def toll(n: int, doc: DocumentInfo, low: int, *, qualifier: str = "exact",
         kind: str = "official", evidentiality: str = "stated", who: str = "governor"
         ) -> ClaimRecord:
    value = FigureValue(low=low, high=None if qualifier != "exact" else low,
                        qualifier=qualifier, population=None, subgroup=False, cumulative=False,
                        text=f"{low} killed", earlier_report=False, shared_by=())
    return ClaimRecord(n, "killed", value, "rule", n * 10, n * 10 + 5, 0, 100, "", who, "",
                       kind, None, "said", evidentiality, [], [], doc)


def incident(*claims: ClaimRecord) -> Incident:
    mentions = []
    for i, claim in enumerate(claims):
        mentions.append(MentionRecord(i, f"k{i}", False, ["explosive_attack"], "Olenivka",
                                      {"precision": "settlement"}, None, "", "report",
                                      claim.document, [claim]))
    return Incident("inc-test", mentions)


def test_a_vague_figure_reported_after_a_count_does_not_replace_it():
    first = document(1, "2022-07-29T21:00:00+03:00")
    later = document(2, "2022-08-01T17:00:00+03:00")
    found = best_figure(incident(
        toll(1, first, 50),
        toll(2, later, 53, kind="belligerent_statement", who="defence ministry"),
        toll(3, later, 24, qualifier="vague", kind="monitoring_mission", who="ICRC")), "killed")
    assert found is not None and found.low == 53


def test_a_vague_figure_that_says_more_than_the_count_is_current():
    first = document(1, "2022-03-16T10:00:00+02:00")
    later = document(2, "2022-03-18T10:00:00+02:00")
    found = best_figure(incident(toll(1, first, 12), toll(2, later, 100, qualifier="vague")),
                        "killed")
    assert found is not None and (found.low, found.qualifier) == (100, "vague")


def test_a_claim_the_text_calls_unverified_loses_to_one_it_does_not_at_the_same_time():
    report = document(1, "2022-08-25T19:40:00+03:00")
    found = best_figure(incident(
        toll(1, report, 25, kind="belligerent_statement", who="presidential office"),
        toll(2, report, 200, kind="belligerent_statement", evidentiality="unverified",
             who="defence ministry")), "killed")
    assert found is not None and found.low == 25


def test_a_later_floor_below_an_earlier_count_does_not_lower_it():
    first = document(1, "2024-01-22T10:00:00+02:00")
    later = document(2, "2024-02-09T10:00:00+02:00")
    found = best_figure(incident(
        toll(1, first, 27),
        toll(2, later, 25, qualifier="at least", kind="monitoring_mission", who="HRMMU")),
        "killed")
    assert found is not None and found.low == 27
    # a floor above the count is news
    found = best_figure(incident(
        toll(1, first, 27),
        toll(2, later, 30, qualifier="at least", kind="monitoring_mission", who="HRMMU")),
        "killed")
    assert found is not None and found.low == 30


def test_one_victims_story_beside_a_count_is_part_of_it():
    report = document(1, "2022-04-10T10:00:00+03:00")
    found = best_figure(incident(
        toll(1, report, 9, kind="outlet", who="regional news"),
        toll(2, report, 1, kind="witness", who="One woman")), "killed")
    assert found is not None and found.low == 9


def test_combatants_a_belligerent_says_it_killed_are_no_toll():
    first = document(1, "2024-02-10T10:00:00+02:00")
    later = document(2, "2024-02-10T18:00:00+02:00")
    claim = toll(2, later, 200, kind="belligerent_statement", who="defence ministry")
    assert isinstance(claim.value, FigureValue)
    claim.value = replace(claim.value, population="military")
    found = best_figure(incident(toll(1, first, 4), claim), "killed")
    assert found is not None and found.low == 4
    assert best_figure(incident(claim), "killed") is None
