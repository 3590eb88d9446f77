"""Mapping tables: how a dataset's coded columns become casebuilder's categories, weapons,
target types, perpetrators and precisions, written as rule tables (data files in
``extraction/datasets/mappings/<format>/<decision>.toml``).

The tables are rule tables of :mod:`casebuilder.extraction.rules` (each rule named, with
``about``, ``examples`` and ``counterexamples``; the first rule that fires decides; the table's
``default`` holds when none does) over one row. Their predicates are made from the format's
columns: for a column ``sub_event_type`` (a column name lower-cased, every run of other
characters than letters and digits made ``_``: ``town/city`` is ``town_city``)

* ``sub_event_type_is``    the cell, lower-cased and trimmed, is one of the words given;
* ``sub_event_type_has``   the cell contains one of the phrases given (lower case);
* ``sub_event_type_starts`` the cell begins with one of the phrases given;
* ``sub_event_type_empty`` (true/false) the cell is empty;
* ``sub_event_type_above`` (a whole number) the cell is a number greater than it.

An example is written as the cells it needs, ``column=value`` parts joined by ``; ``
(``"event_group=Civilian Casualty March 2022; title=Flats hit by shelling"``); every other
cell is empty. ``tests/intake/test_dataset_mappings.py`` runs each rule on its examples and
switches each rule off in turn.

The value a rule decides is cited to the cell its first ``when`` condition reads (the quote of
the claim is that cell), so each value traces back to the cell it came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from casebuilder.errors import DatasetError
from casebuilder.extraction.rules import (
    Decision,
    Predicate,
    RuleError,
    RuleTable,
    load_rule_table,
)
from casebuilder.extraction.vocabulary import shipped_vocabulary
from casebuilder.model.lexicon import Lexicon

MAPPINGS_DIR = Path(__file__).parent / "mappings"
_NOT_WORD = re.compile(r"[^a-z0-9]+")

#: The outcomes of the decisions a table may make, besides the vocabulary's own keys.
PLACE_PRECISIONS = ("point", "settlement", "district", "region", "country")
DATE_PRECISIONS = ("day", "week", "month", "year")

Facts = Mapping[str, str]  # column key -> the cell, lower-cased and trimmed


def column_key(column: str) -> str:
    return _NOT_WORD.sub("_", column.lower()).strip("_")


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _tests(key: str) -> dict[str, Callable[[Facts, Any], bool]]:
    """The tests of the predicates on one column (``key``)."""

    def is_(facts: Facts, words: Any) -> bool:
        return facts.get(key, "") in words

    def has(facts: Facts, words: Any) -> bool:
        cell = facts.get(key, "")
        return any(w in cell for w in words)

    def starts(facts: Facts, words: Any) -> bool:
        return facts.get(key, "").startswith(tuple(words))

    def empty(facts: Facts, wanted: Any) -> bool:
        return (not facts.get(key, "")) is wanted

    def above(facts: Facts, limit: Any) -> bool:
        return bool((_number(facts.get(key, "")) or 0) > limit)

    return {"is": is_, "has": has, "starts": starts, "empty": empty, "above": above}


_DOCS = {"is": ("the {} cell is one of the words", "words"),
         "has": ("the {} cell contains one of the phrases", "words"),
         "starts": ("the {} cell begins with one of the phrases", "words"),
         "empty": ("the {} cell is empty", "bool"),
         "above": ("the {} cell is a number above the one given", "int")}


def column_predicates(columns: Iterable[str]) -> dict[str, Predicate[Facts]]:
    """The predicates rules over rows of these columns may use (see the module docstring)."""
    out: dict[str, Predicate[Facts]] = {}
    for column in columns:
        key = column_key(column)
        for op, test in _tests(key).items():
            doc, argument = _DOCS[op]
            out[f"{key}_{op}"] = Predicate(f"{key}_{op}", doc.format(column), argument, test)
    return out


def outcomes_of(decision: str) -> tuple[str, ...]:
    vocabulary = shipped_vocabulary()
    if decision == "rows":
        return (*vocabulary.categories, "context")
    if decision == "weapons":
        return (*vocabulary.weapons, "none")
    if decision == "targets":
        return (*vocabulary.targets, "none")
    if decision == "perpetrators":
        return (*vocabulary.parties, "none")
    if decision == "place_precision":
        return PLACE_PRECISIONS
    if decision == "date_precision":
        return DATE_PRECISIONS
    raise DatasetError(f"no decision {decision!r} for a dataset mapping table")


@dataclass(frozen=True)
class Mapped:
    """A decision and the column it cites (its rule's first ``when`` condition's column)."""

    outcome: str
    rule: str  # "<table>/<rule>" or "<table>/default"
    column: str | None


@dataclass(frozen=True)
class MappingTables:
    format: str
    tables: Mapping[str, RuleTable[Facts]]
    columns: Mapping[str, str]  # column key -> column name as the format gives it

    def decide(self, decision: str, facts: Facts) -> Mapped:
        table = self.tables[decision]
        found: Decision = table.decide(facts)
        column = None
        if found.rule != "default":
            rule = table.rule(found.rule)
            if rule.when:
                column = self.columns.get(rule.when[0][0].rsplit("_", 1)[0])
        return Mapped(found.outcome, f"{table.name}/{found.rule}", column)

    def with_table(self, decision: str, table: RuleTable[Facts]) -> MappingTables:
        return MappingTables(self.format, {**self.tables, decision: table}, self.columns)


def facts_of(cells: Mapping[str, str]) -> dict[str, str]:
    """Row facts for the predicates: column key -> the cell lower-cased and trimmed."""
    return {column_key(k): v.strip().lower() for k, v in cells.items()}


def example_facts(example: str) -> dict[str, str]:
    """The row an example describes (``column=value; column=value``)."""
    cells: dict[str, str] = {}
    for part in example.split("; "):
        column, sep, value = part.partition("=")
        if not sep:
            raise DatasetError(f"example part {part!r} is not column=value")
        cells[column.strip()] = value
    return facts_of(cells)


@cache
def load_mappings(format_name: str, columns: Sequence[str]) -> MappingTables:
    """The mapping tables of one format, checked against its columns and the vocabulary."""
    directory = MAPPINGS_DIR / format_name
    predicates = column_predicates(columns)
    tables: dict[str, RuleTable[Facts]] = {}
    try:
        for path in sorted(directory.glob("*.toml")):
            tables[path.stem] = load_rule_table(path, predicates, outcomes_of(path.stem),
                                                Lexicon({}, ""))
    except RuleError as exc:
        raise DatasetError(f"mapping table: {exc}") from exc
    return MappingTables(format_name, tables, {column_key(c): c for c in columns})

