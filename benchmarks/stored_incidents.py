"""Stored incidents at the scale of a national case: merge everything, add one document, list.

Synthetic mentions in the proportions of a large case (synthetic_mentions.py) are merged and
stored in a case database (SQLite by default, or --database-url, e.g. the PostgreSQL server
.ci/run starts) through resolution/stored.py's own functions. Each listing record is a synthetic
one of about the size of a real record (a real one is made from the mentions' claims, which a
synthetic case does not have: its making is measured by the case-level tests, not here).
Printed side by side on the same machine:

* **merge**: merging every mention (the reference: what every reading command used to pay),
  and storing the result;
* **add one document**: a document's mentions (a new report of a stored attack, or of a new
  one) added by merging again only the parts they touch, committed: median and slowest of
  --updates runs, and the ratio to the full merge;
* **list**: 10,000 listing records read from the tables with filters (a region and a date
  range), and a whole case of 10,000 incidents listed without filters.

    python benchmarks/stored_incidents.py [--mentions 1000000] [--updates 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from synthetic_mentions import attacks_and_reports

from casebuilder.resolution.anchoring import Anchoring
from casebuilder.resolution.incidents import Settled
from casebuilder.resolution.merge import MergeCandidate, merge
from casebuilder.resolution.stored import ListFilter, listed_in, merge_again, store_everything
from casebuilder.store.database import ensure_schema, make_engine, session_factory, sqlite_url

FILLER = "a sentence of the report quoted with its offsets, " * 6


def describe(settled: Sequence[Settled]) -> list[dict[str, Any]]:
    """A listing record of a real record's fields and about its size (3 KB)."""
    out = []
    for s in settled:
        first = min(s.members, key=lambda m: m.order)
        when = first.when
        out.append({
            "id": s.id, "place": first.label_place or first.place_id, "admin1": first.admin1,
            "date_start": when.start.isoformat() if when else None,
            "date_end": when.end.isoformat() if when else None,
            "date_earliest": when.start.isoformat() if when else None,
            "categories": sorted({c for m in s.members for c in m.categories}),
            "grade": "corroborated" if len(s.members) > 1 else "single source",
            "documents": [m.label for m in s.members],
            "merge_reasons": s.reasons,
            "sources": [{"document": m.label, "quote": FILLER, "char_start": 10,
                         "char_end": 10 + len(FILLER)} for m in s.members[:4]],
        })
    return out


def one_document(rng: random.Random, stored: Sequence[MergeCandidate], number: int
                 ) -> list[MergeCandidate]:
    """A new report: of an attack already stored (most often) or of a new one nearby."""
    base = rng.choice(stored)
    later = date(2025, 12, 31) + timedelta(days=number)
    if rng.random() < 0.7:  # another report of a stored attack, published later
        return [replace(base, key=f"new{number}", label=f"new{number}",
                        order=f"{later.isoformat()}T{number:08d}", reported=later)]
    day = base.when.start + timedelta(days=3) if base.when else later
    return [replace(base, key=f"new{number}-{k}", label=f"new{number}",
                    when=type(base.when).parse_iso(day.isoformat()) if base.when else None,
                    order=f"{later.isoformat()}T{number:08d}", reported=later,
                    tolls=frozenset({rng.randint(50, 90)})) for k in range(2)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mentions", type=int, default=1_000_000)
    parser.add_argument("--updates", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--database-url", help="default: a SQLite file in a temporary folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or sqlite_url(Path(tmp) / "case.db")
        engine = make_engine(url)
        ensure_schema(engine)
        sessions = session_factory(engine)
        mentions = list(attacks_and_reports(args.mentions, seed=args.seed))
        print(f"{len(mentions):,} synthetic mentions on {engine.dialect.name}", flush=True)

        start = time.perf_counter()
        clusters = merge(mentions)
        merged = time.perf_counter() - start
        print(f"merge everything (reference): {merged:8.1f} s   {len(clusters):,} incidents",
              flush=True)
        start = time.perf_counter()
        with sessions.begin() as session:
            count = store_everything(session, mentions, [], Anchoring(), {}, describe)
        stored = time.perf_counter() - start
        print(f"merge and store everything:   {stored:8.1f} s   {count:,} incidents")

        rng = random.Random(args.seed)
        times, again = [], []
        for number in range(args.updates):
            fresh = one_document(rng, mentions, number)
            start = time.perf_counter()
            with sessions.begin() as session:
                done = merge_again(session, fresh, {}, set(), [], describe)
            times.append(time.perf_counter() - start)
            assert done is not None
            again.append(done[0])
            print(f"  document {number + 1}: {times[-1] * 1000:.1f} ms, merged again "
                  f"{done[0]:,} mentions", flush=True)
        median = statistics.median(times)
        print(f"add one document:             {median * 1000:8.1f} ms median, "
              f"{max(times) * 1000:.1f} ms slowest, merging again "
              f"{statistics.median(again):.0f} mentions (median), {max(again)} at most; "
              f"full merge / update = {merged / median:,.0f}x")

        regions = sorted({m.admin1 for m in mentions})
        with sessions() as session:
            best = None
            for region in regions[:8]:
                for months in (3, 6, 12, 24, 48):
                    chosen = ListFilter(place=region, since=date(2022, 2, 24),
                                        until=date(2022, 2, 24) + timedelta(days=30 * months))
                    start = time.perf_counter()
                    records, total = listed_in(session, chosen)
                    took = time.perf_counter() - start
                    if best is None or abs(len(records) - 10_000) < abs(best[0] - 10_000):
                        best = (len(records), took, region, months)
            assert best is not None
            print(f"list with filters:            {best[1] * 1000:8.1f} ms for {best[0]:,} of "
                  f"{total:,} incidents (region {best[2]}, {best[3]} months)")
    small(args.seed)
    return 0


def small(seed: int) -> None:
    """A case of about 10,000 incidents, listed whole."""
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(sqlite_url(Path(tmp) / "case.db"))
        ensure_schema(engine)
        sessions = session_factory(engine)
        mentions = list(attacks_and_reports(27_000, seed=seed))
        with sessions.begin() as session:
            count = store_everything(session, mentions, [], Anchoring(), {}, describe)
        with sessions() as session:
            start = time.perf_counter()
            records, _ = listed_in(session, ListFilter())
            took = time.perf_counter() - start
            start = time.perf_counter()
            chosen, _ = listed_in(session, ListFilter(category="killing",
                                                      since=date(2023, 1, 1)))
            filtered = time.perf_counter() - start
        print(f"list a case of {count:,} incidents: {took * 1000:8.1f} ms for all {len(records):,};"
              f" {filtered * 1000:.1f} ms for {len(chosen):,} with a category and a date")


if __name__ == "__main__":
    sys.exit(main())
