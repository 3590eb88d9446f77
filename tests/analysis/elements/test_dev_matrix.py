"""The element matrix of every development incident, and the two commands run as a user would:
every entry cites a claim span of its item's text; the Kramatorsk station strike lists the
denial (and any claimed military objective) against; swapped perpetrators give the same
statuses; reading the matrix and assessing an element are custody entries; a finding can be
withdrawn."""

from __future__ import annotations

import dataclasses
import json

import pytest

from casebuilder.analysis.elements.catalogue import load_catalogue
from casebuilder.analysis.elements.matrix import element_matrix
from casebuilder.model.claim_values import DenialValue, PerpetratorValue
from casebuilder.preservation.case import open_case
from casebuilder.resolution.incidents import build_incidents
from casebuilder.resolution.summary import Incident
from casebuilder.store import schema
from conftest import run_cli

CATALOGUE = load_catalogue()


@pytest.fixture(scope="module")
def dev_incidents(dev_case_home):
    case = open_case(dev_case_home, environ={})
    try:
        incidents = build_incidents(case)
        texts = {}
        with case.session() as s:
            for item in s.query(schema.Item).all():
                if item.text_item_id:
                    text_item = s.get(schema.Item, item.text_item_id)
                    texts[item.id] = case.objects.path_for(text_item.sha256).read_text()
    finally:
        case.close()
    return incidents, texts


def kramatorsk(incidents: list[Incident]) -> Incident:
    """The station strike: the incident most of the Kramatorsk reports' mentions are in (the
    same reports also tell of strikes elsewhere the day before)."""
    def reports(i: Incident) -> int:
        return sum(m.document.name.startswith("2022-04-08-kramatorsk") for m in i.mentions)

    found = max(incidents, key=reports)
    assert reports(found) >= 3 and any(m.date and m.date.start.isoformat() == "2022-04-08"
                                       for m in found.mentions)
    return found


def test_every_entry_of_every_dev_incident_cites_a_claim_span(dev_incidents):
    incidents, texts = dev_incidents
    assert len(incidents) >= 10
    entries = 0
    for incident in incidents:
        m = element_matrix(incident, CATALOGUE, list(CATALOGUE.crimes.values()))
        claim_ids = {c.id for c in incident.claims}
        for row in m.rows:
            for e in (*row.supporting, *row.contrary):
                text = texts[e.item_id]
                assert e.claim_id in claim_ids
                assert text[e.quote_start:e.quote_end] == e.quote, (incident.id, e)
                assert e.quote_start <= e.char_start < e.char_end <= e.quote_end
                assert e.grade[0] in "ABCDEF" and e.grade[1] in "123456"
                entries += 1
    assert entries > 500


def test_no_dev_incident_has_a_mental_or_context_element_supported(dev_incidents):
    for incident in dev_incidents[0]:
        m = element_matrix(incident, CATALOGUE, list(CATALOGUE.crimes.values()))
        for row in m.rows:
            if row.element.inferred:
                assert row.status == "needs_analyst", (incident.id, row.element.id)


def test_the_kramatorsk_station_strike_lists_the_denial_and_any_claimed_objective_against(
        dev_incidents):
    incident = kramatorsk(dev_incidents[0])
    m = element_matrix(incident, CATALOGUE, [CATALOGUE.crime("8(2)(b)(i)"),
                                              CATALOGUE.crime("8(2)(b)(ii)")])
    rows = {r.element.id: r for r in m.rows}
    denials = {c.id for c in incident.claims if c.kind == "denial"}
    assert denials
    for element in ("8(2)(b)(i)-1", "8(2)(b)(ii)-1"):
        assert denials <= {e.claim_id for e in rows[element].contrary if e.signal == "denial"}
        assert rows[element].status == "contested"
        assert rows[element].rule == "contrary-evidence"
    # The development reports of this strike claim no military objective (the denying party
    # says it had no mission there); a claimed one would be listed against the civilian
    # character of what was hit, and the denying party's own words never count for it.
    objectives = {c.id for c in incident.claims if c.kind == "military_objective"}
    for element in ("8(2)(b)(i)-2", "8(2)(b)(ii)-2"):
        assert objectives <= {e.claim_id for e in rows[element].contrary}
        assert not denials & {e.claim_id for e in rows[element].supporting}
        assert all(e.evidentiality != "denied" for e in rows[element].supporting)


