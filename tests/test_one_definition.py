"""One definition per concept (issue 9): the rules that once lived in several places, each
drifting on its own, live in one place, and a second copy anywhere in the code fails here.

- the precision rank of a place (with "a district over 5 km is a village at its hromada's
  centre"): gazetteer/model.py, from data/ranking.toml;
- which weapons are generic and which target types generic or only a setting: weapons.toml and
  targets.toml, read through the vocabulary;
- incident categories and grades: model/terms.py.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from casebuilder.extraction.vocabulary import load_vocabulary
from casebuilder.model.terms import CATEGORY_ORDER, GRADES

SRC = Path(__file__).resolve().parent.parent / "src" / "casebuilder"
PRECISIONS = {"point", "district", "settlement", "region", "country"}


@cache
def parsed(path: Path) -> ast.Module:
    """Each source file parsed once per run (the scans below read every file many times)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def string_collections(tree: ast.AST):
    """Every literal set, list, tuple or dict (its keys) of two or more strings, with its
    line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            values = node.elts
        elif isinstance(node, ast.Dict):
            values = [k for k in node.keys if k is not None]
        else:
            continue
        strings = {v.value for v in values if isinstance(v, ast.Constant)
                   and isinstance(v.value, str)}
        if len(strings) >= 2:
            yield node.lineno, strings


def copies(of: set[str], at_least: int, *, allowed: set[str]) -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        relative = str(path.relative_to(SRC))
        if relative in allowed:
            continue
        tree = parsed(path)
        for line, strings in string_collections(tree):
            if len(strings & of) >= at_least:
                found.append(f"{relative}:{line}: {sorted(strings & of)}")
    return found


def rank_tables() -> list[str]:
    """Dict literals that give precisions an order (small whole numbers): a precision rank.
    Tables of other facts keyed by precision (merging's reach in km) are not ranks."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(parsed(path)):
            if not isinstance(node, ast.Dict):
                continue
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            ranks = [v.value for v in node.values if isinstance(v, ast.Constant)]
            if len(keys & PRECISIONS) >= 4 and ranks and all(
                    isinstance(r, int) and 0 <= r <= 9 for r in ranks):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    return found


def test_the_precision_rank_is_defined_only_by_the_gazetteer():
    # the ranks themselves are data (gazetteer/data/ranking.toml), read by gazetteer/model.py
    assert rank_tables() == []


def test_generic_weapons_and_targets_come_only_from_the_vocabulary():
    vocabulary = load_vocabulary()
    weapons = {w.name for w in vocabulary.weapons.values()}
    targets = {t.name for t in vocabulary.targets.values()}
    assert copies(weapons, 3, allowed=set()) == []
    assert copies(targets, 3, allowed=set()) == []


def test_categories_and_grades_are_defined_once():
    assert copies(set(CATEGORY_ORDER), 4, allowed={"model/terms.py"}) == []
    assert copies(set(GRADES), 3, allowed={"model/terms.py"}) == []


#: modules that repeat constants on purpose: the bundle's checker runs without casebuilder
STANDALONE = {"reporting/verify_bundle.py"}


def test_one_constant_name_means_one_value():
    """A module-level constant defined in two modules with two values is two concepts under
    one name (once, the report's "dataset" against the importer's "monitoring_dataset", which
    cost every dataset row its line and bytes in the case file)."""
    values: dict[str, dict[object, list[str]]] = {}
    for path in sorted(SRC.rglob("*.py")):
        relative = str(path.relative_to(SRC))
        if relative in STANDALONE:
            continue
        for node in parsed(path).body:
            target = node.target if isinstance(node, ast.AnnAssign) else (
                node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1
                else None)
            value = getattr(node, "value", None)
            if isinstance(target, ast.Name) and target.id.isupper() and isinstance(
                    value, ast.Constant):
                values.setdefault(target.id, {}).setdefault(value.value, []).append(relative)
    clashes = {name: found for name, found in values.items() if len(found) > 1}
    assert clashes == {}
