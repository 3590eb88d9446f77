"""Offline base maps for the reports: :class:`SvgMaps` draws the locator, close-up and series
maps of :class:`~casebuilder.reporting.casefile.figures.MapDrawer` as self-contained SVG from
the shipped Natural Earth boundaries (``data/basemap.json``, see ``data/SOURCES.md``) and the
gazetteer's settlements. See docs/maps.md."""

from __future__ import annotations

from casebuilder.reporting.maps.basemap import (
    BASEMAP_FILE,
    Area,
    BaseMap,
    BaseMapError,
    load_basemap,
)
from casebuilder.reporting.maps.svg import SvgMaps, View, escape

__all__ = ["BASEMAP_FILE", "Area", "BaseMap", "BaseMapError", "SvgMaps", "View", "escape",
           "load_basemap"]
