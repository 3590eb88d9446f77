"""The shipped base map: country outlines and Ukraine's regions (Natural Earth), read once per
process from ``data/basemap.json`` and checked on load.

The data is made by ``scripts/build_basemap.py`` from registry packages (see
``data/SOURCES.md``); nothing is downloaded at run time. A ring is a closed list of
(lon, lat) pairs; a polygon is its outer ring followed by its holes.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casebuilder.errors import CasebuilderError

BASEMAP_FILE = Path(__file__).parent / "data" / "basemap.json"
BASEMAP_FORMAT = "casebuilder-basemap/1"

Ring = tuple[tuple[float, float], ...]
Polygon = tuple[Ring, ...]


class BaseMapError(CasebuilderError):
    """The shipped base map file is missing or malformed."""


@dataclass(frozen=True)
class Area:
    """A country or a region: its name, label point and polygons, with the bounding box of
    all of them (west, south, east, north) for quick culling."""

    name: str
    label: tuple[float, float]  # lon, lat
    polygons: tuple[Polygon, ...]
    bounds: tuple[float, float, float, float]
    code: str = ""

    def contains(self, lat: float, lon: float) -> bool:
        """Whether the point lies in one of the polygons (inside the outer ring and in none of
        its holes)."""
        west, south, east, north = self.bounds
        if not (west <= lon <= east and south <= lat <= north):
            return False
        for polygon in self.polygons:
            if _inside(lon, lat, polygon[0]) and not any(_inside(lon, lat, h) for h in polygon[1:]):
                return True
        return False


@dataclass(frozen=True)
class BaseMap:
    countries: tuple[Area, ...]
    regions: tuple[Area, ...]
    frame: tuple[float, float, float, float]
    attribution: str

    def region_at(self, lat: float, lon: float) -> Area | None:
        return next((r for r in self.regions if r.contains(lat, lon)), None)

    def country_at(self, lat: float, lon: float) -> Area | None:
        return next((c for c in self.countries if c.contains(lat, lon)), None)


def _inside(lon: float, lat: float, ring: Ring) -> bool:
    crossing = False
    for (x1, y1), (x2, y2) in itertools.pairwise(ring):
        if (y1 > lat) != (y2 > lat) and lon < x1 + (lat - y1) * (x2 - x1) / (y2 - y1):
            crossing = not crossing
    return crossing


@functools.cache
def load_basemap(path: Path = BASEMAP_FILE) -> BaseMap:
    """Read and check the base map; cached per process and path.

    Raises :class:`BaseMapError` naming the file when it is missing, not JSON or not of the
    expected shape."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise BaseMapError(f"{path}: cannot read the base map ({error.strerror})") from error
    except (ValueError, UnicodeDecodeError) as error:
        raise BaseMapError(f"{path}: the base map is not valid JSON ({error})") from error
    if not isinstance(data, dict) or data.get("format") != BASEMAP_FORMAT:
        raise BaseMapError(f"{path}: not a base map of format {BASEMAP_FORMAT}")
    frame = data.get("frame")
    if not (isinstance(frame, list) and len(frame) == 4
            and all(isinstance(v, int | float) for v in frame)):
        raise BaseMapError(f"{path}: 'frame' must be four numbers (west, south, east, north)")
    return BaseMap(
        countries=_areas(path, data, "countries"),
        regions=_areas(path, data, "regions"),
        frame=(float(frame[0]), float(frame[1]), float(frame[2]), float(frame[3])),
        attribution=str(data.get("attribution", "")),
    )


def _areas(path: Path, data: dict[str, Any], key: str) -> tuple[Area, ...]:
    entries = data.get(key)
    if not isinstance(entries, list) or not entries:
        raise BaseMapError(f"{path}: '{key}' must be a non-empty list")
    areas = []
    for number, entry in enumerate(entries):
        where = f"{path}: {key}[{number}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise BaseMapError(f"{where}: an entry needs a 'name'")
        where = f"{path}: {key} '{entry['name']}'"
        label = entry.get("label")
        if not (isinstance(label, list) and len(label) == 2):
            raise BaseMapError(f"{where}: 'label' must be [lon, lat]")
        polygons = entry.get("polygons")
        if not isinstance(polygons, list) or not polygons:
            raise BaseMapError(f"{where}: 'polygons' must be a non-empty list")
        shaped = tuple(_polygon(where, p) for p in polygons)
        lons = [x for polygon in shaped for x, _ in polygon[0]]
        lats = [y for polygon in shaped for _, y in polygon[0]]
        areas.append(Area(
            name=entry["name"],
            label=(_number(where, label[0], 180), _number(where, label[1], 90)),
            polygons=shaped,
            bounds=(min(lons), min(lats), max(lons), max(lats)),
            code=str(entry.get("code", "")),
        ))
    return tuple(areas)


def _polygon(where: str, polygon: Any) -> Polygon:
    if not isinstance(polygon, list) or not polygon:
        raise BaseMapError(f"{where}: a polygon must be a non-empty list of rings")
    rings = []
    for ring in polygon:
        if not isinstance(ring, list) or len(ring) < 4:
            raise BaseMapError(f"{where}: a ring must list at least four [lon, lat] points")
        points = []
        for point in ring:
            if not (isinstance(point, list) and len(point) == 2):
                raise BaseMapError(f"{where}: a point must be [lon, lat], not {point!r}")
            points.append((_number(where, point[0], 180), _number(where, point[1], 90)))
        rings.append(tuple(points))
    return tuple(rings)


def _number(where: str, value: Any, limit: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
            or abs(value) > limit:
        raise BaseMapError(f"{where}: {value!r} is not a coordinate")
    return float(value)


def basemap_geojson(basemap: BaseMap) -> dict[str, Any]:
    """The base map as one GeoJSON FeatureCollection (countries, then regions, each feature's
    ``layer`` saying which), with its ``frame`` and ``attribution``: what the web interface's
    map draws, so that screen and case file show the same outlines."""
    features = [
        {"type": "Feature",
         "properties": {"layer": layer, "name": area.name, "code": area.code},
         "geometry": {"type": "MultiPolygon",
                      "coordinates": [[[list(point) for point in ring] for ring in polygon]
                                      for polygon in area.polygons]}}
        for layer, areas in (("country", basemap.countries), ("region", basemap.regions))
        for area in areas]
    return {"type": "FeatureCollection", "features": features, "frame": list(basemap.frame),
            "attribution": basemap.attribution}
