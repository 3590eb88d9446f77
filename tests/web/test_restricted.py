"""Restricted items (two witness statements, web/conftest.py) are hidden from every role not
cleared for them, on every page that shows, counts or searches case material, and seen in full
by the cleared roles."""

from __future__ import annotations

import re

import pytest

from casebuilder.errors import NotFound
from casebuilder.preservation.access import shipped_access
from casebuilder.preservation.restriction import (
    RestrictionError,
    current_restrictions,
    lift_restriction,
    restrict_item,
    withheld_items,
)
from casebuilder.preservation.verify import verify_case
from casebuilder.resolution.listing import incident_properties
from casebuilder.resolution.stored import ListFilter, listed, stored_incident
from casebuilder.resolution.withholding import seen_lines, seen_record, without
from casebuilder.store.schema import IncidentMention, Item, Origin

from .conftest import RESTRICTED_WORDS, STATEMENTS, client_for

NOT_CLEARED = [r for r in shipped_access().roles
               if r not in shipped_access().permissions["view_restricted"]]
CLEARED = sorted(shipped_access().permissions["view_restricted"])


def _statement_items(case):  # type: ignore[no-untyped-def]
    with case.session() as session:
        return {o.name: o.item_id for o in session.query(Origin) if o.name in STATEMENTS}


def _incident_of(case, name):  # type: ignore[no-untyped-def]
    """The stored incident holding the statement ``name``'s mention."""
    item_id = _statement_items(case)[name]
    with case.session() as session:
        text_id = session.get(Item, item_id).text_item_id or item_id
        key = session.query(IncidentMention.key).filter(
            IncidentMention.item_id.in_([item_id, text_id])).first()[0]
    return stored_incident(case, key)


def _pages(client, case):  # type: ignore[no-untyped-def]
    """Every page a person can reach that shows case material, as (address, text)."""
    shown = [("/incidents", client.get("/incidents").text)]
    for words in ("Zirkovska", "Mell", "witness", "63", "Irpin"):
        # the form shows what was searched for: only what the search found is looked at
        found = client.get(f"/incidents?q={words}").text.split("</thead>", 1)[-1]
        shown.append((f"/incidents?q={words}", found))
    listed_ids = re.findall(r'href="/incidents/([^"?]+)"', shown[0][1])
    for incident_id in listed_ids:
        shown.append((f"/incidents/{incident_id}", client.get(f"/incidents/{incident_id}").text))
    cited = set(re.findall(r'href="/items/(\d+)/text', " ".join(t for _, t in shown)))
    for item_id in sorted(cited, key=int):
        shown.append((f"/items/{item_id}/text", client.get(f"/items/{item_id}/text").text))
    for address in ("/map", "/map/incidents.geojson", "/map/incidents.geojson?q=Irpin",
                    "/items", "/items?name=witness"):
        shown.append((address, client.get(address).text))
    for words in ("Zirkovska", "witness statement", "Irpin bridge"):
        # the hits only: the page repeats what was searched for
        hits = client.get(f"/search?q={words}").text.split('<ol class="hits">', 1)[-1]
        shown.append((f"/search?q={words}", re.sub(r"<li>No text holds all of:[^<]*</li>",
                                                    "", hits)))
    custody = client.get("/custody")
    if custody.status_code == 200:
        shown.append(("/custody", custody.text))
    return shown


def test_the_statements_are_restricted_with_what_they_are_and_made_from_them(web_case):
    items = _statement_items(web_case)
    with web_case.session() as session:
        now = current_restrictions(session)
        withheld = withheld_items(session)
        texts = {session.get(Item, i).text_item_id for i in items.values()} - {None}
    assert set(items.values()) <= set(now)
    assert {r.kind for r in now.values()} == {"witness_statement"}
    # the derived texts of an item are withheld with it
    assert set(items.values()) | texts <= withheld


@pytest.mark.parametrize("role", NOT_CLEARED)
def test_a_role_not_cleared_never_sees_a_restricted_word(web_case, role):
    client = client_for(web_case, role)
    for address, text in _pages(client, web_case):
        for words in RESTRICTED_WORDS:
            assert words not in text, f"{role} sees {words!r} on {address}"


