"""The means of proof: signals casebuilder can find, and the claims each finds in an incident.

A catalogue element names its means of proof as signals, written ``family`` or
``family:argument``. Each claim signal picks out claims of an incident by their typed value
(:mod:`casebuilder.model.claim_values`); a ``pattern:`` signal is a finding of the pattern
analysis across incidents and is resolved from a pattern run (:mod:`.pattern_evidence`), never
from one incident's claims. The families:

======================== ==================================================================
``category:C``           a category claim of category C (one of model.terms.CATEGORY_ORDER)
``target:T``             a target named where harm is told (not only as the setting): ``any``,
                         ``protected`` (special protection: hospitals, schools, ...),
                         ``crowded`` (where civilians gather), or a target type of targets.toml
``weapon:W``             a weapon claim: ``any``, or ``wide_area`` (effects that cannot be
                         limited in a populated area)
``victims:V``            who the victims were: ``civilians``, ``children``, ``women``,
                         ``elderly`` (figures' populations and civilian-status words,
                         signals.toml), ``prisoners`` (prisoners of war), ``combatants``
``killed`` / ``injured`` a casualty figure of that measure that counts someone
``no_deaths``            a killed figure of none ("no one was killed")
``no_injuries``          an injured figure of none
``perpetrator_claimed``  a source names a party as having acted
``competing_attribution`` a source attributes the act to another party (a counter-accusation)
``denial``               a party denies responsibility
``military_objective_claimed`` a source says a military objective was hit or aimed at
``no_military_objective`` a source says there was no military objective there
``pattern:P``            a pattern finding: series, widespread, systematic, double_tap,
                         repeated_site, protected_object, wide_area_weapon
======================== ==================================================================

A claim whose evidentiality is ``denied`` is part of a denial: it never speaks FOR an element
(the matrix keeps it only where a signal lists it AGAINST).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from casebuilder.errors import ConfigurationError
from casebuilder.model.claim_values import (
    CategoryValue,
    CivilianStatusValue,
    FigureValue,
    PerpetratorValue,
    TargetValue,
    WeaponValue,
)
from casebuilder.model.terms import CATEGORY_ORDER
from casebuilder.resolution.records import ClaimRecord

#: The findings of the pattern analysis an element may name (``pattern:series`` ...).
PATTERN_SIGNALS: Final = ("series", "widespread", "systematic", "double_tap", "repeated_site",
                          "protected_object", "wide_area_weapon")
TARGET_CLASSES: Final = ("any", "protected", "crowded")
WEAPON_CLASSES: Final = ("any", "wide_area")
VICTIM_CLASSES: Final = ("civilians", "children", "women", "elderly", "prisoners",
                         "combatants")
PLAIN_SIGNALS: Final = ("killed", "injured", "no_deaths", "no_injuries", "perpetrator_claimed",
                        "competing_attribution", "denial", "military_objective_claimed",
                        "no_military_objective")
FAMILIES: Final = ("category", "target", "weapon", "victims", "pattern")

SIGNALS_FILE = Path(__file__).with_name("signals.toml")


class SignalError(ConfigurationError):
    """A signal the catalogue names is not one casebuilder can find."""


@dataclass(frozen=True)
class Signal:
    """One means of proof as the catalogue writes it: ``family`` or ``family:argument``."""

    name: str
    family: str
    argument: str | None

    @property
    def pattern(self) -> bool:
        return self.family == "pattern"


@dataclass(frozen=True)
class SignalWords:
    """What the claim signals read beyond the claim itself: victims' words, target types."""

    victim_words: Mapping[str, frozenset[str]]
    target_types: frozenset[str]
    crowded: frozenset[str]


def parse_signal(text: str) -> Signal:
    """A signal named in the catalogue, checked; :class:`SignalError` says what is known."""
    family, _, argument = text.partition(":")
    if not argument:
        if family in PLAIN_SIGNALS:
            return Signal(text, family, None)
        raise SignalError(f"unknown signal {text!r} (known: {', '.join(PLAIN_SIGNALS)}, or "
                          f"{', '.join(f + ':...' for f in FAMILIES)})")
    choices: Sequence[str]
    if family == "category":
        choices = CATEGORY_ORDER
    elif family == "target":
        choices = (*TARGET_CLASSES, *sorted(signal_words().target_types))
    elif family == "weapon":
        choices = WEAPON_CLASSES
    elif family == "victims":
        choices = VICTIM_CLASSES
    elif family == "pattern":
        choices = PATTERN_SIGNALS
    else:
        raise SignalError(f"unknown signal family {family!r} in {text!r} (known: "
                          f"{', '.join(FAMILIES)}, or {', '.join(PLAIN_SIGNALS)})")
    if argument not in choices:
        raise SignalError(f"signal {text!r}: {family} takes one of {', '.join(choices)}")
    return Signal(text, family, argument)


