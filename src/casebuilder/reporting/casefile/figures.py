"""What the reports ask of the drawing modules: maps (reporting/maps) and charts
(reporting/charts), each an SVG text with no external reference.

The content modules depend on these shapes only, so that a report can be assembled and tested
with any drawer, and the drawings can change without touching what a report says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class MapPoint:
    lat: float
    lon: float
    label: str  # short, drawn beside the marker ("1", "Kramatorsk")
    incident_id: str = ""
    #: how far the true place may be from the point (a settlement's centre: its size), drawn
    #: as a circle where it is large enough to see
    uncertainty_km: float | None = None
    emphasis: bool = False  # the incident the map is about


class MapDrawer(Protocol):
    def locator(self, point: MapPoint) -> str:
        """The country and its regions, the point marked: where in the country this is."""
        ...

    def close_up(self, point: MapPoint, neighbours: Sequence[MapPoint] = (),
                 radius_km: float = 30.0) -> str:
        """The surroundings within ``radius_km``: regional boundaries, settlements of the
        shipped gazetteer as reference, other incidents (``neighbours``) marked."""
        ...

    def series(self, points: Sequence[MapPoint], title: str = "") -> str:
        """Many incidents on one map, framed to fit them all, each labelled."""
        ...


@dataclass(frozen=True)
class FigurePoint:
    """One source's casualty figure at one moment, for the chart of figures over time."""

    moment: str  # ISO date or date-time of the report (when the figure was given)
    low: int
    high: int | None  # None: the figure states one number (or "at least low")
    measure: str  # killed | injured
    source: str  # who gives it ("regional governor", "Reuters")
    footnote: int | None = None  # the report's footnote number for it, printed on the chart


@dataclass(frozen=True)
class Count:
    label: str
    value: int


@dataclass(frozen=True)
class Dated:
    day: str  # ISO date
    label: str
    value: int = 1  # e.g. killed, for a timeline whose marks are sized by toll


class ChartDrawer(Protocol):
    def figures_over_time(self, points: Sequence[FigurePoint]) -> str: ...

    def bars(self, counts: Sequence[Count], title: str = "", unit: str = "incidents") -> str:
        """Vertical bars in the order given (hours of the day, weekdays)."""
        ...

    def timeline(self, events: Sequence[Dated], title: str = "") -> str: ...
