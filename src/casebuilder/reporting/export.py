"""Standard exports of a case's incidents: GeoJSON, CSV, JSON, ACLED's CSV, TimeMap, KML.

Every incident becomes one record with its place, dates, categories, casualty figures, weapon,
target, claimed perpetrators and its sources (document, hashes, who said it, how, and the quoted
words with their offsets). The formats other tools read (``acled-csv``, ``timemap``, ``kml``)
are written by their own modules from the same record. Writing an export is logged in the
custody log with the hash of every file written and what it was made from (the incidents, their
documents and the mapping files used), because data leaving the case is an action on it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from casebuilder.preservation.case import Case
from casebuilder.resolution import assessment, summary
from casebuilder.resolution.profiles import SourceProfiles, load_profiles
from casebuilder.resolution.summary import Incident

FORMATS = ("geojson", "csv", "json", "acled-csv", "timemap", "kml")
CSV_FIELDS = ("id", "categories", "place", "admin1", "country", "precision", "gazetteer_id",
              "lat", "lon", "date_start", "date_end", "date_precision", "date_basis",
              "time_of_day",
              "killed_min", "killed_max", "killed_qualifier", "injured_min", "injured_max",
              "victims_civilian", "weapon", "target_type", "perpetrator_claimed",
              "grade", "independent_sources", "documents", "source_count")


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


def feature(incident: Incident, profiles: SourceProfiles | None = None) -> dict[str, Any]:
    properties = incident_properties(incident, profiles)
    _, place = summary.best_place(incident)
    geometry = None
    if place is not None and place.get("lat") is not None:
        geometry = {"type": "Point", "coordinates": [float(place["lon"]), float(place["lat"])]}
    return {"type": "Feature", "id": incident.id, "geometry": geometry,
            "properties": properties}


def render(incidents: Sequence[Incident], fmt: str, now: datetime | None = None) -> bytes:
    """The bytes of a one-file export (every format but ``timemap``, a directory)."""
    profiles = load_profiles()
    if fmt == "acled-csv":
        from casebuilder.reporting.acled import render_acled

        return render_acled(incidents, now=now, profiles=profiles)
    if fmt == "kml":
        from casebuilder.reporting.kml import render_kml

        return render_kml(incidents, profiles=profiles)
    if fmt == "geojson":
        collection = {"type": "FeatureCollection",
                      "features": [feature(i, profiles) for i in incidents]}
        return (json.dumps(collection, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if fmt == "json":
        records = []
        for i in incidents:
            _, place = summary.best_place(i)
            records.append(dict(incident_properties(i, profiles), lat=(place or {}).get("lat"),
                                lon=(place or {}).get("lon")))
        return (json.dumps(records, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, extrasaction="ignore",
                                lineterminator="\n")
        writer.writeheader()
        for incident in incidents:
            p = incident_properties(incident, profiles)
            _, place = summary.best_place(incident)
            row = dict(p, lat=(place or {}).get("lat"), lon=(place or {}).get("lon"),
                       categories=";".join(p["categories"]),
                       perpetrator_claimed=";".join(p["perpetrator_claimed"]),
                       documents=";".join(p["documents"]), source_count=len(p["sources"]))
            writer.writerow(row)
        return buffer.getvalue().encode("utf-8")
    raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")


def render_files(incidents: Sequence[Incident], fmt: str, out: Path,
                 now: datetime | None = None) -> dict[str, bytes]:
    """The files an export writes, by name: one, named as ``out``, or a directory's files."""
    if fmt == "timemap":
        from casebuilder.reporting.timemap import render_timemap

        return render_timemap(incidents)
    return {out.name: render(incidents, fmt, now)}


def made_from(incidents: Sequence[Incident], fmt: str) -> dict[str, Any]:
    """What an export was made from, for its custody entry: the incidents, each document
    behind them (item, file name, SHA-256) and the mapping files the format reads."""
    documents = {m.document.item_id: m.document for i in incidents for m in i.mentions}
    mappings = []
    if fmt in ("acled-csv", "timemap"):
        from casebuilder.reporting import acled, timemap

        file = acled.MAPPING_FILE if fmt == "acled-csv" else timemap.MAPPING_FILE
        mappings.append({"file": f"reporting/data/{file.name}",
                         "sha256": hashlib.sha256(file.read_bytes()).hexdigest()})
    return {"incidents": [i.id for i in incidents],
            "documents": [{"item_id": d.item_id, "name": d.name, "sha256": d.sha256}
                          for _, d in sorted(documents.items())],
            "mappings": mappings}


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def export_incidents(case: Case, incidents: Sequence[Incident], fmt: str, out: Path) -> str:
    """Write the export atomically (file by file) and log it; returns the file's SHA-256, or
    for a directory (``timemap``) the SHA-256 of its list of files and their hashes."""
    now = datetime.now().astimezone()
    files = render_files(incidents, fmt, out, now)
    hashes = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    if fmt == "timemap":
        for name, data in files.items():
            _write(out / name, data)
        listing = "".join(f"{hashes[n]}  {n}\n" for n in sorted(files)).encode("utf-8")
        sha256 = hashlib.sha256(listing).hexdigest()
        size = sum(len(d) for d in files.values())
    else:
        data = files[out.name]
        _write(out, data)
        sha256, size = hashes[out.name], len(data)
    origin = made_from(incidents, fmt)
    details: dict[str, Any] = {"what": "incidents", "format": fmt, "file": out.name,
                               "sha256": sha256, "size": size,
                               "incidents": origin["incidents"],
                               "made_from": {"documents": origin["documents"],
                                             "mappings": origin["mappings"]}}
    if fmt == "timemap":
        details["files"] = [{"file": n, "sha256": hashes[n], "size": len(files[n])}
                            for n in sorted(files)]
    with case.transaction() as tx:
        tx.record("export", details=details)
    case.checkpoint()
    return sha256
