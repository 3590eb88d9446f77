"""SVG maps drawn from the shipped base map: the locator (the country, the point marked), the
close-up (the surroundings, with the gazetteer's settlements for reference) and the series map
(many incidents framed together).

Every map is one SVG text with no external reference (no links, no web fonts: generic font
families, text as ``<text>``), its size in a viewBox. The output is a pure function of the
input: coordinates are printed with one decimal, elements in a fixed order, and no identifier
depends on memory addresses or chance. Projection: equirectangular, longitudes scaled by the
cosine of the frame's middle latitude, north up: faithful enough for frames of a country.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from casebuilder.gazetteer import Gazetteer
from casebuilder.reporting.casefile.figures import MapPoint
from casebuilder.reporting.maps.basemap import Area, BaseMap, Ring, load_basemap

KM_PER_DEGREE = 111.32
#: the locator's frame: Ukraine with a margin of its neighbours (west, south, east, north)
LOCATOR_FRAME = (21.2, 43.7, 41.2, 53.6)
HOME_COUNTRY_NAME = "Ukraine"
PLACES_ATTRIBUTION = "places: GeoNames (CC BY 4.0) via the casebuilder gazetteer"
SCALE_STEPS_KM = (0.5, 1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500)

SEA = "#d6e6f0"
LAND = "#ecebe6"
HOME_LAND = "#fbfaf6"
BORDER = "#77736a"
REGION_LINE = "#a7a398"
INK = "#2b2b2b"
MUTED = "#6d6a63"
EMPHASIS = "#b3261e"
MARKER = "#1f4e79"


def _num(value: float) -> str:
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def escape(text: str) -> str:
    """Text safe inside an SVG element or a double-quoted attribute; characters XML does not
    allow are dropped."""
    kept = "".join(c for c in text if c in "\t\n" or (ord(c) >= 0x20 and c not in "\ufffe\uffff"))
    return (kept.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


@dataclass(frozen=True)
class View:
    """A frame (degrees) drawn on a canvas of ``width`` x ``height`` px."""

    west: float
    south: float
    east: float
    north: float
    width: int
    height: int

    @classmethod
    def fit(cls, west: float, south: float, east: float, north: float,
            width: int, height: int) -> View:
        """The smallest frame holding the box with the canvas' proportions."""
        cos_mid = math.cos(math.radians((south + north) / 2))
        span_x = max((east - west) * cos_mid, 1e-6)
        span_y = max(north - south, 1e-6)
        if span_x / span_y < width / height:
            grow = (span_y * width / height / cos_mid - (east - west)) / 2
            west, east = west - grow, east + grow
        else:
            grow = (span_x * height / width - (north - south)) / 2
            south, north = south - grow, north + grow
        return cls(west, south, east, north, width, height)

    @property
    def cos_mid(self) -> float:
        return math.cos(math.radians((self.south + self.north) / 2))

    @property
    def scale(self) -> float:
        """px per degree of latitude"""
        return self.height / (self.north - self.south)

    @property
    def px_per_km(self) -> float:
        return self.scale / KM_PER_DEGREE

    def project(self, lon: float, lat: float) -> tuple[float, float]:
        return ((lon - self.west) * self.cos_mid * self.scale, (self.north - lat) * self.scale)

    def overlaps(self, bounds: tuple[float, float, float, float]) -> bool:
        west, south, east, north = bounds
        return (west <= self.east and east >= self.west
                and south <= self.north and north >= self.south)


def frame_around(lat: float, lon: float, radius_km: float) -> tuple[float, float, float, float]:
    d_lat = radius_km / KM_PER_DEGREE
    d_lon = radius_km / (KM_PER_DEGREE * max(math.cos(math.radians(lat)), 0.01))
    return (lon - d_lon, lat - d_lat, lon + d_lon, lat + d_lat)


def _clip(points: list[tuple[float, float]], low: float, high_x: float,
          high_y: float) -> list[tuple[float, float]]:
    """Sutherland-Hodgman against the canvas rectangle (with a margin)."""
    out = points
    for axis, bound, keep_above in ((0, low, True), (0, high_x, False), (1, low, True),
                                    (1, high_y, False)):
        if not out:
            return out
        points, out = out, []
        previous = points[-1]
        for point in points:
            p_in = point[axis] >= bound if keep_above else point[axis] <= bound
            q_in = previous[axis] >= bound if keep_above else previous[axis] <= bound
            if p_in != q_in:
                t = (bound - previous[axis]) / (point[axis] - previous[axis])
                out.append((previous[0] + t * (point[0] - previous[0]),
                            previous[1] + t * (point[1] - previous[1])))
            if p_in:
                out.append(point)
            previous = point
    return out


