"""What was hit: protected objects, crowded places at busy hours, wide-area weapons in
populated places, and civilian objects far from any claimed military objective.

* Protected objects: one finding per protected target type hit (``protected_targets``).
* Crowded places at busy hours: strikes on crowded target types whose time of day falls in
  ``busy_hours``; where ``min_timed`` of them have a time, a one-sided binomial test asks
  whether more fall in busy hours than the busy hours' share of the day (uniform baseline).
* Wide-area weapons in populated places: incidents in a settlement (or a part of one) with a
  weapon the weapons table judges wide-area (:mod:`.weapons`).
* Far from any claimed objective: incidents with civilian harm or a civilian target where no
  incident of the selection with a claimed military objective lies within ``far_km``, and those
  where a source says there was no military objective.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from casebuilder.analysis.patterns.findings import Finding, StatTest
from casebuilder.analysis.patterns.parameters import ObjectParameters, WideAreaParameters
from casebuilder.analysis.patterns.records import IncidentRecord
from casebuilder.analysis.patterns.weapons import wide_area
from casebuilder.gazetteer.geo import EARTH_RADIUS_KM


def protected_objects(records: Sequence[IncidentRecord], p: ObjectParameters
                      ) -> list[Finding]:
    findings = []
    for target in p.protected_targets:
        hit = [r for r in records if target in r.targets]
        if not hit:
            continue
        quotes = {r.id: q for r in hit for t, q in r.target_quotes if t == target}
        findings.append(Finding(
            kind="protected_object", incidents=tuple(r.id for r in hit),
            summary=f"{len(hit)} incident(s) hit the protected target type '{target}'",
            parameters={"protected_targets": list(p.protected_targets)},
            details={"target": target, "killed": sum(r.killed or 0 for r in hit),
                     "injured": sum(r.injured or 0 for r in hit), "quotes": quotes}))
    return findings


def _busy(minutes: int, hours: Sequence[tuple[int, int]]) -> bool:
    return any(start * 60 <= minutes < end * 60 for start, end in hours)


def crowded_places(records: Sequence[IncidentRecord], p: ObjectParameters
                   ) -> tuple[list[Finding], list[StatTest]]:
    from scipy.stats import binomtest

    crowded = [r for r in records if set(r.targets) & set(p.crowded_targets)]
    timed = [r for r in crowded if r.minutes is not None]
    busy = [r for r in timed if _busy(r.minutes or 0, p.busy_hours)]
    share = sum(end - start for start, end in p.busy_hours) / 24
    tests: list[StatTest] = []
    statistic = None
    if len(timed) >= p.min_timed:
        result = binomtest(len(busy), len(timed), share, alternative="greater")
        test = StatTest("crowded_place_busy_hours", "all crowded places", "binomial test, "
                        "one-sided, against the busy hours' share of the day",
                        len(busy) / len(timed), float(result.pvalue), len(timed),
                        {"busy": len(busy), "timed": len(timed), "baseline_share":
                         round(share, 6)})
        tests.append(test)
    findings = []
    if busy:
        statistic = None if not tests else {"test": tests[0].method,
                                            "share_busy": round(len(busy) / len(timed), 6),
                                            "baseline_share": round(share, 6),
                                            "p_value": round(tests[0].p_value, 6)}
        findings.append(Finding(
            kind="crowded_place_busy_hours", incidents=tuple(r.id for r in busy),
            summary=(f"{len(busy)} of {len(timed)} strikes on crowded places with a time of "
                     f"day fell in busy hours ({len(crowded) - len(timed)} without a time)"),
            parameters={k: v for k, v in asdict(p).items()
                        if k in {"crowded_targets", "busy_hours", "min_timed"}},
            details={"targets": {r.id: sorted(set(r.targets) & set(p.crowded_targets))
                                 for r in busy},
                     "times": {r.id: r.time for r in busy},
                     "without_time": [r.id for r in crowded if r.minutes is None]},
            statistic=statistic))
    return findings, tests


def wide_area_in_populated(records: Sequence[IncidentRecord], p: WideAreaParameters
                           ) -> list[Finding]:
    hits: list[IncidentRecord] = []
    verdicts: dict[str, dict[str, Any]] = {}
    by_weapon: dict[str, int] = {}
    for r in records:
        if not r.populated:
            continue
        wide = [v for v in (wide_area(w, p) for w in r.weapons) if v.wide_area]
        if not wide:
            continue
        hits.append(r)
        verdicts[r.id] = {v.weapon: v.reason for v in wide}
        for v in wide:
            by_weapon[v.weapon] = by_weapon.get(v.weapon, 0) + 1
    if not hits:
        return []
    return [Finding(
        kind="wide_area_populated", incidents=tuple(r.id for r in hits),
        summary=(f"{len(hits)} incident(s) in populated places with wide-area explosive "
                 f"weapons ({', '.join(f'{w} {n}' for w, n in sorted(by_weapon.items()))})"),
        parameters=asdict(p),
        details={"by_weapon": dict(sorted(by_weapon.items())), "why": verdicts,
                 "killed": sum(r.killed or 0 for r in hits),
                 "injured": sum(r.injured or 0 for r in hits)})]


def far_from_objectives(records: Sequence[IncidentRecord], p: ObjectParameters
                        ) -> list[Finding]:
    objectives = [r for r in records if r.objective_claimed and r.placed]
    civilian = [r for r in records if r.placed and not r.objective_claimed and
                (r.civilian or any(t for t in r.targets))]
    far: list[IncidentRecord] = []
    nearest: dict[str, float | None] = {}
    olat = np.radians(np.array([o.lat for o in objectives], dtype=float))
    olon = np.radians(np.array([o.lon for o in objectives], dtype=float))
    for r in civilian:
        if objectives:
            lat, lon = np.radians(float(r.lat or 0.0)), np.radians(float(r.lon or 0.0))
            a = (np.sin((olat - lat) / 2) ** 2 + np.cos(lat) * np.cos(olat)
                 * np.sin((olon - lon) / 2) ** 2)
            distance = float(2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(a.min())))
            if distance <= p.far_km:
                continue
            nearest[r.id] = round(distance, 3)
        else:
            nearest[r.id] = None
        far.append(r)
    stated = [r for r in records if r.no_objective_stated]
    findings = []
    if far:
        findings.append(Finding(
            kind="far_from_objective", incidents=tuple(r.id for r in far),
            summary=(f"{len(far)} incident(s) with civilian harm or a civilian target farther "
                     f"than {p.far_km:g} km from any incident where a military objective is "
                     f"claimed ({len(objectives)} such incident(s) in the selection)"),
            parameters={"far_km": p.far_km},
            details={"nearest_objective_km": nearest,
                     "objective_incidents": [o.id for o in objectives]}))
    if stated:
        findings.append(Finding(
            kind="no_objective_stated", incidents=tuple(r.id for r in stated),
            summary=f"{len(stated)} incident(s) where a source says there was no military "
                    "objective", parameters={}, details={}))
    return findings

