"""The gazetteer's word classes, read from ``data/lexicon/*.toml``.

Part of the gazetteer, the reference layer below the stages. The text scanner
(:mod:`.scanner`), the locators (:mod:`.locators`), the layout (:mod:`.layout`), the resolver
and the index builder read the words around a place name from here: "village of", "oblast",
"the river", "said", "Street". Each class is named and says what it is for; the files are
checked on load by :func:`casebuilder.model.lexicon.load_lexicon` (an unknown key is refused
with its file, line and key).

The lexicon's digest is part of :func:`.build.source_versions`: a changed word makes a cached
index stale, and it changes the gazetteer id an extraction run records
(``GazetteerIndex.versions``).

:func:`gazetteer_lexicon` is the one accessor: the stages above (extraction) may read a
gazetteer class through it rather than define the same words again.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

from casebuilder.model.lexicon import Lexicon, load_lexicon

LEXICON_DIR = Path(__file__).parent / "data" / "lexicon"


@functools.cache
def gazetteer_lexicon(directory: Path = LEXICON_DIR) -> Lexicon:
    """The gazetteer's word classes (loaded once per directory)."""
    return load_lexicon([directory])


def alternatives(words: Iterable[str]) -> str:
    """A regular-expression group matching any of ``words`` (longest first, escaped), for
    patterns built around a word class: ``(?:regions|region|oblasts)``."""
    ordered = sorted(set(words), key=lambda word: (-len(word), word))
    return "(?:" + "|".join(re.escape(word) for word in ordered) + ")"
