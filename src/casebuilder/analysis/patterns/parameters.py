"""The parameters of the pattern analysis, read from a TOML file and checked.

Each parameter is written as ``name = { value = ..., why = "..." }`` in a section per method
(parameters.toml beside this module is the shipped set). Loading refuses a missing or unknown
section or name, a value of the wrong type, a value out of its range and an empty ``why``, with
:class:`PatternParametersError` naming the parameter. :meth:`Parameters.as_json` and
:meth:`Parameters.digest` are what a run records, so it can be re-run with the same values.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, get_type_hints

from casebuilder.errors import CasebuilderError

SHIPPED = Path(__file__).with_name("parameters.toml")


class PatternParametersError(CasebuilderError):
    """A parameters file of the pattern analysis is malformed or holds a value out of range."""


@dataclass(frozen=True)
class RunParameters:
    seed: int
    alpha: float


@dataclass(frozen=True)
class SeriesParameters:
    eps_km: float
    eps_days: float
    min_samples: int
    min_incidents: int
    max_uncertainty_km: float


@dataclass(frozen=True)
class SiteParameters:
    site_km: float
    max_uncertainty_km: float
    min_strikes: int
    min_days: int
    double_tap_hours: float
    same_day_without_time: bool
    rescuer_targets: tuple[str, ...]


@dataclass(frozen=True)
class ObjectParameters:
    protected_targets: tuple[str, ...]
    crowded_targets: tuple[str, ...]
    busy_hours: tuple[tuple[int, int], ...]
    min_timed: int
    far_km: float


@dataclass(frozen=True)
class WideAreaParameters:
    warhead_kg: float
    cep_m: float
    salvo: int


@dataclass(frozen=True)
class RegularityParameters:
    min_pair: int
    hour_bins: int
    min_timed: int


@dataclass(frozen=True)
class OnsetParameters:
    min_segment_days: int
    max_changes: int
    permutations: int
    min_incidents: int
    min_ratio: float


@dataclass(frozen=True)
class ScaleParameters:
    place_km: float


SECTIONS: dict[str, type[Any]] = {
    "run": RunParameters, "series": SeriesParameters, "sites": SiteParameters,
    "objects": ObjectParameters, "wide_area": WideAreaParameters,
    "regularity": RegularityParameters, "onsets": OnsetParameters, "scale": ScaleParameters,
}

#: Values that must be positive; alpha lies strictly between 0 and 1 (checked apart).
_NON_NEGATIVE = {"seed"}


@dataclass(frozen=True)
class Parameters:
    run: RunParameters
    series: SeriesParameters
    sites: SiteParameters
    objects: ObjectParameters
    wide_area: WideAreaParameters
    regularity: RegularityParameters
    onsets: OnsetParameters
    scale: ScaleParameters
    #: Each parameter's reason, "section.name" -> why (not part of the values' digest).
    why: dict[str, str] = dataclasses.field(default_factory=dict, compare=False)
    source: str = dataclasses.field(default="parameters.toml", compare=False)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for section in SECTIONS:
            values = dataclasses.asdict(getattr(self, section))
            out[section] = {k: _plain(v) for k, v in values.items()}
        return out

    def digest(self) -> str:
        canonical = json.dumps(self.as_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()

    def replace(self, section: str, **values: Any) -> Parameters:
        """These parameters with some values of one section changed (for tests and what-ifs)."""
        changed = dataclasses.replace(getattr(self, section), **values)
        return dataclasses.replace(self, **{section: changed})


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _convert(name: str, hint: Any, value: Any) -> Any:
    """The value in the field's type, or an error naming the parameter."""
    text = str(hint)
    if hint is bool:
        if not isinstance(value, bool):
            raise PatternParametersError(f"parameter {name}: expected true or false")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise PatternParametersError(f"parameter {name}: expected a whole number")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise PatternParametersError(f"parameter {name}: expected a number")
        return float(value)
    if text == "tuple[str, ...]":
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise PatternParametersError(f"parameter {name}: expected a list of names")
        return tuple(value)
    if text == "tuple[tuple[int, int], ...]":
        if not isinstance(value, list) or not all(
                isinstance(v, list) and len(v) == 2 and all(type(h) is int for h in v)
                and 0 <= v[0] < v[1] <= 24 for v in value):
            raise PatternParametersError(
                f"parameter {name}: expected a list of [start, end] hours, 0 <= start < end "
                "<= 24")
        return tuple((int(v[0]), int(v[1])) for v in value)
    raise PatternParametersError(f"parameter {name}: no reader for type {text}")


def _check_range(name: str, value: Any) -> None:
    short = name.split(".")[-1]
    if short == "alpha":
        if not 0.0 < value < 1.0:
            raise PatternParametersError(f"parameter {name}: must lie between 0 and 1")
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    if short in _NON_NEGATIVE:
        if value < 0:
            raise PatternParametersError(f"parameter {name}: must not be negative")
    elif value <= 0:
        raise PatternParametersError(f"parameter {name}: must be greater than 0")


def parse_parameters(data: dict[str, Any], source: str = "parameters") -> Parameters:
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise PatternParametersError(f"{source}: unknown section(s) {', '.join(unknown)}")
    built: dict[str, Any] = {}
    why: dict[str, str] = {}
    for section, cls in SECTIONS.items():
        entries = data.get(section)
        if not isinstance(entries, dict):
            raise PatternParametersError(f"{source}: section [{section}] is missing")
        hints = get_type_hints(cls)
        names = [f.name for f in dataclasses.fields(cls)]
        extra = sorted(set(entries) - set(names))
        if extra:
            raise PatternParametersError(
                f"{source}: unknown parameter(s) {', '.join(f'{section}.{e}' for e in extra)}")
        values: dict[str, Any] = {}
        for field_name in names:
            qualified = f"{section}.{field_name}"
            entry = entries.get(field_name)
            if not isinstance(entry, dict) or set(entry) != {"value", "why"}:
                raise PatternParametersError(
                    f"{source}: parameter {qualified} must be {{ value = ..., why = \"...\" }}")
            reason = entry["why"]
            if not isinstance(reason, str) or not reason.strip():
                raise PatternParametersError(f"{source}: parameter {qualified} has no why")
            value = _convert(qualified, hints[field_name], entry["value"])
            _check_range(qualified, value)
            values[field_name] = value
            why[qualified] = reason
        built[section] = cls(**values)
    if built["series"].min_incidents < built["series"].min_samples:
        raise PatternParametersError(
            f"{source}: series.min_incidents must be at least series.min_samples")
    return Parameters(**built, why=why, source=source)


def load_parameters(path: Path | None = None) -> Parameters:
    """The parameters in ``path``, or the shipped ones."""
    if path is None:
        return shipped_parameters()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PatternParametersError(f"cannot read parameters {path}: {exc}") from exc
    return parse_parameters(data, path.name)


@cache
def shipped_parameters() -> Parameters:
    return parse_parameters(tomllib.loads(SHIPPED.read_text(encoding="utf-8")),
                            SHIPPED.name)
