"""How long ``casebuilder import cir-monitor`` takes on the Russia-Ukraine Monitor's real event
table (6,650 rows), against the 60 s it must stay under; and how long listing and exporting
the incidents of that case take afterwards (merging thousands of mentions must stay about
linear). Each command runs as a user runs it, in a process of its own, on a fresh case.

    python benchmarks/import_cir_monitor.py [--file ../shared/datasets/cir-monitor/events.csv]
                                            [--keep DIR]

Prints the seconds of each command, rows per second of the import and the ratio 60 s / time
(above 1.0: within the limit). Not a timed test: the machine's load decides the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIMIT_S = 60.0
DEFAULT_FILE = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / \
    "cir-monitor" / "events.csv"


def run(home: Path, *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "casebuilder", "--home", str(home), *args],
                          capture_output=True, text=True, env=dict(os.environ), check=False)
    return time.perf_counter() - started, done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--keep", type=Path, default=None, help="keep the case here")
    args = parser.parse_args()
    if not args.file.is_file():
        print(f"no file {args.file}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="cb-import-bench-"))
    home = args.keep or work / "home"
    try:
        seconds, done = run(home, "import", "cir-monitor", "--json", str(args.file))
        if done.returncode not in (0, 1):
            print(done.stdout, done.stderr, file=sys.stderr)
            return 2
        summary = json.loads(done.stdout.splitlines()[-1])
        rows = sum(summary["rows"].values())
        print(f"import: {seconds:.1f} s for {rows} rows ({rows / seconds:.0f} rows/s); "
              f"{summary['rows']['incident']} incident, {summary['rows']['context']} context, "
              f"{summary['rows']['rejected']} rejected; ratio 60 s / time = "
              f"{LIMIT_S / seconds:.2f}")
        for what, command in (("incidents", ["incidents", "--json"]),
                              ("export geojson", ["export", "incidents", "--format",
                                                  "geojson", "-o", str(work / "out.geojson")]),
                              ("verify", ["verify"])):
            seconds, done = run(home, *command)
            extra = ""
            if what == "incidents" and done.returncode == 0:
                extra = f" ({json.loads(done.stdout)['count']} incidents)"
            print(f"{what}: {seconds:.1f} s, exit {done.returncode}{extra}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
