"""The status rule table: each rule's examples give its status by that rule, no
counterexample is decided by it, and switching a rule off changes what its examples get."""

from __future__ import annotations

import pytest

from casebuilder.analysis.elements.status import (
    RULES_FILE,
    StatusExampleError,
    load_status_rules,
    situation_from_example,
)
from casebuilder.extraction.rules import Decision, RuleError

TABLE = load_status_rules()


def cases() -> list[tuple[str, str, bool]]:
    return [(r.name, text, True) for r in TABLE.rules for text in r.examples] + [
        (r.name, text, False) for r in TABLE.rules for text in r.counterexamples]


@pytest.mark.parametrize(("rule_name", "example", "positive"), cases())
def test_status_rule_examples(rule_name, example, positive):
    rule = TABLE.rule(rule_name)
    decision = TABLE.decide(situation_from_example(example))
    if positive:
        assert decision == Decision(rule.outcome, rule.name), example
    else:
        assert decision.rule != rule.name, f"{rule.name} fired on its counterexample {example!r}"


@pytest.mark.parametrize("rule_name", [r.name for r in TABLE.rules])
def test_every_status_rule_is_needed(rule_name):
    rule = TABLE.rule(rule_name)
    without = TABLE.without(rule_name)
    still = [text for text in rule.examples
             if without.decide(situation_from_example(text)).outcome == rule.outcome]
    assert len(still) < len(rule.examples), (
        f"{rule_name}: its examples still get {rule.outcome!r} without it ({still[0]!r})")


def test_the_statuses_the_issue_names_are_each_given_by_some_rule():
    assert {r.outcome for r in TABLE.rules} | {TABLE.default} == {
        "supported", "contested", "gap", "needs_analyst"}


def test_no_rule_makes_a_mental_or_context_element_supported_from_claims_alone():
    for kind in ("mental", "context"):
        for situation in (f"kind={kind} for=5", f"kind={kind} for=5 pattern=not_found",
                          f"kind={kind} for=5 pattern=awaited"):
            assert TABLE.decide(situation_from_example(situation)).outcome != "supported"


@pytest.mark.parametrize(("old", "new", "error", "says"), [
    ("has_contrary = true", "has_contray = true", RuleError, "unknown predicate 'has_contray'"),
    ('outcome = "contested"', 'outcome = "disputed"', RuleError, "outcome must be one of"),
    ('"kind=conduct for=3 against=1"', '"kind=conduct for=three"', StatusExampleError,
     "for takes a number"),
])
def test_a_broken_status_table_is_refused(tmp_path, old, new, error, says):
    text = RULES_FILE.read_text()
    assert old in text
    path = tmp_path / "status.toml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(error, match=says):
        load_status_rules(path)