@cache
def signal_words() -> SignalWords:
    """signals.toml, and the target types of the extraction vocabulary (targets.toml)."""
    from casebuilder.extraction.vocabulary import shipped_vocabulary

    try:
        data = tomllib.loads(SIGNALS_FILE.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SignalError(f"{SIGNALS_FILE}: {exc}") from exc
    unknown = sorted(set(data) - {"version", "victim_words"})
    if unknown:
        raise SignalError(f"{SIGNALS_FILE}: unknown key {unknown[0]!r}")
    words = data.get("victim_words", {})
    bad = sorted(set(words) - {"children", "women", "elderly"})
    if bad:
        raise SignalError(f"{SIGNALS_FILE}: [victim_words] {bad[0]!r} is not a victims class "
                          "read from words (children, women, elderly)")
    targets = shipped_vocabulary().targets
    return SignalWords(
        victim_words={k: frozenset(w.lower() for w in v) for k, v in words.items()},
        target_types=frozenset(targets),
        crowded=frozenset(name for name, t in targets.items() if t.crowded))


def _counts(value: FigureValue) -> bool:
    """A figure that counts at least one person (a vague "dozens" counts)."""
    return not (value.low == 0 and value.high in (0, None))


def _none(value: FigureValue) -> bool:
    return value.low == 0 and value.high in (0, None)


def _victims(argument: str, words: SignalWords) -> Callable[[ClaimRecord], bool]:
    populations = {"civilians": {"civilians", "children"}, "children": {"children"},
                   "prisoners": {"prisoners of war"}, "combatants": {"military"}}
    wanted_words = words.victim_words.get(argument, frozenset())

    def test(c: ClaimRecord) -> bool:
        v = c.value
        if isinstance(v, FigureValue):
            return c.kind in {"killed", "injured"} and v.population in \
                populations.get(argument, set()) and _counts(v)
        if isinstance(v, CivilianStatusValue):
            if argument == "combatants":
                return not v.civilian
            if argument == "civilians":
                return v.civilian
            return v.civilian and v.words.lower() in wanted_words
        return False

    return test


def claim_test(signal: Signal, words: SignalWords) -> Callable[[ClaimRecord], bool]:
    """Which claims give ``signal`` (not for ``pattern:`` signals, which no claim gives)."""
    family, argument = signal.family, signal.argument or ""
    if family == "category":
        return lambda c: isinstance(c.value, CategoryValue) and c.value.category == argument
    if family == "target":
        def target(c: ClaimRecord) -> bool:
            v = c.value
            if not isinstance(v, TargetValue) or v.setting:
                return False
            if argument == "any":
                return True
            if argument == "protected":
                return v.protected
            if argument == "crowded":
                return v.target_type in words.crowded
            return v.target_type == argument
        return target
    if family == "weapon":
        return lambda c: isinstance(c.value, WeaponValue) and (
            argument == "any" or c.value.wide_area)
    if family == "victims":
        return _victims(argument, words)
    if family in {"killed", "injured"}:
        return lambda c: c.kind == family and isinstance(c.value, FigureValue) and \
            _counts(c.value)
    if family in {"no_deaths", "no_injuries"}:
        measure = "killed" if family == "no_deaths" else "injured"
        return lambda c: c.kind == measure and isinstance(c.value, FigureValue) and \
            _none(c.value)
    if family == "perpetrator_claimed":
        return lambda c: isinstance(c.value, PerpetratorValue) and not c.value.competing
    if family == "competing_attribution":
        return lambda c: isinstance(c.value, PerpetratorValue) and c.value.competing
    if family in {"denial", "military_objective_claimed", "no_military_objective"}:
        kind = {"military_objective_claimed": "military_objective"}.get(family, family)
        return lambda c: c.kind == kind
    raise SignalError(f"signal {signal.name!r} is found by the pattern analysis, not in claims")


def claims_giving(signal: Signal, claims: Sequence[ClaimRecord], *, side: str,
                  words: SignalWords | None = None) -> list[ClaimRecord]:
    """The claims of an incident that give ``signal``, on ``side`` ("for" or "against"): a
    claim that is part of a denial never speaks for an element."""
    test = claim_test(signal, words or signal_words())
    return [c for c in claims if test(c) and (side == "against" or c.evidentiality != "denied")]
