"""Pattern analysis on the CIR Russia-Ukraine Monitor's events (6,650 geolocated events, 2022).

Reads ../shared/datasets/cir-monitor/events.csv directly (never copied into the project) into
the analysis's incident records: place = the monitor's hand-geolocated lat/lon (taken as
precise), date, event_group -> category by the small mapping below, arms/munition -> weapon by
the weapons table's names, military event groups as places where a military objective is
claimed. Runs the analysis twice, prints the time of each (target: under 30 s) and the digest
of the findings JSON of each (they must be equal), then a summary naming the incidents behind
each finding.

    PYTHONPATH=src python benchmarks/patterns_cir_monitor.py [events.csv] [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import sys
import time
from datetime import date
from pathlib import Path

from casebuilder.analysis.patterns.records import IncidentRecord
from casebuilder.analysis.patterns.run import analyse
from casebuilder.analysis.patterns.weapons import weapons_table

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "cir-monitor" \
    / "events.csv"
SHARED = Path("/work/shared/datasets/cir-monitor/events.csv")

#: event_group (its words before the month) -> our category; military groups are objectives.
CATEGORIES = {
    "Civilian Infrastructure Damage": "destruction",
    "Bombing or Explosion": "explosive_attack",
    "Civilian Casualty": "killing",
    "Mass grave or Burial": "killing",
    "Detentions or Arrests": "detention",
}
MILITARY = ("Russian Military", "Ukrainian Military", "Russian Firing Positions",
            "Ground Battle", "Military Infrastructure Damage", "Russian Allies", "Munitions")


def _category(group: str) -> tuple[str, bool]:
    """(category, is a military objective) of a monitor event group."""
    for prefix, category in CATEGORIES.items():
        if group.startswith(prefix):
            return category, False
    if group.startswith(MILITARY):
        return "military", True
    return "other", False


def _weapons(arms: str) -> tuple[str, ...]:
    """Weapons table names that occur in the monitor's arms/munition text."""
    text = arms.lower()
    found = {f.name for name, f in weapons_table().items() if name and name in text}
    return tuple(sorted(found))


def read_events(path: Path) -> list[IncidentRecord]:
    records = []
    seen: dict[str, int] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for line, row in enumerate(csv.DictReader(handle), start=2):
            entry = row["entry"].strip() or f"line-{line}"  # a few events have no entry
            seen[entry] = seen.get(entry, 0) + 1
            rid = entry if seen[entry] == 1 else f"{entry}-{seen[entry]}"
            category, military = _category(row["event_group"])
            try:
                lat, lon = float(row["lat"]), float(row["lon"])
            except ValueError:
                lat = lon = None  # type: ignore[assignment]
            day = None
            if row["date"]:
                try:
                    day = date.fromisoformat(row["date"])
                except ValueError:
                    day = None
            records.append(IncidentRecord(
                id=rid, lat=lat, lon=lon, uncertainty_km=0.0,
                populated=bool(row["town/city"].strip()),
                place=row["town/city"].strip(), region=row["province"].strip(), day=day,
                categories=(category,), weapons=_weapons(row["arms/munition"]),
                civilian=category in {"destruction", "killing", "explosive_attack"} or None,
                objective_claimed=military))
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="?", type=Path,
                        default=SHARED if SHARED.exists() else DEFAULT)
    parser.add_argument("--json", type=Path, help="Also write the findings JSON here.")
    args = parser.parse_args()
    started = time.perf_counter()
    records = read_events(args.csv)
    print(f"read {len(records)} events in {time.perf_counter() - started:.2f} s")
    digests, timings = [], []
    report = None
    for _ in range(2):
        started = time.perf_counter()
        report = analyse(records)
        text = report.to_json()
        timings.append(time.perf_counter() - started)
        digests.append(hashlib.sha256(text.encode()).hexdigest())
        print(f"analysis: {timings[-1]:.2f} s; findings digest {digests[-1]}")
    assert report is not None
    if args.json:
        args.json.write_text(report.to_json(), encoding="utf-8")
    print("stable across runs:", digests[0] == digests[1])
    print("under 30 s:", max(timings) < 30)
    counts: dict[str, int] = {}
    for f in report.findings:
        counts[f.kind] = counts.get(f.kind, 0) + 1
    print("findings by kind:", counts)
    print("left out:", report.left_out)
    shown: dict[str, int] = {}
    for f in report.findings:
        shown[f.kind] = shown.get(f.kind, 0) + 1
        if shown[f.kind] > 3:
            continue
        ids = ", ".join(f.incidents[:8]) + (", ..." if len(f.incidents) > 8 else "")
        stat = ""
        if f.statistic and "p_value" in f.statistic:
            stat = f" [p={f.statistic['p_value']}, adjusted {f.statistic.get('p_adjusted')}]"
        print(f"- {f.kind}: {f.summary}{stat}\n    incidents ({len(f.incidents)}): {ids}")
    significant = [t for t in report.tests if t.significant]
    print(f"tests: {len(report.tests)}, significant {len(significant)}")
    if digests[0] != digests[1] or max(timings) >= 30:
        sys.exit(1)


if __name__ == "__main__":
    main()
