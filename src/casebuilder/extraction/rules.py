"""Ordered rule tables: local decisions of the extractor written as data an analyst can read.

A rule table (``vocab/rules/<decision>.toml``) decides one thing about one thing: the role a
place name plays in its sentence, whether a category word really reports harm, and so on. It is
a list of rules, each with a name, the outcome it gives, the conditions under which it fires
(``when``: all must hold; ``unless``: none may), a sentence on why, and ``examples`` and
``counterexamples`` written by us. The first rule whose conditions hold decides, so **the order
in the file is the precedence**; when none fires the table's ``default`` outcome holds.

Conditions are built from a small set of documented predicates that the code reading a table
offers (see the ``PREDICATES`` of each decision, e.g. ``place_roles.py``). A predicate takes
one argument: ``true``/``false``, a number, a list of words, or the name of a word class in the
lexicon written ``"@name"`` (a ``words`` class; a predicate of argument ``phrases`` takes a list
or a ``phrases`` class, one of argument ``pattern`` the name of a ``pattern`` class). Tables
are checked on load: an unknown key, predicate, outcome or word class is an error naming the
file, the rule and the key.

Every decision says which rule made it (:class:`Decision`), so a value that was dropped or
re-roled carries the rule's name into the incident's record (a *negative trace*).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from casebuilder.model.lexicon import Lexicon, LexiconError, check_keys, key_line

C = TypeVar("C")

RULE_KEYS = frozenset({"name", "outcome", "about", "when", "unless", "examples",
                       "counterexamples"})
TABLE_KEYS = frozenset({"about", "default", "rule"})


class RuleError(LexiconError):
    """A rule table is malformed: unknown key, predicate, outcome or word class."""


@dataclass(frozen=True)
class Predicate(Generic[C]):
    """A condition a rule may use: its name, what it tests, and the argument it takes."""

    name: str
    doc: str
    argument: str  # "bool" | "int" | "words" | "phrases" (a list, or "@class" of the
    #                lexicon) | "pattern" ("@class" of the lexicon)
    test: Callable[[C, Any], bool]


def flag(read: Callable[[Any], Any]) -> Callable[[Any, Any], bool]:
    """The test of a yes/no predicate: what ``read`` finds, taken as true or false, is what
    the rule asks for (``true`` or ``false``). One definition for every rule table (typed
    loosely: a lambda's context type cannot be inferred through a generic here)."""
    return lambda c, wanted: bool(read(c)) is wanted


@dataclass(frozen=True)
class Rule:
    name: str
    outcome: str
    about: str
    when: tuple[tuple[str, Any], ...]
    unless: tuple[tuple[str, Any], ...]
    examples: tuple[str, ...]
    counterexamples: tuple[str, ...]
    line: int = 0


@dataclass(frozen=True)
class Decision:
    outcome: str
    rule: str  # the rule that decided, or "default"


@dataclass(frozen=True)
class RuleTable(Generic[C]):
    """One decision's ordered rules; :meth:`decide` applies the first that fires."""

    name: str
    about: str
    default: str
    rules: tuple[Rule, ...]
    predicates: Mapping[str, Predicate[C]]
    path: Path

    def decide(self, context: C) -> Decision:
        for rule in self.rules:
            if all(self.predicates[p].test(context, arg) for p, arg in rule.when) and not any(
                    self.predicates[p].test(context, arg) for p, arg in rule.unless):
                return Decision(rule.outcome, rule.name)
        return Decision(self.default, "default")

    def without(self, name: str) -> RuleTable[C]:
        """The same table with one rule switched off (for the redundancy test)."""
        if name not in {r.name for r in self.rules}:
            raise RuleError(f"{self.path.name}: no rule {name!r}")
        return replace(self, rules=tuple(r for r in self.rules if r.name != name))

    def rule(self, name: str) -> Rule:
        for r in self.rules:
            if r.name == name:
                return r
        raise RuleError(f"{self.path.name}: no rule {name!r}")


def _argument(path: Path, text: str, rule: str, predicate: Predicate[Any], value: Any,
              lexicon: Lexicon) -> Any:
    where = f"{path}:{_rule_line(text, rule)}: rule {rule!r}, {predicate.name}"
    if predicate.argument == "bool":
        if not isinstance(value, bool):
            raise RuleError(f"{where} takes true or false")
        return value
    if predicate.argument == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise RuleError(f"{where} takes a whole number")
        return value
    if predicate.argument == "pattern":
        if not isinstance(value, str) or not value.startswith("@"):
            raise RuleError(f"{where} takes \"@pattern_class\"")
        try:
            return lexicon.pattern(value[1:])
        except LexiconError as exc:
            raise RuleError(f"{where}: {exc}") from exc
    if isinstance(value, str) and value.startswith("@"):
        try:
            if predicate.argument == "phrases":
                return frozenset(lexicon.phrases(value[1:]))
            return lexicon.words(value[1:])
        except LexiconError as exc:
            raise RuleError(f"{where}: {exc}") from exc
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return frozenset(v.lower() for v in value)
    raise RuleError(f"{where} takes a list of words or \"@word_class\"")


def _rule_line(text: str, name: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("name") and stripped.split("=", 1)[-1].strip().strip('"') == name:
            return number
    return 0


def _conditions(path: Path, text: str, rule: str, raw: Any, predicates: Mapping[str, Predicate[C]],
                lexicon: Lexicon) -> tuple[tuple[str, Any], ...]:
    if not isinstance(raw, dict):
        raise RuleError(f"{path}:{_rule_line(text, rule)}: rule {rule!r}: conditions are a "
                        "table of predicate = argument")
    out = []
    for name, value in raw.items():
        predicate = predicates.get(name)
        if predicate is None:
            raise RuleError(f"{path}:{_rule_line(text, rule)}: rule {rule!r} uses unknown "
                            f"predicate {name!r} (known: {', '.join(sorted(predicates))})")
        out.append((name, _argument(path, text, rule, predicate, value, lexicon)))
    return tuple(out)


def load_rule_table(path: Path, predicates: Mapping[str, Predicate[C]],
                    outcomes: Iterable[str], lexicon: Lexicon) -> RuleTable[C]:
    """Read and check one table against the predicates and outcomes its decision offers."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RuleError(f"{path}: {exc}") from exc
    check_keys(path, text, None, data, TABLE_KEYS)
    known = frozenset(outcomes)
    default = data.get("default")
    if default not in known:
        raise RuleError(f"{path}:{key_line(text, None, 'default')}: default must be one of "
                        f"{', '.join(sorted(known))}")
    rules: list[Rule] = []
    for entry in data.get("rule", []):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            raise RuleError(f"{path}: every [[rule]] needs a name")
        line = _rule_line(text, name)
        unknown = sorted(set(entry) - RULE_KEYS)
        if unknown:
            raise RuleError(f"{path}:{line}: rule {name!r}: unknown key {unknown[0]!r} "
                            f"(known keys: {', '.join(sorted(RULE_KEYS))})")
        if name in {r.name for r in rules}:
            raise RuleError(f"{path}:{line}: rule {name!r} is defined twice")
        if entry.get("outcome") not in known:
            raise RuleError(f"{path}:{line}: rule {name!r}: outcome must be one of "
                            f"{', '.join(sorted(known))}")
        examples = entry.get("examples", [])
        counter = entry.get("counterexamples", [])
        if not examples or not all(isinstance(e, str) for e in [*examples, *counter]):
            raise RuleError(f"{path}:{line}: rule {name!r} needs examples (strings)")
        about = entry.get("about")
        if not isinstance(about, str) or not about.strip():
            raise RuleError(f"{path}:{line}: rule {name!r} needs about = \"why\"")
        rules.append(Rule(
            name=name, outcome=entry["outcome"], about=about.strip(),
            when=_conditions(path, text, name, entry.get("when", {}), predicates, lexicon),
            unless=_conditions(path, text, name, entry.get("unless", {}), predicates, lexicon),
            examples=tuple(examples), counterexamples=tuple(counter), line=line))
    about = data.get("about", "")
    return RuleTable(path.stem, str(about), default, tuple(rules), predicates, path)