def _swapped(incident: Incident) -> Incident:
    parties = sorted({c.party for c in incident.claims if c.party} |
                     {c.value.party for c in incident.claims
                      if isinstance(c.value, PerpetratorValue | DenialValue) and c.value.party})
    rename = dict(zip(parties, parties[1:] + parties[:1], strict=True)) if parties else {}
    mentions = []
    for m in incident.mentions:
        claims = []
        for c in m.claims:
            value = c.value
            if isinstance(value, PerpetratorValue | DenialValue) and value.party:
                value = dataclasses.replace(value, party=rename[value.party])
            claims.append(dataclasses.replace(c, value=value,
                                              party=rename.get(c.party or "", c.party)))
        mentions.append(dataclasses.replace(m, claims=claims))
    return Incident(incident.id, mentions, incident.reasons, incident.decisions,
                    incident.overrides)


def test_swapping_the_claimed_perpetrators_of_each_dev_incident_keeps_the_statuses(
        dev_incidents):
    swapped_any = False
    for incident in dev_incidents[0]:
        crimes = list(CATALOGUE.crimes.values())
        plain = element_matrix(incident, CATALOGUE, crimes)
        swapped = element_matrix(_swapped(incident), CATALOGUE, crimes)
        assert [(r.element.id, r.status, r.rule) for r in plain.rows] == [
            (r.element.id, r.status, r.rule) for r in swapped.rows], incident.id
        swapped_any |= any(isinstance(c.value, PerpetratorValue) for c in incident.claims)
    assert swapped_any


def log_entries(home):
    return [json.loads(line) for line in
            (home / "custody" / "log.jsonl").read_text().splitlines()]


def test_the_commands_show_log_record_and_withdraw_a_finding(dev_case_copy, dev_incidents):
    incident = kramatorsk(dev_incidents[0]).id
    shown = run_cli("elements", incident, "--charge", "attack-on-civilians", "--json",
                    home=dev_case_copy)
    assert shown.returncode == 0, shown.stderr
    matrix = json.loads(shown.stdout)
    assert [c["crime"] for c in matrix["crimes"]] == ["8(2)(b)(i)", "8(2)(b)(ii)"]
    assert matrix["charges"][0]["reads"] == "(8(2)(b)(i) OR 8(2)(b)(ii))"
    view = log_entries(dev_case_copy)[-1]
    assert view["action"] == "view" and view["details"]["what"] == "element matrix"
    assert view["details"]["incident"] == incident and view["items"]

    def third_row() -> dict:  # type: ignore[type-arg]
        shown = run_cli("elements", incident, "--charge", "8(2)(b)(i)", "--json",
                        home=dev_case_copy)
        return json.loads(shown.stdout)["crimes"][0]["elements"][2]  # type: ignore[no-any-return]

    before = third_row()
    assert before["finding"] is None
    refused = run_cli("element", "assess", incident, "8(2)(b)(i)-3", "--status", "supported",
                      "--reason", "no standard given", home=dev_case_copy)
    assert refused.returncode == 2 and "standard" in refused.stderr
    assessed = run_cli("element", "assess", incident, "8(2)(b)(i)-3", "--status",
                       "supported", "--standard", "reasonable_grounds", "--reason",
                       "strike on a crowded station during an evacuation",
                       home=dev_case_copy)
    assert assessed.returncode == 0, assessed.stderr
    entry = log_entries(dev_case_copy)[-1]
    assert entry["details"]["decision"] == "assess"
    assert entry["details"]["reason"] == "strike on a crowded station during an evacuation"
    decision = int(assessed.stdout.split("as decision ")[1].split()[0])

    table = run_cli("elements", incident, "--charge", "8(2)(b)(i)", home=dev_case_copy)
    assert table.returncode == 0, table.stderr
    assert "analyst-found-supported" in table.stdout and "reasonable_grounds" in table.stdout
    row = third_row()
    assert row["status"] == "supported" and row["rule"] == "analyst-found-supported"
    assert row["finding"]["actor"] and row["finding"]["at"]

    withdrawn = run_cli("element", "undo", str(decision), "--reason", "premature",
                        home=dev_case_copy)
    assert withdrawn.returncode == 0, withdrawn.stderr
    row = third_row()
    # withdrawn: the element is back to what the claims and the pattern findings give
    assert (row["status"], row["rule"]) == (before["status"], before["rule"])
    assert row["finding"] is None
    assert run_cli("element", "assess", incident, "8(2)(b)(i)-9", "--status", "gap",
                   "--reason", "x", home=dev_case_copy).returncode == 2
