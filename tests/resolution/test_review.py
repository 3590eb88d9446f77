"""The review workflow (resolution/workflow.py, review.toml) and the decisions that move an
incident through it (resolution/review.py): statuses read from decisions, the four-eyes rule,
a change after review sending the incident back, and a bad review.toml named on load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from casebuilder.errors import ConfigurationError
from casebuilder.preservation.access import shipped_access
from casebuilder.resolution.decisions import DecisionError
from casebuilder.resolution.workflow import (
    moves_open,
    parse_workflow,
    review_of,
    shipped_workflow,
)


def moved(n: int, move: str, to: str, actor: str) -> dict[str, Any]:
    return {"id": n, "action": "review", "actor": actor, "at": f"2026-01-0{n}",
            "payload": {"move": move, "to": to}, "reason": "checked"}


def changed(n: int, action: str, actor: str) -> dict[str, Any]:
    return {"id": n, "action": action, "actor": actor, "at": f"2026-01-0{n}", "payload": {},
            "reason": "because"}


START = moved(1, "start_review", "in_review", "ann")
REVIEWED = moved(3, "mark_reviewed", "reviewed", "ann")

#: decisions in force -> (status, people who may not make a four-eyes move)
EXAMPLES = [
    ([], ("new", set())),
    ([START], ("in_review", {"ann"})),
    ([START, changed(2, "merge", "bob"), REVIEWED], ("reviewed", {"ann", "bob"})),
    # a change after review: back in review, and the round starts again
    ([START, REVIEWED, changed(4, "edit", "cat")], ("in_review", {"cat"})),
    ([START, REVIEWED, moved(4, "approve", "legal_review", "dan")],
     ("legal_review", {"ann", "dan"})),
    # sent back: a new round, in which the earlier reviewer is free to approve again
    ([START, REVIEWED, moved(4, "send_back", "in_review", "dan")], ("in_review", {"dan"})),
    # comments and assignments move nothing and involve nobody
    ([START, changed(2, "comment", "eve"), changed(3, "assign", "eve")], ("in_review", {"ann"})),
    # taken in the order made, not the order given
    ([REVIEWED, START], ("reviewed", {"ann"})),
]


@pytest.mark.parametrize(("decisions", "expected"), EXAMPLES)
def test_review_state_read_from_decisions(decisions, expected):
    review = review_of(decisions)
    assert (review.status, review.involved) == expected


def test_four_eyes_the_reviewer_cannot_approve_their_own_review():
    review = review_of([START, REVIEWED])
    assert "approve" not in [m.name for m in moves_open(review, "reviewer", "ann")]
    assert "approve" in [m.name for m in moves_open(review, "reviewer", "dan")]
    # a change by a would-be approver in this round bars them too
    review = review_of([START, changed(2, "split", "dan"), REVIEWED])
    assert "approve" not in [m.name for m in moves_open(review, "reviewer", "dan")]


def test_roles_open_only_their_moves():
    review = review_of([START, REVIEWED])
    assert [m.name for m in moves_open(review, "analyst", "zed")] == []
    assert [m.name for m in moves_open(review, "viewer", "zed")] == []
    assert {m.name for m in moves_open(review, "reviewer", "zed")} == {"approve", "send_back"}
    legal = review_of([START, REVIEWED, moved(4, "approve", "legal_review", "dan")])
    assert {m.name for m in moves_open(legal, "legal", "lee")} == {"certify"}
    assert [m.name for m in moves_open(legal, "legal", "dan")] == []  # approved it: not twice


def test_every_status_can_be_reached_from_the_first():
    workflow = shipped_workflow()
    reached, frontier = {workflow.first}, [workflow.first]
    while frontier:
        status = frontier.pop()
        for move in workflow.moves.values():
            if status in move.sources and move.to not in reached:
                reached.add(move.to)
                frontier.append(move.to)
    assert reached == set(workflow.statuses)


GOOD = """
first = "new"
reopened_by_change = "open"
changed_after = ["done"]
[statuses.new]
description = "n"
[statuses.open]
description = "o"
[statuses.done]
description = "d"
[moves.finish]
description = "f"
from = ["open"]
to = "done"
permission = "review_incidents"
"""


@pytest.mark.parametrize(("broken", "named"), [
    (GOOD.replace('to = "done"', 'to = "gone"'), "'gone', which is not a status"),
    (GOOD.replace('permission = "review_incidents"', 'permission = "fly"'), "'fly'"),
    (GOOD.replace('[statuses.done]\ndescription = "d"', "[statuses.done]"), "status 'done'"),
    (GOOD.replace('from = ["open"]', "from = []"), "move 'finish' leaves no status"),
    (GOOD.replace('first = "new"', 'first = "newer"'), "first names 'newer'"),
    ("first = ", "not valid TOML"),
])
def test_a_bad_workflow_is_named_on_load(broken, named):
    permissions = list(shipped_access().permissions)
    assert parse_workflow(GOOD, "t.toml", permissions).moves["finish"].to == "done"
    with pytest.raises(ConfigurationError, match=r"t\.toml") as caught:
        parse_workflow(broken, "t.toml", permissions)
    assert named in str(caught.value)


def test_moves_are_decisions_in_the_custody_log_and_follow_a_merge(dev_case_copy: Path):
    case_home = dev_case_copy
    from casebuilder.preservation.case import open_case
    from casebuilder.preservation.verify import verify_case
    from casebuilder.resolution.review import change_incident, comment_on, move_incident
    from casebuilder.resolution.stored import ListFilter, listed, stored_record

    case = open_case(case_home, environ={})
    try:
        lines, _ = listed(case, ListFilter())
        first, second = lines[0]["id"], lines[1]["id"]
        assert lines[0]["status"] == "new"
        case.actor = "ann"
        move_incident(case, first, "start_review", "taking it", role="analyst")
        with pytest.raises(DecisionError, match="reason"):
            move_incident(case, first, "mark_reviewed", " ", role="analyst")
        change_incident(case, "merge", first, {"others": [second]}, "same strike, same street")
        comment_on(case, first, "the second report names the school")
        move_incident(case, first, "mark_reviewed", "sources checked", role="analyst")
        with pytest.raises(DecisionError, match="second person"):
            move_incident(case, first, "approve", "fine", role="reviewer")
        with pytest.raises(DecisionError, match="needs the permission approve_reviews"):
            case.actor = "bob"
            move_incident(case, first, "approve", "fine", role="analyst")
        move_incident(case, first, "approve", "agreed", role="reviewer")
        record = stored_record(case, first)
        review = review_of(record["analyst_decisions"])
        assert (review.status, review.by) == ("legal_review", "bob")
        assert [c["reason"] for c in review.comments] == ["the second report names the school"]
        line = next(ln for ln in listed(case, ListFilter())[0] if ln["id"] == first)
        assert line["status"] == "legal_review"
        assert second not in {ln["id"] for ln in listed(case, ListFilter())[0]}
        # a later edit sends it back into review
        change_incident(case, "grade", first, {"grade": "weak"}, "one source only")
        assert review_of(stored_record(case, first)["analyst_decisions"]).status == "in_review"
        # the stored state updated step by step is what a merge from scratch gives
        from casebuilder.resolution.incidents import build_incidents
        from casebuilder.resolution.listing import incident_properties

        fresh = next(i for i in build_incidents(case) if i.id == first)
        assert review_of(incident_properties(fresh)["analyst_decisions"]).as_json() == \
            review_of(stored_record(case, first)["analyst_decisions"]).as_json()
    finally:
        case.close()
    from casebuilder.store.schema import AnalystDecision, CustodyEvent

    case = open_case(case_home, environ={})
    try:
        with case.session() as session:
            entries = session.query(CustodyEvent).filter(CustodyEvent.action.in_(
                ["annotate", "edit"])).all()
            actions = [d.action for d in session.query(AnalystDecision).order_by(
                AnalystDecision.id)]
        assert actions[-6:] == ["review", "merge", "comment", "review", "review", "grade"]
        assert {e.actor for e in entries} >= {"ann", "bob"}
        assert verify_case(case).ok
    finally:
        case.close()
