"""Canonical JSON for custody entries and checkpoints.

A custody entry is hashed into the Merkle log as bytes, so the same entry must always serialise to
the same bytes, here and in the bundle's standalone verifier. The rules are a strict subset of
RFC 8785 (JSON Canonicalization Scheme): object keys sorted, no insignificant white space, UTF-8,
and no floating-point numbers at all (JCS's number formatting is where implementations diverge,
and nothing in the log needs a float: times are strings, sizes are integers).
"""

from __future__ import annotations

import json
from typing import Any

from casebuilder.errors import CustodyLogError


def _check(value: Any, path: str) -> None:
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        raise CustodyLogError(f"canonical JSON forbids floats (at {path})")
    if isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check(v, f"{path}[{i}]")
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise CustodyLogError(f"canonical JSON keys must be strings (at {path})")
            _check(v, f"{path}.{k}")
        return
    raise CustodyLogError(f"canonical JSON cannot hold {type(value).__name__} (at {path})")


def canonical_bytes(value: Any) -> bytes:
    """Serialise ``value`` to its one canonical byte form."""
    _check(value, "$")
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def parse_canonical(data: bytes) -> Any:
    """Parse bytes and insist they were in canonical form (a re-serialisation must match).

    Whatever the bytes, the only error raised is :class:`CustodyLogError`: a log line is
    untrusted input, and verification reports a bad one rather than stopping on it.
    """
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError, or an over-long integer
        raise CustodyLogError(f"not valid JSON: {exc}") from exc
    except RecursionError as exc:
        raise CustodyLogError("not valid JSON: nested too deeply to read") from exc
    try:
        again = canonical_bytes(value)
    except UnicodeEncodeError as exc:
        # "\ud800" is valid JSON, but a lone surrogate has no UTF-8 form: no canonical bytes.
        raise CustodyLogError(
            "holds an escaped lone surrogate (such as \\ud800), which has no UTF-8 form"
        ) from exc
    except RecursionError as exc:
        raise CustodyLogError("JSON nested too deeply to be a custody entry") from exc
    if again != data:
        raise CustodyLogError("JSON is valid but not in canonical form")
    return value


def json_digest(value: Any) -> str:
    """SHA-256 of a JSON value with sorted keys, floats allowed (for metadata, not log entries).

    Metadata such as GPS positions holds floats; Python writes the shortest round-trip form, so
    the same stored value always gives the same digest on re-reading.
    """
    import hashlib

    text = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
