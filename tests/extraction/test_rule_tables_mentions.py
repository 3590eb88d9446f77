"""The rule tables of mention extraction (harm words, where a sentence goes, whether it joins
the mention in focus), each rule run on its own examples and counterexamples, and each rule
switched off in turn: a rule whose examples still get its outcome without it is redundant,
shadowed, or shown by the wrong examples. Also: the lexicon's patterns match their examples,
and the modules of mention extraction keep no word lists of their own."""

from __future__ import annotations

import ast
import re
from datetime import date
from pathlib import Path

import pytest

from casebuilder.extraction.mentions import MentionExtractor, SourceText, load_tables
from casebuilder.extraction.rules import Decision, RuleTable
from casebuilder.extraction.vocabulary import load_vocabulary

VOCABULARY = load_vocabulary()
TABLES = load_tables(VOCABULARY)
#: The tables this file checks (place_roles has tests/extraction/test_rule_tables.py).
CHECKED = ("category_filters", "sentence_categories", "count_dates", "attack_days",
           "look_back_days", "stamp_days", "counted_back_days",
           "running_totals",
           "place_names", "place_lists", "care_places", "mention_values", "places_of_speakers",
           "sentence_mentions",
           "military_actions",
           "joins_the_focus", "occupation_dates", "page_segments", "round_ups",
           "place_levels")
MARKED = re.compile(r"\[([^\]]+)\]")
#: The day every example is taken to be published (a Thursday), so "on Saturday" has a date.
PUBLISHED = date(2023, 6, 1)


@pytest.fixture(scope="module")
def extractor(extraction_tools) -> MentionExtractor:
    return extraction_tools.extractor


def decision(extractor: MentionExtractor, name: str, table: RuleTable, example: str
             ) -> Decision | None:
    """The first decision of table ``name`` about the [bracketed] words of ``example``, the
    whole text read with ``table`` in its place."""
    match = MARKED.search(example)
    assert match, f"example without [brackets]: {example}"
    text = example[: match.start()] + match.group(1) + example[match.end():]
    start, end = match.start(), match.start() + len(match.group(1))
    reading = extractor.read(SourceText(item_id=0, text=text, title="", outlet="Desk",
                                        published=PUBLISHED), tables={**TABLES, name: table})
    found = reading.decisions_about(name, start, end)
    return found[0] if found else None


def cases() -> list[tuple[str, str, str, bool]]:
    out = []
    for name in CHECKED:
        for rule in TABLES[name].rules:
            out += [(name, rule.name, text, True) for text in rule.examples]
            out += [(name, rule.name, text, False) for text in rule.counterexamples]
    return out


def short(value: object) -> str | None:
    return value if isinstance(value, str) and len(value) < 40 else None


@pytest.mark.parametrize(("table", "rule_name", "example", "positive"), cases(), ids=short)
def test_rule_examples(extractor, table, rule_name, example, positive):
    rule = TABLES[table].rule(rule_name)
    found = decision(extractor, table, TABLES[table], example)
    if positive:
        assert found == Decision(rule.outcome, rule.name), example
    else:
        assert found is None or found.rule != rule.name, \
            f"{rule.name} fired on its counterexample {example!r}"


@pytest.mark.parametrize(("table", "rule_name"),
                         [(name, r.name) for name in CHECKED for r in TABLES[name].rules],
                         ids=short)
def test_every_rule_is_needed(extractor, table, rule_name):
    rule = TABLES[table].rule(rule_name)
    without = TABLES[table].without(rule_name)
    still = [text for text in rule.examples
             if (d := decision(extractor, table, without, text)) is not None
             and d.outcome == rule.outcome]
    assert len(still) < len(rule.examples), (
        f"{table}/{rule_name}: its examples still get {rule.outcome!r} without it "
        f"({still[0]!r}): the rule is redundant or shadowed, or its examples do not show "
        "what it is for")


def test_the_motive_rule_looks_back_four_words(extractor):
    """"in reprisal for a drone attack": the motive word stands three words before the harm
    word, so a shorter look-back would miss it (and the place rule would hide the loss)."""
    found = decision(extractor, "category_filters", TABLES["category_filters"],
                     "Kyiv was struck in revenge for the [bombing], and two people died.")
    assert found == Decision("not_harm", "motive-given")


PATTERN_CLASSES = [c for c in VOCABULARY.lexicon.classes.values() if c.kind == "pattern"]


@pytest.mark.parametrize("word_class", PATTERN_CLASSES, ids=lambda c: c.name)
def test_every_pattern_matches_its_examples_and_not_its_counterexamples(word_class):
    for text in word_class.examples:
        assert word_class.value.search(text), f"{word_class.name} misses {text!r}"
    for text in word_class.counterexamples:
        assert not word_class.value.search(text), f"{word_class.name} matches {text!r}"


EXTRACTION = Path(__file__).resolve().parents[2] / "src" / "casebuilder" / "extraction"
#: The modules of mention extraction: their word classes are in vocab/lexicon/.
MENTION_MODULES = ("mentions.py", "facts.py", "claims.py", "reading.py", "harm_words.py",
                   "value_roles.py",
                   "assembly.py", "mention_claims.py", "place_roles.py", "phrases.py",
                   "occupation.py", "page_segments.py", "round_ups.py")


def word_lists(path: Path) -> list[str]:
    """Sets, lists and tuples of two or more string literals, and compiled regular
    expressions, anywhere in a module (outcome names of a rule table are allowed: they are
    the table's contract with the code, not words)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Set | ast.List | ast.Tuple) and len(node.elts) > 1 and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:60]}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "compile":
            found.append(f"{path.name}:{node.lineno}: a regular expression")
    return found


def test_mention_modules_keep_their_words_in_the_lexicon():
    allowed = {"ROLES", "OUTCOMES", "DESTINATIONS_OUTCOMES", "JOINING_OUTCOMES", "DATE_OUTCOMES",
               "TOTAL_OUTCOMES", "NAME_OUTCOMES", "LIST_OUTCOMES", "CARE_OUTCOMES",
               "ATTACK_DAY_OUTCOMES", "LOOK_BACK_OUTCOMES", "STAMP_OUTCOMES",
               "COUNT_BACK_OUTCOMES",
               "VALUE_OUTCOMES", "SPEAKING_OUTCOMES", "OCCUPATION_OUTCOMES", "SEGMENT_OUTCOMES",
               "ROUND_UP_OUTCOMES", "__all__"}
    found = []
    for name in MENTION_MODULES:
        tree = ast.parse((EXTRACTION / name).read_text())
        outcome_lines = {node.lineno for node in tree.body if isinstance(node, ast.Assign)
                         and any(isinstance(t, ast.Name) and t.id in allowed
                                 for t in node.targets)}
        found += [w for w in word_lists(EXTRACTION / name)
                  if int(w.split(":")[1]) not in outcome_lines]
    assert not found, "word lists in code (move them to vocab/lexicon/):\n" + "\n".join(found)
