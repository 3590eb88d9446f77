"""One pattern analysis: every method over one selection of incidents, as one result.

:func:`analyse` sorts its records by id (so the order they come in never matters), runs each
method with its parameters, applies Holm's correction within each kind of test, and returns a
:class:`PatternReport`. :meth:`PatternReport.as_json` is its one serialised form (sorted keys,
rounded floats), and :meth:`PatternReport.run_entry` is what the custody log records of a run:
the parameters and their digest, the digest of the inputs, the selection, the library versions
and the digest of the findings, so the run can be repeated and compared.
"""

from __future__ import annotations

import hashlib
import json
import platform
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from casebuilder.analysis.patterns import objects, onsets, regularity, series, sites
from casebuilder.analysis.patterns.findings import Finding, StatTest, holm
from casebuilder.analysis.patterns.parameters import Parameters, shipped_parameters
from casebuilder.analysis.patterns.records import IncidentRecord, Selection, records_digest

#: The order kinds of finding are listed in.
KINDS = ("scale", "series", "repeated_site", "double_tap", "same_day_same_site",
         "protected_object",
         "crowded_place_busy_hours", "wide_area_populated", "far_from_objective",
         "no_objective_stated", "weapon_target", "time_of_day", "weekday", "campaign_onset",
         "rate_drop")

#: Kinds whose findings come from a statistical test with a controlled error rate.
TESTED_KINDS = ("weapon_target", "time_of_day", "weekday", "campaign_onset",
                "crowded_place_busy_hours")

LIBRARIES = ("casebuilder", "numpy", "scipy", "scikit-learn")


def library_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


@dataclass
class PatternReport:
    findings: list[Finding]
    tests: list[StatTest]
    parameters: Parameters
    selection: Selection
    inputs: dict[str, Any]
    left_out: dict[str, int] = field(default_factory=dict)
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _digest: str | None = field(default=None, init=False, repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        findings = []
        for f in self.findings:
            data = f.as_json()
            claimed = Counter(p for i in f.incidents for p in self.labels.get(i, ()))
            data["perpetrators_claimed"] = dict(sorted(claimed.items()))
            findings.append(data)
        counts = Counter(f.kind for f in self.findings)
        return {
            "selection": self.selection.as_json(),
            "inputs": self.inputs,
            "left_out": dict(sorted(self.left_out.items())),
            "parameters": self.parameters.as_json(),
            "parameters_digest": self.parameters.digest(),
            "parameters_source": self.parameters.source,
            "versions": library_versions(),
            "counts": {k: counts[k] for k in KINDS if counts[k]},
            "findings": findings,
            "tests": [t.as_json() for t in self.tests],
            "expected_false_positive_rate": {
                kind: self.parameters.run.alpha for kind in TESTED_KINDS},
        }

    def to_json(self) -> str:
        return json.dumps(self.as_json(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"

    def findings_digest(self) -> str:
        # Asked once per incident by the element matrices of a report of thousands: the
        # result is fixed once the analysis has returned, so it is computed once.
        if self._digest is None:
            self._digest = hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()
        return self._digest

    def run_entry(self) -> dict[str, Any]:
        """What the custody log records of the run (numbers other than whole ones written as
        text: the log's canonical JSON holds no floats)."""
        entry: dict[str, Any] = _no_floats({
                "what": "pattern analysis", "selection": self.selection.as_json(),
                "inputs": self.inputs, "parameters": self.parameters.as_json(),
                "parameters_digest": self.parameters.digest(),
                "parameters_source": self.parameters.source, "versions": library_versions(),
                "findings": len(self.findings), "findings_digest": self.findings_digest()})
        return entry


def _no_floats(value: Any) -> Any:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return {k: _no_floats(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_no_floats(v) for v in value]
    return value


def analyse(records: Sequence[IncidentRecord], parameters: Parameters | None = None,
            selection: Selection | None = None) -> PatternReport:
    """Run every method on the records the selection admits."""
    p = parameters or shipped_parameters()
    selection = selection or Selection()
    chosen = selection.choose(records)
    left_out: dict[str, int] = {}
    findings: list[Finding] = []
    tests: list[StatTest] = []

    size = regularity.scale(chosen, p.scale)
    if size is not None:
        findings.append(size)
    found, skipped = series.find_series(chosen, p.series)
    findings += found
    left_out.update(skipped)
    repeated, taps, skipped = sites.find_site_findings(chosen, p.sites)
    findings += repeated + taps
    left_out.update(skipped)
    findings += objects.protected_objects(chosen, p.objects)

    crowded, crowded_tests = objects.crowded_places(chosen, p.objects)
    holm(crowded_tests, p.run.alpha)
    for f in crowded:  # a list of incidents in any case; the test says whether it stands out
        if f.statistic is not None and crowded_tests:
            f.statistic["p_adjusted"] = round(crowded_tests[0].p_adjusted, 6)
            f.statistic["significant"] = crowded_tests[0].significant
    findings += crowded
    tests += crowded_tests
    findings += objects.wide_area_in_populated(chosen, p.wide_area)
    findings += objects.far_from_objectives(chosen, p.objects)

    pair_tests, pair_members = regularity.weapon_target(chosen, p.regularity)
    holm(pair_tests, p.run.alpha)
    findings += regularity.weapon_target_findings(pair_tests, pair_members, p.regularity)
    tests += pair_tests

    time_tests, time_members = regularity.time_tests(chosen, p.regularity)
    for test in time_tests:  # each is a kind of its own
        holm([test], p.run.alpha)
    findings += regularity.time_findings(time_tests, time_members)
    tests += time_tests

    onset_findings, onset_tests = onsets.find_onsets(chosen, p.onsets, p.run.alpha,
                                                     p.run.seed)
    findings += onset_findings
    tests += onset_tests

    order = {k: n for n, k in enumerate(KINDS)}
    findings.sort(key=lambda f: order[f.kind])  # stable: each method's own order is kept
    inputs = {"incidents": len(chosen), "of": len(records),
              "digest": records_digest(chosen)}
    return PatternReport(findings, tests, p, selection, inputs, left_out,
                         {r.id: r.perpetrators for r in chosen})
