"""The queue of likely duplicates: pairs of stored incidents that merging kept apart but that
lie close in place and time and read alike, ranked for an analyst to merge or dismiss.

Place in the flow: resolution, beside the stored incidents and the review decisions. Merging
(resolution/merge.py) joins only what its rules allow; this queue is for what they did not
join but a person might: two reports a few kilometres or a few days apart, one dated by its
publication. Each pair says why it is in the queue (distance, days apart, words shared), so
the ranking can be checked. A pair someone dismissed (a comment naming the other incident,
resolution/review.py dismiss_duplicate) leaves the queue.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from casebuilder.gazetteer.geo import distance_km

#: How far apart two incidents may be and still be offered: kilometres and days.
NEAR_KM = 25.0
NEAR_DAYS = 3
#: The weight of each closeness in the score (they add up to 1).
WEIGHTS = {"place": 0.4, "time": 0.3, "words": 0.3}


@dataclass(frozen=True)
class Pair:
    first: str
    second: str
    score: float  # 0 to 1, higher is likelier the same attack
    km: float | None  # None when either has no point
    days: int
    shared: tuple[str, ...]  # the telling words both lines hold

    def reasons(self) -> str:
        where = f"{self.km:.1f} km apart" if self.km is not None else "same place name"
        when = "same day" if self.days == 0 else f"{self.days} day{'s' * (self.days != 1)} apart"
        words = f"; share {', '.join(self.shared[:6])}" if self.shared else ""
        return f"{where}, {when}{words}"


def likely_duplicates(lines: Sequence[Mapping[str, Any]],
                      dismissed: Iterable[tuple[str, str]] = (), *, limit: int = 200
                      ) -> list[Pair]:
    """The likeliest ``limit`` pairs among listed incidents, best first."""
    gone = {tuple(sorted(p)) for p in dismissed}
    dated = sorted(((_day(ln), ln) for ln in lines if _day(ln) is not None),
                   key=lambda d: (d[0], str(d[1]["id"])))
    pairs = []
    for n, (day, line) in enumerate(dated):
        for later_day, other in dated[n + 1:]:
            assert day is not None and later_day is not None
            gap = (later_day - day).days
            if gap > NEAR_DAYS:
                break
            if line.get("situation") != other.get("situation"):
                continue
            if tuple(sorted((str(line["id"]), str(other["id"])))) in gone:
                continue
            pair = _pair(line, other, gap)
            if pair is not None:
                pairs.append(pair)
    pairs.sort(key=lambda p: (-p.score, p.first, p.second))
    return pairs[:limit]


def _pair(a: Mapping[str, Any], b: Mapping[str, Any], gap: int) -> Pair | None:
    km = _km(a, b)
    if km is None:
        if not a.get("place") or a.get("place") != b.get("place"):
            return None
        place = 1.0
    elif km > NEAR_KM:
        return None
    else:
        place = 1.0 - km / NEAR_KM
    words_a, words_b = _telling(a), _telling(b)
    shared = words_a & words_b
    union = words_a | words_b
    alike = len(shared) / len(union) if union else 0.0
    time = 1.0 - gap / (NEAR_DAYS + 1)
    score = WEIGHTS["place"] * place + WEIGHTS["time"] * time + WEIGHTS["words"] * alike
    first, second = sorted((str(a["id"]), str(b["id"])))
    return Pair(first, second, round(score, 4), None if km is None else round(km, 2), gap,
                tuple(sorted(shared)))


def _telling(line: Mapping[str, Any]) -> set[str]:
    """What happened and with what: the categories and the weapon's words. The place is
    already in the score as a distance, so its name is not counted a second time."""
    words = [*(line.get("categories") or []), *str(line.get("weapon") or "").lower().split()]
    return {w for w in words if len(w) > 2}


def _day(line: Mapping[str, Any]) -> date | None:
    first = line.get("date_start") or line.get("date_earliest")
    return date.fromisoformat(str(first)) if first else None


def _km(a: Mapping[str, Any], b: Mapping[str, Any]) -> float | None:
    if None in (a.get("lat"), a.get("lon"), b.get("lat"), b.get("lon")):
        return None
    return distance_km((float(a["lat"]), float(a["lon"])), (float(b["lat"]), float(b["lon"])))
