"""Names that the exact and fold keys miss: Russian-style forms, and spellings a letter off.

Part of the gazetteer, the reference layer below the stages. The resolver looks a name up by
its normalised key, then by its fold (:mod:`.normalise`); when neither finds a place in the
region or country asked for, it asks the two tables here, in this order:

* :class:`FormTable`: the Russian-style form of a Ukrainian name (Kharkov for Kharkiv, Orekhov
  for Orikhiv, Andreevka for Andriivka, Aleksandrovka for Oleksandrivka, Ugledar for
  Vuhledar), or a name in another transliteration (Suja or Sudja for Sudzha). Both names are
  reduced to a form key (:meth:`FormRules.key`): the fold, with the consonant correspondences
  of ``data/forms.toml`` applied to each word (a rule marked ``written`` to each word of the
  name as written, before the fold merges its letters), and each run of vowels written as one
  placeholder. Names that share a form key and differ in at most
  ``max_changes`` vowel runs, with at least ``min_consonants`` consonants, are one name; the
  places with the fewest changed runs are returned.
* :class:`TypoTable`: names one letter off (two for names of nine letters or more), found
  through a table of one-letter deletions of every name's fold (a "symmetric deletion"
  index): a query's fold and its one-letter deletions (and the folds of its letters swapped),
  and, for long names, its two-letter deletions, substitutions and insertions are looked up
  there, and each name found is checked with :func:`.normalise.edit_distance`. A look-up
  costs some hundred dictionary probes however many names there are, so the whole country can
  be searched (the old scan of one region's names took about 0.15 s a query). It finds every
  name one edit off and most two edits off (not two substitutions).

Both tables are built from the gazetteer's names the first time they are needed (well under a
second), so a gazetteer that never meets an unknown name never builds them.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casebuilder.gazetteer.normalise import edit_distance, fold_toponym, normalise_toponym
from casebuilder.model.lexicon import LexiconError, check_keys, key_line

FORMS_FILE = Path(__file__).parent / "data" / "forms.toml"

_VOWEL_KEYS = frozenset({"about", "letters", "max_changes", "min_consonants", "examples",
                         "counterexamples"})  # fmt: skip
_RULE_KEYS = frozenset({"name", "about", "pattern", "replacement", "examples",
                        "counterexamples", "written"})  # fmt: skip
_PLACEHOLDER = "*"

Pair = tuple[str, str]


@dataclass(frozen=True)
class FormRule:
    """One consonant correspondence of ``data/forms.toml``."""

    name: str
    about: str
    pattern: re.Pattern[str]
    replacement: str
    examples: tuple[Pair, ...] = ()
    counterexamples: tuple[Pair, ...] = ()
    source: str = ""
    #: Applied to each word of the normalised name before the fold, which would merge the
    #: letters the rule reads (the j of "Suja" becomes the i of a glide there).
    written: bool = False


@dataclass(frozen=True)
class FormRules:  # not slotted: it caches its compiled vowel pattern
    """The vowels and consonant correspondences by which a Russian-style form and a Ukrainian
    name are compared (see the module doc)."""

    vowels: frozenset[str]
    max_changes: int
    min_consonants: int
    rules: tuple[FormRule, ...]
    examples: tuple[Pair, ...] = ()
    counterexamples: tuple[Pair, ...] = ()

    def without(self, name: str) -> FormRules:
        """The same rules but the one called ``name`` (for the test that switches each off)."""
        return FormRules(self.vowels, self.max_changes, self.min_consonants,
                         tuple(r for r in self.rules if r.name != name))  # fmt: skip

    def runs(self, text: str) -> tuple[str, tuple[str, ...]]:
        """The form key of a name and its vowel runs in order: ``"Orekhov"`` gives
        ``("*r*h*v", ("o", "e", "o"))``."""
        key = normalise_toponym(text)
        return self.runs_of_fold(self.fold(key, fold_toponym(key)))

    def fold(self, key: str, folded: str) -> str:
        """The fold of a normalised name ``key`` (``folded`` is its plain fold) once the
        ``written`` rules have rewritten its words: ``"suja"`` folds as ``"sudzha"``."""
        written = self._written
        if not written or not any(rule.pattern.search(key) for rule in written):
            return folded
        words = []
        for word in key.split():
            for rule in written:
                word = rule.pattern.sub(rule.replacement, word)
            words.append(word)
        return fold_toponym(" ".join(words))

    @functools.cached_property
    def _written(self) -> tuple[FormRule, ...]:
        return tuple(rule for rule in self.rules if rule.written)

    @functools.cached_property
    def _folded(self) -> tuple[FormRule, ...]:
        return tuple(rule for rule in self.rules if not rule.written)

    def runs_of_fold(self, folded: str) -> tuple[str, tuple[str, ...]]:
        """:meth:`runs` of a name already folded (:meth:`fold`)."""
        words = []
        runs: list[str] = []
        for word in folded.split():
            if self._any_rule.search(word):
                for rule in self._folded:
                    word = rule.pattern.sub(rule.replacement, word)
            parts = self._vowel_runs.split(word)
            runs.extend(parts[1::2])
            words.append(_PLACEHOLDER.join(parts[0::2]))
        return " ".join(words), tuple(runs)

    @functools.cached_property
    def _any_rule(self) -> re.Pattern[str]:
        """A word no rule's pattern matches is left as it is (one search, not one a rule)."""
        return re.compile("|".join(f"(?:{rule.pattern.pattern})" for rule in self._folded)
                          or "(?!)")  # fmt: skip

    @functools.cached_property
    def _vowel_runs(self) -> re.Pattern[str]:
        return re.compile(f"([{re.escape(''.join(sorted(self.vowels)))}]+)")

    def key(self, text: str) -> str:
        """The form key (empty when the name has too few consonants to be compared)."""
        return self._usable(self.runs(text)[0])

    def _usable(self, key: str) -> str:
        consonants = sum(1 for char in key if char not in (_PLACEHOLDER, " "))
        return key if consonants >= self.min_consonants else ""

    def changes(self, a: Sequence[str], b: Sequence[str]) -> int:
        """How many vowel runs differ between two names of one form key."""
        return sum(1 for x, y in zip(a, b, strict=True) if x != y)

    def same(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are one name by these rules."""
        key_a, runs_a = self.runs(a)
        key_b, runs_b = self.runs(b)
        return (bool(self.key(a)) and key_a == key_b
                and self.changes(runs_a, runs_b) <= self.max_changes)  # fmt: skip


def _pairs(path: Path, text: str, where: str, value: Any) -> tuple[Pair, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p) for p in value
    ):
        raise LexiconError(f"{path}:{where}: examples must be pairs of names")
    return tuple((p[0], p[1]) for p in value)


def load_form_rules(path: Path = FORMS_FILE) -> FormRules:
    """Read and check a forms file; an error names the file, line and key."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise LexiconError(f"{path}: {exc}") from exc
    check_keys(path, text, None, data, {"vowels", "rule"})
    vowels = data.get("vowels")
    if not isinstance(vowels, dict):
        raise LexiconError(f"{path}: the table [vowels] is missing")
    check_keys(path, text, "vowels", vowels, _VOWEL_KEYS)
    for key in ("max_changes", "min_consonants"):
        if not isinstance(vowels.get(key), int) or isinstance(vowels.get(key), bool):
            raise LexiconError(f"{path}:{key_line(text, 'vowels', key)}: [vowels] {key} must be "
                               "a whole number")  # fmt: skip
    if not isinstance(vowels.get("letters"), str) or not vowels["letters"]:
        raise LexiconError(f"{path}:{key_line(text, 'vowels')}: [vowels] letters is missing")
    rules: list[FormRule] = []
    lines = text.splitlines()
    starts = [i + 1 for i, line in enumerate(lines) if line.strip() == "[[rule]]"]
    raw_rules = data.get("rule", [])
    if not isinstance(raw_rules, list):
        raise LexiconError(f"{path}: rule must be an array of tables ([[rule]])")
    for number, entry in enumerate(raw_rules):
        line = starts[number] if number < len(starts) else 0
        if not isinstance(entry, dict):
            raise LexiconError(f"{path}:{line}: a rule must be a table")
        unknown = sorted(set(entry) - _RULE_KEYS)
        if unknown:
            raise LexiconError(f"{path}:{line}: [[rule]] unknown key {unknown[0]!r} (known "
                               f"keys: {', '.join(sorted(_RULE_KEYS))})")  # fmt: skip
        for key in ("name", "about", "pattern", "replacement"):
            if not isinstance(entry.get(key), str):
                raise LexiconError(f"{path}:{line}: [[rule]] {key} is missing")
        try:
            pattern = re.compile(entry["pattern"])
        except re.error as exc:
            raise LexiconError(f"{path}:{line}: [[rule]] {entry['name']}: {exc}") from exc
        written = entry.get("written", False)
        if not isinstance(written, bool):
            raise LexiconError(f"{path}:{line}: [[rule]] {entry['name']}: written must be true "
                               "or false")  # fmt: skip
        rules.append(FormRule(
            entry["name"], entry["about"], pattern, entry["replacement"],
            _pairs(path, text, str(line), entry.get("examples")),
            _pairs(path, text, str(line), entry.get("counterexamples")),
            f"{path.name}:{line}", written,
        ))  # fmt: skip
    if len({r.name for r in rules}) < len(rules):
        raise LexiconError(f"{path}: two rules have one name")
    where = str(key_line(text, "vowels"))
    return FormRules(
        frozenset(vowels["letters"]), vowels["max_changes"], vowels["min_consonants"],
        tuple(rules), _pairs(path, text, where, vowels.get("examples")),
        _pairs(path, text, where, vowels.get("counterexamples")),
    )  # fmt: skip


@functools.cache
def form_rules() -> FormRules:
    """The shipped forms file, read once."""
    return load_form_rules()


Row = tuple[str, str, int]
"""A name's normalised key, its fold and the number of the place it names."""


class FormTable:
    """Places by the form key of each of their names (see the module doc)."""

    def __init__(self, rows: Iterable[Row], rules: FormRules | None = None) -> None:
        self.rules = rules or form_rules()
        by_fold: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for key, folded, number in rows:
            by_fold[self.rules.fold(key, folded)].append((key, number))
        self._by_key: dict[str, list[tuple[tuple[str, ...], str, int]]] = defaultdict(list)
        for folded, names in by_fold.items():
            form, runs = self.rules.runs_of_fold(folded)
            if self.rules._usable(form):
                self._by_key[form].extend((runs, key, number) for key, number in names)

    def find(self, name: str) -> list[tuple[int, str, int]]:
        """(changed vowel runs, matched key, place number) of every place whose name ``name``
        may be a form of (at most ``max_changes`` runs changed), fewest changes first."""
        form, runs = self.rules.runs(name)
        if not self.rules._usable(form):
            return []
        found = [
            (self.rules.changes(runs, other), key, number)
            for other, key, number in self._by_key.get(form, ())
        ]
        return sorted(f for f in found if f[0] <= self.rules.max_changes)


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


class TypoTable:
    """Names a letter or two off, through one-letter deletions of their folds."""

    def __init__(self, rows: Iterable[Row]) -> None:
        self._by_fold: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for key, folded, number in rows:
            self._by_fold[folded].append((key, number))
        # a fold and each of its one-letter deletions -> the fold (or the folds, when several
        # share it); one string rather than a list of one saves most of the build time
        deleted: dict[str, str | list[str]] = {}
        get = deleted.get
        for fold in self._by_fold:
            for shorter in (fold, *(fold[:i] + fold[i + 1 :] for i in range(len(fold)))):
                got = get(shorter)
                if got is None:
                    deleted[shorter] = fold
                elif isinstance(got, str):
                    if got != fold:
                        deleted[shorter] = [got, fold]
                elif got[-1] != fold:
                    got.append(fold)
        self._deleted = deleted

    def find(self, key: str, folded: str, limit: int) -> list[tuple[int, str, int]]:
        """(distance, matched key, place number) of every name within ``limit`` edits of the
        query (its normalised ``key`` or its ``folded`` key, whichever is nearer), nearest
        first."""
        probes = {folded} | _deletions(folded)
        # a letter swapped or dropped before folding ("Rubzihne" for Rubizhne: the fold of
        # the swap is the name's)
        probes |= {fold_toponym(variant) for variant in _deletions(key) | _swaps(key)}
        if limit >= 2:
            probes |= {shorter for probe in _deletions(folded) for shorter in _deletions(probe)}
            probes |= _substitutions(folded, self._letters) | _insertions(folded, self._letters)
        folds: set[str] = set()
        for probe in probes:
            got = self._deleted.get(probe)
            if isinstance(got, str):
                folds.add(got)
            elif got is not None:
                folds.update(got)
        found: list[tuple[int, str, int]] = []
        for other_fold in folds:
            by_fold = edit_distance(folded, other_fold, limit)
            for other_key, number in self._by_fold[other_fold]:
                # the written key may be nearer than the fold ("Rubzihne"): asked only for less
                distance = by_fold if by_fold == 0 else min(
                    by_fold, edit_distance(key, other_key, min(limit, by_fold - 1)))
                if distance <= limit:
                    found.append((distance, other_key, number))
        return sorted(found)

    @functools.cached_property
    def _letters(self) -> str:
        return "".join(sorted({char for fold in self._by_fold for char in fold} - {" "}))


def _swaps(word: str) -> set[str]:
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}


def _substitutions(word: str, letters: str) -> set[str]:
    return {word[:i] + c + word[i + 1 :] for i in range(len(word)) for c in letters}


def _insertions(word: str, letters: str) -> set[str]:
    return {word[:i] + c + word[i:] for i in range(len(word) + 1) for c in letters}
