"""Which stored incidents lie within a distance of a point: PostGIS where the database has
it, a portable query everywhere else, the same answer from both.

Place in the flow: resolution, beside the stored incidents, whose list (resolution/stored.py
listed_in) asks it for the condition on the store's table. The portable query narrows the
rows to a box around the circle in SQL (on the indexed latitude), then keeps those whose
great-circle distance is within it; PostGIS measures on the spheroid (ST_DWithin on
geography), so the two can disagree on a point within metres of the edge, which a test
allows for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy import and_, func, text
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from casebuilder.errors import CasebuilderError
from casebuilder.gazetteer.geo import EARTH_RADIUS_KM, distance_km
from casebuilder.store.schema import StoredIncident

_POSTGIS: dict[str, bool] = {}  # engine URL -> whether PostGIS is installed there


class NearError(CasebuilderError):
    """A point and distance that cannot be read."""


@dataclass(frozen=True)
class Near:
    """Within ``km`` of (``lat``, ``lon``)."""

    lat: float
    lon: float
    km: float

    @classmethod
    def parse(cls, point: str, km: str | float | None) -> Near:
        """"lat, lon" in degrees and a distance in km (10 if not given), as a person types
        them on the command line or in the web's filter."""
        try:
            lat, lon = (float(v) for v in point.replace(";", ",").split(","))
            distance = float(km) if km not in (None, "") else 10.0
        except ValueError as exc:
            raise NearError(f"near: give 'latitude, longitude' in degrees, not {point!r}, "
                            "and km as a number") from exc
        if not (-90 <= lat <= 90 and -180 <= lon <= 180 and 0 < distance <= 2000):
            raise NearError("near: a latitude within ±90, a longitude within ±180 and a "
                            "distance above 0, up to 2,000 km")
        return cls(lat, lon, distance)

    def holds(self, lat: float | None, lon: float | None) -> bool:
        """The portable test of one point (what the SQL box leaves is tested by it)."""
        return lat is not None and lon is not None and distance_km(
            (self.lat, self.lon), (lat, lon)) <= self.km


def has_postgis(session: Session) -> bool:
    bind = session.get_bind()
    key = str(bind.engine.url)
    if key not in _POSTGIS:
        _POSTGIS[key] = bind.dialect.name == "postgresql" and session.execute(text(
            "SELECT 1 FROM pg_extension WHERE extname = 'postgis'")).first() is not None
    return _POSTGIS[key]


def within(session: Session, near: Near) -> tuple[ColumnElement[bool], bool]:
    """The condition on stored incidents for ``near``, and whether it is exact (PostGIS);
    when it is not, each row it passes must still be tested with :meth:`Near.holds`."""
    i = StoredIncident
    if has_postgis(session):
        point = func.ST_SetSRID(func.ST_MakePoint(i.lon, i.lat), 4326)
        centre = func.ST_SetSRID(func.ST_MakePoint(near.lon, near.lat), 4326)
        return func.ST_DWithin(func.geography(point), func.geography(centre),
                               near.km * 1000.0), True
    degrees = math.degrees(near.km / EARTH_RADIUS_KM)
    lat_low, lat_high = near.lat - degrees, near.lat + degrees
    condition = and_(i.lat.is_not(None), i.lat >= lat_low, i.lat <= lat_high)
    widest = max(abs(lat_low), abs(lat_high))
    if widest < 89.0:  # near a pole every longitude is close: no longitude bound then
        spread = degrees / math.cos(math.radians(widest))
        if spread < 180.0:
            west, east = near.lon - spread, near.lon + spread
            if west >= -180.0 and east <= 180.0:
                condition = and_(condition, i.lon >= west, i.lon <= east)
    return condition, False
