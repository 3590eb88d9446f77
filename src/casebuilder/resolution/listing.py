"""An incident as one record: place, dates, categories, figures, weapon, target, claimed
perpetrators, grade and sources (document, hashes, who said it, how, the quoted words with
their offsets).

It is what ``casebuilder incidents`` lists, what the stored incidents keep for fast listing
(resolution/stored.py) and what every export (reporting/export.py) starts from, so it is
defined once, here, in the resolution stage whose results it sums up.
"""

from __future__ import annotations

from typing import Any

from casebuilder.resolution import assessment, summary
from casebuilder.resolution.profiles import SourceProfiles, load_profiles
from casebuilder.resolution.summary import Incident
from casebuilder.resolution.workflow import review_of


def incident_properties(incident: Incident, profiles: SourceProfiles | None = None
                        ) -> dict[str, Any]:
    profiles = profiles or load_profiles()
    place_name, place = summary.best_place(incident)
    when, basis = summary.dates(incident)
    open_start = summary.open_start(incident, when, basis)
    at, zone = summary.time_of_day(incident, when, basis)
    killed = summary.best_figure(incident, "killed")
    injured = summary.best_figure(incident, "injured")
    weapons = summary.weapons(incident)
    targets = summary.targets(incident)
    perpetrators = summary.perpetrators(incident)
    killed_range = summary.figure_range(incident, "killed")
    injured_range = summary.figure_range(incident, "injured")

    def stated(figure: summary.Figure | None) -> tuple[int | None, int | None]:
        # The numbers the best figure states: "at least 50" states 50 (its qualifier says
        # the rest), "between 1,000 and 1,200" states both ends.
        if figure is None:
            return None, None
        low = figure.low
        high = figure.high if figure.high is not None else figure.low
        return low, high

    grade, reasons, independent = assessment.incident_grade(incident, profiles)
    origins = assessment.independent_origins(incident)
    killed_min, killed_max = stated(killed)
    injured_min, injured_max = stated(injured)
    return {
        "id": incident.id,
        "categories": summary.categories(incident),
        "situation": incident.situation,
        "place": (place or {}).get("name") or place_name,
        "place_as_written": sorted({m.place_name for m in incident.mentions}),
        "admin1": (place or {}).get("admin1") or None,
        "country": (place or {}).get("country") or None,
        "precision": (place or {}).get("precision"),
        "gazetteer_id": (place or {}).get("gazetteer_id"),
        "uncertainty_km": (place or {}).get("uncertainty_km"),
        # the point a map draws it at (the place's, as the gazetteer gives it)
        "lat": _coordinate(place, "lat"),
        "lon": _coordinate(place, "lon"),
        # an occupation period whose start no text states has no start day: only the
        # earliest it can be (date_earliest, the war's first day)
        "date_start": when.start.isoformat() if when and not open_start else None,
        "date_end": when.end.isoformat() if when else None,
        "date_precision": when.precision if when else None,
        "date_basis": basis or None,
        "date_open_start": open_start,
        # the time of day of the event where a source gives it beside its day
        "time_of_day": at,
        "time_zone": zone or None,
        "date_earliest": when.start.isoformat() if when else None,
        "killed_min": killed_min,
        "killed_max": killed_max,
        "killed_qualifier": killed.qualifier if killed else None,
        "killed_best_source": killed.source if killed else None,
        # a best figure a source gave jointly for several places, not for this one alone
        "killed_shared_by": list(killed.shared_by) if killed else [],
        "killed_range": list(killed_range),
        "injured_min": injured_min,
        "injured_max": injured_max,
        "injured_qualifier": injured.qualifier if injured else None,
        "injured_shared_by": list(injured.shared_by) if injured else [],
        "injured_range": list(injured_range),
        "victims_civilian": summary.civilian(incident),
        "weapon": weapons[0] if weapons else None,
        "weapons": weapons,
        "target_type": targets[0] if targets else None,
        "target_types": targets,
        "perpetrator_claimed": [p["label"] for p in perpetrators if not p["competing"]],
        "perpetrator_claims": perpetrators,
        "documents": sorted({m.document.name for m in incident.mentions}),
        "sources": _graded_sources(incident, profiles),
        "figures": {
            "killed": [f.as_json() for f in summary.figures(incident, "killed")],
            "injured": [f.as_json() for f in summary.figures(incident, "injured")],
            "best_rule": "latest report; at the same report time, the most reliable kind of "
                         "source; figures the text calls earlier reports are never current",
        },
        "contradictions": assessment.contradictions(incident),
        "independent_sources": independent,
        "independent_origins": sorted(origins),
        "grade": grade,
        "grade_reasons": reasons,
        "merge_reasons": list(incident.reasons),
        "analyst_decisions": list(incident.decisions),
        # what the rules did not take from these sources, and which rule (never evidence)
        "not_taken": summary.not_taken(incident),
    }


def _coordinate(place: dict[str, Any] | None, axis: str) -> float | None:
    value = (place or {}).get(axis)
    return None if value is None else float(value)


def _graded_sources(incident: Incident, profiles: SourceProfiles) -> list[dict[str, Any]]:
    """Sources, each with the Admiralty grades of its claims."""
    grades = {g.claim_id: g.code for g in assessment.claim_grades(incident, profiles)}
    by_sentence: dict[tuple[int, int], set[str]] = {}
    for c in incident.claims:
        by_sentence.setdefault((c.document.item_id, c.sentence_start), set()).add(grades[c.id])
    out = []
    for source in summary.sources(incident):
        codes = sorted(by_sentence.get((source["item_id"], source["char_start"]), set()))
        out.append(dict(source, admiralty=codes))
    return out


#: The fields of a record a list of incidents shows (``casebuilder incidents``, the web's list):
#: kept apart from the whole record so that a list of thousands reads little.
LINE_FIELDS = ("id", "date_start", "date_end", "date_earliest", "place", "admin1", "precision",
               "categories", "killed_min", "killed_max", "killed_qualifier", "killed_shared_by",
               "injured_min", "injured_max", "injured_qualifier", "injured_shared_by",
               "weapon", "grade", "independent_sources", "situation", "lat", "lon",
               "perpetrator_claimed")


def listing_line(record: dict[str, Any]) -> dict[str, Any]:
    """A record's fields a list shows, with how many documents it rests on, and where it
    stands in its review and with whom."""
    line = {name: record.get(name) for name in LINE_FIELDS}
    line["document_count"] = len(record.get("documents") or [])
    review = review_of(record.get("analyst_decisions") or [])
    line["status"], line["assigned"] = review.status, review.assigned
    # what a search for words looks in, made once here rather than at every search
    line["words"] = words_of(line)
    return line


def words_of(value: Any) -> str:
    """The values of a line as one lower-case text, keys left out (so that a search for "id"
    or "place" does not match every incident)."""
    if isinstance(value, dict):
        return " ".join(words_of(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return " ".join(words_of(v) for v in value)
    return "" if value is None else str(value).lower()
