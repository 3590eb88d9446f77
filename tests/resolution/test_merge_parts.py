"""Merging part by part gives the incidents of a merge of everything (resolution/stored.py).

Random cases in the proportions of a large one (benchmarks/synthetic_mentions.py) arrive in
random batches; after each batch only the parts whose blocks touch the new mentions are merged
again, and the result must equal a merge of every mention so far, incident for incident and
reason for reason. A broken Block.touches (mutated below) must fail it."""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from casebuilder.resolution import merge as merging
from casebuilder.resolution.merge import MergeCandidate, Parts, blocks_of, merge

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from synthetic_mentions import attacks_and_reports


def incidents(clusters):
    return sorted((tuple(m.key for m in c.members), tuple(c.reasons)) for c in clusters)


def merged_part_by_part(candidates, batches, rng):
    """The stored module's update, with the database left out: parts, blocks, merge again."""
    stored: dict[str, MergeCandidate] = {}
    part_of: dict[str, str] = {}
    result: dict[str, list] = {}  # part -> its incidents
    order = list(candidates)
    rng.shuffle(order)
    cuts = sorted(rng.sample(range(1, len(order)), batches - 1))
    for batch in (order[a:b] for a, b in zip([0, *cuts], [*cuts, len(order)], strict=True)):
        touched = set()
        for new in batch:
            mine = blocks_of(new)
            for key, old in stored.items():
                if any(a.touches(b) for a in mine for b in blocks_of(old)):
                    touched.add(part_of[key])
        group = [c for k, c in stored.items() if part_of[k] in touched] + batch
        parts = Parts()
        clusters = merge(group, parts=parts)
        for part in touched:
            del result[part]
        for c in group:
            stored[c.key] = c
            part_of[c.key] = parts.find(c.key)
        for cluster in clusters:
            result.setdefault(parts.find(cluster.members[0].key), []).append(cluster)
    return [c for clusters in result.values() for c in clusters]


def varied(seed: int, n: int) -> list[MergeCandidate]:
    """Synthetic mentions made denser, and some given a namesake place far away."""
    rng = random.Random(seed)
    out = []
    for c in attacks_and_reports(n, seed=seed, settlements=rng.choice([15, 40, 120])):
        if rng.random() < 0.08 and c.lat is not None and c.lon is not None:
            other = replace(c, lat=c.lat + rng.uniform(-2, 2), lon=c.lon + rng.uniform(-2, 2),
                            place_id=c.place_id + "-namesake")
            c = replace(c, alternatives=(other,))
        out.append(c)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_merging_part_by_part_equals_merging_everything(seed):
    rng = random.Random(seed)
    candidates = varied(seed, rng.randint(80, 260))
    batches = rng.randint(2, 12)
    assert incidents(merged_part_by_part(candidates, batches, rng)) == \
        incidents(merge(candidates))


def test_one_mention_at_a_time_equals_merging_everything():
    candidates = varied(99, 150)
    assert incidents(merged_part_by_part(candidates, len(candidates), random.Random(5))) == \
        incidents(merge(candidates))


TOUCHES = merging.Block.touches


def never(self, other):
    return False


def without_regions(self, other):
    return not (self.broad or other.broad) and TOUCHES(self, other)


def one_bucket_short(self, other):
    if self.buckets[1] == other.buckets[0] or other.buckets[1] == self.buckets[0]:
        return False
    return TOUCHES(self, other)


@pytest.mark.parametrize("touches", [never, without_regions, one_bucket_short])
def test_blocks_touching_less_than_mentions_meet_break_the_equality(monkeypatch, touches):
    """The test above bites: touching made stricter than meeting gives wrong updates."""
    monkeypatch.setattr(merging.Block, "touches", touches)
    failures = 0
    for seed in range(8):
        rng = random.Random(seed)
        candidates = varied(seed, rng.randint(80, 260))
        batches = rng.randint(2, 12)
        if incidents(merged_part_by_part(candidates, batches, rng)) != \
                incidents(merge(candidates)):
            failures += 1
    assert failures >= 4


def test_every_mention_that_met_is_in_one_part_with_what_it_met():
    candidates = varied(3, 300)
    parts = Parts()
    clusters = merge(candidates, parts=parts)
    for cluster in clusters:
        assert len({parts.find(m.key) for m in cluster.members}) == 1
    assert len(parts.groups()) < len(clusters)  # incidents that met share parts
