"""The gazetteer's word classes (data/lexicon/*.toml): every pattern's examples and
counterexamples, misspelt keys refused, and the lexicon's digest in what makes a cached index
stale and in the gazetteer id an extraction run records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from casebuilder.gazetteer import gazetteer_lexicon
from casebuilder.gazetteer.build import (
    GazetteerIndex,
    _read_cached_index,
    cache_file_name,
    source_versions,
)
from casebuilder.gazetteer.lexicon import LEXICON_DIR
from casebuilder.gazetteer.model import RANKING_FILE
from casebuilder.model.lexicon import LexiconError, load_lexicon

LEXICON = gazetteer_lexicon()
PATTERNS = sorted(c.name for c in LEXICON.classes.values() if c.kind == "pattern")


@pytest.mark.parametrize("name", PATTERNS)
def test_pattern_examples(name: str) -> None:
    word_class = LEXICON.classes[name]
    assert word_class.examples, name
    for example in word_class.examples:
        assert word_class.value.search(example), (name, example)
    for counterexample in word_class.counterexamples:
        assert not word_class.value.search(counterexample), (name, counterexample)


def test_every_class_is_used_by_the_gazetteer() -> None:
    """A class no module of the gazetteer names is dead data (or a misspelt name in code)."""
    code = "".join(p.read_text(encoding="utf-8")
                   for p in (LEXICON_DIR.parent.parent).glob("*.py"))
    unused = sorted(name for name in LEXICON.classes if f'"{name}"' not in code
                    and f"'{name}'" not in code)
    assert not unused


def test_a_misspelt_key_is_refused_with_file_line_and_key(tmp_path: Path) -> None:
    shutil.copytree(LEXICON_DIR, tmp_path / "lexicon")
    path = tmp_path / "lexicon" / "scanner.toml"
    text = path.read_text(encoding="utf-8").replace(
        '[bank_words]\nabout', '[bank_words]\nwrods = ["x"]\nabout')
    path.write_text(text, encoding="utf-8")
    line = text.splitlines().index('wrods = ["x"]') + 1
    with pytest.raises(LexiconError, match=rf"scanner\.toml:{line}: \[bank_words\] unknown key "
                                           "'wrods'"):
        load_lexicon([tmp_path / "lexicon"])


def test_the_lexicon_digest_makes_the_cache_stale_and_changes_the_id(tmp_path: Path) -> None:
    """A changed word gives other versions: another cache file name, a cached index of the
    old versions is not read, and GazetteerIndex.versions (whose digest extraction records as
    the gazetteer id) differs."""
    changed = tmp_path / "lexicon"
    shutil.copytree(LEXICON_DIR, changed)
    path = changed / "scanner.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('"delta", ', ""), encoding="utf-8")
    before = source_versions()
    after = source_versions(lexicon_dir=changed)
    assert before["casebuilder_lexicon"] != after["casebuilder_lexicon"]
    assert cache_file_name(before) != cache_file_name(after)
    ranking = tmp_path / "ranking.toml"
    ranking.write_text(RANKING_FILE.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert source_versions(ranking_file=ranking)["casebuilder_ranking"] != \
        before["casebuilder_ranking"]
    index = GazetteerIndex([], [], [], frozenset(), before)
    assert index.versions == before
    cached = tmp_path / "index.json"
    cached.write_text(json.dumps(index.to_json()), encoding="utf-8")
    assert _read_cached_index(cached, before) is not None
    assert _read_cached_index(cached, after) is None  # stale: rebuilt, never served


def test_extraction_reads_the_gazetteer_id_from_the_versions() -> None:
    """extraction/run.py takes ``gazetteer.index.versions``: it must exist on the index."""
    run = (LEXICON_DIR.parents[2] / "extraction" / "run.py").read_text(encoding="utf-8")
    assert '"versions"' in run
    assert isinstance(GazetteerIndex([], [], [], frozenset(), {"a": "b"}).versions, dict)
