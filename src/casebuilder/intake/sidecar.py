"""Collection metadata sidecars: ``NAME.meta.json`` beside a file says where it came from.

The Berkeley Protocol asks for the origin, the collector and the time of collection of each
item. A sidecar carries those facts as the collector wrote them; casebuilder keeps the sidecar
itself as a preserved original and copies its fields onto the origin of the file it describes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from casebuilder.errors import UnreadableContent

FIELDS = ("title", "outlet", "url", "published", "language", "collected_by", "note")


@dataclass
class CollectionMetadata:
    fields: dict[str, str | None]
    extra: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.fields)
        if self.extra:
            out["extra"] = self.extra
        return out


def parse_sidecar(data: bytes) -> CollectionMetadata:
    def refuse(constant: str) -> Any:
        raise UnreadableContent(f"sidecar holds {constant}, which is not JSON")

    try:
        raw = json.loads(data.decode("utf-8-sig"), parse_constant=refuse)
    except UnicodeDecodeError as exc:
        raise UnreadableContent(f"sidecar is not UTF-8 text: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise UnreadableContent(
            f"sidecar is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    except RecursionError as exc:
        raise UnreadableContent("sidecar is nested too deeply to be collection metadata") from exc
    if not isinstance(raw, dict):
        raise UnreadableContent("sidecar must hold a JSON object")
    meta = CollectionMetadata(fields={})
    for key in FIELDS:
        value = raw.get(key)
        if value is None or isinstance(value, str):
            meta.fields[key] = value
        else:
            meta.fields[key] = json.dumps(value, ensure_ascii=False)
            meta.warnings.append(f"field {key!r} should be a string; kept as {meta.fields[key]}")
    meta.extra = {k: v for k, v in raw.items() if k not in FIELDS}
    try:
        json.dumps(meta.extra, allow_nan=False)
    except (ValueError, RecursionError) as exc:
        raise UnreadableContent(f"sidecar's extra fields cannot be kept as JSON: {exc}") from exc
    return meta
