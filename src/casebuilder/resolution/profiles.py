"""Source profiles (profiles.toml): the reliability letter of each kind of source, and why."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from casebuilder.errors import ConfigurationError

PROFILES_FILE = Path(__file__).parent / "profiles.toml"
LETTERS = "ABCDEF"


@dataclass(frozen=True)
class Profile:
    reliability: str
    why: str


@dataclass(frozen=True)
class SourceIdentity:
    """How speakers are told apart when origins are counted (profiles.toml [identity])."""

    generic_words: frozenset[str]
    same_as: dict[str, str]
    unattributed: frozenset[str]


@dataclass(frozen=True)
class SourceProfiles:
    kinds: dict[str, Profile]
    named: dict[str, Profile]
    identity: SourceIdentity

    def for_source(self, speaker: str, kind: str) -> Profile:
        named = self.named.get(speaker.lower().strip())
        if named is not None:
            return named
        return self.kinds.get(kind) or self.kinds.get("unknown") or Profile("F", "unknown")


def load_profiles(path: Path = PROFILES_FILE) -> SourceProfiles:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigurationError(f"source profiles {path}: {exc}") from exc

    def profile(where: str, entry: object) -> Profile:
        if not isinstance(entry, dict):
            raise ConfigurationError(f"{path}: {where} must be a table")
        letter = str(entry.get("reliability", "")).upper()
        if len(letter) != 1 or letter not in LETTERS:
            raise ConfigurationError(f"{path}: {where} reliability must be one of A-F")
        return Profile(letter, str(entry.get("why", "")))

    unknown = set(raw) - {"kinds", "named", "identity"}
    if unknown:
        raise ConfigurationError(f"{path}: unknown section(s) {', '.join(sorted(unknown))}")
    kinds = {k: profile(f"kinds.{k}", v) for k, v in raw.get("kinds", {}).items()}
    named = {k.lower(): profile(f"named.{k}", v) for k, v in raw.get("named", {}).items()}
    if "unknown" not in kinds:
        raise ConfigurationError(f"{path}: a profile for kind 'unknown' is required")
    return SourceProfiles(kinds, named, _identity(path, raw.get("identity", {})))


def _identity(path: Path, raw: object) -> SourceIdentity:
    if not isinstance(raw, dict):
        raise ConfigurationError(f"{path}: [identity] must be a table")
    unknown = set(raw) - {"generic_words", "same_as", "unattributed"}
    if unknown:
        raise ConfigurationError(f"{path}: [identity] has unknown key(s) "
                                 f"{', '.join(sorted(unknown))}")

    def words(key: str) -> frozenset[str]:
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
            raise ConfigurationError(f"{path}: [identity] {key} must be a list of strings")
        return frozenset(w.lower() for w in value)

    same_as = raw.get("same_as", {})
    if not isinstance(same_as, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in same_as.items()):
        raise ConfigurationError(f"{path}: [identity] same_as must map words to words")
    return SourceIdentity(words("generic_words"), {k.lower(): v.lower()
                                                   for k, v in same_as.items()},
                          words("unattributed"))


@cache
def default_profiles() -> SourceProfiles:
    """The shipped profiles, loaded once per process."""
    return load_profiles()
