"""Repeated strikes on one site, and double taps (a second strike there within hours).

Sites are found among incidents placed to within ``max_uncertainty_km``: incidents within
``site_km`` of one another are linked, and each linked group is cut by complete linkage at
``site_km`` (every incident of a site within that distance of every other, so a dense city does
not chain into one "site"). A site struck ``min_strikes`` times or more on ``min_days`` days or
more is a repeated site. Within a site, a strike following another within
``double_tap_hours`` (both with a time of day) is a double tap; two on one day without a time
for both are reported apart, as ``same_day_same_site`` (a possible double tap: the hours are
not known), when ``same_day_without_time`` is set. Whether the
second strike hit rescuers or medics is read from its target types (``rescuer_targets``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import asdict

import numpy as np

from casebuilder.analysis.patterns.findings import Finding, extent, pairs_within
from casebuilder.analysis.patterns.parameters import SiteParameters
from casebuilder.analysis.patterns.records import IncidentRecord
from casebuilder.gazetteer.geo import EARTH_RADIUS_KM, distance_km


def _components(n: int, i: np.ndarray, j: np.ndarray) -> list[list[int]]:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(i)), (i, j)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    groups: dict[int, list[int]] = {}
    for index, label in enumerate(labels):
        groups.setdefault(int(label), []).append(index)
    return [g for g in groups.values() if len(g) > 1]


def _complete_linkage(group: list[int], lat: np.ndarray, lon: np.ndarray, km: float
                      ) -> list[list[int]]:
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import pdist

    if len(group) == 2:
        return [group]
    phi, lam = np.radians(lat[group]), np.radians(lon[group])
    unit = np.column_stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)])
    chord = pdist(unit)  # straight-line distance on the unit sphere, then along its surface
    condensed = 2 * EARTH_RADIUS_KM * np.arcsin(np.minimum(1.0, chord / 2))
    labels = fcluster(linkage(condensed, method="complete"), t=km, criterion="distance")
    out: dict[int, list[int]] = {}
    for index, label in zip(group, labels, strict=True):
        out.setdefault(int(label), []).append(index)
    return [sorted(g) for g in out.values() if len(g) > 1]


def _moment(r: IncidentRecord) -> tuple[int, int]:
    return (r.day.toordinal() if r.day else 0, r.minutes if r.minutes is not None else -1)


def find_site_findings(records: Sequence[IncidentRecord], p: SiteParameters
                       ) -> tuple[list[Finding], list[Finding], dict[str, int]]:
    """Repeated-site findings and double-tap findings."""
    chosen = [r for r in records if r.placed and (r.uncertainty_km or 0.0) <=
              p.max_uncertainty_km]
    left_out = {"sites: no point or placed more coarsely than a site": len(records)
                - len(chosen)}
    if len(chosen) < 2:
        return [], [], left_out
    lat = np.array([r.lat for r in chosen], dtype=float)
    lon = np.array([r.lon for r in chosen], dtype=float)
    i, j, _ = pairs_within(lat, lon, p.site_km)
    sites: list[list[IncidentRecord]] = []
    for component in _components(len(chosen), i, j):
        for group in _complete_linkage(component, lat, lon, p.site_km):
            sites.append(sorted((chosen[k] for k in group), key=lambda r: (_moment(r), r.id)))
    params = asdict(p)
    repeated: list[Finding] = []
    taps: list[Finding] = []
    rescuers = set(p.rescuer_targets)
    for site in sites:
        where = extent([r.lat for r in site if r.lat is not None],
                       [r.lon for r in site if r.lon is not None])
        days = sorted({r.day for r in site if r.day})
        if len(site) >= p.min_strikes and len(days) >= p.min_days:
            repeated.append(Finding(
                kind="repeated_site",
                incidents=tuple(sorted(r.id for r in site)),
                summary=(f"{len(site)} strikes within {p.site_km:g} km of one another on "
                         f"{len(days)} days" + (f" ({days[0]} to {days[-1]})" if days else "")),
                parameters=params,
                details={"extent": where, "days": [d.isoformat() for d in days],
                         "places": sorted({r.place for r in site if r.place}),
                         "order": [r.id for r in site]}))
        for first, second in itertools.pairwise(site):
            if first.day is None or second.day is None:
                continue
            gap_days = (second.day - first.day).days
            timed = first.minutes is not None and second.minutes is not None
            if timed:
                hours = gap_days * 24 + ((second.minutes or 0) - (first.minutes or 0)) / 60
                if not 0 <= hours <= p.double_tap_hours:
                    continue
            elif gap_days != 0 or not p.same_day_without_time:
                continue
            hit = sorted(rescuers & set(second.targets))
            quotes = {t: q for t, q in second.target_quotes if t in hit}
            when = (f"{hours:g} hours after" if timed else "on the same day as (hours not "
                    "stated)")
            taps.append(Finding(
                kind="double_tap" if timed else "same_day_same_site",
                incidents=(first.id, second.id),
                summary=(f"a second strike at the same site {when} the first"
                         + ("; the second hit " + ", ".join(hit) if hit else "")),
                parameters=params,
                details={"first": first.id, "second": second.id,
                         "day": first.day.isoformat(), "timing_known": timed,
                         "hours_between": round(hours, 3) if timed else None,
                         "distance_km": round(distance_km(
                             (first.lat or 0.0, first.lon or 0.0),
                             (second.lat or 0.0, second.lon or 0.0)), 3),
                         "rescuers_hit": bool(hit), "rescuer_targets": hit,
                         "rescuer_quotes": quotes, "place": second.place or first.place}))
    repeated.sort(key=lambda f: f.incidents)
    taps.sort(key=lambda f: (f.details["day"], f.incidents))
    return repeated, taps, left_out
