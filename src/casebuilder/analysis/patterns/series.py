"""Series: incidents clustered in space and time (DBSCAN on a space-time distance).

Two incidents are at space-time distance ``max(km / eps_km, days / eps_days)``: within 1 when
they are within ``eps_km`` of each other and within ``eps_days`` in time. DBSCAN (scikit-learn,
on the sparse graph of pairs within 1, so memory grows with the neighbours, not the square of
the incidents) groups incidents reachable through chains of core incidents (each with
``min_samples`` neighbours, itself included). A cluster of ``min_incidents`` or more is a series,
reported with its extent (centre, radius, bounding box) and span (first and last day).
Incidents without a point, placed more coarsely than ``max_uncertainty_km`` or dated more
coarsely than a day are left out and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

import numpy as np

from casebuilder.analysis.patterns.findings import Finding, extent, pairs_within
from casebuilder.analysis.patterns.parameters import SeriesParameters
from casebuilder.analysis.patterns.records import IncidentRecord


def usable(r: IncidentRecord, max_uncertainty_km: float) -> bool:
    return r.placed and r.day is not None and (r.uncertainty_km or 0.0) <= max_uncertainty_km


def find_series(records: Sequence[IncidentRecord], p: SeriesParameters
                ) -> tuple[list[Finding], dict[str, int]]:
    from scipy.sparse import csr_matrix
    from sklearn.cluster import DBSCAN

    chosen = [r for r in records if usable(r, p.max_uncertainty_km)]
    left_out = {"series: no point, coarse place or no day": len(records) - len(chosen)}
    if len(chosen) < p.min_incidents:
        return [], left_out
    lat = np.array([r.lat for r in chosen], dtype=float)
    lon = np.array([r.lon for r in chosen], dtype=float)
    days = np.array([r.day.toordinal() for r in chosen if r.day], dtype=float)
    i, j, km = pairs_within(lat, lon, p.eps_km)
    within = np.abs(days[i] - days[j]) <= p.eps_days
    i, j, km = i[within], j[within], km[within]
    distance = np.maximum(km / p.eps_km, np.abs(days[i] - days[j]) / p.eps_days)
    n = len(chosen)
    # stored entries are the neighbours: a tiny offset keeps a distance of 0 stored, and
    # the diagonal holds each incident as its own neighbour
    rows = np.concatenate([i, j, np.arange(n)])
    cols = np.concatenate([j, i, np.arange(n)])
    data = np.concatenate([distance, distance, np.zeros(n)]) + 1e-9
    graph = csr_matrix((data, (rows, cols)), shape=(n, n))
    labels = DBSCAN(eps=1.0 + 1e-6, min_samples=p.min_samples,
                    metric="precomputed").fit(graph).labels_
    clusters: dict[int, list[IncidentRecord]] = {}
    for label, r in zip(labels, chosen, strict=True):
        if label >= 0:
            clusters.setdefault(int(label), []).append(r)
    findings = []
    for members in clusters.values():
        if len(members) < p.min_incidents:
            continue
        members.sort(key=lambda r: r.id)
        first = min(r.day for r in members if r.day)
        last = max(r.day for r in members if r.day)
        where = extent([r.lat for r in members if r.lat is not None],
                       [r.lon for r in members if r.lon is not None])
        places = sorted({r.place for r in members if r.place})
        findings.append(Finding(
            kind="series",
            incidents=tuple(r.id for r in members),
            summary=(f"{len(members)} incidents within {where['radius_km']} km of a centre "
                     f"over {(last - first).days + 1} days ({first} to {last})"),
            parameters=asdict(p),
            details={"extent": where, "first_day": first.isoformat(),
                     "last_day": last.isoformat(), "span_days": (last - first).days + 1,
                     "places": places[:20]}))
    findings.sort(key=lambda f: (f.details["first_day"], f.incidents))
    return findings, left_out
