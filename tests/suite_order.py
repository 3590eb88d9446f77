"""Longest files first: each run keeps how long every test file took
(.pytest_cache/casebuilder/durations.json), and the next run starts with the files that took
longest, keeping the order of the tests inside a file (so module fixtures are made once).
With two workers stealing work, a long file started last would leave one worker idle at the
end; started first, the short ones fill in around it. Order never changes what a test
checks; a missing or unreadable file leaves the collected order.

A fresh clone (as CI runs) has no such file yet: it starts from ``tests/durations.json``, the
durations of one whole run kept with the project (``python tests/suite_order.py`` copies the
current ones there). Only the order depends on it, so a stale one costs a little time at
most."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

_taken: dict[str, float] = defaultdict(float)


KEPT = Path(__file__).resolve().parent / "durations.json"
#: where each run keeps its durations, under the project's root
RUN_DURATIONS = Path(".pytest_cache", "casebuilder", "durations.json")


def _durations(config: pytest.Config) -> Path:
    return Path(config.rootpath) / RUN_DURATIONS


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    path = _durations(config)
    try:
        took = json.loads((path if path.is_file() else KEPT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if not isinstance(took, dict):
        return
    first_seen = {}
    for index, item in enumerate(items):
        first_seen.setdefault(item.nodeid.split("::", 1)[0], index)
    items.sort(key=lambda item: (-float(took.get(item.nodeid.split("::", 1)[0], 0.0)),
                                 first_seen[item.nodeid.split("::", 1)[0]]))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _taken[report.nodeid.split("::", 1)[0]] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput") or not _taken:
        return  # the controller hears every worker's reports and writes once
    path = _durations(session.config)
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    known.update(_taken)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(known, sort_keys=True, indent=0), encoding="utf-8")


if __name__ == "__main__":  # keep the last run's durations with the project
    took = json.loads((KEPT.parent.parent / RUN_DURATIONS).read_text(encoding="utf-8"))
    KEPT.write_text(json.dumps({k: round(v, 1) for k, v in sorted(took.items())}, indent=0)
                    + "\n", encoding="utf-8")
