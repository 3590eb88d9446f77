"""The values a request's query string or form gives, read as the pages need them: a day, a
number, a point with a distance. A value that is not one is read as absent (a day, a number)
or refused with a message (a point, which a person typed on purpose).

Place in the flow: the web front end only; app.py, evidence.py, analysis.py and exports.py read
their parameters through it.
"""

from __future__ import annotations

from datetime import date

from casebuilder.resolution.spatial import Near


def day_of(value: object) -> date | None:
    try:
        return date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def number_of(text: str | None, default: int) -> int:
    try:
        return int(text) if text else default
    except ValueError:
        return default


def near_of(point: str | None, km: str | None) -> Near | None:
    return Near.parse(point, km) if point else None