def _ring_path(view: View, ring: Ring) -> str:
    points: list[tuple[float, float]] = []
    for lon, lat in ring:
        x, y = view.project(lon, lat)
        if not points or abs(x - points[-1][0]) + abs(y - points[-1][1]) >= 0.8:
            points.append((x, y))
    margin = 4.0
    points = _clip(points, -margin, view.width + margin, view.height + margin)
    if len(points) < 3:
        return ""
    texts = [f"{_num(x)},{_num(y)}" for x, y in points]
    deduplicated = [t for i, t in enumerate(texts) if i == 0 or t != texts[i - 1]]
    if len(deduplicated) < 3:
        return ""
    return "M" + "L".join(deduplicated) + "Z"


def _area_path(view: View, area: Area) -> str:
    if not view.overlaps(area.bounds):
        return ""
    return "".join(_ring_path(view, ring) for polygon in area.polygons for ring in polygon)


def _label_spot(view: View, area: Area) -> tuple[float, float] | None:
    """Where to write an area's name: its label point if well inside the canvas, else the
    centroid of the largest visible piece of it, if that is."""
    def well_inside(x: float, y: float) -> bool:
        return 40 < x < view.width - 40 and 24 < y < view.height - 30

    x, y = view.project(*area.label)
    if well_inside(x, y):
        return (x, y)
    if not view.overlaps(area.bounds):
        return None
    best: tuple[float, float, float] | None = None
    for polygon in area.polygons:
        points = _clip([view.project(lon, lat) for lon, lat in polygon[0]], 0, view.width,
                       view.height)
        if len(points) < 3:
            continue
        twice_area = cx = cy = 0.0
        for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True):
            cross = x0 * y1 - x1 * y0
            twice_area += cross
            cx += (x0 + x1) * cross
            cy += (y0 + y1) * cross
        if twice_area != 0 and (best is None or abs(twice_area) > best[0]):
            best = (abs(twice_area), cx / (3 * twice_area), cy / (3 * twice_area))
    if best is None or best[0] < 2 * 80 * 40 or not well_inside(best[1], best[2]):
        return None
    return (best[1], best[2])


@dataclass(frozen=True)
class _Settlement:
    name: str
    lat: float
    lon: float
    population: int


