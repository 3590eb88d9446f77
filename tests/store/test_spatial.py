"""'Within km of a point' on stored incidents: the portable query on SQLite (and on a
PostgreSQL without PostGIS) and PostGIS where it is installed give what a great-circle
distance gives, on random points, near the poles and across the date line."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from sqlalchemy import insert, text

from casebuilder.gazetteer.geo import distance_km
from casebuilder.resolution.spatial import Near, has_postgis
from casebuilder.resolution.stored import ListFilter, listed_in
from casebuilder.store.database import ensure_schema, make_engine, session_factory, sqlite_url
from casebuilder.store.schema import StoredIncident

CENTRES = [Near(48.7386, 37.5844, 15.0),   # Kramatorsk
           Near(50.45, 30.52, 120.0),      # Kyiv, wide
           Near(-16.5, 179.9, 300.0),      # across the date line
           Near(89.5, 10.0, 200.0),        # near the pole
           Near(0.0, 0.0, 0.5)]            # a small circle


def _points(count: int) -> list[tuple[float, float]]:
    rng = random.Random(7)
    points = [(rng.uniform(44, 53), rng.uniform(22, 41)) for _ in range(count)]
    for c in CENTRES:  # points near each edge too
        for _ in range(60):
            lat = c.lat + rng.uniform(-3, 3) * c.km / 111
            lon = c.lon + rng.uniform(-3, 3) * c.km / 111
            points.append((max(-90.0, min(90.0, lat)), (lon + 540) % 360 - 180))
    return points


@pytest.fixture(params=["sqlite", "postgresql"])
def sessions(request, tmp_path) -> Iterator[object]:  # type: ignore[no-untyped-def]
    url = (sqlite_url(tmp_path / "s.db") if request.param == "sqlite"
           else request.getfixturevalue("postgres_url"))
    engine = make_engine(url)
    ensure_schema(engine)
    made = session_factory(engine)
    with made.begin() as session:
        session.execute(insert(StoredIncident), [{
            "id": f"i{n}", "part": "p", "first_report": f"{n:06d}", "date_from": None,
            "date_to": None, "place": "", "categories": " ", "grade": "weak", "lat": lat,
            "lon": lon, "reasons": [], "decisions": [], "overrides": {},
            "record": {"id": f"i{n}", "lat": lat, "lon": lon},
            "line": {"id": f"i{n}", "lat": lat, "lon": lon, "date_start": None}}
            for n, (lat, lon) in enumerate(_points(400))])
        session.execute(insert(StoredIncident), [{
            "id": "unplaced", "part": "p", "first_report": "999999", "date_from": None,
            "date_to": None, "place": "", "categories": " ", "grade": "weak", "lat": None,
            "lon": None, "reasons": [], "decisions": [], "overrides": {},
            "record": {"id": "unplaced"}, "line": {"id": "unplaced", "date_start": None}}])
    yield made
    engine.dispose()


@pytest.mark.parametrize("near", CENTRES, ids=lambda c: f"{c.lat},{c.lon},{c.km}")
def test_within_gives_what_the_great_circle_gives(sessions, near):  # type: ignore[no-untyped-def]
    with sessions() as session:  # type: ignore[operator]
        lines, _ = listed_in(session, ListFilter(near=near))
        exact_engine = has_postgis(session)
        every, _ = listed_in(session, ListFilter())
    found = {ln["id"] for ln in lines}
    distances = {ln["id"]: distance_km((near.lat, near.lon), (ln["lat"], ln["lon"]))
                 for ln in every if ln.get("lat") is not None}
    expected = {i for i, d in distances.items() if d <= near.km}
    assert "unplaced" not in found
    if not exact_engine:
        assert found == expected
    else:  # the spheroid and the sphere differ by up to half a percent
        for i in found ^ expected:
            assert abs(distances[i] - near.km) <= near.km * 0.005 + 0.01, i
    assert expected, "each circle should hold some of the points"


def test_postgis_is_used_where_the_server_has_it(postgres_url):  # type: ignore[no-untyped-def]
    engine = make_engine(postgres_url)
    ensure_schema(engine)
    with session_factory(engine)() as session:
        available = session.execute(text(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'postgis'")).first()
        assert has_postgis(session) is bool(available)
    engine.dispose()
