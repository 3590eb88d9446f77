"""Source profiles (profiles.toml): the reliability letter of each kind of source, and why."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from casebuilder.errors import ConfigurationError

PROFILES_FILE = Path(__file__).parent / "profiles.toml"
LETTERS = "ABCDEF"


@dataclass(frozen=True)
class Profile:
    reliability: str
    why: str


@dataclass(frozen=True)
class SourceProfiles:
    kinds: dict[str, Profile]
    named: dict[str, Profile]

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

    kinds = {k: profile(f"kinds.{k}", v) for k, v in raw.get("kinds", {}).items()}
    named = {k.lower(): profile(f"named.{k}", v) for k, v in raw.get("named", {}).items()}
    if "unknown" not in kinds:
        raise ConfigurationError(f"{path}: a profile for kind 'unknown' is required")
    return SourceProfiles(kinds, named)
