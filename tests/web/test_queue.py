"""The review queue pages: likely duplicates (merge or dismiss, each with a reason) and bulk
status changes from the incident list."""

from __future__ import annotations

import re

from casebuilder.resolution import review
from casebuilder.resolution.duplicates import likely_duplicates
from casebuilder.resolution.stored import ListFilter, listed
from casebuilder.resolution.workflow import review_of

from .conftest import (
    client_for,
    csrf_of,
)


def _pairs(case):  # type: ignore[no-untyped-def]
    return likely_duplicates(listed(case, ListFilter())[0], review.dismissed_pairs(case))


def test_the_queue_lists_the_pairs_and_a_dismissal_needs_a_reason(own_case):
    pairs = _pairs(own_case)
    assert pairs, "the development case should hold reports of nearby attacks"
    client = client_for(own_case, "analyst")
    page = client.get("/duplicates")
    assert page.status_code == 200
    assert f"{len(pairs)} pairs among" in page.text
    first = pairs[0]
    assert first.reasons() in page.text
    refused = client.post("/duplicates/dismiss", data={
        "csrf": csrf_of(client), "first": first.first, "second": first.second, "reason": " "})
    assert refused.status_code == 400
    done = client.post("/duplicates/dismiss", follow_redirects=False, data={
        "csrf": csrf_of(client), "first": first.first, "second": first.second,
        "reason": "two strikes: different streets in the reports"})
    assert done.status_code == 303
    assert (first.first, first.second) not in {(p.first, p.second) for p in _pairs(own_case)}
    viewer = client_for(own_case, "viewer")
    assert "Not the same" not in viewer.get("/duplicates").text  # may look, may not act
    assert viewer.post("/duplicates/dismiss", data={"csrf": csrf_of(viewer)}).status_code == 403


def test_merging_from_the_queue_joins_the_pair(own_case):
    pair = _pairs(own_case)[0]
    client = client_for(own_case, "analyst")
    merged = client.post(f"/incidents/{pair.first}/change", follow_redirects=False, data={
        "csrf": csrf_of(client), "action": "merge", "others": pair.second,
        "reason": "same strike, reported a day apart"})
    assert merged.status_code == 303
    ids = {ln["id"] for ln in listed(own_case, ListFilter())[0]}
    assert not {pair.first, pair.second} <= ids


def test_bulk_moves_make_one_decision_each_and_report_what_was_refused(own_case):
    lines = listed(own_case, ListFilter())[0]
    chosen = [ln["id"] for ln in lines[:3]]
    client = client_for(own_case, "analyst")
    answer = client.post("/incidents/bulk", data={
        "csrf": csrf_of(client), "move": "start_review", "incidents": chosen,
        "reason": "this week's batch"})
    assert answer.status_code == 200
    assert re.search(r"3 of 3 moved", answer.text)
    states = {ln["id"]: ln["status"] for ln in listed(own_case, ListFilter())[0]}
    assert all(states[i] == "in_review" for i in chosen)
    # again: they are in review already, so the move is refused for each, and said so
    again = client.post("/incidents/bulk", data={
        "csrf": csrf_of(client), "move": "start_review", "incidents": chosen,
        "reason": "again"})
    assert "0 of 3 moved" in again.text and again.text.count('class="refused"') == 3
    assert client.post("/incidents/bulk", data={
        "csrf": csrf_of(client), "move": "start_review", "incidents": chosen,
        "reason": " "}).status_code == 400
    assert review_of  # the states above are read through the workflow


def test_the_list_filters_by_claimed_perpetrator_whoever_is_named(own_case):
    lines = listed(own_case, ListFilter())[0]
    named = [ln for ln in lines if any("russian" in p.lower()
                                       for p in ln.get("perpetrator_claimed") or [])]
    assert 0 < len(named) < len(lines)
    page = client_for(own_case, "viewer").get("/incidents?perpetrator=Russian")
    assert f"<small>{len(named)} of " in page.text
    nobody = client_for(own_case, "viewer").get("/incidents?perpetrator=Ukrainian")
    expected = sum(1 for ln in lines if any("ukrainian" in p.lower()
                                            for p in ln.get("perpetrator_claimed") or []))
    assert f"<small>{expected} of " in nobody.text


def test_an_edit_from_the_incident_page_overrides_the_value_and_keeps_the_claims(own_case):
    line = listed(own_case, ListFilter())[0][0]
    client = client_for(own_case, "analyst")
    wrong = client.post(f"/incidents/{line['id']}/change", data={
        "csrf": csrf_of(client), "action": "edit", "field": "killed_best", "value": "many",
        "reason": "the latest figure"})
    assert wrong.status_code == 400 and "a number or low-high" in wrong.text
    done = client.post(f"/incidents/{line['id']}/change", follow_redirects=False, data={
        "csrf": csrf_of(client), "action": "edit", "field": "killed_best", "value": "7-9",
        "reason": "the prosecutor's office's latest figure"})
    assert done.status_code == 303
    page = client.get(done.headers["location"]).text
    assert "edit: killed_best" in page and "the prosecutor&#39;s office&#39;s latest" in page
