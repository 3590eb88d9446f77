"""Words of the extractor live in the lexicon (vocab/lexicon/*.toml), not in Python: this test
fails on any module-level set, tuple, list or dict of words, or regular expression holding a
word, in the extraction modules (issue 9). What code may still hold at module level are names
of the code's own contract: the outcomes a rule table may give, its predicates, the vocabulary's
file names, model values (Literal types, evidentiality), and regular expressions of structure
(digits, spaces, punctuation)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

EXTRACTION = Path(__file__).resolve().parents[2] / "src" / "casebuilder" / "extraction"
CONTRACT = re.compile(r"^_?[A-Z_]*(OUTCOMES|ROLES|PREDICATES|BUILDERS|_KEYS)$|"
                      r"^(__all__|FILES|SCHEMA|TABLE|[A-Z_]+_TABLE|EVIDENTIALITY|EXTRACTOR_ID)$")
WORD = re.compile(r"[A-Za-z]{3,}")


def module_level_values(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        else:
            continue
        if node.value is not None and names:
            yield names[0], node.lineno, node.value


def regex_literals(value: ast.AST) -> list[str]:
    return [arg.value for call in ast.walk(value) if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute) and call.func.attr in {"compile", "search",
                                                                             "match"}
            for arg in call.args[:1] if isinstance(arg, ast.Constant)
            and isinstance(arg.value, str)]


def word_collection(value: ast.AST) -> list[str]:
    if isinstance(value, ast.Call) and getattr(value.func, "id", "") in {"frozenset", "set",
                                                                           "tuple", "list"}:
        value = value.args[0] if value.args else value
    if isinstance(value, ast.Set | ast.List | ast.Tuple):
        items = value.elts
    elif isinstance(value, ast.Dict):
        items = [k for k in value.keys if k is not None] + [
            v for v in value.values if isinstance(v, ast.Constant)]
    else:
        return []
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)
            and WORD.search(i.value)]


def word_tables() -> list[str]:
    found = []
    for path in sorted(EXTRACTION.glob("*.py")):
        for name, line, value in module_level_values(ast.parse(path.read_text("utf-8"))):
            if CONTRACT.match(name) or isinstance(value, ast.Subscript):
                continue  # the code's own names; typing.Literal value types
            words = word_collection(value)
            if len(words) >= 2:
                found.append(f"{path.name}:{line} {name}: {words[:4]}")
            for pattern in regex_literals(value):
                if WORD.search(re.sub(r"\\[A-Za-z]|\(\?[A-Za-z<>=!:P]+", "", pattern)):
                    found.append(f"{path.name}:{line} {name}: regex {pattern[:40]!r}")
    return found


def test_no_module_level_word_table_or_word_regex_in_extraction():
    assert word_tables() == []


def test_the_check_catches_a_word_table_and_a_word_regex(tmp_path, monkeypatch):
    planted = tmp_path / "planted.py"
    planted.write_text('import re\n_VENUE = frozenset({"meeting", "summit"})\n'
                       '_SINCE = re.compile(r"\\bsince\\b")\nROLES = ("event", "venue")\n'
                       '_DIGITS = re.compile(r"\\d+")\n')
    monkeypatch.setattr(__import__(__name__), "EXTRACTION", tmp_path)
    found = word_tables()
    assert [f.split()[1] for f in found] == ["_VENUE:", "_SINCE:"], found
