"""What the pattern analysis found for an incident, as the element matrix reads it.

A ``pattern:`` signal of the catalogue (``pattern:series``, ``pattern:double_tap`` ...) is a
finding across incidents, made by the pattern analysis (``casebuilder.analysis.patterns``),
never by one incident's claims. The matrix reads them from the pattern analysis of the whole
case with the shipped parameters (:func:`case_pattern_report`, the same run ``casebuilder
patterns`` makes with no filter): :func:`pattern_evidence` turns the findings that include an
incident into its pattern signals (:data:`SIGNAL_KINDS`), and names the run by the digest of its
findings, which the matrix's custody entry records. :data:`NO_PATTERN_RUN` (every pattern signal
awaited, an element resting on one "needs analyst", never "supported") remains for callers that
build a matrix without the case's other incidents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from casebuilder.analysis.patterns.parameters import Parameters
    from casebuilder.analysis.patterns.run import PatternReport
    from casebuilder.resolution.summary import Incident


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

#: Which kinds of finding of the pattern analysis give each pattern signal of the catalogue.
#: "widespread" has none on purpose: the analysis measures scale (incidents, victims, places,
#: area, span) but whether that is widespread in law is an analyst's judgement, so the scale
#: is shown beside the element and never makes it hold.
SIGNAL_KINDS: dict[str, tuple[str, ...]] = {
    "series": ("series",),
    "systematic": ("weapon_target", "time_of_day", "weekday", "campaign_onset"),
    "double_tap": ("double_tap",),
    "repeated_site": ("repeated_site",),
    "protected_object": ("protected_object",),
    "wide_area_weapon": ("wide_area_populated",),
    "widespread": (),
}


def case_pattern_report(incidents: Sequence[Incident], parameters: Parameters | None = None
                        ) -> PatternReport:
    """The pattern analysis of every incident of the case (shipped parameters by default):
    what the element matrix reads its pattern signals from."""
    from casebuilder.analysis.patterns.records import from_incident
    from casebuilder.analysis.patterns.run import analyse
    from casebuilder.resolution.profiles import load_profiles

    profiles = load_profiles()
    return analyse([from_incident(i, profiles) for i in incidents], parameters)


def pattern_evidence(report: PatternReport, incident_id: str) -> PatternEvidence:
    """The findings of ``report`` that concern ``incident_id``, by pattern signal. The run is
    named by the digest of its findings, as the custody entry of a pattern run records it."""
    findings: dict[str, PatternFinding] = {}
    scale = next((f for f in report.findings if f.kind == "scale"), None)
    for signal, kinds in SIGNAL_KINDS.items():
        hits = [f for f in report.findings if f.kind in kinds and incident_id in f.incidents]
        if hits:
            others = sorted({i for f in hits for i in f.incidents} - {incident_id})
            findings[signal] = PatternFinding(
                signal, True, "; ".join(f"[{f.kind}] {f.summary}" for f in hits),
                tuple(others))
        elif signal == "widespread" and scale is not None and incident_id in scale.incidents:
            findings[signal] = PatternFinding(
                signal, False, f"scale of the case: {scale.summary} (whether that is "
                "widespread is for an analyst to judge)")
    return PatternEvidence(report.findings_digest()[:16], findings)
