"""Loading the extraction vocabularies (the TOML files in ``extraction/vocab``).

Categories, weapons, target types, reporting verbs, kinds of source and parties to a conflict
are data an analyst can read and extend; this module turns them into typed, validated objects
and computes a digest of their content, recorded with every extraction run so a result can be
traced to the exact vocabulary that produced it.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from casebuilder.extraction.dates import WarCalendar
from casebuilder.model.lexicon import (
    Lexicon,
    LexiconError,
    check_keys,
    key_line,
    load_lexicon,
)
from casebuilder.model.terms import CATEGORY_ORDER

VOCAB_DIR = Path(__file__).parent / "vocab"
FILES = ("categories.toml", "weapons.toml", "targets.toml", "attribution.toml", "sources.toml",
         "actors.toml", "wars.toml")
EVIDENTIALITY = ("observed", "stated", "alleged", "denied", "unverified")


VocabularyError = LexiconError  # one error for every data file of the extractor


@dataclass(frozen=True)
class Category:
    key: str
    label: str
    triggers: tuple[str, ...]
    weak: frozenset[str] = frozenset()
    requires_harm: bool = False


@dataclass(frozen=True)
class Weapon:
    name: str
    aliases: tuple[str, ...]
    family: str
    category: str
    wide_area: bool
    generic: bool = False  # named only by its family (weapons.toml)


@dataclass(frozen=True)
class TargetType:
    name: str
    aliases: tuple[str, ...]
    protected: bool
    crowded: bool
    generic: bool = False  # says little about what was hit (targets.toml)
    setting: bool = False  # may only be an attack's setting; never keeps reports apart


@dataclass(frozen=True)
class SourceKind:
    key: str
    label: str
    markers: tuple[str, ...]


@dataclass(frozen=True)
class Party:
    key: str
    label: str
    forces: tuple[str, ...]
    state_words: frozenset[str]


@dataclass(frozen=True)
class Vocabulary:
    categories: dict[str, Category]
    weapons: dict[str, Weapon]
    targets: dict[str, TargetType]
    evidentiality_verbs: dict[str, str]  # verb -> evidentiality
    evidentiality_phrases: dict[str, str]  # phrase -> evidentiality
    speech_verbs: frozenset[str]
    according_to: tuple[str, ...]
    source_kinds: tuple[SourceKind, ...]
    parties: dict[str, Party]
    enemy_words: tuple[str, ...]
    opponents: dict[str, tuple[str, ...]]
    agency_verbs: frozenset[str]
    ignore_phrases: tuple[str, ...]
    situation_cues: tuple[str, ...]
    military_objects: tuple[str, ...]
    remnants: tuple[str, ...]
    wars: WarCalendar
    digest: str
    lexicon: Lexicon = field(default_factory=lambda: Lexicon({}, ""))
    directory: Path = Path()
    extra: dict[str, Any] = field(default_factory=dict)


def _read(directory: Path, name: str) -> tuple[dict[str, Any], bytes]:
    path = directory / name
    try:
        raw = path.read_bytes()
        return tomllib.loads(raw.decode("utf-8")), raw
    except FileNotFoundError as exc:
        raise VocabularyError(f"vocabulary file {path} is missing") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise VocabularyError(f"{path}: {exc}") from exc


#: What each vocabulary file may hold: the keys of its top-level lists and of its entries.
#: Anything else is a typo ("trigers"), refused with its file, line and key.
SCHEMA: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "categories.toml": (frozenset({"ignore", "situation_cues", "military_objects", "remnants"}),
                        frozenset({"label", "description", "triggers", "weak",
                                   "requires_harm"})),
    "weapons.toml": (frozenset(), frozenset({"aliases", "family", "category", "wide_area",
                                             "generic"})),
    "targets.toml": (frozenset(), frozenset({"aliases", "protected", "crowded", "generic",
                                             "setting"})),
    "sources.toml": (frozenset(), frozenset({"label", "markers"})),
    "actors.toml": (frozenset(), frozenset({"label", "forces", "state_words", "enemy",
                                            "verbs"})),
}


def _check_schema(directory: Path, name: str, data: dict[str, Any], raw: bytes) -> None:
    text = raw.decode("utf-8")
    path = directory / name
    if name == "attribution.toml":
        check_keys(path, text, None, data, {"evidentiality", "speech"})
        check_keys(path, text, "speech", data.get("speech", {}), {"verbs", "according_to"})
        for kind, entry in data.get("evidentiality", {}).items():
            check_keys(path, text, f"evidentiality.{kind}", entry, {"verbs", "phrases"})
        return
    schema = SCHEMA.get(name)
    if schema is None:
        return
    lists, entry_keys = schema
    for key, value in data.items():
        if isinstance(value, dict):
            if name == "actors.toml" and key == "opponents":
                continue  # party -> its opponents, checked against the parties below
            check_keys(path, text, key, value, entry_keys)
        elif key not in lists:
            raise VocabularyError(f"{path}:{key_line(text, None, key)}: unknown key {key!r} "
                                  f"(top-level keys: {', '.join(sorted(lists)) or 'none'}; "
                                  "entries are tables)")


def vocabulary_files(directory: Path) -> list[Path]:
    """Every file the vocabulary reads, for its digest: the named files, the lexicon and the
    rule tables."""
    return [directory / name for name in FILES] + sorted(
        (directory / "lexicon").glob("*.toml")) + sorted((directory / "rules").glob("*.toml"))


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise VocabularyError(f"{where} must be a list of strings")
    return tuple(v.lower().strip() for v in value if v.strip())


@cache
def shipped_vocabulary() -> Vocabulary:
    """The vocabulary shipped with casebuilder, loaded once per process (for stages that only
    read its facts: which weapons are generic, which targets protected)."""
    return load_vocabulary()


def load_vocabulary(directory: Path = VOCAB_DIR) -> Vocabulary:
    """Load and check every vocabulary file in ``directory``."""
    blobs: list[bytes] = []
    data: dict[str, dict[str, Any]] = {}
    for name in FILES:
        data[name], raw = _read(directory, name)
        _check_schema(directory, name, data[name], raw)
        blobs.append(name.encode() + b"\0" + raw)
    lexicon = load_lexicon([directory / "lexicon"])
    for path in sorted((directory / "rules").glob("*.toml")):
        blobs.append(f"rules/{path.name}".encode() + b"\0" + path.read_bytes())
    # The lexicon's own digest covers its files; folding it in keeps one digest per run.
    blobs.append(b"lexicon\0" + lexicon.digest.encode())
    digest = hashlib.sha256(b"\0".join(blobs)).hexdigest()

    categories: dict[str, Category] = {}
    for key, entry in data["categories.toml"].items():
        if key in {"ignore", "situation_cues", "military_objects", "remnants"}:
            continue
        if key not in CATEGORY_ORDER:
            raise VocabularyError(f"categories.toml: unknown category {key!r} "
                                  f"(the export vocabulary is {', '.join(CATEGORY_ORDER)})")
        categories[key] = Category(
            key=key, label=str(entry.get("label", key)),
            triggers=_strings(entry.get("triggers", []), f"categories.toml [{key}] triggers"),
            weak=frozenset(_strings(entry.get("weak", []), f"categories.toml [{key}] weak")),
            requires_harm=bool(entry.get("requires_harm", False)),
        )
    weapons: dict[str, Weapon] = {}
    for name, entry in data["weapons.toml"].items():
        category = str(entry.get("category", "explosive_attack"))
        if category not in CATEGORY_ORDER:
            raise VocabularyError(f"weapons.toml [{name}]: unknown category {category!r}")
        weapons[name] = Weapon(name=name,
                               aliases=_strings(entry.get("aliases", []),
                                                f"weapons.toml [{name}] aliases"),
                               family=str(entry.get("family", "")), category=category,
                               wide_area=bool(entry.get("wide_area", False)),
                               generic=bool(entry.get("generic", False)))
    targets = {
        name: TargetType(name=name,
                         aliases=_strings(entry.get("aliases", []),
                                          f"targets.toml [{name}] aliases"),
                         protected=bool(entry.get("protected", False)),
                         crowded=bool(entry.get("crowded", False)),
                         generic=bool(entry.get("generic", False)),
                         setting=bool(entry.get("setting", False)))
        for name, entry in data["targets.toml"].items()
    }
    attribution = data["attribution.toml"]
    verbs: dict[str, str] = {}
    phrases: dict[str, str] = {}
    for kind, entry in attribution.get("evidentiality", {}).items():
        if kind not in EVIDENTIALITY:
            raise VocabularyError(f"attribution.toml: unknown evidentiality {kind!r}")
        for verb in _strings(entry.get("verbs", []), f"attribution.toml {kind} verbs"):
            verbs.setdefault(verb, kind)
        for phrase in _strings(entry.get("phrases", []), f"attribution.toml {kind} phrases"):
            phrases.setdefault(phrase, kind)
    speech = attribution.get("speech", {})
    kinds = tuple(
        SourceKind(key=key, label=str(entry.get("label", key)),
                   markers=tuple(m.lower() for m in entry.get("markers", [])))
        for key, entry in data["sources.toml"].items()
    )
    actors = data["actors.toml"]
    parties = {
        key: Party(key=key, label=str(entry.get("label", key)),
                   forces=_strings(entry.get("forces", []), f"actors.toml [{key}] forces"),
                   state_words=frozenset(_strings(entry.get("state_words", []),
                                                  f"actors.toml [{key}] state_words")))
        for key, entry in actors.items() if key not in {"relative", "opponents", "agency"}
    }
    opponents = {k: _strings(v, f"actors.toml opponents {k}")
                 for k, v in actors.get("opponents", {}).items()}
    for key, others in opponents.items():
        for other in (key, *others):
            if other not in parties:
                raise VocabularyError(f"actors.toml: opponents name unknown party {other!r}")
    return Vocabulary(
        categories=categories,
        weapons=weapons,
        targets=targets,
        evidentiality_verbs=verbs,
        evidentiality_phrases=phrases,
        speech_verbs=frozenset(_strings(speech.get("verbs", []), "attribution.toml speech")),
        according_to=_strings(speech.get("according_to", []), "attribution.toml according_to"),
        source_kinds=kinds,
        parties=parties,
        enemy_words=_strings(actors.get("relative", {}).get("enemy", []), "actors.toml enemy"),
        opponents=opponents,
        ignore_phrases=_strings(data["categories.toml"].get("ignore", []),
                                "categories.toml ignore"),
        situation_cues=_strings(data["categories.toml"].get("situation_cues", []),
                                "categories.toml situation_cues"),
        military_objects=_strings(data["categories.toml"].get("military_objects", []),
                                  "categories.toml military_objects"),
        remnants=_strings(data["categories.toml"].get("remnants", []),
                          "categories.toml remnants"),
        agency_verbs=frozenset(_strings(actors.get("agency", {}).get("verbs", []),
                                        "actors.toml agency verbs")),
        wars=WarCalendar.load(directory / "wars.toml"),
        digest=digest,
        lexicon=lexicon,
        directory=directory,
    )
