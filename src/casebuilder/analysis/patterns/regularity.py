"""Scale ("widespread") and regularity ("systematic"): how much, and how regular.

* Scale: incidents, victims, distinct places, the area they cover (convex hull on an
  equal-area projection about their centre) and the period: figures, no test.
* The same weapon against the same kind of target: for each weapon and each target type
  named in ``min_pair`` incidents or more, a one-sided Fisher exact test on the 2x2 table
  (weapon or not, target type or not) among incidents naming both a weapon and a target: do
  they go together more often than if independent? Holm's correction over all pairs tested.
* Time of day and weekday: chi-square goodness of fit against a uniform baseline (hours in
  ``hour_bins`` equal bins; weekdays weighted by how often each occurs in the period), from
  ``min_timed`` incidents.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from datetime import timedelta
from typing import Any

import numpy as np

from casebuilder.analysis.patterns.findings import Finding, StatTest, rounded
from casebuilder.analysis.patterns.parameters import RegularityParameters, ScaleParameters
from casebuilder.analysis.patterns.records import IncidentRecord
from casebuilder.gazetteer.geo import EARTH_RADIUS_KM

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _area_km2(lat: np.ndarray, lon: np.ndarray) -> float:
    """Convex hull area on a Lambert azimuthal equal-area projection about the centre."""
    from scipy.spatial import ConvexHull, QhullError

    if len(lat) < 3:
        return 0.0
    p0, l0 = math.radians(float(np.mean(lat))), math.radians(float(np.mean(lon)))
    phi, lam = np.radians(lat), np.radians(lon)
    k = np.sqrt(2 / (1 + math.sin(p0) * np.sin(phi) + math.cos(p0) * np.cos(phi)
                     * np.cos(lam - l0)))
    x = EARTH_RADIUS_KM * k * np.cos(phi) * np.sin(lam - l0)
    y = EARTH_RADIUS_KM * k * (math.cos(p0) * np.sin(phi) - math.sin(p0) * np.cos(phi)
                               * np.cos(lam - l0))
    try:
        return float(ConvexHull(np.column_stack([x, y])).volume)
    except (QhullError, ValueError):  # all points on a line
        return 0.0


def scale(records: Sequence[IncidentRecord], p: ScaleParameters) -> Finding | None:
    if not records:
        return None
    placed = [r for r in records if r.placed]
    lat = np.array([r.lat for r in placed], dtype=float)
    lon = np.array([r.lon for r in placed], dtype=float)
    # distinct places: points on a grid of place_km (about), so near-identical points count once
    step_lat = p.place_km / 111.2
    cells = {(round(float(a) / step_lat),
              round(float(b) * math.cos(math.radians(float(a))) * 111.2 / p.place_km))
             for a, b in zip(lat, lon, strict=True)}
    days = sorted(r.day for r in records if r.day)
    killed = sum(r.killed or 0 for r in records)
    injured = sum(r.injured or 0 for r in records)
    area = _area_km2(lat, lon)
    span = (days[-1] - days[0]).days + 1 if days else 0
    return Finding(
        kind="scale", incidents=tuple(r.id for r in records),
        summary=(f"{len(records)} incidents, {killed} killed and {injured} injured (best "
                 f"figures), at {len(cells)} places over {rounded(area, 1)} km² and "
                 f"{span} days"),
        parameters=asdict(p),
        details={"incidents": len(records), "killed": killed, "injured": injured,
                 "victims": killed + injured, "places": len(cells),
                 "regions": len({r.region for r in records if r.region}),
                 "area_km2": rounded(area, 3),
                 "first_day": days[0].isoformat() if days else None,
                 "last_day": days[-1].isoformat() if days else None, "span_days": span,
                 "placed": len(placed), "dated": len(days)})


def weapon_target(records: Sequence[IncidentRecord], p: RegularityParameters
                  ) -> tuple[list[StatTest], dict[str, list[str]]]:
    """One test per weapon and target type named together often enough, and the incidents of
    each pair (the findings are made after Holm's correction)."""
    from scipy.stats import fisher_exact

    both = [r for r in records if r.weapons and r.targets]
    n = len(both)
    weapon_count = Counter(w for r in both for w in set(r.weapons))
    target_count = Counter(t for r in both for t in set(r.targets))
    pair_members: dict[tuple[str, str], list[str]] = {}
    for r in both:
        for w in sorted(set(r.weapons)):
            for t in sorted(set(r.targets)):
                pair_members.setdefault((w, t), []).append(r.id)
    tests = []
    members: dict[str, list[str]] = {}
    # Which pairs are tested is decided by the margins alone (each weapon and each target
    # type named min_pair times or more), never by how often the two go together: choosing
    # by the count tested would leave out the pairs with large p-values and make Holm's
    # correction too lenient.
    weapons = sorted(w for w, k in weapon_count.items() if k >= p.min_pair)
    targets = sorted(t for t, k in target_count.items() if k >= p.min_pair)
    for w, t in ((w, t) for w in weapons for t in targets):
        ids = pair_members.get((w, t), [])
        a = len(ids)
        b, c = weapon_count[w] - a, target_count[t] - a
        d = n - a - b - c
        odds, pvalue = fisher_exact([[a, b], [c, d]], alternative="greater")
        expected = weapon_count[w] * target_count[t] / n
        group = f"{w} x {t}"
        tests.append(StatTest("weapon_target", group, "Fisher exact test, one-sided",
                              float(odds) if math.isfinite(odds) else 1e9, float(pvalue), n,
                              {"weapon": w, "target": t, "together": a,
                               "expected": rounded(expected, 3), "weapon_total":
                               weapon_count[w], "target_total": target_count[t]}))
        members[group] = sorted(ids)
    return tests, members


def weapon_target_findings(tests: Sequence[StatTest], members: dict[str, list[str]],
                           p: RegularityParameters) -> list[Finding]:
    return [Finding(
        kind="weapon_target", incidents=tuple(members[t.group]),
        summary=(f"{t.details['weapon']} against {t.details['target']}: "
                 f"{t.details['together']} incidents where {t.details['expected']} were "
                 "expected if weapon and target were independent"),
        parameters={"min_pair": p.min_pair},
        details=dict(t.details),
        statistic={"test": t.method, "odds_ratio": rounded(t.statistic),
                   "p_value": rounded(t.p_value), "p_adjusted": rounded(t.p_adjusted)})
        for t in tests if t.significant]


def _chisquare(observed: list[int], expected: list[float]) -> tuple[float, float]:
    from scipy.stats import chisquare

    result = chisquare(observed, expected)
    return float(result.statistic), float(result.pvalue)


def time_tests(records: Sequence[IncidentRecord], p: RegularityParameters
               ) -> tuple[list[StatTest], dict[str, list[str]]]:
    tests: list[StatTest] = []
    members: dict[str, list[str]] = {}
    timed = [r for r in records if r.minutes is not None]
    if len(timed) >= p.min_timed:
        width = 24 * 60 / p.hour_bins
        bins = [0] * p.hour_bins
        for r in timed:
            bins[min(p.hour_bins - 1, int((r.minutes or 0) // width))] += 1
        expected = [len(timed) / p.hour_bins] * p.hour_bins
        statistic, pvalue = _chisquare(bins, expected)
        labels = [f"{int(k * width // 60):02d}-{int((k + 1) * width // 60):02d}"
                  for k in range(p.hour_bins)]
        top = max(range(p.hour_bins), key=lambda k: (bins[k], -k))
        tests.append(StatTest("time_of_day", "hour of the day", "chi-square goodness of "
                              "fit against a uniform day", statistic, pvalue, len(timed),
                              {"bins": dict(zip(labels, bins, strict=True)),
                               "expected_per_bin": rounded(expected[0], 3),
                               "most_frequent": labels[top], "dof": p.hour_bins - 1}))
        members["hour of the day"] = [r.id for r in timed]
    dated = [r for r in records if r.day]
    if len(dated) >= p.min_timed:
        first = min(r.day for r in dated if r.day)
        last = max(r.day for r in dated if r.day)
        occurs = [0] * 7
        day = first
        while day <= last:
            occurs[day.weekday()] += 1
            day += timedelta(days=1)
        observed = [0] * 7
        for r in dated:
            if r.day:
                observed[r.day.weekday()] += 1
        total_days = sum(occurs)
        expected = [len(dated) * o / total_days for o in occurs]
        statistic, pvalue = _chisquare(observed, expected)
        top = max(range(7), key=lambda k: (observed[k] - expected[k], -k))
        tests.append(StatTest("weekday", "day of the week", "chi-square goodness of fit "
                              "against the weekdays of the period", statistic, pvalue,
                              len(dated),
                              {"observed": dict(zip(WEEKDAYS, observed, strict=True)),
                               "expected": {d: rounded(e, 3) for d, e in
                                            zip(WEEKDAYS, expected, strict=True)},
                               "most_over": WEEKDAYS[top], "dof": 6}))
        members["day of the week"] = [r.id for r in dated]
    return tests, members


def time_findings(tests: Sequence[StatTest], members: dict[str, list[str]]) -> list[Finding]:
    out = []
    for t in tests:
        if not t.significant:
            continue
        what: dict[str, Any] = dict(t.details)
        peak = what.get("most_frequent") or what.get("most_over")
        out.append(Finding(
            kind=t.kind, incidents=tuple(sorted(members[t.group])),
            summary=(f"the {t.group} of {t.n} incidents is not uniform (chi-square "
                     f"{rounded(t.statistic, 2)}, p={rounded(t.p_value, 6)}); most: {peak}"),
            parameters={}, details=what,
            statistic={"test": t.method, "chi_square": rounded(t.statistic),
                       "p_value": rounded(t.p_value), "p_adjusted": rounded(t.p_adjusted)}))
    return out
