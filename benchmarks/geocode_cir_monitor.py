"""Geocoding benchmark on the CIR Russia-Ukraine Monitor events (evaluation only).

For every event in Ukraine, the query "town/city, province, Ukraine" is resolved with the
gazetteer and the result compared with the monitor's hand-geolocated point. Prints the share
of events placed within 10 km, the share left unresolved, the median error, a breakdown by
precision, the misses sorted by kind (see ``MISS_KINDS``), and the worst misses.

Then, as running text: each event's short description ("Damage to school nr.3 in Mykolaivka,
Donetsk") is scanned with ``find_toponyms`` and resolved with ``resolve_mentions``, and the
first settlement, district or site in Ukraine that locates nothing is compared with the point
(the share within 10 km and beyond 100 km, of the descriptions that name such a place).

Last, what ``casebuilder geocode`` answers (``Gazetteer.geocode``, the free-text reading): for
each event's query, and for its description as a free-text place string (the share of all
events placed within 10 km, and of the descriptions it placed).

The data set is read from ../shared/datasets/cir-monitor/events.csv relative to the repository
root and is never copied into the repository.

    /work/venv/bin/python benchmarks/geocode_cir_monitor.py [--cache DIR] [--worst N]
        [--examples N]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVENTS = REPO.parent / "shared" / "datasets" / "cir-monitor" / "events.csv"
sys.path.insert(0, str(REPO / "src"))

from casebuilder.gazetteer import distance_km, load_gazetteer  # noqa: E402

WITHIN_KM = 10.0
BIG_CITY_POPULATION = 100_000
BIG_CITY_KM = 30.0
FAR_KM = 50.0

MISS_KINDS = {
    "unresolved": "no place found",
    "region only": "the row names no town: placed at the region's (or country's) centre",
    "name not found": "the town is not in the offline data (or only far outside the province): "
    "placed at the province's centre",
    "same-name choice, located": "another place of that name with its own coordinate lies "
    "within 10 km; a different one was chosen",
    "same-name choice, by hromada": "another place of that name, a village placed at its "
    "hromada's centre, lies within 10 km; a different one was chosen",
    "village by hromada": "a village known only from KATOTTG, placed at its hromada's (or "
    "raion's) centre more than 10 km from the point; no place of that name is nearer",
    "big city": "a city of 100,000+ people, the point 10-30 km from the city's point",
    "far from every candidate": "the point is 50+ km from every place of that name in the "
    "offline data: a wrong province or point in the monitor, or a name the data lacks",
    "near miss": "no place of that name lies within 10 km of the point; the nearest is 10-50 "
    "km off (a suburb, a place misspelt, a point beside the named place)",
}
"""Kinds of miss, in the order they are tested; every miss gets the first that fits."""


def ukrainian_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [row for row in csv.DictReader(handle) if row["country"].strip() == "Ukraine"]


def query_of(row: dict[str, str]) -> str:
    parts = [row["town/city"].strip(), row["province"].strip(), "Ukraine"]
    return ", ".join(p for p in parts if p)


def evaluate(gazetteer: object, rows: list[dict[str, str]]) -> dict[str, object]:
    from casebuilder.gazetteer import Gazetteer

    assert isinstance(gazetteer, Gazetteer)
    errors: list[float] = []
    misses: list[tuple[float, str, str, str]] = []
    unresolved: list[str] = []
    by_precision: Counter[str] = Counter()
    hits_by_precision: Counter[str] = Counter()
    miss_kinds: Counter[str] = Counter()
    examples: dict[str, list[str]] = {kind: [] for kind in MISS_KINDS}
    for row in rows:
        query = query_of(row)
        resolution = gazetteer.resolve(query)
        point = (float(row["lat"]), float(row["lon"]))
        if resolution.place is None:
            unresolved.append(query)
            miss_kinds["unresolved"] += 1
            continue
        error = distance_km(resolution.place, point)
        errors.append(error)
        by_precision[resolution.place.precision] += 1
        if error <= WITHIN_KM:
            hits_by_precision[resolution.place.precision] += 1
            continue
        misses.append((error, query, resolution.place.name, resolution.reason))
        kind = miss_kind(gazetteer, row, resolution, error)
        miss_kinds[kind] += 1
        examples[kind].append(f"{error:6.1f} km | {query} -> {resolution.place.name}")
    total = len(rows)
    within = sum(1 for e in errors if e <= WITHIN_KM)
    return {
        "total": total,
        "within": within / total if total else 0.0,
        "within_count": within,
        "unresolved": len(unresolved) / total if total else 0.0,
        "median_km": statistics.median(errors) if errors else float("nan"),
        "by_precision": by_precision,
        "hits_by_precision": hits_by_precision,
        "misses": sorted(misses, reverse=True),
        "unresolved_queries": unresolved,
        "miss_kinds": miss_kinds,
        "examples": examples,
    }


def evaluate_texts(gazetteer: object, rows: list[dict[str, str]]) -> dict[str, float]:
    """The descriptions read as running text (see the module doc)."""
    from casebuilder.gazetteer import Gazetteer

    assert isinstance(gazetteer, Gazetteer)
    named = within = far = 0
    for row in rows:
        mentions = gazetteer.find_toponyms(row["brief description"])
        places = [
            resolution.place
            for mention, resolution in zip(
                mentions, gazetteer.resolve_mentions(mentions), strict=True
            )
            if mention.locates is None
            and resolution.place is not None
            and resolution.place.feature_kind in ("settlement", "city_district", "feature")
            and resolution.place.country == "UA"
        ]
        if not places:
            continue
        named += 1
        error = distance_km(places[0], (float(row["lat"]), float(row["lon"])))
        within += error <= WITHIN_KM
        far += error > 100.0
    return {
        "named": float(named),
        "within": within / named if named else 0.0,
        "far": far / named if named else 0.0,
    }


def evaluate_geocode(gazetteer: object, rows: list[dict[str, str]]) -> dict[str, float]:
    """What ``casebuilder geocode`` answers: each event's query and its description read as
    free text (:meth:`Gazetteer.geocode`), its first place compared with the point."""
    from casebuilder.gazetteer import Gazetteer

    assert isinstance(gazetteer, Gazetteer)
    figures: dict[str, float] = {}
    for label, text_of in (("query", query_of), ("description", description_of)):
        placed = within = 0
        for row in rows:
            place = gazetteer.geocode(text_of(row)).place
            if place is None:
                continue
            placed += 1
            within += distance_km(place, (float(row["lat"]), float(row["lon"]))) <= WITHIN_KM
        figures[f"{label}_placed"] = float(placed)
        figures[f"{label}_within"] = within / len(rows) if rows else 0.0
        figures[f"{label}_within_placed"] = within / placed if placed else 0.0
    return figures


def description_of(row: dict[str, str]) -> str:
    return row["brief description"]


def miss_kind(gazetteer: object, row: dict[str, str], resolution: object, error: float) -> str:
    """The kind of a miss (a key of ``MISS_KINDS``)."""
    from casebuilder.gazetteer import Gazetteer, Resolution

    assert isinstance(gazetteer, Gazetteer) and isinstance(resolution, Resolution)
    place = resolution.place
    assert place is not None
    if not row["town/city"].strip():
        return "region only"
    point = (float(row["lat"]), float(row["lon"]))
    candidates = {c.place.gazetteer_id: c.place for c in resolution.candidates}
    for other in gazetteer.lookup(row["town/city"].strip()):
        candidates.setdefault(other.gazetteer_id, other)
    nearest = min(
        (
            (distance_km(p, point), p)
            for p in candidates.values()
            if p != place and p.precision in ("point", "district", "settlement")
        ),
        default=(float("inf"), place),
        key=lambda pair: pair[0],
    )
    if nearest[0] <= WITHIN_KM:
        by_hromada = nearest[1].gazetteer_id.startswith("katottg:")
        return "same-name choice, by hromada" if by_hromada else "same-name choice, located"
    if place.precision in ("region", "country"):
        return "name not found"
    if place.gazetteer_id.startswith("katottg:") and place.precision == "district":
        return "village by hromada"
    if (place.population or 0) >= BIG_CITY_POPULATION and error <= BIG_CITY_KM:
        return "big city"
    if min(error, nearest[0]) > FAR_KM:
        return "far from every candidate"
    return "near miss"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=REPO / "benchmarks" / "out" / "cache")
    parser.add_argument("--worst", type=int, default=25)
    parser.add_argument("--examples", type=int, default=0, help="examples of each kind of miss")
    args = parser.parse_args()
    if not EVENTS.is_file():
        print(f"data set not found: {EVENTS}")
        return 2
    rows = ukrainian_rows(EVENTS)
    started = time.perf_counter()
    gazetteer = load_gazetteer(args.cache)
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    result = evaluate(gazetteer, rows)
    elapsed = time.perf_counter() - started
    print(f"events in Ukraine:        {result['total']}")
    print(
        f"within {WITHIN_KM:.0f} km:             {result['within']:.2%}"
        f" ({result['within_count']} events)"
    )
    print(f"unresolved:               {result['unresolved']:.2%}")
    print(f"median error:             {result['median_km']:.2f} km")
    print(f"gazetteer load:           {loaded:.2f} s (cache: {args.cache})")
    per_query = elapsed / max(1, len(rows)) * 1e3
    print(f"resolution:               {elapsed:.2f} s ({per_query:.2f} ms/query)")
    by_precision = result["by_precision"]
    hits = result["hits_by_precision"]
    assert isinstance(by_precision, Counter) and isinstance(hits, Counter)
    for precision, count in by_precision.most_common():
        share = hits[precision] / count
        print(
            f"  precision {precision:<10} {count:5d} events, {share:.1%} within {WITHIN_KM:.0f} km"
        )
    kinds = result["miss_kinds"]
    examples = result["examples"]
    assert isinstance(kinds, Counter) and isinstance(examples, dict)
    total = result["total"]
    assert isinstance(total, int)
    print(f"\nmisses by kind ({sum(kinds.values())} events, share of all events):")
    for kind, what in MISS_KINDS.items():
        print(f"  {kind:<30} {kinds[kind]:5d} {kinds[kind] / total:6.2%}  {what}")
        for example in examples[kind][: args.examples]:
            print(f"      {example}")
    within_count = result["within_count"]
    assert isinstance(within_count, int)
    choice = kinds["same-name choice, located"] + kinds["same-name choice, by hromada"]
    no_candidate = sum(kinds.values()) - choice
    print(
        f"  no place of that name within {WITHIN_KM:.0f} km in the offline data: "
        f"{no_candidate / total:.2%}; a perfect choice among the candidates would reach "
        f"{(within_count + choice) / total:.2%}"
    )
    texts = evaluate_texts(gazetteer, rows)
    print(
        f"\ndescriptions as running text: {texts['named']:.0f} name a place in Ukraine; "
        f"the first is within {WITHIN_KM:.0f} km in {texts['within']:.2%}, "
        f"beyond 100 km in {texts['far']:.2%}"
    )
    coded = evaluate_geocode(gazetteer, rows)
    print(
        f"as 'casebuilder geocode' reads them (Gazetteer.geocode): the queries "
        f"{coded['query_within']:.2%} within {WITHIN_KM:.0f} km; the descriptions as free text: "
        f"{coded['description_placed']:.0f} placed, {coded['description_within']:.2%} of all "
        f"events within {WITHIN_KM:.0f} km ({coded['description_within_placed']:.2%} of those "
        "placed)"
    )
    misses = result["misses"]
    assert isinstance(misses, list)
    print(f"\nworst {args.worst} misses (error km | query -> place | reason):")
    for error, query, name, reason in misses[: args.worst]:
        print(f"  {error:7.1f} | {query} -> {name} | {reason}")
    unresolved = result["unresolved_queries"]
    assert isinstance(unresolved, list)
    if unresolved:
        print(f"\nunresolved ({len(unresolved)}), first {args.worst}:")
        for query in Counter(unresolved).most_common(args.worst):
            print(f"  {query[1]:3d} x {query[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
