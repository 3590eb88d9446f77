"""Merging a million mentions in the proportions of a large case, against the old index.

Synthetic mentions (synthetic_mentions.py: attacks told by about three reports each, heavy-tailed
places, report-dated and region-level mentions, continuing situations) are merged by
``casebuilder.resolution.merge.merge``. On the first --reference mentions the merge is also run
with the index keys of before (one key per cell and day: INDEX_CELLS = INDEX_DAYS = INDEX_WEEKS
= 1) and both results are compared incident for incident and reason for reason; the ratio of
their times is printed beside the time of the whole run (target: under 60 s for 1,000,000).

    python benchmarks/merge_at_scale.py [--mentions 1000000] [--reference 100000]
"""

from __future__ import annotations

import argparse
import sys
import time

from synthetic_mentions import attacks_and_reports

from casebuilder.resolution import merge as merging


def timed_merge(mentions: list[merging.MergeCandidate]) -> tuple[float, list[merging.Cluster]]:
    start = time.perf_counter()
    clusters = merging.merge(mentions)
    return time.perf_counter() - start, clusters


def shape(clusters: list[merging.Cluster]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    return sorted((tuple(m.key for m in c.members), tuple(c.reasons)) for c in clusters)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mentions", type=int, default=1_000_000)
    parser.add_argument("--reference", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    merging.setting_targets()  # the vocabulary is loaded once, outside the timings

    first = list(attacks_and_reports(args.reference, seed=args.seed))
    now, clusters = timed_merge(first)
    keys = (merging.INDEX_CELLS, merging.INDEX_DAYS, merging.INDEX_WEEKS)
    merging.INDEX_CELLS = merging.INDEX_DAYS = merging.INDEX_WEEKS = 1
    before, old = timed_merge(first)
    merging.INDEX_CELLS, merging.INDEX_DAYS, merging.INDEX_WEEKS = keys
    same = shape(clusters) == shape(old)
    print(f"{len(first):>9,} mentions: {now:7.1f} s, with the old index keys {before:7.1f} s "
          f"(x{before / now:.2f}); {len(clusters):,} incidents, "
          f"{'identical' if same else 'DIFFERENT'} results")

    mentions = list(attacks_and_reports(args.mentions, seed=args.seed))
    took, clusters = timed_merge(mentions)
    members = sum(len(c.members) for c in clusters) / len(clusters)
    print(f"{len(mentions):>9,} mentions: {took:7.1f} s ({took / len(mentions) * 1e6:.0f} "
          f"µs a mention), {len(clusters):,} incidents of {members:.2f} mentions on average; "
          f"target 60 s: ratio {60 / took:.2f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
