"""Speed of ``casebuilder geocode`` against a plain name lookup, in the same run.

The gazetteer is loaded from its cache (the load time is printed on its own, and so is the
time of the tables it builds when first needed: the Russian-style forms, the typos and the
scanner's fold table for running text, each built once per gazetteer object), then three sets
of free-text place strings are placed with :meth:`Gazetteer.geocode`, as the command does:

* ``distinct``: every string once: the strings of tests/gazetteer/data/free_text_places.tsv
  and, when the CIR monitor data set is beside the project (../shared/datasets/cir-monitor),
  each distinct "town, province, Ukraine" query and each distinct event description; every
  string is read afresh on a new gazetteer object, so nothing answered before helps;
* ``queries``: the monitor's "town, province, Ukraine" queries in their order, with their
  repeats, in one pass on a new gazetteer object (what the target of 10,000 a second is about);
* ``stream``: the monitor's events in their order, query then description, with the repeats a
  real data set holds (the same town on many rows), in one pass on a new gazetteer object, as
  ``casebuilder geocode < file`` reads them (a repeated string is answered from memory).

The reference is the naive lookup the issue compares against: each comma-separated part
normalised and looked up in a table of every name of the gazetteer, the most populous place
first, built once in this run (its build time is not counted). The script prints queries per
second for both and their ratio (casebuilder's time over the reference's: how many times the
plain lookup's work a query costs); the aim is at least 10,000 queries per second once
loaded.

    PYTHONPATH=src python benchmarks/geocode_speed.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEST_STRINGS = REPO / "tests" / "gazetteer" / "data" / "free_text_places.tsv"
EVENTS = REPO.parent / "shared" / "datasets" / "cir-monitor" / "events.csv"
sys.path.insert(0, str(REPO / "src"))

from casebuilder.gazetteer import Gazetteer, Place, load_gazetteer, normalise_toponym  # noqa: E402


def test_strings() -> list[str]:
    with TEST_STRINGS.open(encoding="utf-8") as handle:
        return [line.split("\t", 1)[0] for line in handle
                if line.strip() and not line.startswith("#")]  # fmt: skip


def monitor_rows() -> list[dict[str, str]]:
    if not EVENTS.is_file():
        return []
    with EVENTS.open(encoding="utf-8", newline="") as handle:
        return [row for row in csv.DictReader(handle) if row["country"].strip() == "Ukraine"]


def query_of(row: dict[str, str]) -> str:
    parts = [row["town/city"].strip(), row["province"].strip(), "Ukraine"]
    return ", ".join(p for p in parts if p)


def naive_lookup(gazetteer: Gazetteer) -> Callable[[str], Place | None]:
    """The reference: the first comma part's name, else any part's, looked up exactly."""
    table: dict[str, Place] = {}
    for _raw, key, _fold, number, _primary in gazetteer.index.names:
        place = gazetteer.places[number]
        best = table.get(key)
        if best is None or (place.population or 0) > (best.population or 0):
            table[key] = place

    def lookup(text: str) -> Place | None:
        for part in text.split(","):
            place = table.get(normalise_toponym(part))
            if place is not None:
                return place
        return None

    return lookup


def build_tables(gazetteer: Gazetteer) -> None:
    """Build the tables a gazetteer builds when first needed, as part of loading."""
    gazetteer.geocode("Orekhov")  # the form table (Russian-style forms)
    gazetteer.geocode("Kramatorks")  # the typo table
    gazetteer.geocode("Shelling of Gulyaipole")  # the scanner's fold table (loose reading)


def timed(answer: Callable[[str], object], texts: Sequence[str]) -> float:
    started = time.perf_counter()
    for text in texts:
        answer(text)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of the plain lookup (the best is kept)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="gazetteer cache folder (default: $CASEBUILDER_CACHE/gazetteer)")
    args = parser.parse_args()
    cache = args.cache or Path(os.environ.get("CASEBUILDER_CACHE", REPO / "benchmarks" / "out"
                                              / "cache")) / "gazetteer"  # fmt: skip
    load_gazetteer(cache)  # build the cache once if it is missing or stale
    started = time.perf_counter()
    gazetteer = load_gazetteer(cache)
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    build_tables(gazetteer)
    tables = time.perf_counter() - started
    print(f"gazetteer load (from the cache in {cache}): {loaded:.2f} s; its form, typo and "
          f"loose-reading tables, built when first needed: {tables:.2f} s")

    rows = monitor_rows()
    distinct = list(dict.fromkeys([*test_strings(), *map(query_of, rows),
                                   *(row["brief description"] for row in rows)]))  # fmt: skip
    stream = [text for row in rows for text in (query_of(row), row["brief description"])]
    reference = naive_lookup(gazetteer)

    def fresh() -> Gazetteer:
        """A new gazetteer that has answered nothing yet, its tables built."""
        new = load_gazetteer(cache)
        build_tables(new)
        return new

    ours = timed(fresh().geocode, distinct)
    theirs = timed(reference, distinct)
    print(f"distinct strings:   {len(distinct):6d}")
    print(f"  casebuilder geocode: {len(distinct) / ours:10,.0f} queries/s  ({ours:.2f} s)")
    print(f"  plain name lookup:   {len(distinct) / theirs:10,.0f} queries/s  ({theirs:.2f} s)")
    print(f"  ratio (casebuilder time / plain lookup time): {ours / theirs:.1f}")
    queries = [query_of(row) for row in rows]
    if queries:
        ours = timed(fresh().geocode, queries)  # one pass
        theirs = min(timed(reference, queries) for _ in range(args.rounds))
        print(f"monitor queries:    {len(queries):6d} strings (\"town, province, Ukraine\" of "
              f"each event, {len(set(queries))} distinct)")
        print(f"  casebuilder geocode: {len(queries) / ours:10,.0f} queries/s  ({ours:.2f} s)")
        print(f"  plain name lookup:   {len(queries) / theirs:10,.0f} queries/s  ({theirs:.2f} s)")
        print(f"  ratio (casebuilder time / plain lookup time): {ours / theirs:.1f}")
    if stream:
        ours = timed(fresh().geocode, stream)  # one pass
        theirs = min(timed(reference, stream) for _ in range(args.rounds))
        print(f"monitor stream:     {len(stream):6d} strings (events' queries and descriptions, "
              "with their repeats)")
        print(f"  casebuilder geocode: {len(stream) / ours:10,.0f} queries/s  ({ours:.2f} s)")
        print(f"  plain name lookup:   {len(stream) / theirs:10,.0f} queries/s  ({theirs:.2f} s)")
        print(f"  ratio (casebuilder time / plain lookup time): {ours / theirs:.1f}")
    else:
        print(f"(no monitor data set at {EVENTS}: only the test strings were timed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
