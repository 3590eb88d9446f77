"""Merging mentions that report the same attack into one incident, and saying why.

Mentions are taken in the order they were reported. Each one joins the first earlier incident it
is compatible with, or starts a new one. Compatible means all of:

* **place**: the two places are the same or one lies within the other's reach (a station
  inside its city; a district inside its city), allowing for how coarsely each was placed; a
  settlement a dataset placed by its coordinates (no gazetteer id) is the same settlement as
  one whose radius holds its point; two
  settlements only when they are neighbours (edges within profiles.toml [merge]
  ``neighbours_km``: a village and the next, a city and its suburb) and the reports give the
  same single day and the same toll or specific target;
* **kind**: both are single attacks or both are continuing situations (a siege stays apart from
  the theatre strike in the same city);
* **date**: their dates overlap; a mention dated only by its report joins an attack from at
  most two days before the report; two undated mentions never join on place alone;
* **what**: they share a category, or a specific target type ("bread queue"), or the same
  stated toll, or both are crimes dated by the occupation of their place (killings and
  detention found after a retaking), or one is a continuing situation's tally with no
  category of its own ("157 civilians have been killed", in a report that tells no attack)
  and the other a continuing situation; and they do not name two different specific
  targets.

A mention placed only at region or country level ("shelling of the Kharkiv region") is placed
after all finer ones, so the result never depends on when the finer reports arrived: it joins
the one incident the finer mentions made that fits it, if exactly one does; the others form
incidents among themselves by the same rule.

Comparisons only look at incidents in the same or neighbouring map cells, so merging grows
about linearly with the number of mentions (see benchmarks/merge_scaling.py). Every join records
a reason a person can check; ``casebuilder incident show`` prints them.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from functools import cache, lru_cache

from casebuilder.extraction.vocabulary import shipped_vocabulary
from casebuilder.gazetteer import distance_km
from casebuilder.gazetteer.geo import EARTH_RADIUS_KM
from casebuilder.gazetteer.model import precision_rank
from casebuilder.model.partial_date import PartialDate
from casebuilder.resolution.profiles import merge_thresholds

CELL_DEGREES = 0.1  # about 11 km north-south, 7 km east-west at Ukraine's latitudes
REPORT_SLACK_DAYS = 2
NEIGHBOURS = "neighbouring settlements"
COARSE = frozenset({"region", "country"})  # placed only at region or country level
_REACH_KM = {"point": 3.0, "district": 6.0, "settlement": 12.0, "region": 150.0,
             "country": 1500.0}


@dataclass(frozen=True)
class MergeCandidate:
    """The facts merging looks at, so it can run on stored mentions or on synthetic ones."""

    key: str
    lat: float | None
    lon: float | None
    precision: str
    uncertainty_km: float
    place_id: str
    admin1: str
    situation: bool
    categories: frozenset[str]
    when: PartialDate | None
    basis: str  # event | situation | report | ""
    reported: date | None
    targets: frozenset[str] = frozenset()
    tolls: frozenset[int] = frozenset()
    label: str = ""  # how to name it in a reason: "2022-04-08-kramatorsk-2.txt"
    feature_kind: str = ""  # settlement, city_district, feature, region, country
    order: str = ""  # report time, for the order of processing
    #: The same mention placed at each other place of its name that its document did not tell
    #: apart from this one ("Hroza" with no region: two villages); see merge().
    alternatives: tuple[MergeCandidate, ...] = ()
    label_place: str = ""  # the place's name, for reasons
    #: Its crimes were dated by the occupation of its place (an ``occupation-period`` claim).
    occupation: bool = False
    #: A continuing situation told only by a running tally, with no category of its own: it
    #: lends its figures to the situation at its place and time.
    tally: bool = False

    @property
    def reach_km(self) -> float:
        return max(_REACH_KM.get(self.precision, 12.0), self.uncertainty_km)


@dataclass
class Cluster:
    members: list[MergeCandidate] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    apart: set[str] = field(default_factory=set)  # mention keys analysts kept out of it
    _anchor: MergeCandidate | None = None

    @property
    def anchor(self) -> MergeCandidate:
        """The member whose place and date are the most precise."""
        if self._anchor is None:  # members only ever grow, through add()
            self._anchor = min(self.members, key=_anchor_rank)
        return self._anchor

    def add(self, member: MergeCandidate) -> None:
        self.members.append(member)
        if self._anchor is not None and _anchor_rank(member) < _anchor_rank(self._anchor):
            self._anchor = member


@cache
def setting_targets() -> frozenset[str]:
    """Target types that may only be an attack's setting, so naming different ones never keeps
    two reports apart (targets.toml ``setting``)."""
    return frozenset(t.name for t in shipped_vocabulary().targets.values() if t.setting)


def _anchor_rank(m: MergeCandidate) -> tuple[float, int, str]:
    # the gazetteer's one rule (a village placed at its hromada's centre is coarser than a
    # located town)
    rank = precision_rank(m.precision, m.uncertainty_km)
    return (rank, m.when.days if m.when else 10_000, m.order)


def _cell(lat: float, lon: float) -> tuple[int, int]:
    return (math.floor(lat / CELL_DEGREES), math.floor(lon / CELL_DEGREES))


def _steps(reach_km: float) -> int | None:
    """How many cells either way a place's reach covers; None for a region or a country,
    whose incidents are looked up through the region index."""
    steps = max(1, math.ceil(reach_km / 7.0))
    return None if steps > 20 else steps


#: The index files an incident under coarse keys (INDEX_CELLS cells a side, INDEX_DAYS days, or
#: INDEX_WEEKS weeks for situations) covering the cells and days of its reach, and a mention
#: looks under the coarse keys covering its own. Any two whose cells and days meet share a key,
#: so nothing compatible is missed; a coarse key holds a few more incidents to compare, but a
#: mention touches about six keys instead of the seventy-five of one key per cell and day.
#: Four cells a side: a settlement's reach (12 km) spans five cells, which always fall in
#: exactly two coarse rows and two coarse columns of four (with three, a third of them span
#: three); a million synthetic mentions merged about a tenth faster than with three.
INDEX_CELLS = 4
INDEX_DAYS = 4
INDEX_WEEKS = 4


@lru_cache(maxsize=4096)  # a mention looks, then is filed: the same cells twice in a row
def _near_cells(lat: float, lon: float, reach_km: float) -> Sequence[tuple[int, int]]:
    """The index's coarse cells covering the cells within ``reach_km`` of a point."""
    steps = _steps(reach_km)
    if steps is None:
        return ()
    row, col = _cell(lat, lon)
    rows = range((row - steps) // INDEX_CELLS, (row + steps) // INDEX_CELLS + 1)
    cols = range((col - steps) // INDEX_CELLS, (col + steps) // INDEX_CELLS + 1)
    return [(r, c) for r in rows for c in cols]


def place_match(a: MergeCandidate, b: MergeCandidate, *, explain: bool = True
                ) -> tuple[bool, str]:
    """Whether the two places may be one attack's, and why (``explain=False``: the answer
    alone, with "" or NEIGHBOURS for a reason, as merge() writes out only the reasons of
    joins)."""
    if a.lat is None or b.lat is None or a.lon is None or b.lon is None:
        return False, "one of them has no place"
    if a.place_id and a.place_id == b.place_id:
        return True, "same place"
    if a.feature_kind == b.feature_kind == "settlement":
        edges = max(merge_thresholds().neighbours_km + a.uncertainty_km + b.uncertainty_km,
                    a.uncertainty_km, b.uncertainty_km)
        if not explain and _surely_farther(a, b, edges):
            return False, ""  # neither of the two tests below can pass
        km = distance_km((a.lat, a.lon), (b.lat, b.lon))
        # a settlement placed by a dataset's coordinates, not the gazetteer: the same
        # settlement when its point lies within the other's radius
        if not (a.place_id and b.place_id) and km <= max(a.uncertainty_km, b.uncertainty_km):
            return True, f"same settlement, {km:.1f} km apart" if explain else ""
        # a village is not inside the next town; but one attack on a village and its
        # neighbour, or a city and its suburb, is told at either (see neighbours_match)
        gap = km - a.uncertainty_km - b.uncertainty_km
        if gap <= merge_thresholds().neighbours_km:
            return True, (f"{NEIGHBOURS}, {max(gap, 0.0):.1f} km apart at their edges"
                          if explain else NEIGHBOURS)
        return False, "two different settlements"
    coarse = {a.precision, b.precision} & {"region", "country"}
    if coarse:
        if a.precision == b.precision:
            return False, "two different regions"
        if a.admin1 and a.admin1 == b.admin1:
            return True, f"{a.admin1} contains the other place" if explain else ""
        return False, "the region does not contain the other place"
    reach = max(a.reach_km if a.precision != "point" else 0.0,
                b.reach_km if b.precision != "point" else 0.0, 1.0)
    if not explain and _surely_farther(a, b, reach):
        return False, ""
    km = distance_km((a.lat, a.lon), (b.lat, b.lon))
    if km <= reach:
        return True, f"{km:.1f} km apart, within {reach:.0f} km" if explain else ""
    return False, f"{km:.1f} km apart" if explain else ""


#: Kilometres in a degree of latitude: two points are at least their difference in latitude
#: times this apart (the great circle is never shorter than the meridian's arc), less a
#: thousandth for rounding.
_KM_PER_DEGREE_LATITUDE = EARTH_RADIUS_KM * math.pi / 180 * 0.999


def _surely_farther(a: MergeCandidate, b: MergeCandidate, km: float) -> bool:
    """Whether the two points are certainly more than ``km`` apart, from their latitudes
    alone (most places the index shows a mention lie north or south of it)."""
    assert a.lat is not None and b.lat is not None
    return abs(a.lat - b.lat) * _KM_PER_DEGREE_LATITUDE > km


def date_match(a: MergeCandidate, b: MergeCandidate, *, explain: bool = True
               ) -> tuple[bool, str]:
    if a.situation and b.situation:
        if a.when is None or b.when is None or a.when.overlaps(b.when):
            return True, "both continuing at overlapping times"
        return False, "situations at different times"
    if a.when is None and b.when is None:
        return False, "neither is dated"
    if a.basis == "report" or b.basis == "report" or a.when is None or b.when is None:
        # An attack reported on day R happened on or shortly before R.
        dated, reported = (b, a) if a.basis == "report" or a.when is None else (a, b)
        reported_on = reported.when.end if reported.when is not None else reported.reported
        if dated.when is None or reported_on is None:
            return False, "neither is dated"
        gap = (reported_on - dated.when.start).days
        if 0 <= gap <= REPORT_SLACK_DAYS + dated.when.days - 1:
            return True, (f"reported {reported_on.isoformat()}, {gap} day(s) after "
                          f"{dated.when.iso()}") if explain else ""
        return False, (f"reported {reported_on.isoformat()}, not just after "
                       f"{dated.when.iso()}") if explain else ""
    if a.when.overlaps(b.when):
        if not explain:
            return True, ""
        shared = "same day" if a.when.days == b.when.days == 1 and a.when == b.when \
            else "overlapping dates"
        return True, f"{shared} ({a.when.iso()} / {b.when.iso()})"
    return False, f"different dates ({a.when.iso()} / {b.when.iso()})" if explain else ""


def what_match(a: MergeCandidate, b: MergeCandidate, *, explain: bool = True
               ) -> tuple[bool, str]:
    settings = setting_targets()
    specific_a, specific_b = a.targets - settings, b.targets - settings
    # A siege touches many objects; two attacks on different specific objects are two attacks.
    if specific_a and specific_b and not specific_a & specific_b and not (
            a.situation and b.situation):
        return False, (f"different targets ({', '.join(sorted(specific_a))} / "
                       f"{', '.join(sorted(specific_b))})") if explain else ""
    shared = a.categories & b.categories
    if shared:
        return True, f"shared category {', '.join(sorted(shared))}" if explain else ""
    if a.occupation and b.occupation:
        # killings, torture and detention found after one retaking are told of in many ways
        return True, "crimes of the same occupation"
    if a.situation and b.situation and (a.tally or b.tally):
        # "157 civilians have been killed" in a report that tells no harm of its own kind
        return True, "a tally of the continuing situation at the place"
    if specific_a & specific_b:
        return True, (f"same target ({', '.join(sorted(specific_a & specific_b))})"
                      if explain else "")
    if a.tolls & b.tolls:
        return True, (f"same toll ({', '.join(map(str, sorted(a.tolls & b.tolls)))})"
                      if explain else "")
    return False, "no shared category, target or toll"


def neighbours_match(a: MergeCandidate, b: MergeCandidate, *, explain: bool = True
                     ) -> tuple[bool, str]:
    """Two neighbouring settlements are one attack's places only when the reports give the
    same single day and the same toll or the same specific target."""
    if a.when is None or b.when is None or a.when != b.when or a.when.days != 1 or \
            "report" in {a.basis, b.basis}:
        return False, "neighbouring settlements on different or unstated days"
    settings = setting_targets()
    if a.tolls & b.tolls:
        return True, (f"same toll ({', '.join(map(str, sorted(a.tolls & b.tolls)))})"
                      if explain else "")
    shared = (a.targets - settings) & (b.targets - settings)
    if shared:
        return True, f"same target ({', '.join(sorted(shared))})" if explain else ""
    return False, "neighbouring settlements with no toll or target in common"


def compatible(candidate: MergeCandidate, cluster: Cluster,
               anchor: MergeCandidate | None = None, *, explain: bool = True
               ) -> tuple[bool, str]:
    """Whether a mention may join an incident, compared with the incident's most precise member
    (or with ``anchor``, that member as it was before region-level mentions were placed).
    ``explain=False`` gives the same answer without writing out why (merge() asks for the
    reasons of the joins alone: most comparisons are refusals, whose reasons nobody reads)."""
    if candidate.key in cluster.apart:
        return False, "kept apart by an analyst"
    anchor = anchor or cluster.anchor
    if candidate.situation != anchor.situation:
        return False, "one is a continuing situation, the other a single attack"
    # The date is tried first because it turns most candidates away cheaply (a city struck
    # every day); the reasons of a join keep their order.
    # Two single attacks dated by their events on days apart: date_match's answer, without
    # writing out why.
    a, b = candidate.when, anchor.when
    if a is not None and b is not None and not candidate.situation and \
            candidate.basis != "report" and anchor.basis != "report" and (
                a.end < b.start or b.end < a.start):
        return False, "different dates"
    dated, when = date_match(candidate, anchor, explain=explain)
    if not dated:
        return False, when
    placed, where = place_match(candidate, anchor, explain=explain)
    if not placed:
        return False, where
    shares, what = what_match(candidate, anchor, explain=explain)
    if not shares:
        return False, what
    reasons = [where, when, what]
    if where.startswith(NEIGHBOURS):
        close, why = neighbours_match(candidate, anchor, explain=explain)
        if not close:
            return False, why
        reasons.append(why)
    return True, "; ".join(reasons) if explain else ""


def _day_window(candidate: MergeCandidate, *, looking: bool = False
                ) -> tuple[int, int] | None:
    """The days (as ordinals) under which a mention is filed and looked up, or None if it is
    undated. A dated attack covers its dates and the REPORT_SLACK_DAYS after them, so that a
    mention dated only by its report (filed under that one day) meets it from either side."""
    if candidate.when is not None:
        lo, hi = candidate.when.start.toordinal(), candidate.when.end.toordinal()
        if candidate.basis == "report":
            # Filed under its report day; looks back over the slack for other such mentions.
            return (hi - REPORT_SLACK_DAYS, hi) if looking else (hi, hi)
        if candidate.situation:
            return lo, hi
        return lo, hi + REPORT_SLACK_DAYS
    if candidate.reported is not None:
        day = candidate.reported.toordinal()
        return (day - REPORT_SLACK_DAYS, day) if looking else (day, day)
    return None


def _buckets(candidate: MergeCandidate, window: tuple[int, int]) -> range:
    """Spans of INDEX_DAYS days for single attacks; of INDEX_WEEKS weeks for continuing
    situations, which run for long spans and are only ever compared with each other."""
    span = 7 * INDEX_WEEKS if candidate.situation else INDEX_DAYS
    return range(window[0] // span, window[1] // span + 1)


@dataclass(frozen=True)
class Block:
    """Where in the index a mention (one of its places) is filed and looks: its kind, the
    coarse cells (None for a region or a country), its region and the span of buckets of both
    its filing and its looking. Two mentions whose blocks do not touch never meet in a merge,
    which is what lets stored incidents be updated part by part (resolution/stored.py)."""

    situation: bool
    broad: bool  # placed only at region or country level: looks through the region index
    admin1: str
    rows: tuple[int, int] | None
    cols: tuple[int, int] | None
    buckets: tuple[int, int]

    def touches(self, other: Block) -> bool:
        if self.situation != other.situation or self.buckets[1] < other.buckets[0] or \
                other.buckets[1] < self.buckets[0]:
            return False
        if (self.broad or other.broad) and self.admin1 and self.admin1 == other.admin1:
            return True
        return (self.rows is not None and other.rows is not None and self.cols is not None
                and other.cols is not None and self.rows[0] <= other.rows[1]
                and other.rows[0] <= self.rows[1] and self.cols[0] <= other.cols[1]
                and other.cols[0] <= self.cols[1])


def blocks_of(candidate: MergeCandidate) -> list[Block]:
    """The blocks of a mention and of each other place its name may mean."""
    out = []
    for option in (candidate, *candidate.alternatives):
        filed, looking = _day_window(option), _day_window(option, looking=True)
        if filed is None or looking is None or option.lat is None or option.lon is None:
            continue
        spans = [*_buckets(option, filed), *_buckets(option, looking)]
        cells = list(_near_cells(option.lat, option.lon, option.reach_km))
        broad = option.precision in COARSE
        rows = cols = None
        if cells and not broad:
            rows = (min(r for r, _ in cells), max(r for r, _ in cells))
            cols = (min(c for _, c in cells), max(c for _, c in cells))
        out.append(Block(option.situation, broad, option.admin1, rows, cols,
                         (min(spans), max(spans))))
    return out


class Parts:
    """Which mentions met in a merge: a mention and every incident the index showed it are in
    one part. A merge of one part's mentions alone gives that part's incidents exactly as the
    merge of the whole case does (the index shows a mention nothing outside its part)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, key: str) -> str:
        parent = self.parent
        root = parent.setdefault(key, key)
        while root != parent[root]:
            root = parent[root]
        while key != root:  # path compression keeps the trees flat
            parent[key], key = root, parent[key]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def groups(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for key in self.parent:
            out.setdefault(self.find(key), []).append(key)
        return out


@dataclass
class MergeIndex:
    """Open incidents by kind, map cell and day (or week, for situations), and by region, so
    each mention is compared only with incidents of its kind near it in space and time:
    merging then grows about linearly with the number of mentions."""

    by_cell: dict[tuple[bool, int, int, int], list[int]] = field(default_factory=dict)
    by_region: dict[tuple[bool, str, int], list[int]] = field(default_factory=dict)

    def add(self, index: int, candidate: MergeCandidate) -> None:
        """File an incident under a mention's places: each place its name may mean, so that
        the parts (Parts) a mention's incident meets never depend on which place it took."""
        for option in (candidate, *candidate.alternatives):
            self._add(index, option)

    def _add(self, index: int, candidate: MergeCandidate) -> None:
        window = _day_window(candidate)
        if window is None or candidate.lat is None or candidate.lon is None:
            return  # undated or unplaced: nothing can join it by the rules
        kind = candidate.situation
        buckets = _buckets(candidate, window)
        if candidate.admin1:
            for bucket in buckets:
                _file(self.by_region.setdefault((kind, candidate.admin1, bucket), []), index)
        if candidate.precision in {"region", "country"}:
            return
        # Registered over its own reach, so a more precise mention nearby finds it even though
        # that mention only looks as far as its own, smaller reach.
        for row, col in _near_cells(candidate.lat, candidate.lon, candidate.reach_km):
            for bucket in buckets:
                _file(self.by_cell.setdefault((kind, row, col, bucket), []), index)

    def near(self, candidate: MergeCandidate) -> list[int]:
        window = _day_window(candidate, looking=True)
        if window is None or candidate.lat is None or candidate.lon is None:
            return []
        kind = candidate.situation
        buckets = _buckets(candidate, window)
        found: set[int] = set()
        if candidate.precision in {"region", "country"}:
            for bucket in buckets:
                found.update(self.by_region.get((kind, candidate.admin1, bucket), ()))
            return sorted(found)
        for row, col in _near_cells(candidate.lat, candidate.lon, candidate.reach_km):
            for bucket in buckets:
                found.update(self.by_cell.get((kind, row, col, bucket), ()))
        return sorted(found)


def _file(incidents: list[int], index: int) -> None:
    if not incidents or incidents[-1] != index:  # a second report of the last one: filed
        incidents.append(index)


def merge(candidates: Sequence[MergeCandidate],
          together: Sequence[Sequence[str]] = (),
          apart: Sequence[tuple[str, str]] = (),
          *, exhaustive: bool = False, parts: Parts | None = None) -> list[Cluster]:
    """Cluster mentions into incidents. ``together`` lists groups of mention keys an analyst
    merged; ``apart`` lists pairs an analyst split; both are respected before any rule.
    ``exhaustive`` compares every mention with every incident (for tests of the index).
    ``parts``, if given, learns which mentions met (see :class:`Parts`)."""
    with _no_cycle_collection():
        return _merge(candidates, together, apart, exhaustive=exhaustive, parts=parts)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while merging. A merge makes millions of small objects
    (incidents, index lists, reasons) and no reference cycles; each full collection walks every
    object alive, so at a million mentions they took a third of the merge
    (benchmarks/merge_at_scale.py). Reference counting still frees everything as usual."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _merge(candidates: Sequence[MergeCandidate], together: Sequence[Sequence[str]],
           apart: Sequence[tuple[str, str]], *, exhaustive: bool, parts: Parts | None
           ) -> list[Cluster]:
    met = _Links(active=parts is not None)
    by_key = {c.key: c for c in candidates}
    forced: dict[str, int] = {}
    clusters: list[Cluster] = []
    index = MergeIndex()
    keep_apart: dict[str, set[str]] = {}
    for a, b in apart:
        keep_apart.setdefault(a, set()).add(b)
        keep_apart.setdefault(b, set()).add(a)
    for group in together:
        members = [by_key[k] for k in group if k in by_key and k not in forced]
        if not members:
            continue
        cluster = Cluster(members=list(members),
                          reasons=[f"{m.label}: merged by an analyst" for m in members])
        clusters.append(cluster)
        for m in members:
            forced[m.key] = len(clusters) - 1
            index.add(len(clusters) - 1, m)
        met.placed(len(clusters) - 1)
    for position in sorted(forced.values()):
        for m in clusters[position].members:
            clusters[position].apart |= keep_apart.get(m.key, set())
    ordered = sorted((c for c in candidates if c.key not in forced),
                     key=lambda c: (c.order, c.key))
    fine = [c for c in ordered if c.precision not in COARSE and not c.alternatives]
    undecided = [c for c in ordered if c.precision not in COARSE and c.alternatives]
    broad = [c for c in ordered if c.precision in COARSE]
    for candidate in fine:
        _join_first_or_start(clusters, index, candidate, keep_apart, met,
                             exhaustive=exhaustive)
    # A mention whose place name fits several places its document did not tell apart comes
    # next: it joins an incident at one of those places if exactly one fits (another report
    # named the region), whatever the order the reports came in; otherwise it is placed at the
    # gazetteer's first choice as any other mention.
    decided = len(clusters)
    for candidate in undecided:
        fitting: list[tuple[int, str, MergeCandidate]] = []
        fitted: set[int] = set()
        for option in (candidate, *candidate.alternatives):
            nearby = range(decided) if exhaustive else [
                n for n in index.near(option) if n < decided]
            _meet(met, nearby)
            for number in nearby:
                if number not in fitted and compatible(option, clusters[number],
                                                       explain=False)[0]:
                    fitted.add(number)
                    fitting.append((number, compatible(option, clusters[number])[1], option))
        if len(fitting) == 1:
            number, why, option = fitting[0]
            if option is not candidate:
                name = option.label_place or "the place"
                why = (f"{why}; its document names {name} without saying which of "
                       f"{len(candidate.alternatives) + 1} places of that name, and only this "
                       "one fits")
            _join(clusters, index, number, option, why, keep_apart, met)
            index.add(number, candidate)  # filed under all its places, as any other
        else:
            _join_first_or_start(clusters, index, candidate, keep_apart, met,
                                 exhaustive=exhaustive)
    # Region- and country-level mentions are placed after every finer one, so whether
    # "shelling of the Kharkiv region killed four" joins an incident never depends on when the
    # finer reports arrived. Each is compared with the incidents the finer mentions made (as
    # they stand before any of these joins) and joins only when exactly one fits: it must not
    # pick a town at random.
    settled = len(clusters)
    anchors = [c.anchor for c in clusters] if broad else []
    left: list[MergeCandidate] = []
    for candidate in broad:
        nearby = range(settled) if exhaustive else [
            n for n in index.near(candidate) if n < settled]
        _meet(met, nearby)
        fits = [(number, compatible(candidate, clusters[number], anchors[number])[1])
                for number in nearby
                if compatible(candidate, clusters[number], anchors[number], explain=False)[0]]
        if len(fits) == 1:
            _join(clusters, index, fits[0][0], candidate, fits[0][1], keep_apart, met)
        else:
            met.hold(candidate.key)
            left.append(candidate)
    # The rest (none fitted, or several did) form incidents among themselves, by the same rule.
    own = len(clusters)
    for candidate in left:
        nearby = range(own, len(clusters)) if exhaustive else [
            n for n in index.near(candidate) if n >= own]
        met.resume(candidate.key)
        _meet(met, nearby)
        fits = [(number, compatible(candidate, clusters[number])[1]) for number in nearby
                if compatible(candidate, clusters[number], explain=False)[0]]
        if len(fits) == 1:
            _join(clusters, index, fits[0][0], candidate, fits[0][1], keep_apart, met)
        else:
            _start(clusters, index, candidate, keep_apart, met)
    if parts is not None:
        met.into(parts, clusters)
    return clusters


class _Links:
    """Which incidents of one merge met, by their numbers: the working form of Parts. Kept
    only when ``active`` (a merge asked for its parts): it costs a tenth of the merge."""

    def __init__(self, *, active: bool) -> None:
        self.active = active
        self.parent: list[int] = []
        self.waiting: list[int] = []  # what the mention being placed met, until it is placed
        self.held: dict[str, list[int]] = {}

    def root(self, number: int) -> int:
        parent = self.parent
        while parent[number] != number:
            parent[number] = parent[parent[number]]  # path halving
            number = parent[number]
        return number

    def placed(self, number: int) -> None:
        """The mention just met ``self.waiting`` and is now in incident ``number``."""
        if not self.active:
            return
        while len(self.parent) <= number:
            self.parent.append(len(self.parent))
        root = self.root(number)
        for other in self.waiting:
            other = self.root(other)
            if other != root:
                self.parent[max(other, root)] = min(other, root)
                root = min(other, root)
        self.waiting = []

    def hold(self, key: str) -> None:
        """The mention met these but is placed later (a region-level mention none fitted)."""
        self.held[key], self.waiting = self.waiting, []

    def resume(self, key: str) -> None:
        self.waiting = self.held.pop(key, [])

    def into(self, parts: Parts, clusters: Sequence[Cluster]) -> None:
        for number, cluster in enumerate(clusters):
            first = clusters[self.root(number)].members[0].key
            for m in cluster.members:
                parts.union(first, m.key)


def _meet(links: _Links, nearby: Iterable[int]) -> None:
    if links.active:
        links.waiting.extend(nearby)


def _join_first_or_start(clusters: list[Cluster], index: MergeIndex, candidate: MergeCandidate,
                         keep_apart: dict[str, set[str]], links: _Links, *,
                         exhaustive: bool) -> None:
    """Join the first compatible incident, in report order, or start a new one."""
    nearby = range(len(clusters)) if exhaustive else index.near(candidate)
    _meet(links, nearby)
    for number in nearby:
        if compatible(candidate, clusters[number], explain=False)[0]:
            why = compatible(candidate, clusters[number])[1]
            _join(clusters, index, number, candidate, why, keep_apart, links)
            return
    _start(clusters, index, candidate, keep_apart, links)


def _join(clusters: list[Cluster], index: MergeIndex, number: int, candidate: MergeCandidate,
          why: str, keep_apart: dict[str, set[str]], links: _Links) -> None:
    cluster = clusters[number]
    cluster.add(candidate)
    cluster.reasons.append(f"{candidate.label}: joined ({why})")
    cluster.apart |= keep_apart.get(candidate.key, set())
    index.add(number, candidate)
    links.placed(number)


def _start(clusters: list[Cluster], index: MergeIndex, candidate: MergeCandidate,
           keep_apart: dict[str, set[str]], links: _Links) -> None:
    clusters.append(Cluster(members=[candidate], reasons=[f"{candidate.label}: first report"],
                            apart=set(keep_apart.get(candidate.key, set()))))
    index.add(len(clusters) - 1, candidate)
    links.placed(len(clusters) - 1)
