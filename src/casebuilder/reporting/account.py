"""The plain-text account of an incident that KML descriptions and TimeMap events show.

What happened, where and when; the best figures and who gives them (and their range when sources
differ); who the sources say acted, as claimed, with competing claims; weapons, targets, grade;
and each source with its quoted words. Built from the export record of
:func:`casebuilder.reporting.export.incident_properties`; escaping is the format's business.
"""

from __future__ import annotations

from typing import Any


def _figure(properties: dict[str, Any], measure: str) -> str:
    low, high = properties[f"{measure}_min"], properties[f"{measure}_max"]
    if low is None:
        return f"{measure.capitalize()}: no figure reported."
    stated = str(low) if high in (None, low) else f"{low}-{high}"
    qualifier = properties[f"{measure}_qualifier"]
    words = f"{measure.capitalize()}: {stated}"
    if qualifier and qualifier != "exact":
        words += f" ({qualifier})"
    source = properties.get(f"{measure}_best_source")
    if source:
        words += f" according to {source}"
    spread = properties[f"{measure}_range"]
    if spread and spread[0] is not None and spread[0] != spread[1]:
        words += f"; the sources' figures range from {spread[0]} to {spread[1]} (contested)"
    return words + "."


def account(properties: dict[str, Any]) -> str:
    """The account of one incident (its export record): plain text, one statement a line."""
    lines = []
    what = ", ".join(c.replace("_", " ") for c in properties["categories"]) or "incident"
    where = ", ".join(x for x in (properties["place"], properties["admin1"]) if x)
    when = properties["date_start"] or properties["date_end"] or "date unknown"
    if properties["date_end"] and properties["date_start"] != properties["date_end"]:
        when = f"{properties['date_start'] or '...'} to {properties['date_end']}"
    lines.append(f"{what.capitalize()} in {where or 'an unplaced location'}, {when}"
                 + (f" at {properties['time_of_day']}" if properties["time_of_day"] else "")
                 + ".")
    lines.append(_figure(properties, "killed"))
    lines.append(_figure(properties, "injured"))
    claims = properties["perpetrator_claims"]
    for claim in claims:
        kind = "Also named (a competing claim)" if claim["competing"] else "Attributed to"
        lines.append(f"{kind}: {claim['label']} according to {', '.join(claim['claimed_by'])}"
                     " (as claimed by the sources, not a finding).")
    if not claims:
        lines.append("No source names who acted.")
    if properties["weapons"]:
        lines.append("Weapons named: " + ", ".join(properties["weapons"]) + ".")
    if properties["target_types"]:
        lines.append("Targets named: " + ", ".join(properties["target_types"]) + ".")
    lines.append(f"Grade: {properties['grade']} ({properties['independent_sources']} "
                 "independent source(s)).")
    lines.append("Sources:")
    for source in properties["sources"]:
        said = f"{source['attributed_to']}, in " if source["attributed_to"] else ""
        lines.append(f"- {said}{source['document']} ({source['outlet'] or source['title']}, "
                     f"{source['published'] or 'undated'}): \"{source['quote']}\"")
    lines.append(f"casebuilder incident {properties['id']}")
    return "\n".join(lines)
