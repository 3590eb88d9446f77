"""The pattern analysis and the case's verification from the web interface, each a logged
action with the user as actor."""

from __future__ import annotations

import json

from sqlalchemy import select

from casebuilder.store.schema import CustodyEvent

from .conftest import (
    RESTRICTED_WORDS,
    client_for,
    csrf_of,
)


def _last(case):  # type: ignore[no-untyped-def]
    with case.session() as session:
        row = session.scalars(select(CustodyEvent).order_by(CustodyEvent.seq.desc())
                              .limit(1)).one()
        return json.loads(row.entry)


def test_the_pattern_analysis_runs_on_asking_and_its_run_is_logged(web_case):
    client = client_for(web_case, "analyst")
    before = client.get("/patterns")
    assert before.status_code == 200 and "findings" not in before.text.split("</form>")[-1]
    page = client.get("/patterns?run=1")
    assert page.status_code == 200 and "Inputs digest" in page.text
    entry = _last(web_case)
    assert entry["actor"] == "analyst" and entry["details"]["what"] == "web: pattern analysis"
    assert "findings_digest" in entry["details"] and "inputs" in entry["details"]


def test_the_pattern_analysis_of_a_reader_not_cleared_leaves_restricted_items_out(web_case):
    viewer = client_for(web_case, "viewer").get("/patterns?run=1").text
    legal_entry_text = client_for(web_case, "legal").get("/patterns?run=1").text
    for words in RESTRICTED_WORDS:
        assert words not in viewer
    assert "Inputs digest" in viewer and "Inputs digest" in legal_entry_text
    counts = [t.split("incidents</small>")[0].rsplit(" of ", 1)[-1]
              for t in (viewer, legal_entry_text)]
    assert int(counts[1]) - int(counts[0]) == 1  # the incident W18 alone reports


def test_verify_from_the_interface_passes_and_is_logged_then_finds_tampering(own_case):
    client = client_for(own_case, "reviewer")
    assert "Verify now" in client.get("/verify").text
    page = client.post("/verify", data={"csrf": csrf_of(client)})
    assert page.status_code == 200 and "Every check passed" in page.text
    assert "in the custody log with your name" in page.text
    entry = _last(own_case)
    assert entry["action"] == "verify" and entry["actor"] == "reviewer"
    stored = next(p for p in (own_case.paths.root / "objects").rglob("*") if p.is_file())
    stored.chmod(0o644)
    stored.write_bytes(stored.read_bytes() + b"tampered")
    page = client.post("/verify", data={"csrf": csrf_of(client)})
    assert "Every check passed" not in page.text and "problem" in page.text
