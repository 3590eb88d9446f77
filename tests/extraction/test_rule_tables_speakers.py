"""Every rule of the speaker tables (vocab/rules/speaker_*.toml), run on its own examples
through the attributor the extractor uses; and each rule switched off in turn, to find rules
that nothing needs (redundant, or shadowed by an earlier one).

In an example the words the rule decides about are in [brackets] (a reporting verb or a
phrase, as the table's header says) and, where given, the speaker the sentence then gets is in
{braces}.
"""

from __future__ import annotations

import ast
import re
import shutil
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path

import pytest

from casebuilder.extraction import speaker_cues
from casebuilder.extraction.attribution import Attribution, Attributor
from casebuilder.extraction.rules import Decision, RuleError, RuleTable, load_rule_table
from casebuilder.extraction.speaker_cues import (
    BEFORE_OUTCOMES,
    BEFORE_PREDICATES,
    SpeakerRules,
    load_speaker_rules,
)
from casebuilder.extraction.text import TextAnalyser
from casebuilder.extraction.vocabulary import EVIDENTIALITY, load_vocabulary

VOCABULARY = load_vocabulary()
RULES = load_speaker_rules(VOCABULARY)
TABLES: dict[str, str] = {getattr(RULES, f.name).name: f.name for f in fields(RULES)
                          if isinstance(getattr(RULES, f.name), RuleTable)}


@pytest.fixture(scope="module")
def analyser(extraction_tools) -> TextAnalyser:
    return extraction_tools.analyser


@dataclass(frozen=True)
class Example:
    text: str
    about: tuple[int, int]  # the [bracketed] words
    speaker: str | None  # the {braced} speaker, if the example names one


def read(example: str) -> Example:
    """The example's plain text and where its marks were ([...] and {...} may nest)."""
    text, opened = "", {}
    marks: dict[str, tuple[int, int]] = {}
    for char in example:
        if char in "[{":
            opened[char] = len(text)
        elif char in "]}":
            begin = "[" if char == "]" else "{"
            marks[begin] = (opened.pop(begin), len(text))
        else:
            text += char
    assert "[" in marks, f"example without [words] to decide about: {example}"
    speaker = text[slice(*marks["{"])] if "{" in marks else None
    return Example(text, marks["["], speaker)


def run(analyser: TextAnalyser, rules: SpeakerRules, example: Example, table: str
        ) -> tuple[Decision | None, Attribution | None]:
    """The first decision of ``table`` about the bracketed words, and the attribution of the
    sentence holding them."""
    attributor = Attributor(analyser, VOCABULARY, "The Outlet", rules)
    holding = None
    for sentence in analyser.sentences(example.text):
        found, _ = attributor.attribute(sentence)
        if sentence.start <= example.about[0] < sentence.end:
            holding = found
    decision = next((t.decision for t in attributor.trace
                     if t.table == table and (t.start, t.end) == example.about), None)
    return decision, holding


def without(table: str, rule: str) -> SpeakerRules:
    field = TABLES[table]
    return replace(RULES, **{field: getattr(RULES, field).without(rule)})


def cases() -> list[tuple[str, str, str, bool]]:
    out = []
    for table, field in TABLES.items():
        rules = getattr(RULES, field).rules
        out += [(table, r.name, text, True) for r in rules for text in r.examples]
        out += [(table, r.name, text, False) for r in rules for text in r.counterexamples]
    return out


@pytest.mark.parametrize(("table", "rule_name", "example", "positive"), cases(),
                         ids=lambda v: v if isinstance(v, str) and len(v) < 40 else None)
def test_speaker_rule_examples(analyser, table, rule_name, example, positive):
    rule = getattr(RULES, TABLES[table]).rule(rule_name)
    marked = read(example)
    decision, attribution = run(analyser, RULES, marked, table)
    assert decision is not None, f"{table} decided nothing about the [words] of {example!r}"
    if positive:
        assert decision == Decision(rule.outcome, rule.name), example
    else:
        assert decision.rule != rule.name, f"{rule.name} fired on its counterexample {example!r}"
    if marked.speaker is not None:
        assert attribution is not None and attribution.speaker == marked.speaker, example


@pytest.mark.parametrize(("table", "rule_name"),
                         [(t, r.name) for t, f in TABLES.items()
                          for r in getattr(RULES, f).rules])
