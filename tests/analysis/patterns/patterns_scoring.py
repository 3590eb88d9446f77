"""Scoring the analysis's findings against what the generator planted: recall and precision
per kind of pattern, and the statistical findings made on background alone."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date

from generator import Truth

from casebuilder.analysis.patterns.run import PatternReport

#: How far a found onset may lie from the planted one (days).
ONSET_TOLERANCE = 14


@dataclass
class Score:
    planted: int = 0
    found: int = 0  # planted patterns found
    reported: int = 0  # findings of the kind
    correct: int = 0  # findings that match a planted pattern

    def add(self, other: Score) -> None:
        self.planted += other.planted
        self.found += other.found
        self.reported += other.reported
        self.correct += other.correct

    @property
    def recall(self) -> float:
        return self.found / self.planted if self.planted else 1.0

    @property
    def precision(self) -> float:
        return self.correct / self.reported if self.reported else 1.0


def _sets(report: PatternReport, kind: str) -> list[frozenset[str]]:
    return [frozenset(f.incidents) for f in report.findings if f.kind == kind]


def _group_score(planted: list[frozenset[str]], found: list[frozenset[str]],
                 cover: float) -> Score:
    """A planted group is found when one finding holds ``cover`` of it; a finding is correct
    when more than half of it is one planted group."""
    return Score(
        planted=len(planted),
        found=sum(any(len(p & f) >= cover * len(p) for f in found) for p in planted),
        reported=len(found),
        correct=sum(any(len(p & f) > 0.5 * len(f) for p in planted) for f in found))


def score(report: PatternReport, truth: Truth) -> dict[str, Score]:
    scores = {
        "series": _group_score(truth.series, _sets(report, "series"), 0.8),
        "repeated_site": _group_score(truth.repeated_sites, _sets(report, "repeated_site"),
                                      0.75),
    }
    taps = [f for f in report.findings if f.kind == "double_tap"]
    planted_taps = set(truth.double_taps)
    scores["double_tap"] = Score(
        planted=len(planted_taps),
        found=sum(any(f.incidents == tuple(sorted(p)) and f.details["rescuers_hit"]
                      for f in taps) for p in planted_taps),
        reported=len(taps),
        correct=sum(any(f.incidents == tuple(sorted(p)) for p in planted_taps) for f in taps))
    pairs = [(f.details["weapon"], f.details["target"]) for f in report.findings
             if f.kind == "weapon_target"]
    scores["weapon_target"] = Score(
        planted=len(truth.weapon_target),
        found=sum(p in pairs for p in truth.weapon_target),
        reported=len(pairs), correct=sum(p in truth.weapon_target for p in pairs))
    onsets = [date.fromisoformat(f.details["day"]) for f in report.findings
              if f.kind == "campaign_onset"]

    def near(a: date, b: date) -> bool:
        return abs((a - b).days) <= ONSET_TOLERANCE

    scores["campaign_onset"] = Score(
        planted=len(truth.onsets),
        found=sum(any(near(o, p) for o in onsets) for p in truth.onsets),
        reported=len(onsets), correct=sum(any(near(o, p) for p in truth.onsets)
                                          for o in onsets))
    return scores


def false_positives(report: PatternReport) -> Counter[str]:
    """On background alone: pattern findings (series, sites, double taps) and significant
    tests, by kind."""
    out: Counter[str] = Counter(f.kind for f in report.findings
                                if f.kind in {"series", "repeated_site", "double_tap"})
    out.update(t.kind for t in report.tests if t.significant)
    return out
