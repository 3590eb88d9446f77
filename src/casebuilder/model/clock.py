"""UTC time as the custody log writes it.

A clock is a plain callable passed in by whoever opens a case, so tests and a future server can
supply their own; nothing reads the system time behind the caller's back.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]

UTC_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def system_clock() -> datetime:
    return datetime.now(UTC)


def format_utc(moment: datetime) -> str:
    """Fixed-width ISO 8601 in UTC, so that text order is time order."""
    if moment.tzinfo is None:
        raise ValueError("refusing a naive datetime: custody times must be in UTC")
    return moment.astimezone(UTC).strftime(UTC_FORMAT)


def parse_utc(text: str) -> datetime:
    return datetime.strptime(text, UTC_FORMAT).replace(tzinfo=UTC)
