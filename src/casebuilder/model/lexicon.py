"""Word classes as data: the lexicon every rule of extraction and of the gazetteer reads.

A lexicon file is TOML; each table in it is one named word class an analyst can read and
extend, with a sentence saying what it is for::

    [directions]
    about = "Compass points and distances: 'north of Kyiv' makes Kyiv a reference point."
    words = ["north", "south", "km"]

A class holds exactly one of:

- ``words``: single lower-case words, matched against one token;
- ``phrases``: lower-case word sequences, matched in order of the file (longest first where
  the rule reading them says so);
- ``pattern``: a regular expression (case-insensitive), which must come with ``examples`` it
  matches and may come with ``counterexamples`` it must not match (the tests run both);
- ``map``: a table from words or phrases to what they stand for.

The loader refuses anything else by file, line and key (a class whose ``words`` key is spelt
``wrods`` is an error, not an empty class), and a class defined twice across files. Code asks
for a class by name and kind (:meth:`Lexicon.words` ...), so a misspelt name in code fails at
once too. The lexicon's digest covers every file, so an extraction run records the exact words
it used.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from casebuilder.errors import ConfigurationError

KINDS = ("words", "phrases", "pattern", "map")
ALLOWED = frozenset({"about", "examples", "counterexamples", *KINDS})


class LexiconError(ConfigurationError):
    """A lexicon file is malformed, or code asked for a word class that is not there."""


def key_line(text: str, table: str | None, key: str | None = None) -> int:
    """The 1-based line of ``[table]`` (or of ``key`` inside it) in TOML ``text``, 0 if not
    found: what an error message points an analyst to."""
    lines = text.splitlines()
    start = 0
    if table is not None:
        header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]\s*(#.*)?$|"
                            rf'^\s*\[\s*"{re.escape(table)}"\s*\]\s*(#.*)?$')
        start = next((i for i, line in enumerate(lines) if header.match(line)), -1)
        if start < 0:
            return 0
        if key is None:
            return start + 1
        start += 1
    assignment = re.compile(rf'^\s*"?{re.escape(key or "")}"?\s*=')
    for i in range(start, len(lines)):
        if table is not None and lines[i].lstrip().startswith("["):
            break
        if assignment.match(lines[i]):
            return i + 1
    return 0


def check_keys(path: Path, text: str, table: str | None, entry: Mapping[str, Any],
               allowed: Iterable[str]) -> None:
    """Refuse keys a file's schema does not know, naming file, line and key."""
    unknown = sorted(set(entry) - set(allowed))
    if unknown:
        key = unknown[0]
        where = f"[{table}] " if table else ""
        raise LexiconError(
            f"{path}:{key_line(text, table, key)}: {where}unknown key {key!r} (known keys: "
            f"{', '.join(sorted(allowed))})"
        )


@dataclass(frozen=True)
class WordClass:
    name: str
    about: str
    kind: str
    value: Any  # frozenset[str] | tuple[str, ...] | re.Pattern[str] | dict[str, str]
    examples: tuple[str, ...] = ()
    counterexamples: tuple[str, ...] = ()
    source: str = ""  # "file:line", for messages and the guide


@dataclass
class Lexicon:
    classes: dict[str, WordClass]
    digest: str
    files: tuple[Path, ...] = field(default_factory=tuple)

    def _get(self, name: str, kind: str) -> Any:
        found = self.classes.get(name)
        if found is None:
            raise LexiconError(f"no word class {name!r} in the lexicon")
        if found.kind != kind:
            raise LexiconError(f"word class {name!r} ({found.source}) holds {found.kind}, "
                               f"not {kind}")
        return found.value

    def words(self, name: str) -> frozenset[str]:
        value: frozenset[str] = self._get(name, "words")
        return value

    def phrases(self, name: str) -> tuple[str, ...]:
        value: tuple[str, ...] = self._get(name, "phrases")
        return value

    def pattern(self, name: str) -> re.Pattern[str]:
        value: re.Pattern[str] = self._get(name, "pattern")
        return value

    def mapping(self, name: str) -> dict[str, str]:
        value: dict[str, str] = self._get(name, "map")
        return value

    @cached_property
    def names(self) -> frozenset[str]:
        return frozenset(self.classes)


