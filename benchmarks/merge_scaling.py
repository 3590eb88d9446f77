"""How merging grows with the number of mentions (it must stay close to linear).

Synthetic incident mentions are spread over 2,000 places in Ukraine's bounding box and the
days of one year, with a mix of categories, target types, report-dated mentions and continuing
situations, in the proportions the development reports show. The script times
``casebuilder.resolution.merge.merge`` on 10,000 to 100,000 mentions in the same run and prints
the time per mention and the growth exponent between the smallest and largest run (1.0 is
linear; 2.0 would be comparing every mention with every other).

    python benchmarks/merge_scaling.py [--sizes 10000,20000,50000,100000] [--seed 7]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from datetime import date, timedelta

from casebuilder.model.partial_date import PartialDate
from casebuilder.resolution.merge import MergeCandidate, merge

CATEGORIES = ["explosive_attack", "killing", "destruction", "siege", "displacement",
              "detention", "torture"]
TARGETS = ["residential building", "hospital", "school", "market", "railway station", "cafe",
           "shop or mall", "energy infrastructure", "public space"]


def synthetic(n: int, places: int, seed: int) -> list[MergeCandidate]:
    rng = random.Random(seed)
    spots = [(rng.uniform(44.5, 52.0), rng.uniform(22.5, 40.0)) for _ in range(places)]
    year = date(2022, 1, 1)
    out = []
    for i in range(n):
        lat, lon = spots[rng.randrange(places)]
        day = year + timedelta(days=rng.randrange(365))
        situation = rng.random() < 0.15
        if situation:
            when = PartialDate.range(day, min(day + timedelta(days=rng.randrange(1, 60)),
                                              date(2022, 12, 31)))
            basis = "situation"
            categories = frozenset({rng.choice(["siege", "displacement"])})
        else:
            when = PartialDate.parse_iso(day.isoformat())
            basis = "report" if rng.random() < 0.2 else "event"
            categories = frozenset(rng.sample(CATEGORIES[:3], rng.randint(1, 2)))
        out.append(MergeCandidate(
            key=f"m{i:07d}", lat=lat + rng.uniform(-0.01, 0.01), lon=lon + rng.uniform(-0.01, 0.01),
            precision=rng.choice(["settlement", "settlement", "point", "district"]),
            uncertainty_km=rng.uniform(1, 8), place_id=f"p{spots.index((lat, lon))}",
            admin1=f"region-{int(lat)}-{int(lon) // 3}", situation=situation,
            categories=categories, when=when, basis=basis, reported=day,
            targets=frozenset(rng.sample(TARGETS, rng.randint(0, 2))),
            tolls=frozenset({rng.randint(0, 30)}) if rng.random() < 0.3 else frozenset(),
            label=f"doc{i}", order=f"{day.isoformat()}T{i:07d}"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,20000,50000,100000")
    parser.add_argument("--places", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = []
    for n in sizes:
        mentions = synthetic(n, args.places, args.seed)
        start = time.perf_counter()
        clusters = merge(mentions)
        elapsed = time.perf_counter() - start
        results.append((n, elapsed))
        print(f"{n:>7} mentions: {elapsed:7.2f} s  {elapsed / n * 1e6:7.1f} µs/mention  "
              f"{len(clusters):>7} incidents")
    (n0, t0), (n1, t1) = results[0], results[-1]
    exponent = math.log(t1 / t0) / math.log(n1 / n0)
    print(f"growth from {n0:,} to {n1:,}: time x{t1 / t0:.1f} for mentions x{n1 / n0:.0f}; "
          f"exponent {exponent:.2f} (1.00 = linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
