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
from casebuilder.resolution import summary
from casebuilder.resolution.listing import incident_properties
from casebuilder.resolution.profiles import SourceProfiles, load_profiles
from casebuilder.resolution.summary import Incident

FORMATS = ("geojson", "csv", "json", "acled-csv", "timemap", "kml")
CSV_FIELDS = ("id", "categories", "place", "admin1", "country", "precision", "gazetteer_id",
              "lat", "lon", "date_start", "date_end", "date_precision", "date_basis",
              "time_of_day",
              "killed_min", "killed_max", "killed_qualifier", "injured_min", "injured_max",
              "victims_civilian", "weapon", "target_type", "perpetrator_claimed",
              "grade", "independent_sources", "documents", "source_count")


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
