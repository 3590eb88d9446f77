"""The element matrix's pattern signals come from the pattern analysis of the case: a planted
series, double tap and campaign give the signals of the incidents in them, and nobody else's;
the scale never makes "widespread" hold (an analyst judges that)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from casebuilder.analysis.elements.pattern_evidence import SIGNAL_KINDS, pattern_evidence
from casebuilder.analysis.patterns.records import IncidentRecord
from casebuilder.analysis.patterns.run import PatternReport, analyse

sys.path.insert(0, str(Path(__file__).parents[1] / "patterns"))
from generator import Truth, make_case

Planted = tuple[PatternReport, Truth, list[IncidentRecord]]


@pytest.fixture(scope="module")
def planted() -> Planted:
    records, truth = make_case(3)
    return analyse(records), truth, records


def test_incidents_of_a_planted_series_get_the_series_signal(planted: Planted) -> None:
    report, truth, _ = planted
    for series in truth.series:
        for incident in series:
            evidence = pattern_evidence(report, incident)
            found = evidence.findings["series"]
            assert found.holds and "[series]" in found.summary
            assert set(found.incidents) & (series - {incident})
            assert evidence.run == report.findings_digest()[:16]


def test_the_second_strike_of_a_double_tap_gets_the_double_tap_signal(planted: Planted) -> None:
    report, truth, _ = planted
    for first, second in truth.double_taps:
        found = pattern_evidence(report, second).findings["double_tap"]
        assert found.holds and first in found.incidents


def test_a_signal_holds_only_for_incidents_its_findings_name(planted: Planted) -> None:
    report, _, records = planted
    for record in records[:150]:
        evidence = pattern_evidence(report, record.id)
        for signal, found in evidence.findings.items():
            if found.holds:
                assert any(f.kind in SIGNAL_KINDS[signal] and record.id in f.incidents
                           for f in report.findings)


def test_scale_never_makes_widespread_hold(planted: Planted) -> None:
    report, _, records = planted
    found = pattern_evidence(report, records[0].id).findings["widespread"]
    assert not found.holds
    assert "for an analyst to judge" in found.summary