class _Labels:
    """Greedy placement of labels: each label takes the first of a few positions around its
    anchor that overlaps no placed label or marker, or is left out."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.cell = 48.0
        self.grid: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def _cells(self, box: tuple[float, float, float, float]) -> Iterable[tuple[int, int]]:
        x0, y0, x1, y1 = box
        for i in range(int(x0 // self.cell), int(x1 // self.cell) + 1):
            for j in range(int(y0 // self.cell), int(y1 // self.cell) + 1):
                yield (i, j)

    def free(self, box: tuple[float, float, float, float]) -> bool:
        x0, y0, x1, y1 = box
        if x0 < 1 or y0 < 1 or x1 > self.view.width - 1 or y1 > self.view.height - 14:
            return False
        for cell in self._cells(box):
            for a0, b0, a1, b1 in self.grid.get(cell, ()):
                if x0 < a1 and a0 < x1 and y0 < b1 and b0 < y1:
                    return False
        return True

    def take(self, box: tuple[float, float, float, float]) -> None:
        for cell in self._cells(box):
            self.grid.setdefault(cell, []).append(box)

    def place(self, x: float, y: float, text: str, size: float,
              gap: float) -> tuple[float, float, str] | None:
        """(x, y, text-anchor) for a label beside the point (x, y), or None."""
        width = 0.56 * size * len(text) + 2
        height = size * 1.1
        half_w, half_h, base = width / 2, height / 2, y + size * 0.35
        candidates = (
            (x + gap, base, "start", (x + gap, y - half_h, x + gap + width, y + half_h)),
            (x - gap, base, "end", (x - gap - width, y - half_h, x - gap, y + half_h)),
            (x, y - gap - 2, "middle", (x - half_w, y - gap - height, x + half_w, y - gap)),
            (x, y + gap + size, "middle", (x - half_w, y + gap, x + half_w, y + gap + height)),
        )
        for tx, ty, anchor, box in candidates:
            if self.free(box):
                self.take(box)
                return (tx, ty, anchor)
        return None


class SvgMaps:
    """The :class:`~casebuilder.reporting.casefile.figures.MapDrawer` of the reports.

    ``gazetteer`` gives the close-ups their reference settlements (the largest few in the
    frame); without it they show boundaries only. Base data is read once per process."""

    def __init__(self, gazetteer: Gazetteer | None = None, *, width: int = 640, height: int = 420,
                 basemap: BaseMap | None = None, settlements_per_close_up: int = 8) -> None:
        self.width = width
        self.height = height
        self.basemap = basemap or load_basemap()
        self.settlements_per_close_up = settlements_per_close_up
        self._settlements: tuple[_Settlement, ...] = ()
        if gazetteer is not None:
            chosen = [_Settlement(p.name, p.lat, p.lon, p.population or 0)
                      for p in gazetteer.places
                      if p.feature_kind == "settlement" and (p.population or 0) > 0]
            chosen.sort(key=lambda s: (-s.population, s.name, s.lat, s.lon))
            self._settlements = tuple(chosen)
        self._locator_base: str | None = None

    # -- the three maps ---------------------------------------------------------------------

    def locator(self, point: MapPoint) -> str:
        view = View.fit(*LOCATOR_FRAME, self.width, self.height)
        if self._locator_base is None:
            self._locator_base = "".join(self._base(view, country_labels=True, region_labels=True,
                                                    short_region_names=True))
        labels = _Labels(view)
        parts = [self._locator_base]
        parts.extend(self._markers(view, [point], labels, radius=5.5))
        parts.extend(self._furniture(view, north_arrow=False, places=False))
        return self._svg(view, parts, f"Locator map: {point.label}")

    def close_up(self, point: MapPoint, neighbours: Sequence[MapPoint] = (),
                 radius_km: float = 30.0) -> str:
        view = View.fit(*frame_around(point.lat, point.lon, max(radius_km, 0.5)),
                        self.width, self.height)
        labels = _Labels(view)
        parts = list(self._base(view, country_labels=True, region_labels=False))
        markers = [n for n in neighbours if self._within(view, n)]
        markers.append(point)
        # the markers first take their places, then settlements fill the room left
        for m in markers:
            x, y = view.project(m.lon, m.lat)
            labels.take((x - 6, y - 6, x + 6, y + 6))
        places = list(self._reference_places(view, labels, exclude=markers))
        parts.extend(places)
        parts.extend(self._markers(view, markers, labels, radius=4.0))
        region = self.basemap.region_at(point.lat, point.lon)
        if region is not None:
            parts.append(self._text(8, 18, region.name, size=12, colour=MUTED, style="italic"))
        parts.extend(self._furniture(view, north_arrow=True, places=bool(places)))
        return self._svg(view, parts, f"Close-up map: {point.label}")

    def series(self, points: Sequence[MapPoint], title: str = "") -> str:
        if points:
            lats = [p.lat for p in points]
            lons = [p.lon for p in points]
            mid_lat = (min(lats) + max(lats)) / 2
            west, south, east, north = frame_around(mid_lat, (min(lons) + max(lons)) / 2, 15.0)
            pad_lat = (max(lats) - min(lats)) * 0.08
            pad_lon = (max(lons) - min(lons)) * 0.08
            box = (min(min(lons) - pad_lon, west), min(min(lats) - pad_lat, south),
                   max(max(lons) + pad_lon, east), max(max(lats) + pad_lat, north))
        else:
            box = LOCATOR_FRAME
        view = View.fit(*box, self.width, self.height)
        large = (view.north - view.south) > 4
        labels = _Labels(view)
        parts = list(self._base(view, country_labels=True, region_labels=True,
                                short_region_names=large))
        radius = 4.0 if len(points) <= 50 else 3.0 if len(points) <= 500 else 2.2
        if view.north - view.south < 3:  # a region or less: settlements help to read it
            for p in points:
                x, y = view.project(p.lon, p.lat)
                labels.take((x - radius, y - radius, x + radius, y + radius))
            places = list(self._reference_places(view, labels, exclude=points))
            parts.extend(places)
        else:
            places = []
        parts.extend(self._markers(view, points, labels, radius=radius))
        if title:
            parts.append(self._text(8, 18, title, size=13, colour=INK, weight="bold"))
        parts.extend(self._furniture(view, north_arrow=True, places=bool(places)))
        return self._svg(view, parts, title or "Map of incidents")

    # -- layers -----------------------------------------------------------------------------

    def _base(self, view: View, *, country_labels: bool, region_labels: bool,
              short_region_names: bool = False) -> Iterable[str]:
        yield f'<rect width="{view.width}" height="{view.height}" fill="{SEA}"/>'
        for country in self.basemap.countries:
            path = _area_path(view, country)
            if path:
                fill = HOME_LAND if country.name == HOME_COUNTRY_NAME else LAND
                yield (f'<path d="{path}" fill="{fill}" stroke="none" '
                       f'fill-rule="evenodd"/>')
        regions = "".join(_area_path(view, region) for region in self.basemap.regions)
        if regions:
            yield (f'<path d="{regions}" fill="{HOME_LAND}" stroke="{REGION_LINE}" '
                   f'stroke-width="0.7" stroke-dasharray="3 2" stroke-linejoin="round"/>')
        borders = "".join(_area_path(view, c) for c in self.basemap.countries)
        if borders:
            yield (f'<path d="{borders}" fill="none" stroke="{BORDER}" stroke-width="1" '
                   f'stroke-linejoin="round"/>')
        if region_labels:
            for region in self.basemap.regions:
                x, y = view.project(*region.label)
                if 20 < x < view.width - 20 and 20 < y < view.height - 20:
                    if short_region_names and region.name in ("Kyiv City", "Sevastopol"):
                        continue
                    name = region.name.removesuffix(" Oblast") if short_region_names \
                        else region.name
                    yield self._text(x, y, name, size=8.5 if short_region_names else 10,
                                     colour=MUTED, anchor="middle")
        if country_labels:
            for country in self.basemap.countries:
                if country.name == HOME_COUNTRY_NAME:
                    continue
                spot = _label_spot(view, country)
                if spot is not None:
                    x, y = spot
                    yield self._text(x, y, country.name.upper(), size=10, colour=MUTED,
                                     anchor="middle", spacing=1.5)

    def _within(self, view: View, point: MapPoint) -> bool:
        x, y = view.project(point.lon, point.lat)
        return 0 <= x <= view.width and 0 <= y <= view.height

    def _reference_places(self, view: View, labels: _Labels,
                          exclude: Sequence[MapPoint]) -> Iterable[str]:
        shown = 0
        taken = {(m.label.casefold()) for m in exclude}
        for place in self._settlements:
            if shown >= self.settlements_per_close_up:
                break
            if not (view.west <= place.lon <= view.east and view.south <= place.lat <= view.north):
                continue
            if place.name.casefold() in taken:
                continue
            x, y = view.project(place.lon, place.lat)
            size = 11.0 if place.population >= 100_000 else 10.0
            spot = labels.place(x, y, place.name, size, gap=4)
            if spot is None:
                continue
            taken.add(place.name.casefold())
            shown += 1
            yield (f'<rect x="{_num(x - 2.2)}" y="{_num(y - 2.2)}" width="4.4" height="4.4" '
                   f'fill="{INK}"/>')
            yield self._text(spot[0], spot[1], place.name, size=size, colour=INK, anchor=spot[2],
                             halo=True)

    def _markers(self, view: View, points: Sequence[MapPoint], labels: _Labels,
                 radius: float) -> Iterable[str]:
        ordered = sorted(points, key=lambda p: (not p.emphasis))  # stable: given order kept
        circles: list[str] = []
        dots: list[str] = []
        emphasised: list[str] = []
        texts: list[str] = []
        for point in ordered:
            x, y = view.project(point.lon, point.lat)
            if not (-radius <= x <= view.width + radius and -radius <= y <= view.height + radius):
                continue
            if point.uncertainty_km:
                r = point.uncertainty_km * view.px_per_km
                if 3 <= r <= max(view.width, view.height):
                    colour = EMPHASIS if point.emphasis else MARKER
                    circles.append(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(r)}" '
                                   f'fill="{colour}" fill-opacity="0.10" stroke="{colour}" '
                                   f'stroke-width="0.8" stroke-dasharray="4 2"/>')
            if point.emphasis:
                emphasised.append(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(radius * 1.5)}" '
                                  f'fill="{EMPHASIS}" stroke="#ffffff" stroke-width="1.5"/>')
            else:
                dots.append(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(radius)}"/>')
            labels.take((x - radius, y - radius, x + radius, y + radius))
        for point in ordered:
            if not point.label:
                continue
            x, y = view.project(point.lon, point.lat)
            if not (0 <= x <= view.width and 0 <= y <= view.height):
                continue
            size = 11.0 if point.emphasis else 9.5
            gap = radius * (1.5 if point.emphasis else 1.0) + 2
            spot = labels.place(x, y, point.label, size, gap)
            if spot is not None:
                texts.append(self._text(spot[0], spot[1], point.label, size=size,
                                        colour=EMPHASIS if point.emphasis else MARKER,
                                        anchor=spot[2], weight="bold" if point.emphasis else "",
                                        halo=True))
        yield from circles
        if dots:
            yield (f'<g fill="{MARKER}" stroke="#ffffff" stroke-width="0.8">'
                   + "".join(dots) + "</g>")
        yield from emphasised
        yield from texts

    def _furniture(self, view: View, *, north_arrow: bool, places: bool) -> Iterable[str]:
        # scale bar: a round length near a fifth of the width
        target = view.width / 5 / view.px_per_km
        length = max((s for s in SCALE_STEPS_KM if s <= target), default=SCALE_STEPS_KM[0])
        bar = length * view.px_per_km
        x0, y0 = 12.0, view.height - 26.0
        yield (f'<g stroke="{INK}" stroke-width="1.2" fill="none">'
               f'<path d="M{_num(x0)},{_num(y0 - 4)}V{_num(y0)}H{_num(x0 + bar)}V{_num(y0 - 4)}"/>'
               f'</g>')
        length_text = f"{length:g} km"
        yield self._text(x0 + bar / 2, y0 - 6, length_text, size=9, colour=INK, anchor="middle",
                         halo=True)
        if north_arrow:
            nx, ny = view.width - 22.0, 30.0
            yield (f'<path d="M{_num(nx)},{_num(ny - 14)}L{_num(nx + 6)},{_num(ny + 4)}'
                   f'L{_num(nx)},{_num(ny)}L{_num(nx - 6)},{_num(ny + 4)}Z" fill="{INK}"/>')
            yield self._text(nx, ny + 16, "N", size=10, colour=INK, anchor="middle", weight="bold")
        credit = self.basemap.attribution + (f"; {PLACES_ATTRIBUTION}" if places else "")
        yield (f'<rect x="0" y="{view.height - 13}" width="{view.width}" height="13" '
               f'fill="#ffffff" fill-opacity="0.75"/>')
        yield self._text(view.width - 4, view.height - 3.5, credit, size=7.5, colour=MUTED,
                         anchor="end")

    # -- text and the document ----------------------------------------------------------------

    @staticmethod
    def _text(x: float, y: float, text: str, *, size: float, colour: str, anchor: str = "start",
              weight: str = "", style: str = "", halo: bool = False, spacing: float = 0) -> str:
        attributes = [f'x="{_num(x)}"', f'y="{_num(y)}"', f'font-size="{size:g}"',
                      f'fill="{colour}"']
        if anchor != "start":
            attributes.append(f'text-anchor="{anchor}"')
        if weight:
            attributes.append(f'font-weight="{weight}"')
        if style:
            attributes.append(f'font-style="{style}"')
        if spacing:
            attributes.append(f'letter-spacing="{spacing:g}"')
        if halo:
            attributes.append('stroke="#ffffff" stroke-width="2.5" paint-order="stroke" '
                              'stroke-linejoin="round"')
        return f'<text {" ".join(attributes)}>{escape(text)}</text>'

    @staticmethod
    def _svg(view: View, parts: Iterable[str], title: str) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {view.width} {view.height}" '
                f'width="{view.width}" height="{view.height}" font-family="sans-serif">'
                f'<title>{escape(title)}</title>')
        return head + "".join(parts) + "</svg>\n"
