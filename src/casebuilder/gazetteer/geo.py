"""Distances on the Earth's surface.

Part of the gazetteer, the reference layer below the stages: the resolver ranks candidates by
distance to other places of the same document, and resolution and reporting may use
:func:`distance_km` to tell whether two incidents happened at the same place.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from casebuilder.gazetteer.model import Place

EARTH_RADIUS_KM = 6371.0088  # mean radius (IUGG)

Coordinates = tuple[float, float]


def _coordinates(value: Place | Coordinates) -> Coordinates:
    return value.coordinates if isinstance(value, Place) else value


def distance_km(a: Place | Coordinates, b: Place | Coordinates) -> float:
    """Great-circle (haversine) distance in km between two places or (lat, lon) pairs.

    Accurate to about 0.5% (the Earth is taken as a sphere), ample for telling towns apart.
    """
    lat1, lon1 = _coordinates(a)
    lat2, lon2 = _coordinates(b)
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = phi2 - phi1
    dlambda = math.radians(lon2 - lon1)
    h = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(min(1.0, h)))


def nearest_distance_km(point: Place | Coordinates, others: Iterable[Coordinates]) -> float:
    """Distance from ``point`` to the closest of ``others`` (infinity when there are none)."""
    return min((distance_km(point, other) for other in others), default=math.inf)
