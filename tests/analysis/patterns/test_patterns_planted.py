"""The pattern analysis on generated cases: planted patterns found, background left alone,
results byte-identical between runs, and the same analysis whoever is accused."""

from __future__ import annotations

import json
import math
import random
from collections import Counter

import pytest
from generator import PARTIES, make_case, swap_parties
from patterns_scoring import Score, false_positives, score

from casebuilder.analysis.patterns import objects, regularity
from casebuilder.analysis.patterns.findings import holm
from casebuilder.analysis.patterns.parameters import shipped_parameters
from casebuilder.analysis.patterns.records import Selection
from casebuilder.analysis.patterns.run import analyse

PLANTED_SEEDS = range(6)
BACKGROUND_SEEDS = range(100, 108)


@pytest.fixture(scope="module")
def planted_runs():
    return [(analyse(records), truth)
            for records, truth in (make_case(seed) for seed in PLANTED_SEEDS)]


def test_planted_patterns_are_found_with_90_percent_recall_and_precision(planted_runs):
    totals: dict[str, Score] = {}
    for report, truth in planted_runs:
        for kind, s in score(report, truth).items():
            totals.setdefault(kind, Score()).add(s)
    assert set(totals) == {"series", "repeated_site", "double_tap", "weapon_target",
                           "campaign_onset"}
    for kind, s in totals.items():
        assert s.planted > 0, kind
        assert s.recall >= 0.9, (kind, s)
        assert s.precision >= 0.9, (kind, s)


def test_each_finding_names_its_incidents_and_parameters(planted_runs):
    report, _ = planted_runs[0]
    ids = {r for f in report.findings for r in f.incidents}
    assert ids
    for f in report.as_json()["findings"]:
        assert f["incidents"] and f["count"] == len(f["incidents"])
        assert isinstance(f["parameters"], dict)
        if f["kind"] in {"weapon_target", "time_of_day", "weekday", "campaign_onset"}:
            assert f["statistic"]["p_value"] is not None


def test_double_taps_say_the_second_strike_hit_rescuers(planted_runs):
    for report, truth in planted_runs:
        taps = {f.incidents: f for f in report.findings if f.kind == "double_tap"}
        for pair in truth.double_taps:
            found = taps[tuple(sorted(pair))]
            assert found.details["rescuers_hit"] and found.details["timing_known"]
            assert found.details["second"] == pair[1]
            assert 0 < found.details["hours_between"] <= 6


def test_background_alone_gives_no_series_sites_or_double_taps_and_few_tests():
    """Background incidents are spread over a country and a year: the chance of five within
    5 km and 3 days, or of two within 300 m, is far below one in a thousand runs, so none is
    expected. Each tested kind is expected to report anything in at most alpha (0.05) of runs
    (Holm, or Bonferroni for onsets); over 8 runs, 4 or more for one kind would happen by
    chance less than once in 2,000 runs of this test."""
    per_kind: Counter[str] = Counter()
    for seed in BACKGROUND_SEEDS:
        records, _ = make_case(seed, planted=False)
        found = false_positives(analyse(records))
        for kind in ("series", "repeated_site", "double_tap"):
            assert found[kind] == 0, (seed, kind)
        per_kind.update({kind for kind in found})
    assert all(n <= 3 for n in per_kind.values()), per_kind


def test_tests_on_background_reject_at_about_alpha():
    """The false-positive rate stated by alpha holds: on 300 background cases, the share of
    cases where a test (time of day, weekday, crowded places at busy hours, any weapon and
    target pair after Holm's correction) is significant stays within three standard errors of
    alpha or below it."""
    p = shipped_parameters()
    n = 300
    rejected: Counter[str] = Counter()
    for seed in range(1000, 1000 + n):
        records, _ = make_case(seed, background=300, planted=False)
        times, _ = regularity.time_tests(records, p.regularity)
        for t in times:
            rejected[t.kind] += t.p_value < p.run.alpha
        _, crowded = objects.crowded_places(records, p.objects)
        rejected["crowded"] += bool(crowded) and crowded[0].p_value < p.run.alpha
        pairs, _ = regularity.weapon_target(records, p.regularity)
        holm(pairs, p.run.alpha)
        rejected["weapon_target"] += any(t.significant for t in pairs)
    bound = p.run.alpha + 3 * math.sqrt(p.run.alpha * (1 - p.run.alpha) / n)
    assert set(rejected) == {"time_of_day", "weekday", "crowded", "weapon_target"}
    for kind, count in rejected.items():
        assert count / n <= bound, (kind, count / n)


def test_two_runs_give_byte_identical_json_whatever_the_order_of_the_records():
    records, _ = make_case(7)
    first = analyse(records).to_json()
    again = analyse(records).to_json()
    shuffled = list(records)
    random.Random(1).shuffle(shuffled)
    assert first == again == analyse(shuffled).to_json()
    assert json.loads(first)["inputs"]["digest"]


def _without_labels(report_json: str) -> dict:
    data = json.loads(report_json)
    for f in data["findings"]:
        f.pop("perpetrators_claimed")
    data.pop("inputs")  # the records differ in their labels, so their digest does
    return data


def test_swapping_the_claimed_perpetrators_mirrors_the_findings():
    records, _ = make_case(3)
    swapped = swap_parties(records)
    mirror = {PARTIES[0]: PARTIES[1], PARTIES[1]: PARTIES[0]}
    one, two = analyse(records).to_json(), analyse(swapped).to_json()
    assert _without_labels(one) == _without_labels(two)
    for a, b in zip(json.loads(one)["findings"], json.loads(two)["findings"], strict=True):
        assert {mirror[k]: v for k, v in a["perpetrators_claimed"].items()} == \
            b["perpetrators_claimed"]
    # selecting one party's incidents, then the other's after the swap: the same findings
    chosen = analyse(records, selection=Selection(perpetrator=PARTIES[0])).to_json()
    mirrored = analyse(swapped, selection=Selection(perpetrator=PARTIES[1])).to_json()
    a, b = _without_labels(chosen), _without_labels(mirrored)
    a.pop("selection"), b.pop("selection")
    assert a == b
