"""The case home: one directory holding everything a case is made of.

::

    HOME/
      config.toml            case id and name, investigator, time-stamping authority, limits
      case.db                SQLite database (unless a database URL is configured)
      objects/sha256/ab/cd/  write-once originals and derived files, named by SHA-256
      custody/log.jsonl      the append-only custody log (one canonical JSON entry per line)
      custody/checkpoints.jsonl  signed checkpoints of the log
      custody/seal.json      the signed head of the log, written before each unit of work
      keys/                  the case's Ed25519 signing key (mode 0600) and its public key
      tmp/                   staging area for atomic writes (same file system as objects/):
                             copies being made and markers of running writers (staging.py)
      lock                   taken by every command that writes

Chosen with ``--home``, ``CASEBUILDER_HOME`` or the default ``./casebuilder-data``.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from casebuilder.errors import CaseHomeError, ConfigurationError

DEFAULT_HOME = Path("casebuilder-data")
HOME_ENV = "CASEBUILDER_HOME"
DEFAULT_MAX_FILE_SIZE = 64 * 1024**3  # multi-gigabyte videos fit; a 1 TiB sparse file does not
#: How long after a checkpoint's time its RFC 3161 token's genTime may be before verify calls
#: it late. A command asks for the token as it signs, so genTime is seconds after; a day leaves
#: room for a slow authority, and a genTime days later is the mark of a back-dated checkpoint.
DEFAULT_TSA_WINDOW_HOURS = 24.0
#: When ingest records an original's SHA-512: "background" (read back from the store by a
#: process started after ingest, or by verify, bundle or a later command) or "inline" (in the
#: storing pass itself, at the cost of ingest time). docs/decisions/0003.
SECOND_DIGEST_MODES = ("background", "inline")


@dataclass(frozen=True)
class CasePaths:
    root: Path

    @property
    def config(self) -> Path:
        return self.root / "config.toml"

    @property
    def database(self) -> Path:
        return self.root / "case.db"

    @property
    def objects(self) -> Path:
        return self.root / "objects"

    @property
    def custody(self) -> Path:
        return self.root / "custody"

    @property
    def log(self) -> Path:
        return self.custody / "log.jsonl"

    @property
    def checkpoints(self) -> Path:
        return self.custody / "checkpoints.jsonl"

    @property
    def seal(self) -> Path:
        return self.custody / "seal.json"

    @property
    def keys(self) -> Path:
        return self.root / "keys"

    @property
    def signing_key(self) -> Path:
        return self.keys / "case-signing-key.pem"

    @property
    def public_key(self) -> Path:
        return self.keys / "case-public-key.pem"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def lock(self) -> Path:
        return self.root / "lock"


@dataclass(frozen=True)
class CaseConfig:
    case_id: str
    name: str
    investigator: str = ""
    tsa_url: str = ""
    tsa_ca_file: str = ""
    tsa_window_hours: float = DEFAULT_TSA_WINDOW_HOURS
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    second_digest: str = "background"
    database_url: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def resolve_home(option: str | os.PathLike[str] | None, environ: dict[str, str]) -> Path:
    """The home named on the command line, else in the environment, else the default."""
    if option:
        return Path(option)
    if environ.get(HOME_ENV):
        return Path(environ[HOME_ENV])
    return DEFAULT_HOME


def _toml_string(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def write_config(paths: CasePaths, config: CaseConfig) -> None:
    text = "\n".join(
        [
            "# casebuilder case configuration. Edit the values; keep the case id.",
            "[case]",
            f"id = {_toml_string(config.case_id)}",
            f"name = {_toml_string(config.name)}",
            "",
            "[investigator]",
            "# Recorded as the actor of every custody entry; empty means the OS user name.",
            f"name = {_toml_string(config.investigator)}",
            "",
            "[timestamping]",
            "# RFC 3161 time-stamping authority for checkpoints; empty means none (offline).",
            f"url = {_toml_string(config.tsa_url)}",
            "# PEM file of the authority's CA certificate, used to verify its tokens.",
            f"ca_file = {_toml_string(config.tsa_ca_file)}",
            "# Hours a token's genTime may follow its checkpoint's time before verify fails it.",
            f"window_hours = {config.tsa_window_hours}",
            "",
            "[intake]",
            "# Files larger than this many bytes are refused with a message.",
            f"max_file_size = {config.max_file_size}",
            '# When an original\'s SHA-512 is recorded: "background" (read back from the store',
            "# after ingest, by a process of its own or by verify/bundle) or \"inline\" (while",
            "# storing, which makes ingest slower). SHA-256 is always computed while storing.",
            f"second_digest = {_toml_string(config.second_digest)}",
            "",
            "[database]",
            "# SQLAlchemy URL; empty means SQLite in case.db inside the case home.",
            f"url = {_toml_string(config.database_url)}",
            "",
        ]
    )
    tmp = paths.config.with_suffix(".toml.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, paths.config)


def read_config(paths: CasePaths) -> CaseConfig:
    try:
        raw = tomllib.loads(paths.config.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CaseHomeError(f"{paths.root} is not a case home (no config.toml)") from exc
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"{paths.config}: {exc}") from exc

    def section(name: str) -> dict[str, Any]:
        value = raw.get(name, {})
        if not isinstance(value, dict):
            raise ConfigurationError(f"{paths.config}: [{name}] must be a table")
        return value

    case = section("case")
    if not isinstance(case.get("id"), str) or not case["id"]:
        raise ConfigurationError(f"{paths.config}: [case] id is missing")
    max_size = section("intake").get("max_file_size", DEFAULT_MAX_FILE_SIZE)
    if not isinstance(max_size, int) or max_size <= 0:
        raise ConfigurationError(
            f"{paths.config}: [intake] max_file_size must be a positive integer"
        )
    window = section("timestamping").get("window_hours", DEFAULT_TSA_WINDOW_HOURS)
    if isinstance(window, bool) or not isinstance(window, int | float) or not window > 0:
        raise ConfigurationError(
            f"{paths.config}: [timestamping] window_hours must be a positive number"
        )
    second_digest = section("intake").get("second_digest", "background")
    if second_digest not in SECOND_DIGEST_MODES:
        raise ConfigurationError(
            f"{paths.config}: [intake] second_digest must be one of "
            f"{', '.join(map(repr, SECOND_DIGEST_MODES))}, not {second_digest!r}"
        )
    return CaseConfig(
        case_id=case["id"],
        name=str(case.get("name", "")),
        investigator=str(section("investigator").get("name", "")),
        tsa_url=str(section("timestamping").get("url", "")),
        tsa_ca_file=str(section("timestamping").get("ca_file", "")),
        tsa_window_hours=float(window),
        max_file_size=max_size,
        second_digest=second_digest,
        database_url=str(section("database").get("url", "")),
        extra={
            k: v
            for k, v in raw.items()
            if k not in {"case", "investigator", "timestamping", "intake", "database"}
        },
    )
