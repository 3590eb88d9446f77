"""Reading the data files people edit (access.toml, review.toml): the TOML text, and tables
of named entries that must each say what they are.

Place in the flow: at the bottom, beside the terms; the files' own loaders (preservation/access,
resolution/workflow) check the rest of their shape.
"""

from __future__ import annotations

import tomllib
from typing import Any

from casebuilder.errors import ConfigurationError


def toml_of(text: str, origin: str) -> dict[str, Any]:
    """The data of a TOML text, or a ConfigurationError naming the file and the fault."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"{origin}: not valid TOML: {exc}") from exc


def described(data: dict[str, Any], table: str, kind: str, origin: str
              ) -> dict[str, dict[str, Any]]:
    """The entries of ``[table.NAME]``, in file order, each a table with a description; the
    first one without is named (as its ``kind``) in the error."""
    entries: dict[str, dict[str, Any]] = {}
    for name, body in (data.get(table) or {}).items():
        if not isinstance(body, dict) or not str(body.get("description", "")).strip():
            raise ConfigurationError(f"{origin}: {kind} {name!r} has no description")
        entries[name] = body
    return entries
