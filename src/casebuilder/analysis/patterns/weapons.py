"""The weapons table (weapons.toml): public figures on each weapon, and whether its effects
cover a wide area by the rule of parameters.toml ``[wide_area]``.

A weapon is looked up by any of its names, without regard to case. :func:`wide_area` returns
the verdict and the reason in words ("warhead 480 kg >= 100 kg"), or, when none of the
weapon's figures decides, the extraction vocabulary's ``wide_area`` flag, saying so.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from casebuilder.analysis.patterns.parameters import PatternParametersError, WideAreaParameters

TABLE = Path(__file__).with_name("weapons.toml")

_FIELDS = {"names", "warhead_kg", "cep_m", "guided", "salvo", "submunitions", "figure",
           "source", "checked"}


@dataclass(frozen=True)
class WeaponFigures:
    name: str
    names: tuple[str, ...]
    warhead_kg: float | None
    cep_m: float | None
    guided: bool | None
    salvo: int | None
    submunitions: int | None
    figure: str
    source: str
    checked: bool


@dataclass(frozen=True)
class WideAreaVerdict:
    weapon: str  # the name as the incident gives it
    entry: str | None  # the table's entry, None: not in the table
    wide_area: bool
    reason: str


def _number(name: str, key: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise PatternParametersError(f"weapons.toml [{name}] {key}: expected a number >= 0")
    return float(value)


def parse_table(data: dict[str, Any]) -> dict[str, WeaponFigures]:
    """The table's entries by lower-case name; refuses unknown keys, a missing figure or
    source, and one name given to two entries."""
    by_name: dict[str, WeaponFigures] = {}
    for name, entry in data.items():
        if not isinstance(entry, dict):
            raise PatternParametersError(f"weapons.toml [{name}]: expected a table")
        unknown = sorted(set(entry) - _FIELDS)
        if unknown:
            raise PatternParametersError(f"weapons.toml [{name}]: unknown key(s) {unknown}")
        names = entry.get("names")
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n
                                                               for n in names):
            raise PatternParametersError(f"weapons.toml [{name}]: names must list names")
        for key in ("figure", "source"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise PatternParametersError(f"weapons.toml [{name}]: {key} is missing")
        guided = entry.get("guided")
        if guided is not None and not isinstance(guided, bool):
            raise PatternParametersError(f"weapons.toml [{name}] guided: true or false")
        salvo = _number(name, "salvo", entry.get("salvo"))
        sub = _number(name, "submunitions", entry.get("submunitions"))
        figures = WeaponFigures(
            name=name, names=tuple(names), warhead_kg=_number(name, "warhead_kg",
                                                               entry.get("warhead_kg")),
            cep_m=_number(name, "cep_m", entry.get("cep_m")), guided=guided,
            salvo=int(salvo) if salvo is not None else None,
            submunitions=int(sub) if sub is not None else None,
            figure=str(entry["figure"]), source=str(entry["source"]),
            checked=bool(entry.get("checked", False)))
        for n in names:
            if n.lower() in by_name:
                raise PatternParametersError(
                    f"weapons.toml: name {n!r} is given to [{by_name[n.lower()].name}] and "
                    f"[{name}]")
            by_name[n.lower()] = figures
    return by_name


@cache
def weapons_table() -> dict[str, WeaponFigures]:
    return parse_table(tomllib.loads(TABLE.read_text(encoding="utf-8")))


@cache
def _vocabulary_flags() -> dict[str, bool]:
    from casebuilder.extraction.vocabulary import shipped_vocabulary

    return {w.name.lower(): w.wide_area for w in shipped_vocabulary().weapons.values()}


def wide_area(weapon: str, rule: WideAreaParameters) -> WideAreaVerdict:
    """Whether ``weapon`` has wide-area effects, and why."""
    figures = weapons_table().get(weapon.lower())
    reasons = []
    if figures is not None:
        if figures.warhead_kg is not None and figures.warhead_kg >= rule.warhead_kg:
            reasons.append(f"warhead {figures.warhead_kg:g} kg >= {rule.warhead_kg:g} kg")
        if figures.cep_m is not None and figures.cep_m >= rule.cep_m:
            reasons.append(f"accuracy (CEP) {figures.cep_m:g} m >= {rule.cep_m:g} m")
        if figures.submunitions:
            reasons.append("scatters submunitions")
        if figures.guided is False and figures.salvo is not None and \
                figures.salvo >= rule.salvo:
            reasons.append(f"unguided, salvo of {figures.salvo} >= {rule.salvo}")
        if reasons:
            return WideAreaVerdict(weapon, figures.name, True, "; ".join(reasons))
        decided = any(v is not None for v in (figures.warhead_kg, figures.cep_m,
                                              figures.submunitions))
        if decided:
            return WideAreaVerdict(weapon, figures.name, False,
                                   "no figure reaches the wide-area thresholds")
    flag = _vocabulary_flags().get(weapon.lower())
    if flag is None:
        return WideAreaVerdict(weapon, figures.name if figures else None, False,
                               "not in the weapons table or the extraction vocabulary")
    return WideAreaVerdict(weapon, figures.name if figures else None, flag,
                           "no figure decides; extraction vocabulary's wide_area flag "
                           f"({str(flag).lower()})")
