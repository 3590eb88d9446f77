"""Russian-style forms (data/forms.toml) and spellings a letter or two off
(casebuilder/gazetteer/spellings.py): every rule's examples and counterexamples, each rule
switched off in turn, a malformed file, and the typo table's reach. Fast: no index is built."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casebuilder.gazetteer.normalise import edit_distance, fold_toponym, normalise_toponym
from casebuilder.gazetteer.spellings import (
    FormRules,
    FormTable,
    TypoTable,
    form_rules,
    load_form_rules,
)
from casebuilder.model.lexicon import LexiconError

RULES = form_rules()


def _every_example(rules: FormRules) -> list[tuple[str, str, str]]:
    pairs = [("vowels", a, b) for a, b in rules.examples]
    pairs += [(rule.name, a, b) for rule in rules.rules for a, b in rule.examples]
    return pairs


@pytest.mark.parametrize(("rule", "russian", "ukrainian"), _every_example(RULES))
def test_each_example_is_one_name(rule: str, russian: str, ukrainian: str) -> None:
    assert RULES.same(russian, ukrainian), (rule, RULES.runs(russian), RULES.runs(ukrainian))


def _every_counterexample(rules: FormRules) -> list[tuple[str, str, str]]:
    pairs = [("vowels", a, b) for a, b in rules.counterexamples]
    pairs += [(rule.name, a, b) for rule in rules.rules for a, b in rule.counterexamples]
    return pairs


@pytest.mark.parametrize(("rule", "first", "second"), _every_counterexample(RULES))
def test_each_counterexample_is_two_names(rule: str, first: str, second: str) -> None:
    assert not RULES.same(first, second), rule


@pytest.mark.parametrize("rule", [rule.name for rule in RULES.rules])
def test_each_rule_is_needed_by_its_examples(rule: str) -> None:
    without = RULES.without(rule)
    examples = next(r.examples for r in RULES.rules if r.name == rule)
    assert examples, f"{rule} has no examples"
    assert not all(without.same(a, b) for a, b in examples), (
        f"{rule}: its examples still pass without it"
    )


def test_every_rule_says_what_it_is_for() -> None:
    assert RULES.rules
    for rule in RULES.rules:
        assert rule.about and rule.examples and rule.counterexamples, rule.name


def test_a_form_key_needs_enough_consonants() -> None:
    assert RULES.key("Bila") == ""  # two consonants: too short to be compared
    assert RULES.key("Kharkov") == RULES.key("Kharkiv") != ""
    assert RULES.runs("Orekhov") == ("*r*h*v", ("o", "e", "o"))


def test_a_malformed_forms_file_is_refused_by_line_and_key(tmp_path: Path) -> None:
    text = RULES_TEXT.replace('replacement = "vu"', 'replacment = "vu"')
    path = tmp_path / "forms.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LexiconError, match=r"forms\.toml:\d+: \[\[rule\]\] unknown key "
                                           r"'replacment'"):
        load_form_rules(path)
    path.write_text(RULES_TEXT.replace("max_changes = 2", 'max_changes = "two"'),
                    encoding="utf-8")
    with pytest.raises(LexiconError, match="max_changes must be a whole number"):
        load_form_rules(path)


RULES_TEXT = '''
[vowels]
about = "test"
letters = "aeiou"
max_changes = 2
min_consonants = 3

[[rule]]
name = "prothetic_v"
about = "test"
pattern = "^u"
replacement = "vu"
'''


def _rows(*names: str) -> list[tuple[str, str, int]]:
    return [(normalise_toponym(n), fold_toponym(n), number) for number, n in enumerate(names)]


def test_the_form_table_finds_the_fewest_changes_first() -> None:
    table = FormTable(_rows("Orikhiv", "Oriokhiv", "Kharkiv", "Vuhledar"))
    assert [number for _c, _k, number in table.find("Orekhov")][:1] == [0]
    assert [number for _c, _k, number in table.find("Ugledar")] == [3]
    assert table.find("Kherson") == []


def test_the_typo_table_reaches_one_edit_and_most_two() -> None:
    table = TypoTable(_rows("Kramatorsk", "Rubizhne", "Zelenodolsk", "Novyi Korotych"))

    def found(query: str, limit: int) -> list[int]:
        key = normalise_toponym(query)
        return [number for _d, _k, number in table.find(key, fold_toponym(key), limit)]

    assert found("Kramatorks", 1) == [0]  # two letters swapped
    assert found("Rubzihne", 1) == [1]  # swapped before the fold merges zh
    assert found("Zelenodol", 2) == [2]  # two letters missing
    assert found("New Korotich", 2) == [3]  # a letter changed and one missing
    assert found("Kramatorsk", 1) == [0]
    assert found("Qwertyuiop", 2) == []


def _osa_by_definition(a: str, b: str) -> int:
    """The optimal string alignment distance from its definition: the full table, no cut."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        table[i][0] = i
    for j in range(len(b) + 1):
        table[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1,
                              table[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
    return table[len(a)][len(b)]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="abkor ", max_size=9), st.text(alphabet="abkor ", max_size=9),
       st.integers(min_value=0, max_value=3))
def test_edit_distance_is_the_cut_alignment_distance(a: str, b: str, limit: int) -> None:
    exact = _osa_by_definition(a, b)
    assert edit_distance(a, b, limit) == (exact if exact <= limit else limit + 1)


@pytest.mark.parametrize(("a", "b", "limit", "expected"), [
    ("kramatorsk", "kramatorks", 2, 1),  # neighbours swapped: one edit, not two
    ("ca", "abc", 3, 3),  # alignment distance, not Damerau's (which says 2)
    ("izium", "izyum", 1, 1),
    ("lviv", "kyiv", 1, 2),  # above the limit: limit + 1
])
def test_edit_distance_examples(a: str, b: str, limit: int, expected: int) -> None:
    assert edit_distance(a, b, limit) == expected
