"""The stored incidents as someone not cleared for restricted items sees them.

Place in the flow: above the stored incidents (resolution/stored.py), below the front ends.
An incident that rests partly on a restricted item (preservation/restriction.py: a witness
statement, say) is shown as the other documents alone make it: its place, dates, figures,
sources, grade and counts are worked out again from its other mentions, so that no value, quote,
document name or count comes from what is withheld. An incident that rests on restricted items
alone is not there at all, in the list, the count of incidents or its own page. Incidents
untouched by a restriction are read as stored; only the few a restriction touches are worked
out again, so a list of thousands costs one more query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from casebuilder.errors import NotFound
from casebuilder.preservation.case import Case
from casebuilder.resolution.listing import incident_properties, listing_line
from casebuilder.resolution.stored import (
    ListFilter,
    line_within,
    listed,
    stored_incident,
    stored_incidents,
    stored_record,
)
from casebuilder.resolution.summary import Incident
from casebuilder.store.schema import IncidentMember, IncidentMention


def touched_incidents(session: Session, withheld: frozenset[int]) -> set[str]:
    """The ids of the stored incidents with a mention from a withheld item."""
    if not withheld:
        return set()
    ids = sorted(withheld)
    touched: set[str] = set()
    for start in range(0, len(ids), 500):
        keys = select(IncidentMention.key).where(IncidentMention.item_id.in_(ids[start:
                                                                               start + 500]))
        touched.update(session.scalars(select(IncidentMember.incident_id)
                                       .where(IncidentMember.key.in_(keys))))
    return touched


def without(incident: Incident, withheld: frozenset[int]) -> Incident | None:
    """The incident as its mentions from items not withheld make it (the incident itself when
    none is withheld); None when none is left."""
    kept = [m for m in incident.mentions if m.document.item_id not in withheld]
    if len(kept) == len(incident.mentions):
        return incident
    if not kept:
        return None
    gone = {m.document.name for m in incident.mentions if m.document.item_id in withheld}
    # A join's reason names the documents it joined: the withheld ones' reasons go with them.
    reasons = [r for r in incident.reasons if not any(name in r for name in gone)]
    return Incident(incident.id, kept, reasons, list(incident.decisions),
                    dict(incident.overrides))


def seen_incidents(case: Case, withheld: frozenset[int]) -> list[Incident]:
    """Every incident, with its claims, as the reader may see it (for the pattern analysis);
    those resting on withheld items alone are left out."""
    everything = stored_incidents(case)
    if not withheld:
        return everything
    return [seen for seen in (without(i, withheld) for i in everything) if seen is not None]


def seen_record(case: Case, incident_id: str, withheld: frozenset[int]) -> dict[str, Any]:
    """One incident's record as the reader may see it; NotFound, as for an incident the case
    does not hold, when it rests on withheld items alone. Nothing withheld: the stored record,
    without reading the incident's claims."""
    if not withheld:
        return stored_record(case, incident_id)
    return seen_incident_and_record(case, incident_id, withheld)[1]


def seen_incident_and_record(case: Case, incident_id: str, withheld: frozenset[int]
                             ) -> tuple[Incident, dict[str, Any]]:
    """One incident, with its claims, and its record, as the reader may see them, from one
    read of the incident: the stored record where nothing of it is withheld, else the record
    its other mentions make; NotFound as :func:`seen_record`."""
    incident = stored_incident(case, incident_id)
    seen = without(incident, withheld) if withheld else incident
    if seen is None:
        raise NotFound(f"no incident {incident_id} in this case")
    if seen is incident:
        return seen, stored_record(case, incident.id)
    return seen, incident_properties(seen)


def seen_lines(case: Case, chosen: ListFilter, withheld: frozenset[int]
               ) -> tuple[list[dict[str, Any]], int]:
    """:func:`resolution.stored.listed` for a reader: the lines that pass the filter, and how
    many incidents the case holds for them."""
    lines, total = listed(case, chosen)
    if not withheld:
        return lines, total
    with case.session() as session:
        touched = touched_incidents(session, withheld)
    if not touched:
        return lines, total
    seen: dict[str, dict[str, Any] | None] = {}
    for incident_id in sorted(touched):
        incident = without(stored_incident(case, incident_id), withheld)
        seen[incident_id] = listing_line(incident_properties(incident)) if incident else None
    kept = [ln for ln in lines if ln["id"] not in touched]
    # The stored line passed the filter on values that may have come from a withheld item:
    # the line worked out again is tested afresh, whatever the stored one did.
    kept.extend(line for line in seen.values() if line is not None and passes(line, chosen))
    hidden = sum(1 for line in seen.values() if line is None)
    return _in_list_order(kept, lines), total - hidden


def passes(line: dict[str, Any], chosen: ListFilter) -> bool:
    """The list filter (resolution.stored.listed_in) on one line, in Python."""
    if chosen.place and chosen.place.lower() not in str(line.get("place") or "").lower():
        return False
    if chosen.category and chosen.category not in (line.get("categories") or []):
        return False
    if chosen.grade and line.get("grade") != chosen.grade:
        return False
    if chosen.near and not chosen.near.holds(line.get("lat"), line.get("lon")):
        return False
    return line_within(line, chosen.since, chosen.until)


def _in_list_order(lines: list[dict[str, Any]], stored: Sequence[dict[str, Any]]
                   ) -> list[dict[str, Any]]:
    # The list keeps the order of first report; an incident worked out again keeps its place.
    order = {ln["id"]: n for n, ln in enumerate(stored)}
    return sorted(lines, key=lambda ln: order.get(ln["id"], len(order)))
