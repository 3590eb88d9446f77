"""Recognising a dataset by its content, so that ``ingest`` imports a monitor's event table
as rows rather than reading it as prose: a CSV whose header holds the columns a format needs
(ACLED's, UCDP GED's, the Russia-Ukraine Monitor's), a JSON list of objects with the
civilian-harm export's keys, or a FeatureCollection with casebuilder's incident properties.
A plain CSV of other columns is not a dataset here (it needs a column mapping: ``import csv``).
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Sequence

from sqlalchemy import select

from casebuilder.errors import DatasetError
from casebuilder.extraction.datasets import DATASET_CARRIERS
from casebuilder.extraction.datasets.formats import DatasetFormat
from casebuilder.extraction.datasets.importing import ImportReport, dataset_formats, import_item
from casebuilder.extraction.datasets.reading import read_csv
from casebuilder.preservation.case import Case
from casebuilder.store import schema

#: How much of a file is looked at to recognise it.
HEAD_BYTES = 64 * 1024
#: The CSV formats in the order they are tried (the one needing most columns first).
CSV_ORDER = ("acled", "ucdp-ged", "cir-monitor")


def recognise(data: bytes) -> DatasetFormat | None:
    """The dataset format of these bytes, or None."""
    formats = dataset_formats()
    head = data[:HEAD_BYTES]
    body = head[len(codecs.BOM_UTF8):] if head.startswith(codecs.BOM_UTF8) else head
    first = body.lstrip()[:1]
    if first in (b"[", b"{"):
        return _json_format(data, formats)
    line = body.split(b"\n", 1)[0]
    if b"," not in line:
        return None
    try:
        header = {h.lower() for h in read_csv(line + b"\n").header}
    except DatasetError:
        return None
    for name in CSV_ORDER:
        if {c.lower() for c in formats[name].required} <= header:
            return formats[name]
    return None


def _json_format(data: bytes, formats: dict[str, DatasetFormat]) -> DatasetFormat | None:
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if isinstance(value, list) and value and isinstance(value[0], dict) and \
            set(formats["civilian-harm-json"].required) <= set(value[0]):
        return formats["civilian-harm-json"]
    if isinstance(value, dict) and value.get("type") == "FeatureCollection":
        features = value.get("features")
        if isinstance(features, list) and features and isinstance(features[0], dict):
            properties = features[0].get("properties")
            if isinstance(properties, dict) and set(formats["geojson"].required) <= set(
                    properties):
                return formats["geojson"]
    return None


def import_recognised(case: Case, item_ids: Sequence[int]) -> list[ImportReport]:
    """Import every item among ``item_ids`` whose content is a dataset (each once)."""
    if not item_ids:
        return []
    with case.session() as session:
        items = [(i.id, i.sha256, i.size, i.origins[0].name if i.origins else f"item {i.id}")
                 for i in session.execute(select(schema.Item).where(
                     schema.Item.id.in_(list(item_ids)), schema.Item.kind == "original",
                     schema.Item.format.in_(list(DATASET_CARRIERS))).order_by(
                     schema.Item.id)).scalars()]
    reports = []
    for item_id, sha256, _size, name in items:
        with case.storage.open(sha256) as fh:
            head = fh.read(HEAD_BYTES)
        first = head.lstrip(codecs.BOM_UTF8).lstrip()[:1]
        if first not in (b"[", b"{") and recognise(head) is None:
            continue
        with case.storage.open(sha256) as fh:
            data = fh.read()
        fmt = recognise(data)
        if fmt is None:
            continue
        try:
            reports.append(import_item(case, fmt, item_id, data, name))
        except DatasetError:
            continue  # recognised by its header, but not one after all: left as a text
    return reports
