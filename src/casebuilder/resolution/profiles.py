"""Source profiles (profiles.toml): the reliability letter of each kind of source, and why;
and the thresholds incident merging reads from the same file ([merge])."""

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

    unknown = set(raw) - {"kinds", "named", "identity", "merge"}
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


@dataclass(frozen=True)
class MergeThresholds:
    """profiles.toml [merge]: how far apart two settlements may lie and still be the places
    of one attack (when the reports agree on its day and on its toll or target)."""

    neighbours_km: float


def load_merge_thresholds(path: Path = PROFILES_FILE) -> MergeThresholds:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8")).get("merge", {})
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigurationError(f"source profiles {path}: {exc}") from exc
    if not isinstance(raw, dict) or set(raw) - {"neighbours_km", "why"}:
        raise ConfigurationError(f"{path}: [merge] takes neighbours_km and why")
    value = raw.get("neighbours_km", 0.0)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        raise ConfigurationError(f"{path}: [merge] neighbours_km must be a number of km >= 0")
    return MergeThresholds(float(value))


@cache
def merge_thresholds() -> MergeThresholds:
    """The shipped merge thresholds, loaded once per process."""
    return load_merge_thresholds()
