"""What the pattern analysis found for an incident, as the element matrix reads it.

A ``pattern:`` signal of the catalogue (``pattern:series``, ``pattern:double_tap`` ...) is a
finding across incidents, made by the pattern analysis (``casebuilder.analysis.patterns``),
never by one incident's claims. The matrix asks this module for the findings of the case's
latest pattern run that concern an incident. Until a pattern run exists for the case,
:data:`NO_PATTERN_RUN` is all there is: every pattern signal is then shown as awaited, and an
element that rests on one is "needs analyst" with that reason, never "supported".

The link to the pattern runs is made where the two analyses meet (see
docs/decisions/0019-legal-elements-catalogue.md): :func:`pattern_evidence` is the one place
that reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from casebuilder.preservation.case import Case


@dataclass(frozen=True)
class PatternFinding:
    """One pattern signal as a pattern run found it for an incident."""

    signal: str  # "series" (the catalogue writes it "pattern:series")
    holds: bool
    summary: str  # what was found, in words ("4 strikes on the same site in 30 days")
    incidents: tuple[str, ...] = ()  # the other incidents the pattern joins it with

    def as_json(self) -> dict[str, Any]:
        return {"signal": f"pattern:{self.signal}", "holds": self.holds,
                "summary": self.summary, "incidents": list(self.incidents)}


@dataclass(frozen=True)
class PatternEvidence:
    """The findings of one pattern run for one incident; ``run`` None: no run exists."""

    run: str | None
    findings: Mapping[str, PatternFinding] = field(default_factory=dict)


NO_PATTERN_RUN = PatternEvidence(None)


def pattern_evidence(case: Case, incident_id: str) -> PatternEvidence:
    """The latest pattern run's findings for ``incident_id``; no run is held yet."""
    del case, incident_id
    return NO_PATTERN_RUN