def test_every_speaker_rule_is_needed(analyser, table, rule_name):
    rule = getattr(RULES, TABLES[table]).rule(rule_name)
    switched_off = without(table, rule_name)
    still = [text for text in rule.examples
             if (d := run(analyser, switched_off, read(text), table)[0]) is not None
             and d.outcome == rule.outcome]
    assert len(still) < len(rule.examples), (
        f"{table} {rule_name}: its examples still get {rule.outcome!r} without it "
        f"({still[0]!r}): the rule is redundant or shadowed, or its examples do not show what "
        "it is for")


def test_every_table_is_read_and_the_tables_are_in_the_vocabulary_digest(tmp_path):
    on_disk = {p.stem for p in (VOCABULARY.directory / "rules").glob("speaker_*.toml")}
    assert on_disk == set(TABLES)
    copy = tmp_path / "vocab"
    shutil.copytree(VOCABULARY.directory, copy)
    digests = {load_vocabulary(copy).digest}
    for changed in ("rules/speaker_before.toml", "lexicon/speakers.toml"):
        path = copy / changed
        path.write_text(path.read_text() + "\n# an analyst's note\n")
        digests.add(load_vocabulary(copy).digest)
    assert len(digests) == 3


def test_a_speaker_table_with_an_unknown_predicate_outcome_or_class_is_refused(tmp_path):
    good = (VOCABULARY.directory / "rules" / "speaker_before.toml").read_text()
    for broken, says in ((good.replace("last_is_name =", "last_is_nam =", 1),
                          "unknown predicate 'last_is_nam'"),
                         (good.replace('outcome = "last"', 'outcome = "lats"', 1),
                          "outcome must be one of"),
                         (good.replace('"@speaker_role_words"', '"@speaker_role_word"', 1),
                          "no word class 'speaker_role_word'"),
                         (good.replace("examples = [", "exemples = [", 1),
                          "unknown key 'exemples'")):
        path = tmp_path / "speaker_before.toml"
        path.write_text(broken)
        with pytest.raises(RuleError, match=says):
            load_rule_table(path, BEFORE_PREDICATES, BEFORE_OUTCOMES, VOCABULARY.lexicon)


def test_every_speaker_word_class_is_used():
    """A class of speakers.toml that neither the code nor a table names is dead weight an
    analyst would extend in vain."""
    lexicon = VOCABULARY.directory / "lexicon" / "speakers.toml"
    classes = set(tomllib.loads(lexicon.read_text()))
    source = Path(__file__).parents[2] / "src" / "casebuilder" / "extraction"
    code = (source / "speaker_cues.py").read_text()
    by_code = {f"speaker_{name}" for name in re.findall(r"^    (\w+): frozenset\[str\]$", code,
                                                         re.MULTILINE)}
    tables = " ".join(p.read_text() for p in (VOCABULARY.directory / "rules").glob("*.toml"))
    by_tables = set(re.findall(r'"@(\w+)"', tables))
    assert classes - by_code - by_tables == set()
    assert by_code <= classes


WORDS_IN_CODE = ("attribution.py", "speaker_cues.py")


@pytest.mark.parametrize("module", WORDS_IN_CODE)
def test_no_word_lists_in_the_attribution_code(module):
    """Words live in the lexicon: no set, list or tuple of two or more strings, no regular
    expression, at module level or inside a function."""
    path = Path(__file__).parents[2] / "src" / "casebuilder" / "extraction" / module
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            strings = [e for e in node.elts
                       if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(strings) >= 2 and not _outcome_names(node):
                found.append(f"line {node.lineno}: {ast.unparse(node)[:60]}")
        if isinstance(node, ast.Call) and ast.unparse(node.func) in {"re.compile", "compile"}:
            found.append(f"line {node.lineno}: a regular expression")
    assert not found, f"{module} holds words that belong in the lexicon:\n" + "\n".join(found)


def _outcome_names(node: ast.AST) -> bool:
    """The outcomes a table may give and the evidentiality values are names of the model,
    not words of the text."""
    strings = {e.value for e in ast.walk(node) if isinstance(e, ast.Constant)}
    outcomes = {o for name, value in vars(speaker_cues).items() if name.endswith("_OUTCOMES")
                for o in value}
    return strings <= outcomes | set(EVIDENTIALITY)
