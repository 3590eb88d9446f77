"""What leaves the case through the web interface: downloads, reports and bundles, each in the
custody log with the user as actor (and, for reports and bundles, the reason)."""

from __future__ import annotations

import io
import json
import zipfile

from sqlalchemy import select

from casebuilder.preservation.access import shipped_access
from casebuilder.store.schema import CustodyEvent, Origin

from .conftest import (
    STATEMENTS,
    client_for,
    csrf_of,
)


def _entries(case, count=8):  # type: ignore[no-untyped-def]
    with case.session() as session:
        rows = session.scalars(select(CustodyEvent).order_by(CustodyEvent.seq.desc())
                               .limit(count))
        return [json.loads(r.entry) for r in rows]


def _ids(case):  # type: ignore[no-untyped-def]
    with case.session() as session:
        return {o.name: o.item_id for o in session.scalars(select(Origin))}


def test_only_roles_cleared_for_restricted_material_may_make_reports_and_bundles():
    access = shipped_access()
    cleared = access.permissions["view_restricted"]
    assert access.permissions["make_reports"] <= cleared
    assert access.permissions["make_bundles"] <= cleared


def test_a_download_is_the_stored_bytes_never_shown_and_logged_as_an_export(own_case):
    ids = _ids(own_case)
    client = client_for(own_case, "viewer")
    answer = client.get(f"/items/{ids['market-capture.html']}/file")
    assert answer.status_code == 200
    assert answer.headers["content-disposition"].startswith("attachment;")
    assert "sandbox" in answer.headers["content-security-policy"]
    assert answer.headers["content-type"] == "application/octet-stream"
    with own_case.storage.open(_sha(own_case, ids["market-capture.html"])) as fh:
        assert answer.content == fh.read()
    entry = _entries(own_case)[0]
    assert entry["action"] == "export" and entry["actor"] == "viewer"
    assert entry["items"][0]["id"] == ids["market-capture.html"]
    for name in STATEMENTS:
        assert client.get(f"/items/{ids[name]}/file").status_code == 404


def _sha(case, item_id):  # type: ignore[no-untyped-def]
    from casebuilder.store.schema import Item

    with case.session() as session:
        return session.get(Item, item_id).sha256


def test_a_report_is_made_kept_as_an_item_and_its_reason_logged(own_case):
    client = client_for(own_case, "legal")
    incident = client.get("/incidents").text.split('href="/incidents/', 2)[1].split('"')[0]
    made = client.post("/reports", follow_redirects=False, data={
        "csrf": csrf_of(client), "kind": "incident", "incident": incident, "format": "html",
        "reason": "for the prosecutor's weekly review"})
    assert made.status_code == 303, made.text
    item_page = client.get(made.headers["location"])
    assert "The report is made" in item_page.text
    entries = _entries(own_case)
    asked = next(e for e in entries if e["details"].get("what") == "web: incident report "
                                                                   "asked for")
    assert asked["actor"] == "legal"
    assert asked["details"]["reason"] == "for the prosecutor's weekly review"
    assert any(e["actor"] == "legal" and e["action"] != "export" for e in entries)
    refused = client.post("/reports", data={"csrf": csrf_of(client), "kind": "incident",
                                             "format": "html", "reason": "x"})
    assert refused.status_code == 400  # an incident report needs its incident
    analyst = client_for(own_case, "analyst")
    assert analyst.post("/reports", data={"csrf": csrf_of(analyst)}).status_code == 403


def test_a_bundle_is_written_downloaded_and_logged_with_its_reason(own_case):
    client = client_for(own_case, "legal")
    answer = client.post("/bundles", data={"csrf": csrf_of(client),
                                           "reason": "disclosure to the defence"})
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(answer.content)).namelist()
    assert any(n.endswith("bagit.txt") for n in names)
    assert any(n.endswith("custody/log.jsonl") for n in names)
    entries = _entries(own_case, 400)  # the bundle records each item's second digest too
    assert any(e["action"] == "bundle" and e["actor"] == "legal" for e in entries)
    assert any(e["details"].get("reason") == "disclosure to the defence" for e in entries)
    assert client.post("/bundles", data={"csrf": csrf_of(client),
                                         "reason": " "}).status_code == 400
