"""Synthetic mentions in the proportions of a large real case, for the merge benchmarks.

Attacks are drawn first, then the reports of each: most attacks are told by several reports
(a mean of about three), most reports give the attack's own day and place, some only their
publication day, a few only the region; tolls are restated or revised; places follow a heavy
tail (a few cities are struck again and again, most villages once or twice); a sixth of the
attacks are continuing situations (sieges, occupations) told over weeks. Everything comes from a
seeded random generator, so a run is reproducible. Used by merge_at_scale.py and
merge_incremental.py; nothing here is real data.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import date, timedelta

from casebuilder.model.partial_date import PartialDate
from casebuilder.resolution.merge import MergeCandidate

CATEGORIES = ["explosive_attack", "killing", "destruction", "siege", "displacement",
              "detention", "torture"]
TARGETS = ["residential building", "hospital", "school", "market", "railway station", "cafe",
           "shop or mall", "energy infrastructure", "public space"]
WAR_START = date(2022, 2, 24)
DAYS = 1400  # almost four years


def places(count: int, rng: random.Random) -> list[tuple[float, float, str]]:
    """Settlements spread over Ukraine's bounding box, each with a region (about 2 by 3 degrees
    per region, as oblasts are)."""
    out = []
    for _ in range(count):
        lat, lon = rng.uniform(44.5, 52.0), rng.uniform(22.5, 40.0)
        out.append((lat, lon, f"region-{int(lat) // 2}-{int(lon) // 3}"))
    return out


def attacks_and_reports(mentions: int, *, seed: int = 7, settlements: int = 25_000
                        ) -> Iterator[MergeCandidate]:
    """About ``mentions`` candidates (exactly that many), attack by attack."""
    rng = random.Random(seed)
    spots = places(settlements, rng)
    weights = list(itertools.accumulate(1.0 / (rank + 1) ** 0.9  # a heavy tail
                                        for rank in range(settlements)))
    made = 0
    attack = 0
    while made < mentions:
        attack += 1
        number = rng.choices(range(settlements), cum_weights=weights)[0]
        lat, lon, region = spots[number]
        day = WAR_START + timedelta(days=rng.randrange(DAYS))
        situation = rng.random() < 0.16
        if situation:
            end = day + timedelta(days=rng.randrange(7, 90))
            when = PartialDate.range(day, end)
            categories = frozenset({rng.choice(["siege", "displacement", "detention"])})
        else:
            when = PartialDate.parse_iso(day.isoformat())
            categories = frozenset(rng.sample(CATEGORIES[:3], rng.randint(1, 2)))
        targets = frozenset(rng.sample(TARGETS, rng.randint(0, 1)))
        toll = rng.randint(1, 40)
        reports = min(1 + int(rng.expovariate(1 / 2.3)), mentions - made)
        for report in range(reports):
            made += 1
            yield _report(rng, f"a{attack}r{report}", made, number, lat, lon, region, day,
                          when, situation, categories, targets, toll)


def _report(rng: random.Random, key: str, made: int, number: int, lat: float, lon: float,
            region: str, day: date, when: PartialDate, situation: bool,
            categories: frozenset[str], targets: frozenset[str], toll: int) -> MergeCandidate:
    published = day + timedelta(days=rng.choice([0, 0, 0, 1, 1, 2, 5]))
    basis = "situation" if situation else "event"
    stated = when
    if not situation and rng.random() < 0.2:
        basis, stated = "report", PartialDate.parse_iso(published.isoformat())
    candidate = MergeCandidate(
        key=key, lat=lat + rng.uniform(-0.005, 0.005), lon=lon + rng.uniform(-0.005, 0.005),
        precision="settlement", uncertainty_km=rng.uniform(2, 6), place_id=f"p{number}",
        admin1=region, situation=situation,
        categories=categories if rng.random() < 0.8 else frozenset({rng.choice(CATEGORIES)}),
        when=stated, basis=basis, reported=published, targets=targets,
        tolls=frozenset({toll if rng.random() < 0.7 else toll + rng.randint(1, 5)}),
        label=f"doc{made}", feature_kind="settlement",
        order=f"{published.isoformat()}T{made:08d}")
    shape = rng.random()
    if shape < 0.04:  # only the region: "shelling of the X region"
        return replace(candidate, precision="region", uncertainty_km=120.0, place_id=region,
                       feature_kind="region")
    if shape < 0.15:  # a street or a building inside the settlement
        return replace(candidate, precision="point", uncertainty_km=0.5,
                       place_id=f"{candidate.place_id}-pt{rng.randrange(5)}",
                       feature_kind="feature")
    return candidate