def _strings(path: Path, text: str, table: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LexiconError(f"{path}:{key_line(text, table, key)}: [{table}] {key} must be a "
                           "list of strings")
    return tuple(v for v in value)


def _word_class(path: Path, text: str, name: str, entry: Any) -> WordClass:
    where = f"{path}:{key_line(text, name)}"
    if not isinstance(entry, dict):
        raise LexiconError(f"{where}: {name} must be a table ([{name}] with about = ...)")
    check_keys(path, text, name, entry, ALLOWED)
    kinds = [kind for kind in KINDS if kind in entry]
    if len(kinds) != 1:
        raise LexiconError(f"{where}: [{name}] must hold exactly one of "
                           f"{', '.join(KINDS)} (it holds {', '.join(kinds) or 'none'})")
    about = entry.get("about")
    if not isinstance(about, str) or not about.strip():
        raise LexiconError(f"{where}: [{name}] needs about = \"what the class is for\"")
    kind = kinds[0]
    raw = entry[kind]
    examples = _strings(path, text, name, "examples", entry.get("examples", []))
    counter = _strings(path, text, name, "counterexamples", entry.get("counterexamples", []))
    value: Any
    if kind == "words":
        words = _strings(path, text, name, kind, raw)
        spaced = [w for w in words if not w or w != w.strip() or " " in w]
        if spaced:
            raise LexiconError(f"{path}:{key_line(text, name, kind)}: [{name}] words are single "
                               f"words ({spaced[0]!r} is not): use phrases for sequences")
        value = frozenset(w.lower() for w in words)
    elif kind == "phrases":
        value = tuple(p.lower().strip() for p in _strings(path, text, name, kind, raw)
                      if p.strip())
    elif kind == "pattern":
        if not isinstance(raw, str):
            raise LexiconError(f"{path}:{key_line(text, name, kind)}: [{name}] pattern must be "
                               "a string")
        try:
            value = re.compile(raw, re.IGNORECASE)
        except re.error as exc:
            raise LexiconError(f"{path}:{key_line(text, name, kind)}: [{name}] pattern is not "
                               f"a regular expression: {exc}") from exc
        if not examples:
            raise LexiconError(f"{where}: [{name}] a pattern needs examples it matches")
    else:
        if not isinstance(raw, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
            raise LexiconError(f"{path}:{key_line(text, name, kind)}: [{name}] map must map "
                               "strings to strings")
        value = {k.lower(): v for k, v in raw.items()}
    return WordClass(name, about.strip(), kind, value, examples, counter,
                     f"{path.name}:{key_line(text, name)}")


def load_lexicon(directories: Iterable[Path]) -> Lexicon:
    """Every ``*.toml`` in ``directories`` (in name order), checked; one digest over all."""
    classes: dict[str, WordClass] = {}
    digest = hashlib.sha256()
    files: list[Path] = []
    for directory in directories:
        for path in sorted(directory.glob("*.toml")):
            try:
                raw = path.read_bytes()
                text = raw.decode("utf-8")
                data = tomllib.loads(text)
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise LexiconError(f"{path}: {exc}") from exc
            digest.update(path.name.encode() + b"\0" + raw + b"\0")
            files.append(path)
            for name, entry in data.items():
                word_class = _word_class(path, text, name, entry)
                if name in classes:
                    raise LexiconError(f"{path}:{key_line(text, name)}: word class {name!r} is "
                                       f"already defined in {classes[name].source}")
                classes[name] = word_class
    return Lexicon(classes, digest.hexdigest(), tuple(files))
