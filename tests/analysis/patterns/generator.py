"""Synthetic cases for the pattern analysis: random background incidents with PLANTED patterns.

:func:`make_case` draws background incidents uniformly over a country-sized box and a year
(weapons, targets, parties, times of day independent of each other and of place and time), then
plants series, double taps, repeated sites, a weapon-target regularity and a campaign onset, and
returns the records with the truth of what was planted. Everything comes from one seeded
random generator, so a seed always gives the same case. The parties are called "Party A" and
"Party B": nothing in the analysis may depend on which is which.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from casebuilder.analysis.patterns.records import IncidentRecord

START = date(2023, 1, 1)
DAYS = 365
BOX = (46.0, 52.0, 24.0, 38.0)  # lat min, lat max, lon min, lon max
WEAPONS = ("artillery", "Grad", "Iskander", "Kh-101", "Shahed drone", "glide bomb",
           "aerial bomb", "drone", "Smerch", "missile")
TARGETS = ("residential building", "hospital", "school", "market", "railway station",
           "energy infrastructure", "shop or mall", "cafe", "religious site", "building",
           "public space", "water infrastructure")
PARTIES = ("Party A", "Party B")
PLANTED_PAIR = ("glide bomb", "school")
CAMPAIGN_WEAPON = "Shahed drone"


@dataclass
class Truth:
    series: list[frozenset[str]] = field(default_factory=list)
    double_taps: list[tuple[str, str]] = field(default_factory=list)
    repeated_sites: list[frozenset[str]] = field(default_factory=list)
    weapon_target: list[tuple[str, str]] = field(default_factory=list)
    onsets: list[date] = field(default_factory=list)


class _Maker:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.count = 0
        self.records: list[IncidentRecord] = []

    def point(self) -> tuple[float, float]:
        return (self.rng.uniform(BOX[0], BOX[1]), self.rng.uniform(BOX[2], BOX[3]))

    def near(self, lat: float, lon: float, km: float) -> tuple[float, float]:
        r = km * math.sqrt(self.rng.random())
        a = self.rng.uniform(0, 2 * math.pi)
        return (lat + r * math.cos(a) / 111.2,
                lon + r * math.sin(a) / (111.2 * math.cos(math.radians(lat))))

    def time(self, share: float = 0.6) -> str | None:
        if self.rng.random() > share:
            return None
        minutes = self.rng.randrange(24 * 60)
        return f"{minutes // 60:02d}:{minutes % 60:02d}"

    def add(self, lat: float, lon: float, day: int, *, time: str | None = None,
            weapon: str | None = None, target: str | None = None,
            targets: tuple[str, ...] | None = None) -> str:
        self.count += 1
        rid = f"inc-{self.count:05d}"
        rng = self.rng
        self.records.append(IncidentRecord(
            id=rid, lat=lat, lon=lon, uncertainty_km=0.05, populated=rng.random() < 0.8,
            place=f"place-{self.count}", region=f"region-{int(lat)}",
            day=START + timedelta(days=day), time=time,
            categories=("explosive_attack",),
            weapons=(weapon or rng.choice(WEAPONS),),
            targets=targets if targets is not None else (target or rng.choice(TARGETS),),
            killed=rng.randrange(0, 6), injured=rng.randrange(0, 12),
            civilian=True, perpetrators=(rng.choice(PARTIES),), grade="fair",
            objective_claimed=rng.random() < 0.1))
        return rid


def make_case(seed: int, background: int = 400, *, planted: bool = True
              ) -> tuple[list[IncidentRecord], Truth]:
    maker = _Maker(seed)
    rng = maker.rng
    truth = Truth()
    for _ in range(background):
        lat, lon = maker.point()
        maker.add(lat, lon, rng.randrange(DAYS), time=maker.time())
    if not planted:
        return _shuffled(maker, rng), truth
    for _ in range(3):  # series: 8-12 strikes within 2 km over 6 days
        lat, lon = maker.point()
        first = rng.randrange(DAYS - 10)
        ids = []
        for _ in range(rng.randint(8, 12)):
            a, b = maker.near(lat, lon, 2.0)
            ids.append(maker.add(a, b, first + rng.randrange(6), time=maker.time()))
        truth.series.append(frozenset(ids))
    for _ in range(4):  # double taps: a second strike 30-180 minutes later hits rescuers
        lat, lon = maker.point()
        day = rng.randrange(DAYS)
        start = rng.randrange(6 * 60, 20 * 60)
        later = start + rng.randrange(30, 180)
        weapon = rng.choice(WEAPONS)
        one = maker.add(lat, lon, day, time=f"{start // 60:02d}:{start % 60:02d}",
                        weapon=weapon)
        a, b = maker.near(lat, lon, 0.05)
        two = maker.add(a, b, day, time=f"{later // 60:02d}:{later % 60:02d}", weapon=weapon,
                        targets=("residential building", "rescuers"))
        truth.double_taps.append((one, two))
    for _ in range(3):  # repeated sites: 4 strikes within 100 m, 7-25 days apart
        lat, lon = maker.point()
        day = rng.randrange(DAYS - 100)
        ids = []
        for _ in range(4):
            a, b = maker.near(lat, lon, 0.1)
            ids.append(maker.add(a, b, day, time=maker.time()))
            day += rng.randint(7, 25)
        truth.repeated_sites.append(frozenset(ids))
    for _ in range(25):  # the same weapon against the same kind of target, all year
        lat, lon = maker.point()
        maker.add(lat, lon, rng.randrange(DAYS), time=maker.time(), weapon=PLANTED_PAIR[0],
                  target=PLANTED_PAIR[1])
    truth.weapon_target.append(PLANTED_PAIR)
    onset = rng.randrange(150, 240)  # a campaign: 1.5 more drone strikes a day from onset on
    for day in range(onset, DAYS):
        for _ in range(_poisson(rng, 1.5)):
            lat, lon = maker.point()
            maker.add(lat, lon, day, time=maker.time(), weapon=CAMPAIGN_WEAPON)
    truth.onsets.append(START + timedelta(days=onset))
    return _shuffled(maker, rng), truth


def _poisson(rng: random.Random, rate: float) -> int:
    limit, k, product = math.exp(-rate), 0, rng.random()
    while product > limit:
        k += 1
        product *= rng.random()
    return k


def _shuffled(maker: _Maker, rng: random.Random) -> list[IncidentRecord]:
    records = list(maker.records)
    rng.shuffle(records)  # the analysis must not depend on the order records come in
    return records


def swap_parties(records: list[IncidentRecord]) -> list[IncidentRecord]:
    """The same case with the claimed perpetrators swapped (A <-> B)."""
    other = {PARTIES[0]: PARTIES[1], PARTIES[1]: PARTIES[0]}
    return [replace(r, perpetrators=tuple(other.get(p, p) for p in r.perpetrators))
            for r in records]
