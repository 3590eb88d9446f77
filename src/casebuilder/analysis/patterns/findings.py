"""What a pattern analysis reports: findings, the statistical tests behind them, and the
shared arithmetic (distances on the Earth, Holm's correction).

A :class:`Finding` names its kind, the incidents behind it (sorted ids), the parameters its
method used, what it found in figures (``details``) and, where a test applies, its statistic
and p-value. A :class:`StatTest` is one test made, significant or not: a run reports them all,
so a reader sees what was looked for and not found as well as what was.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from casebuilder.gazetteer.geo import EARTH_RADIUS_KM, distance_km


@dataclass
class Finding:
    kind: str
    incidents: tuple[str, ...]
    summary: str
    parameters: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)
    statistic: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        digest = hashlib.sha256(("\n".join((self.kind, *self.incidents))).encode())
        return f"{self.kind}-{digest.hexdigest()[:10]}"

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "summary": self.summary,
                "incidents": list(self.incidents), "count": len(self.incidents),
                "parameters": self.parameters, "details": self.details,
                "statistic": self.statistic}


@dataclass
class StatTest:
    """One statistical test: what was tested, its statistic, p-value and the p-value after
    Holm's correction within its kind."""

    kind: str
    group: str
    method: str
    statistic: float
    p_value: float
    n: int
    details: dict[str, Any] = field(default_factory=dict)
    p_adjusted: float = 1.0
    significant: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "group": self.group, "method": self.method,
                "statistic": rounded(self.statistic), "p_value": rounded(self.p_value),
                "p_adjusted": rounded(self.p_adjusted), "significant": self.significant,
                "n": self.n, "details": self.details}


def rounded(value: float, digits: int = 6) -> float:
    """Floats in results are rounded, so the last bits of a library's arithmetic never change
    a digest."""
    if math.isnan(value) or math.isinf(value):
        return value
    return round(float(value), digits)


def holm(tests: Sequence[StatTest], alpha: float) -> None:
    """Holm's step-down correction over ``tests`` (one kind): sets ``p_adjusted`` and
    ``significant`` so that the chance of any false finding among them is at most alpha."""
    order = sorted(range(len(tests)), key=lambda i: (tests[i].p_value, tests[i].group))
    m = len(tests)
    running = 0.0
    for rank, i in enumerate(order):
        adjusted = min(1.0, (m - rank) * tests[i].p_value)
        running = max(running, adjusted)
        tests[i].p_adjusted = running
        tests[i].significant = running < alpha


def pairs_within(lat: NDArray[np.float64], lon: NDArray[np.float64], km: float
                 ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64]]:
    """Every pair (i < j) of points within ``km`` of each other on the sphere, with the
    distance, in a fixed order (by i, then j)."""
    from sklearn.neighbors import BallTree

    if len(lat) == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, np.zeros(0)
    points = np.radians(np.column_stack([lat, lon]))
    tree = BallTree(points, metric="haversine")
    neighbours, distances = tree.query_radius(points, r=km / EARTH_RADIUS_KM,
                                              return_distance=True, sort_results=True)
    rows, cols, dist = [], [], []
    for i, (js, ds) in enumerate(zip(neighbours, distances, strict=True)):
        keep = js > i
        rows.append(np.full(int(keep.sum()), i, dtype=np.intp))
        cols.append(js[keep].astype(np.intp))
        dist.append(ds[keep] * EARTH_RADIUS_KM)
    i_all, j_all, d_all = np.concatenate(rows), np.concatenate(cols), np.concatenate(dist)
    order = np.lexsort((j_all, i_all))
    return i_all[order], j_all[order], d_all[order]


def extent(lat: Sequence[float], lon: Sequence[float]) -> dict[str, Any]:
    """Where a group of points lies: centre, the farthest point from it, the bounding box."""
    clat, clon = float(np.mean(lat)), float(np.mean(lon))
    radius = max(distance_km((clat, clon), (a, b)) for a, b in zip(lat, lon, strict=True))
    return {"centre": [rounded(clat, 5), rounded(clon, 5)], "radius_km": rounded(radius, 3),
            "bbox": [rounded(min(lat), 5), rounded(min(lon), 5), rounded(max(lat), 5),
                     rounded(max(lon), 5)]}
