"""Onsets of campaigns: days where the rate of incidents changes (change-point detection).

Method (numpy only; documented so it can be re-done by hand). All incidents are counted per
day over the selection's period; binary segmentation looks for the day that best splits a
stretch into two stretches of constant rate: the Poisson log-likelihood ratio of "one rate
before, another after" against "one rate throughout", maximised over split days at least
``min_segment_days`` from either end. For a group (one weapon, one target type, one category)
the question is whether its SHARE of all incidents changes (a change of modus operandi, not
only of the tempo, which the first test already sees): the binomial log-likelihood ratio of
one share before and another after, and the random orders shuffle which incidents belong to
the group.

A split's p-value is the number of random orders of the daily counts (or of the group
membership) whose best split is as strong, plus one, over the number of orders plus one (fixed
seed; up to ``permutations`` orders, fewer once 20 have split as strongly: see BATCH): the
chance of so strong a split if there were no change at all. A split is accepted when its
p-value is below alpha divided by the number of groups tested (Bonferroni), and each side is
searched again, up to ``max_changes`` splits. A change point where the rate (or share) rises
by ``min_ratio`` or more is an onset; one where it falls by as much is a drop. Both are
reported, each with the values on either side.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from datetime import date, timedelta

import numpy as np
from numpy.typing import NDArray

from casebuilder.analysis.patterns.findings import Finding, StatTest, rounded
from casebuilder.analysis.patterns.parameters import OnsetParameters
from casebuilder.analysis.patterns.records import IncidentRecord


def _split_strength(counts: NDArray[np.float64], m: int) -> tuple[NDArray[np.float64],
                                                                   NDArray[np.intp]]:
    """Best log-likelihood ratio and its split index, for each row of ``counts``."""
    n = counts.shape[1]
    cumulative = np.cumsum(counts, axis=1)
    total = cumulative[:, -1:]
    tau = np.arange(m, n - m + 1)
    before = cumulative[:, tau - 1]
    after = total - before
    tiny = 1e-300  # x log x is 0 at x = 0: 0 * log(tiny) is 0
    ratio = (before * (np.log(np.maximum(before, tiny)) - np.log(tau))
             + after * (np.log(np.maximum(after, tiny)) - np.log(n - tau))
             - total * (np.log(np.maximum(total, tiny)) - np.log(n)))
    best = np.argmax(ratio, axis=1)
    return ratio[np.arange(len(ratio)), best], tau[best]


#: Permutations are drawn in batches; once this many random orders have split as strongly as
#: the real one the p-value is plainly large and the test stops (Besag and Clifford's
#: sequential Monte Carlo p-value, 1991), so tests far from significance cost one batch.
BATCH = 250
ENOUGH_EXCEEDANCES = 20


def _test_split(counts: NDArray[np.float64], m: int, permutations: int,
                rng: np.random.Generator) -> tuple[int, float, float]:
    observed, tau = _split_strength(counts[None, :], m)
    exceed = done = 0
    while done < permutations:
        size = min(BATCH, permutations - done)
        shuffled = rng.permuted(np.tile(counts, (size, 1)), axis=1)
        null, _ = _split_strength(shuffled, m)
        exceed += int(np.sum(null >= observed[0] - 1e-9))
        done += size
        if exceed >= ENOUGH_EXCEEDANCES:
            break
    return int(tau[0]), float(observed[0]), (1 + exceed) / (done + 1)


ALL = "all incidents"


def _values(r: IncidentRecord, label: str) -> tuple[str, ...]:
    return {"weapon": r.weapons, "target": r.targets, "category": r.categories}[label]


def _groups(records: Sequence[IncidentRecord], p: OnsetParameters
            ) -> list[tuple[str, list[IncidentRecord]]]:
    dated = [r for r in records if r.day]
    groups: list[tuple[str, list[IncidentRecord]]] = [(ALL, dated)]
    for label in ("weapon", "target", "category"):
        counts = Counter(v for r in dated for v in set(_values(r, label)))
        for value in sorted(v for v, n in counts.items() if n >= p.min_incidents):
            groups.append((f"{label}: {value}",
                           [r for r in dated if value in _values(r, label)]))
    out: list[tuple[str, list[IncidentRecord]]] = []
    seen: set[frozenset[str]] = set()
    for group, members in groups:
        ids = frozenset(r.id for r in members)
        if len(members) >= p.min_incidents and ids not in seen:  # the same incidents: once
            seen.add(ids)
            out.append((group, members))
    return out


def _xlogx_ratio(y: NDArray[np.float64], n: NDArray[np.float64]) -> NDArray[np.float64]:
    """Binomial log-likelihood at its maximum, y log(y/n) + (n-y) log(1-y/n); 0 where n=0."""
    tiny = 1e-300
    safe_n = np.maximum(n, 1.0)
    rest = n - y
    value: NDArray[np.float64] = (y * (np.log(np.maximum(y, tiny)) - np.log(safe_n))
                                  + rest * (np.log(np.maximum(rest, tiny)) - np.log(safe_n)))
    return value


def _share_strength(members: NDArray[np.float64], totals: NDArray[np.float64], m: int
                    ) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """Best binomial log-likelihood ratio of one share of the group before a split day and
    another after, for each row of ``members`` (the group's incidents per day; ``totals``: all
    incidents per day), over split days at least ``m`` from either end."""
    n_days = members.shape[1]
    tau = np.arange(m, n_days - m + 1)
    y_cum = np.cumsum(members, axis=1)
    n_cum = np.cumsum(totals)
    y1, n1 = y_cum[:, tau - 1], n_cum[tau - 1][None, :]
    y_all, n_all = y_cum[:, -1:], np.full((members.shape[0], 1), n_cum[-1])
    ratio = (_xlogx_ratio(y1, n1) + _xlogx_ratio(y_all - y1, n_all - n1)
             - _xlogx_ratio(y_all, n_all))
    best = np.argmax(ratio, axis=1)
    return ratio[np.arange(len(ratio)), best], tau[best]


def _test_share_split(members: NDArray[np.float64], totals: NDArray[np.float64], m: int,
                      permutations: int, rng: np.random.Generator) -> tuple[int, float, float]:
    """Shuffling which incidents belong to the group, drawn without listing them: the group's
    count per day after a shuffle is multivariate hypergeometric (the day totals are the
    colours, the group's size the sample), which is the same law, far cheaper."""
    observed, tau = _share_strength(members[None, :], totals, m)
    colours = totals.astype(np.int64)
    size_of_group = int(members.sum())
    exceed = done = 0
    while done < permutations:
        size = min(BATCH, permutations - done)
        drawn = rng.multivariate_hypergeometric(colours, size_of_group, size=size,
                                                method="marginals").astype(float)
        null, _ = _share_strength(drawn, totals, m)
        exceed += int(np.sum(null >= observed[0] - 1e-9))
        done += size
        if exceed >= ENOUGH_EXCEEDANCES:
            break
    return int(tau[0]), float(observed[0]), (1 + exceed) / (done + 1)


def find_onsets(records: Sequence[IncidentRecord], p: OnsetParameters, alpha: float,
                seed: int) -> tuple[list[Finding], list[StatTest]]:
    dated = sorted((r for r in records if r.day), key=lambda r: (r.day, r.id))
    if not dated:
        return [], []
    first = min(r.day for r in dated if r.day)
    last = max(r.day for r in dated if r.day)
    n_days = (last - first).days + 1
    m = p.min_segment_days
    if n_days < 2 * m:
        return [], []
    day_index = np.array([(r.day - first).days for r in dated if r.day])
    totals = np.bincount(day_index, minlength=n_days).astype(float)
    groups = _groups(records, p)
    level = alpha / max(1, len(groups))
    findings: list[Finding] = []
    tests: list[StatTest] = []
    for number, (group, members) in enumerate(groups):
        rng = np.random.default_rng([seed, number])
        ids = {r.id for r in members}
        share = group != ALL
        flags = np.array([1.0 if r.id in ids else 0.0 for r in dated])
        counts = np.bincount(day_index, weights=flags, minlength=n_days).astype(float)
        changes: list[int] = []
        stretches = [(0, n_days)]
        while stretches and len(changes) < p.max_changes:
            lo, hi = stretches.pop(0)
            if hi - lo < 2 * m or counts[lo:hi].sum() == 0:
                continue
            if share:
                tau, strength, p_value = _test_share_split(counts[lo:hi], totals[lo:hi], m,
                                                           p.permutations, rng)
                method = ("binomial likelihood-ratio split of the group's share of all "
                          "incidents, permutation p-value")
            else:
                tau, strength, p_value = _test_split(counts[lo:hi], m, p.permutations, rng)
                method = "Poisson likelihood-ratio split, permutation p-value"
            day = first + timedelta(days=lo + tau)
            test = StatTest("campaign_onset", f"{group} @ {day.isoformat()}", method,
                            strength, p_value, int(counts[lo:hi].sum()),
                            {"group": group, "stretch": [(first + timedelta(days=lo))
                                                         .isoformat(),
                                                         (first + timedelta(days=hi - 1))
                                                         .isoformat()],
                             "split_day": day.isoformat(), "level": rounded(level)})
            test.p_adjusted = min(1.0, p_value * len(groups))
            test.significant = p_value < level
            tests.append(test)
            if test.significant:
                changes.append(lo + tau)
                stretches += [(lo, lo + tau), (lo + tau, hi)]
        findings += _change_findings(group, members, sorted(changes), counts,
                                     totals if share else None, first, p,
                                     [t for t in tests if t.details["group"] == group])
    return findings, tests


def _change_findings(group: str, members: Sequence[IncidentRecord], changes: list[int],
                     counts: NDArray[np.float64], totals: NDArray[np.float64] | None,
                     first: date, p: OnsetParameters, tests: Sequence[StatTest]
                     ) -> list[Finding]:
    """Onsets and drops at the accepted change points: of the daily rate (``totals`` None),
    or of the group's share of all incidents."""
    edges = [0, *changes, len(counts)]
    measure = "daily rate" if totals is None else "share of all incidents"
    out = []
    for k, change in enumerate(changes):
        lo, hi = edges[k], edges[k + 2]
        if totals is None:
            before = counts[lo:change].sum() / (change - lo)
            after = counts[change:hi].sum() / (hi - change)
        else:
            before = counts[lo:change].sum() / max(1.0, totals[lo:change].sum())
            after = counts[change:hi].sum() / max(1.0, totals[change:hi].sum())
        day = first + timedelta(days=change)
        rising = after >= before * p.min_ratio
        falling = before >= after * p.min_ratio
        if not (rising or falling):
            continue
        end = first + timedelta(days=hi - 1)
        start = first + timedelta(days=lo)
        window = ((day, end) if rising else (start, day - timedelta(days=1)))
        ids = tuple(sorted(r.id for r in members if r.day and window[0] <= r.day <= window[1]))
        test = next((t for t in tests if t.details["split_day"] == day.isoformat()), None)
        ratio = after / before if before else float("inf")
        out.append(Finding(
            kind="campaign_onset" if rising else "rate_drop", incidents=ids,
            summary=(f"{group}: the {measure} {'rises' if rising else 'falls'} from "
                     f"{rounded(before, 3)} to {rounded(after, 3)} on {day}"),
            parameters=asdict(p),
            details={"group": group, "day": day.isoformat(), "measure": measure,
                     "before_value": rounded(before), "after_value": rounded(after),
                     "ratio": rounded(ratio) if before else None,
                     "before": [start.isoformat(), (day - timedelta(days=1)).isoformat()],
                     "after": [day.isoformat(), end.isoformat()]},
            statistic=None if test is None else {
                "test": test.method, "log_likelihood_ratio": rounded(test.statistic),
                "p_value": rounded(test.p_value), "p_adjusted": rounded(test.p_adjusted),
                "level": test.details["level"]}))
    return out