@pytest.mark.parametrize("role", NOT_CLEARED)
def test_restricted_items_and_their_only_incident_answer_as_if_not_held(web_case, role):
    client = client_for(web_case, role)
    for words in ("Zirkovska", "Zalizniak"):
        assert "<small>0 of" in client.get(f"/incidents?q={words}").text
    only = _incident_of(web_case, "witness-statement-W18.txt")
    assert client.get(f"/incidents/{only.id}").status_code == 404
    for item_id in _statement_items(web_case).values():
        assert client.get(f"/items/{item_id}/text").status_code == 404


@pytest.mark.parametrize("role", CLEARED)
def test_a_cleared_role_sees_the_statements_and_their_incidents(web_case, role):
    client = client_for(web_case, role)
    only = _incident_of(web_case, "witness-statement-W18.txt")
    assert "Zalizniak" in client.get(
        f"/items/{_statement_items(web_case)['witness-statement-W18.txt']}/text").text
    page = client.get(f"/incidents/{only.id}")
    assert page.status_code == 200 and "witness-statement-W18.txt" in page.text


def test_the_custody_view_shows_entries_on_restricted_items_to_the_cleared_only(web_home,
                                                                               tmp_path):
    import shutil

    from casebuilder.preservation.case import open_case

    shutil.copytree(web_home, tmp_path / "home")
    copy = open_case(tmp_path / "home", environ={})
    try:
        item_id = _statement_items(copy)["witness-statement-W17.txt"]
        restrict_item(copy, item_id, "identity", "names the witness's family")
        assert "kind: identity" in client_for(copy, "legal").get("/custody").text
        assert "kind: identity" not in client_for(copy, "analyst").get("/custody").text
    finally:
        copy.close()


def test_an_incident_resting_partly_on_a_statement_is_shown_as_the_others_make_it(web_case):
    shared = _incident_of(web_case, "witness-statement-W17.txt")
    assert len({m.document.name for m in shared.mentions}) > 1, "W17 should join Kramatorsk"
    with web_case.session() as session:
        withheld = withheld_items(session)
    seen = seen_record(web_case, shared.id, withheld)
    expected = incident_properties(without(shared, withheld))  # type: ignore[arg-type]
    assert seen == expected
    assert "witness-statement-W17.txt" not in seen["documents"]
    assert all(s["item_id"] not in withheld for s in seen["sources"])
    assert seen_record(web_case, shared.id, frozenset())["documents"] != seen["documents"]


def test_the_counts_leave_out_what_rests_on_restricted_items_alone(web_case):
    with web_case.session() as session:
        withheld = withheld_items(session)
    everything, total = listed(web_case, ListFilter())
    seen, seen_total = seen_lines(web_case, ListFilter(), withheld)
    assert total - seen_total == 1 and len(everything) - len(seen) == 1
    viewer = client_for(web_case, "viewer").get("/incidents").text
    legal = client_for(web_case, "legal").get("/incidents").text
    assert f"of {seen_total}" in viewer or f"{seen_total} incidents" in viewer
    assert f"of {total}" in legal or f"{total} incidents" in legal


def test_a_hidden_incident_cannot_be_changed_by_someone_not_cleared(web_case):
    from .conftest import csrf_of

    client = client_for(web_case, "analyst")
    only = _incident_of(web_case, "witness-statement-W18.txt")
    reply = client.post(f"/incidents/{only.id}/comment",
                        data={"text": "what is this?", "csrf": csrf_of(client)},
                        follow_redirects=False)
    assert reply.status_code == 404


def test_restricting_needs_a_known_kind_and_a_reason_and_is_checked_by_verify(web_case):
    item_id = min(_statement_items(web_case).values())
    with pytest.raises(RestrictionError, match="kinds are"):
        restrict_item(web_case, item_id, "secret", "a reason")
    with pytest.raises(RestrictionError, match="reason"):
        restrict_item(web_case, item_id, "identity", "  ")
    with pytest.raises(NotFound):
        restrict_item(web_case, 10**9, "identity", "a reason")
    assert verify_case(web_case).ok


