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
from pathlib import Path
from typing import Any

from casebuilder.errors import ConfigurationError
from casebuilder.extraction.dates import WarCalendar
from casebuilder.model.terms import CATEGORY_ORDER

VOCAB_DIR = Path(__file__).parent / "vocab"
FILES = ("categories.toml", "weapons.toml", "targets.toml", "attribution.toml", "sources.toml",
         "actors.toml", "wars.toml")
EVIDENTIALITY = ("observed", "stated", "alleged", "denied", "unverified")


class VocabularyError(ConfigurationError):
    """A vocabulary file is missing, malformed or inconsistent."""


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


@dataclass(frozen=True)
class TargetType:
    name: str
    aliases: tuple[str, ...]
    protected: bool
    crowded: bool


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


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise VocabularyError(f"{where} must be a list of strings")
    return tuple(v.lower().strip() for v in value if v.strip())


def load_vocabulary(directory: Path = VOCAB_DIR) -> Vocabulary:
    """Load and check every vocabulary file in ``directory``."""
    blobs: list[bytes] = []
    data: dict[str, dict[str, Any]] = {}
    for name in FILES:
        data[name], raw = _read(directory, name)
        blobs.append(name.encode() + b"\0" + raw)
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
                               wide_area=bool(entry.get("wide_area", False)))
    targets = {
        name: TargetType(name=name,
                         aliases=_strings(entry.get("aliases", []),
                                          f"targets.toml [{name}] aliases"),
                         protected=bool(entry.get("protected", False)),
                         crowded=bool(entry.get("crowded", False)))
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
    )
