"""The KML export: a KML 2.2 document of the case's incidents for Google Earth and GIS tools.

One Placemark per placed incident, in the folder "Incidents": its name, a plain-text
description (what happened, the figures and who gives them, who the sources say acted, the
sources), its point (longitude, latitude), its time (a TimeStamp at the precision the date is
known to: a day, a month or a year; a TimeSpan for a week or a span of days) and ExtendedData
(incident id, grade, categories and the headline values). An incident no source places is a
Placemark without geometry in the folder "Unplaced incidents", named in the Document's
description. The XML is built with ElementTree, so every text is escaped as XML requires.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from casebuilder.model.partial_date import PartialDate
from casebuilder.reporting.account import account
from casebuilder.resolution.profiles import SourceProfiles, load_profiles
from casebuilder.resolution.summary import Incident

KML_NAMESPACE = "http://www.opengis.net/kml/2.2"


def _text(parent: ET.Element, tag: str, text: str) -> ET.Element:
    element = ET.SubElement(parent, tag)
    element.text = text
    return element


def _time(parent: ET.Element, properties: dict[str, Any]) -> None:
    """A TimeStamp at the date's precision (KML's ``when`` takes a year, a year and month or a
    day), a TimeSpan for a week or a range; nothing when the incident has no date."""
    start, end = properties["date_start"], properties["date_end"]
    precision = properties["date_precision"]
    if end is None:
        return
    if start is None:  # an occupation whose start no text states: only its end is known
        span = ET.SubElement(parent, "TimeSpan")
        _text(span, "end", end)
        return
    if precision in ("day", "month", "year"):
        stamp = ET.SubElement(parent, "TimeStamp")
        _text(stamp, "when", PartialDate.parse_iso(
            start if precision == "day" else start[:7] if precision == "month"
            else start[:4]).iso())
        return
    span = ET.SubElement(parent, "TimeSpan")
    _text(span, "begin", start)
    _text(span, "end", end)


def _extended(parent: ET.Element, properties: dict[str, Any]) -> None:
    data = ET.SubElement(parent, "ExtendedData")

    def field(name: str, value: Any) -> None:
        item = ET.SubElement(data, "Data", name=name)
        _text(item, "value", "" if value is None else str(value))

    field("incident_id", properties["id"])
    field("grade", properties["grade"])
    field("categories", ";".join(properties["categories"]))
    field("place", properties["place"])
    field("admin1", properties["admin1"])
    field("country", properties["country"])
    field("place_precision", properties["precision"])
    field("date_start", properties["date_start"])
    field("date_end", properties["date_end"])
    field("date_precision", properties["date_precision"])
    field("time_of_day", properties["time_of_day"])
    field("killed_min", properties["killed_min"])
    field("killed_max", properties["killed_max"])
    field("injured_min", properties["injured_min"])
    field("injured_max", properties["injured_max"])
    field("perpetrator_claimed", ";".join(properties["perpetrator_claimed"]))
    field("documents", ";".join(properties["documents"]))


def placemark(parent: ET.Element, properties: dict[str, Any], lat: Any, lon: Any) -> None:
    mark = ET.SubElement(parent, "Placemark", id=properties["id"])
    when = properties["date_start"] or properties["date_end"] or ""
    what = ", ".join(c.replace("_", " ") for c in properties["categories"]) or "incident"
    _text(mark, "name", f"{properties['place'] or 'unplaced'}: {what}"
                        + (f" ({when})" if when else ""))
    _text(mark, "description", account(properties))
    _time(mark, properties)
    _extended(mark, properties)
    if lat is not None and lon is not None:
        point = ET.SubElement(mark, "Point")
        _text(point, "coordinates", f"{float(lon):.6f},{float(lat):.6f}")


def render_kml(incidents: Sequence[Incident], *, profiles: SourceProfiles | None = None
               ) -> bytes:
    from casebuilder.resolution import summary
    from casebuilder.resolution.listing import incident_properties

    profiles = profiles or load_profiles()
    root = ET.Element("kml", xmlns=KML_NAMESPACE)
    document = ET.SubElement(root, "Document")
    _text(document, "name", "casebuilder incidents")
    placed_folder = ET.Element("Folder")
    _text(placed_folder, "name", "Incidents")
    unplaced_folder = ET.Element("Folder")
    _text(unplaced_folder, "name", "Unplaced incidents")
    unplaced: list[str] = []
    for incident in incidents:
        properties = incident_properties(incident, profiles)
        _, place = summary.best_place(incident)
        lat = (place or {}).get("lat")
        lon = (place or {}).get("lon")
        if lat is None or lon is None:
            unplaced.append(f"{properties['id']} ({properties['place'] or 'no place named'})")
            placemark(unplaced_folder, properties, None, None)
        else:
            placemark(placed_folder, properties, lat, lon)
    summary_text = f"{len(incidents)} incidents, {len(incidents) - len(unplaced)} placed."
    if unplaced:
        summary_text += (" Not placed (in the folder 'Unplaced incidents', without a point): "
                         + "; ".join(unplaced) + ".")
    _text(document, "description", summary_text)
    document.append(placed_folder)
    if unplaced:
        document.append(unplaced_folder)
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode", xml_declaration=False)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n").encode("utf-8")