def test_a_restriction_changed_in_the_database_alone_fails_verification(web_home, tmp_path):
    import shutil

    from casebuilder.preservation.case import open_case
    from casebuilder.store.schema import ItemRestriction

    shutil.copytree(web_home, tmp_path / "home")
    copy = open_case(tmp_path / "home", environ={})
    try:
        with copy.session() as session:
            row = session.query(ItemRestriction).first()
            row.restricted = False  # someone lifts it behind the log's back
            session.commit()
        report = verify_case(copy)
        assert not report.ok
        assert any("restriction" in f.subject and "restricted" in f.problem
                   for f in report.failures)
    finally:
        copy.close()


def test_lifting_a_restriction_shows_the_statement_again(web_home, tmp_path):
    import shutil

    from casebuilder.preservation.case import open_case

    shutil.copytree(web_home, tmp_path / "home")
    copy = open_case(tmp_path / "home", environ={})
    try:
        item_id = _statement_items(copy)["witness-statement-W18.txt"]
        lift_restriction(copy, item_id, "the witness agreed to be named")
        with pytest.raises(RestrictionError, match="not restricted"):
            lift_restriction(copy, item_id, "twice")
        only = _incident_of(copy, "witness-statement-W18.txt")
        with copy.session() as session:
            withheld = withheld_items(session)
        assert item_id not in withheld
        assert seen_record(copy, only.id, withheld)["id"] == only.id
        assert verify_case(copy).ok
    finally:
        copy.close()


def test_the_command_line_restricts_and_lifts_with_a_reason(web_home, tmp_path):
    import shutil

    from conftest import run_cli

    home = tmp_path / "home"
    shutil.copytree(web_home, home)
    from casebuilder.preservation.case import open_case

    copy = open_case(home, environ={})
    try:
        item_id = _statement_items(copy)["witness-statement-W18.txt"]
    finally:
        copy.close()
    unknown = run_cli("restrict", str(item_id), "--kind", "secret", "--reason", "x", home=home)
    assert unknown.returncode != 0 and "kinds are" in unknown.stderr
    lifted = run_cli("restrict", str(item_id), "--lift", "--reason", "agreed", home=home)
    assert lifted.returncode == 0, lifted.stderr
    again = run_cli("restrict", str(item_id), "--kind", "identity", "--reason", "asked",
                    home=home)
    assert again.returncode == 0 and "restricted as identity" in again.stdout
    assert run_cli("verify", home=home).returncode == 0


def test_ingest_can_restrict_what_it_takes_in_before_anything_is_read_from_it(tmp_path):
    from casebuilder.preservation.case import open_case
    from conftest import run_cli

    home = tmp_path / "home"
    statements = tmp_path / "statements"
    statements.mkdir()
    (statements / "w21.txt").write_text("Statement of witness W21: shelling of Izium on 2 "
                                        "March 2022 killed two civilians.\n", encoding="utf-8")
    unknown = run_cli("ingest", statements, "--restricted", "secret", "--reason", "x",
                      home=home)
    assert unknown.returncode == 2 and "kinds are" in unknown.stderr
    assert not (home / "objects").exists() or not any((home / "objects").rglob("*.*"))
    no_reason = run_cli("ingest", statements, "--restricted", "witness_statement", home=home)
    assert no_reason.returncode == 2 and "--reason" in no_reason.stderr
    done = run_cli("ingest", statements, "--restricted", "witness_statement", "--reason",
                   "protects the witness", home=home)
    assert done.returncode == 0, done.stderr
    assert "restricted 1 item(s) as witness_statement" in done.stdout
    case = open_case(home, environ={})
    try:
        with case.session() as session:
            withheld = withheld_items(session)
            restricted = current_restrictions(session)
        assert len(restricted) == 1 and len(withheld) >= 1
        _, total = listed(case, ListFilter())
        seen, seen_total = seen_lines(case, ListFilter(), withheld)
        assert total >= 1 and seen == [] and seen_total == 0
    finally:
        case.close()
    assert run_cli("verify", home=home).returncode == 0
