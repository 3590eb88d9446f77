"""Every rule of every dataset mapping table (extraction/datasets/mappings/) run on its own
examples, and each rule switched off in turn: a rule whose examples still get the same
decision without it is redundant or shadowed."""

from __future__ import annotations

import pytest

from casebuilder.extraction.datasets.importing import dataset_formats
from casebuilder.extraction.datasets.mapping import MappingTables, example_facts

TABLES: list[tuple[str, MappingTables]] = [
    (name, fmt.tables()) for name, fmt in sorted(dataset_formats().items())]
RULES = [(name, decision, rule.name) for name, tables in TABLES
         for decision, table in sorted(tables.tables.items()) for rule in table.rules]


def tables_of(name: str) -> MappingTables:
    return dict(TABLES)[name]


def test_every_format_has_mapping_tables():
    with_tables = {name for name, tables in TABLES if tables.tables}
    assert with_tables == {"cir-monitor", "acled", "ucdp-ged", "civilian-harm-json"}
    for name in with_tables:
        assert "rows" in tables_of(name).tables, name


@pytest.mark.parametrize(("fmt", "decision", "rule_name"), RULES)
def test_rule_examples_get_the_rule(fmt, decision, rule_name):
    tables = tables_of(fmt)
    rule = tables.tables[decision].rule(rule_name)
    for example in rule.examples:
        found = tables.decide(decision, example_facts(example))
        assert found.rule == f"{decision}/{rule_name}", example
        assert found.outcome == rule.outcome
    for example in rule.counterexamples:
        assert tables.decide(decision, example_facts(example)).rule != \
            f"{decision}/{rule_name}", example


@pytest.mark.parametrize(("fmt", "decision", "rule_name"), RULES)
def test_every_rule_is_needed(fmt, decision, rule_name):
    """Without the rule, some example of it gets another outcome, or only the table's default
    (a context row would lose the named reason it is context for)."""
    tables = tables_of(fmt)
    table = tables.tables[decision]
    without = tables.with_table(decision, table.without(rule_name))
    rule = table.rule(rule_name)
    lost = [e for e in rule.examples
            if (found := without.decide(decision, example_facts(e))).outcome != rule.outcome
            or found.rule == f"{decision}/default"]
    assert lost, f"{fmt} {decision}: {rule_name}'s examples are decided alike without it"
