"""Event time and report time in an incident's summary: an occupation period whose start no
text states, and (below) figures ordered by the time of day they were given for."""

from __future__ import annotations

from datetime import date

from casebuilder.model.partial_date import PartialDate
from casebuilder.reporting.export import incident_properties
from casebuilder.resolution.records import ClaimRecord, DocumentInfo, MentionRecord
from casebuilder.resolution.summary import Incident, dates, open_start


def document(n: int, published: str) -> DocumentInfo:
    return DocumentInfo(n, f"report-{n}.txt", f"{n:064x}", "", "Outlet",
                        date.fromisoformat(published[:10]), published)


def period_claim(n: int, doc: DocumentInfo, iso: str, *, open_start: bool) -> ClaimRecord:
    return ClaimRecord(n, "date", {"iso": iso, "role": "event", "period": "occupation",
                                   "open_start": open_start, "expression": "occupation"},
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
