"""How long ``casebuilder report case`` takes for about 500 incidents, against the minute it
must stay under, as a user runs it (a process of its own) on a case made from the development
reports and the Russia-Ukraine Monitor's real event table.

    python benchmarks/report_case.py [--home CASE] [--incidents 500] [--format pdf|html]
                                     [--file ../shared/datasets/cir-monitor/events.csv]

Without ``--home`` the case is built first (ingest of ../shared/corpus/dev, import of the
monitor's file; untimed). The incidents are chosen as a user would, with ``--to DATE``: the
earliest date by which the case holds at least ``--incidents`` incidents. Prints the seconds,
the pages and size of the file, and the ratio 60 s / time (above 1.0: within the limit).
Not a timed test: the machine's load decides the figures; run it on a quiet machine.
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
SHARED = Path(__file__).resolve().parent.parent.parent / "shared"


def run(home: Path, *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "casebuilder", "--home", str(home), *args],
                          capture_output=True, text=True, env=dict(os.environ), check=False)
    return time.perf_counter() - started, done


def build(home: Path, monitor: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        reports = Path(scratch) / "dev"
        shutil.copytree(SHARED / "corpus" / "dev", reports,
                        ignore=shutil.ignore_patterns("gold.json"))
        for args in (("init",), ("ingest", str(reports)), ("import", "cir-monitor",
                                                            str(monitor))):
            _, done = run(home, *args)
            if done.returncode not in (0, 1):
                raise SystemExit(f"{' '.join(args)} failed: {done.stderr[-800:]}")


def date_for(home: Path, wanted: int) -> str:
    _, done = run(home, "incidents", "--json")
    days = sorted(p["date_end"] for p in json.loads(done.stdout)["incidents"] if p["date_end"])
    if len(days) < wanted:
        raise SystemExit(f"the case holds only {len(days)} dated incidents")
    return str(days[wanted - 1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--incidents", type=int, default=500)
    parser.add_argument("--format", choices=("pdf", "html"), default="pdf")
    parser.add_argument("--file", type=Path,
                        default=SHARED / "datasets" / "cir-monitor" / "events.csv")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        home = args.home or Path(scratch) / "case"
        if args.home is None:
            build(home, args.file)
        until = date_for(home, args.incidents)
        out = Path(scratch) / f"case.{args.format}"
        seconds, done = run(home, "report", "case", "-o", str(out), "--to", until)
        if done.returncode != 0:
            print(done.stdout, done.stderr, file=sys.stderr)
            return 1
        pages = ""
        if args.format == "pdf" and shutil.which("pdfinfo"):
            info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True,
                                  check=False).stdout
            pages = next((line.split()[-1] for line in info.splitlines()
                          if line.startswith("Pages:")), "")
        print(done.stdout.strip())
        print(f"report case --to {until}: {seconds:.1f} s, {out.stat().st_size} bytes"
              + (f", {pages} pages" if pages else ""))
        print(f"ratio {LIMIT_S:.0f} s / time = {LIMIT_S / seconds:.2f} (target >= 1.0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
