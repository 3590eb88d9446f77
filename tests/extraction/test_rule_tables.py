"""Every rule of every rule table, run on its own examples; and each rule switched off in turn,
to find rules that nothing needs (redundant, or shadowed by an earlier one)."""

from __future__ import annotations

import re

import pytest

from casebuilder.extraction.mentions import MentionExtractor, SourceText
from casebuilder.extraction.place_roles import load_place_roles
from casebuilder.extraction.rules import Decision, RuleTable
from casebuilder.extraction.vocabulary import load_vocabulary

VOCABULARY = load_vocabulary()
PLACE_ROLES = load_place_roles(VOCABULARY)
MARKED = re.compile(r"\[([^\]]+)\]")


@pytest.fixture(scope="module")
def extractor(extraction_tools) -> MentionExtractor:
    return extraction_tools.extractor


def place_decision(extractor: MentionExtractor, table: RuleTable, example: str
                   ) -> Decision | None:
    """The role the table gives the [bracketed] place of ``example``, read in full."""
    match = MARKED.search(example)
    assert match, f"example without a [place]: {example}"
    text = example[: match.start()] + match.group(1) + example[match.end():]
    start, end = match.start(), match.start() + len(match.group(1))
    reading = extractor.read(SourceText(item_id=0, text=text, title="", outlet="",
                                        published=None),
                             tables={**extractor.tables, "place_roles": table})
    found = reading.decisions_about("place_roles", start, end)
    return found[0] if found else None


def cases(table: RuleTable) -> list[tuple[str, str, bool]]:
    return [(rule.name, text, True) for rule in table.rules for text in rule.examples] + [
        (rule.name, text, False) for rule in table.rules for text in rule.counterexamples]


@pytest.mark.parametrize(("rule_name", "example", "positive"), cases(PLACE_ROLES),
                         ids=lambda v: v if isinstance(v, str) and len(v) < 40 else None)
def test_place_role_rule_examples(extractor, rule_name, example, positive):
    rule = PLACE_ROLES.rule(rule_name)
    decision = place_decision(extractor, PLACE_ROLES, example)
    assert decision is not None, f"no place found in {example!r}"
    if positive:
        assert decision == Decision(rule.outcome, rule.name), example
    else:
        assert decision.rule != rule.name, f"{rule.name} fired on its counterexample {example!r}"


@pytest.mark.parametrize("rule_name", [r.name for r in PLACE_ROLES.rules])
def test_every_place_role_rule_is_needed(extractor, rule_name):
    rule = PLACE_ROLES.rule(rule_name)
    without = PLACE_ROLES.without(rule_name)
    still = [text for text in rule.examples
             if (d := place_decision(extractor, without, text)) is not None
             and d.outcome == rule.outcome]
    assert len(still) < len(rule.examples), (
        f"{rule_name}: its examples still get {rule.outcome!r} without it ({still[0]!r}): the "
        "rule is redundant or shadowed, or its examples do not show what it is for")


def test_a_table_with_an_unknown_predicate_or_key_is_refused(tmp_path):
    from casebuilder.extraction.place_roles import PREDICATES, ROLES
    from casebuilder.extraction.rules import RuleError, load_rule_table

    good = (VOCABULARY.directory / "rules" / "place_roles.toml").read_text()
    for broken, says in ((good.replace("word_before_article =", "word_befor_article =", 1),
                          "unknown predicate 'word_befor_article'"),
                         (good.replace('outcome = "venue"', 'outcom = "venue"', 1),
                          "unknown key 'outcom'"),
                         (good.replace('"@directions"', '"@direction"', 1),
                          "no word class 'direction'")):
        path = tmp_path / "place_roles.toml"
        path.write_text(broken)
        with pytest.raises(RuleError, match=says):
            load_rule_table(path, PREDICATES, ROLES, VOCABULARY.lexicon)

