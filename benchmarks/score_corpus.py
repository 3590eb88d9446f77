"""Score casebuilder on a folder of reports against its gold file, in one go.

Ingests the reports into a fresh case home, exports the incidents as GeoJSON and runs the
shared scorer (``../shared/tools/score_incidents.py``) on it:

    python benchmarks/score_corpus.py ../shared/corpus/news-dev [--json] [--keep DIR]

The folder holds ``reports/`` and ``gold.json``. Prints the scorer's figures.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCORER = REPO.parent / "shared" / "tools" / "score_incidents.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", type=Path, default=None, help="keep the case home here")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="score-"))
    home = args.keep or work / "home"
    try:
        cli = [sys.executable, "-m", "casebuilder", "--home", str(home)]
        subprocess.run([*cli, "ingest", "--no-progress", str(args.corpus / "reports")],
                       check=False, stdout=subprocess.DEVNULL)
        out = work / "incidents.geojson"
        subprocess.run([*cli, "export", "incidents", "--format", "geojson", "-o", str(out)],
                       check=True, stdout=subprocess.DEVNULL)
        command = [sys.executable, str(SCORER), str(args.corpus / "gold.json"), str(out)]
        return subprocess.run(command + (["--json"] if args.json else []), check=False
                              ).returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
