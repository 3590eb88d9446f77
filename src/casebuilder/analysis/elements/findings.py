"""Analysts' findings on elements: a status and the standard of proof reached, with a reason.

A finding is an analyst's decision like a merge or a grade (:mod:`casebuilder.resolution.
decisions`, action ``assess``): stored with the mention keys of the incident it was made on
(so it follows the incident through re-extraction and re-merging), written to the custody log
with its actor and reason, and withdrawn by an undo (``casebuilder element undo`` or
``casebuilder incident undo``), never erased. The latest finding in force on an element is
the one the matrix applies (through the status rules' ``analyst`` predicate) and shows with
who made it and when.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from casebuilder.analysis.elements.catalogue import Catalogue
from casebuilder.analysis.elements.status import STANDARDS, STATUSES
from casebuilder.preservation.case import Case
from casebuilder.resolution.decisions import Decision, DecisionError, record_decision
from casebuilder.resolution.summary import Incident

ACTION = "assess"


@dataclass(frozen=True)
class Finding:
    decision: int
    element: str
    status: str
    standard: str | None
    reason: str
    actor: str
    at: str

    def as_json(self) -> dict[str, Any]:
        return {"decision": self.decision, "element": self.element, "status": self.status,
                "standard": self.standard, "reason": self.reason, "actor": self.actor,
                "at": self.at}


def record_finding(case: Case, catalogue: Catalogue, incident: Incident, element_id: str,
                   status: str, standard: str | None, reason: str) -> Decision:
    """Log an analyst's finding on one element of one incident (a custody entry)."""
    element = catalogue.element(element_id)
    if status not in STATUSES:
        raise DecisionError(f"status must be one of {', '.join(STATUSES)}")
    if standard is not None and standard not in STANDARDS:
        raise DecisionError(f"standard must be one of {', '.join(STANDARDS)}")
    if status == "supported" and standard is None:
        raise DecisionError("a finding that an element is supported says the standard reached "
                            f"(--standard {' | '.join(STANDARDS)})")
    payload = {"element": element.id, "crime": element.crime, "status": status,
               "standard": standard, "catalogue": catalogue.digest,
               "anchor_keys": [m.key for m in incident.mentions]}
    return record_decision(case, ACTION, incident.id, payload, reason)


def findings_of(incident: Incident) -> Mapping[str, Finding]:
    """The latest finding in force on each element of ``incident``."""
    out: dict[str, Finding] = {}
    for d in incident.decisions:  # in force, in the order made
        if d.get("action") != ACTION:
            continue
        payload = d.get("payload") or {}
        element = str(payload.get("element", ""))
        out[element] = Finding(int(d.get("id", 0)), element, str(payload.get("status")),
                               payload.get("standard"), str(d.get("reason", "")),
                               str(d.get("actor", "")), str(d.get("at", "")))
    return out
