"""The web interface's pages on a case of about 10,000 stored incidents (issue 15: under 300 ms).

A real case home is made (init_case, SQLite or --database-url), and synthetic incidents in the
proportions of a large case (synthetic_mentions.py, records of a real one's size as in
stored_incidents.py) are stored through resolution/stored.py's own functions. Each page is then
asked for through the application itself (Starlette's test client: routing, the session and
permission check, the SQL, filters, sorting, the template, and the custody entry and checkpoint
every view writes), signed in as an analyst. Printed side by side on the same machine:

* **reference**: reading the same incidents' lines from the tables alone (listed_in), the
  floor any page showing them stands on;
* each page's median and slowest time over --repeat requests, its ratio to the reference, and
  whether it is under the 300 ms target.

    python benchmarks/web_pages.py [--mentions 27000] [--repeat 15]
"""

from __future__ import annotations

import argparse
import gc
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from stored_incidents import describe
from synthetic_mentions import attacks_and_reports

from casebuilder.preservation.accounts import add_user
from casebuilder.preservation.case import init_case
from casebuilder.resolution.anchoring import Anchoring
from casebuilder.resolution.stored import (
    ListFilter,
    Observed,
    _write_state,
    listed_in,
    store_everything,
)

TARGET_MS = 300.0
PASSWORD = "benchmark password, long enough"


def timed(work: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median and slowest time of ``work`` in ms (one run first, not counted, to warm up)."""
    work()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mentions", type=int, default=27_000,
                        help="synthetic mentions (27,000 make about 10,000 incidents)")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--database-url", help="default: the case's own SQLite file")
    args = parser.parse_args()

    from starlette.testclient import TestClient

    from casebuilder.web.app import make_app

    with tempfile.TemporaryDirectory() as tmp:
        environ = {"CASEBUILDER_DATABASE_URL": args.database_url} if args.database_url else {}
        case = init_case(Path(tmp) / "home", name="web benchmark", environ=environ)
        try:
            mentions = list(attacks_and_reports(args.mentions, seed=args.seed))
            with case.transaction() as tx:
                count = store_everything(tx.session, mentions, [], Anchoring(), {}, describe)
                _write_state(tx.session, Observed.now(tx.session), True)
            add_user(case, "analyst", "analyst", PASSWORD)
            print(f"{count:,} stored incidents from {len(mentions):,} synthetic mentions on "
                  f"{case.engine.dialect.name}", flush=True)

            app = make_app(case)
            gc.collect()
            gc.freeze()  # as `casebuilder serve` does once the application is made
            client = TestClient(app, base_url="https://testserver")
            login = client.get("/login")
            csrf = re.search(r'name="csrf" value="([^"]+)"', login.text)
            assert csrf
            assert client.post("/login", data={"name": "analyst", "password": PASSWORD,
                                               "csrf": csrf.group(1)},
                               follow_redirects=False).status_code == 303

            region = max({m.admin1 for m in mentions},
                         key=lambda r: sum(1 for m in mentions if m.admin1 == r))

            def read_all() -> object:
                with case.session() as session:
                    return listed_in(session, ListFilter())

            reference, _ = timed(read_all, args.repeat)
            print(f"reference: the lines of all {count:,} incidents read from the tables: "
                  f"{reference:7.1f} ms median")
            pages = {
                "list, first page of 200": "/incidents",
                "list sorted by killed, descending": "/incidents?sort=killed&order=desc",
                f"list of one region ({region})": f"/incidents?place={region}",
                "list with a date range and a category":
                    "/incidents?since=2022-06-01&until=2023-06-30&category=killing",
                "list with a word search": "/incidents?q=corroborated",
                "list, page 20": "/incidents?page=20",
                "map and timeline of every incident": "/map",
                "map data of every incident (GeoJSON)": "/map/incidents.geojson",
            }
            print(f"{'page':<42} {'median':>9} {'slowest':>9} {'x reference':>12}  target")
            worst = 0.0
            for name, address in pages.items():
                answer = client.get(address)
                if answer.status_code == 404:
                    print(f"{name:<42} {'(no such page)':>32}")
                    continue
                assert answer.status_code == 200, (address, answer.status_code)
                median, slowest = timed(lambda a=address: client.get(a), args.repeat)
                worst = max(worst, median)
                verdict = "met" if median < TARGET_MS else "NOT met"
                print(f"{name:<42} {median:7.1f} ms {slowest:7.1f} ms {median / reference:11.1f}x"
                      f"  {verdict} ({TARGET_MS:.0f} ms)", flush=True)
            print(f"slowest page median: {worst:.1f} ms")
        finally:
            case.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
