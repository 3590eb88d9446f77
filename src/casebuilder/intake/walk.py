"""Turning the paths an investigator names into an ordered list of files to take in.

Folders are walked recursively in sorted order (so two runs over the same folder log the same
sequence), symbolic links inside folders are not followed (they could lead out of the folder or
round in a loop), and each file is paired with its collection-metadata sidecar
``NAME.meta.json`` (or ``STEM.meta.json``) when one sits beside it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

SIDECAR_SUFFIX = ".meta.json"


@dataclass(frozen=True)
class IntakeCandidate:
    path: Path
    sidecar: Path | None = None


@dataclass(frozen=True)
class SkippedPath:
    path: Path
    reason: str


def printable(path: Path | str) -> str:
    """A file name safe to print on one line: control characters shown as escapes."""
    text = os.fsdecode(path) if isinstance(path, Path) else path
    out = []
    for ch in text:
        if ch.isprintable() and ch not in "\u2028\u2029":
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def path_text(path: Path | str) -> tuple[str, str | None]:
    """A path as valid Unicode for the records, and its raw bytes in hex when the name was not
    valid UTF-8 (a CP1251 name from a USB stick): nothing about the name is lost."""
    raw = os.fsencode(path)
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return raw.decode("utf-8", "backslashreplace"), raw.hex()


def is_sidecar_name(name: str) -> bool:
    return name.endswith(SIDECAR_SUFFIX) and len(name) > len(SIDECAR_SUFFIX)


def sidecar_candidates(path: Path) -> list[Path]:
    names = [path.name + SIDECAR_SUFFIX]
    if path.suffix:
        names.append(path.name[: -len(path.suffix)] + SIDECAR_SUFFIX)
    return [path.with_name(n) for n in names]


def _inside(path: Path, excluded: list[Path]) -> bool:
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        return False
    return any(resolved == e or e in resolved.parents for e in excluded)


def _walk(root: Path, files: list[Path], skipped: list[SkippedPath],
          excluded: list[Path]) -> None:
    def on_error(exc: OSError) -> None:
        skipped.append(SkippedPath(Path(exc.filename or root), exc.strerror or str(exc)))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=False):
        dirnames.sort()
        base = Path(dirpath)
        for name in list(dirnames):
            if _inside(base / name, excluded):
                dirnames.remove(name)
                skipped.append(SkippedPath(base / name, _CASE_HOME_REASON))
        for name in sorted(filenames):
            path = base / name
            if path.is_symlink():
                skipped.append(SkippedPath(path, "symbolic link inside a folder, not followed"))
                continue
            files.append(path)
        for name in dirnames:
            if (base / name).is_symlink():
                skipped.append(SkippedPath(base / name, "symbolic link to a folder, not followed"))


# The summary adds "[not taken in]" to every path that was not; the reason says only why.
_CASE_HOME_REASON = "inside the case home (its database, key and store are not evidence)"


def plan_intake(paths: list[Path], *, exclude: list[Path] | None = None
                ) -> tuple[list[IntakeCandidate], list[SkippedPath]]:
    """Files to take in, in order, and paths passed over with the reason. Nothing under an
    ``exclude``d folder (the case home itself) is ever taken in: ingesting "." from a folder
    holding the case home must not put the case's private key into the evidence."""
    excluded = [e.resolve() for e in exclude or []]
    files: list[Path] = []
    skipped: list[SkippedPath] = []
    for path in paths:
        if _inside(path, excluded):
            skipped.append(SkippedPath(path, _CASE_HOME_REASON))
        elif path.is_dir():
            _walk(path, files, skipped, excluded)
        elif path.exists() or path.is_symlink():
            files.append(path)  # named explicitly: taken even if it is a link
        else:
            skipped.append(SkippedPath(path, "no such file or folder"))
    seen: set[Path] = set()
    unique = []
    for f in files:
        if f not in seen:
            seen.add(f)
            unique.append(f)
    present = set(unique)
    paired: dict[Path, Path] = {}
    for f in unique:
        if is_sidecar_name(f.name):
            continue
        for candidate in sidecar_candidates(f):
            if candidate in present and candidate not in paired.values():
                paired[f] = candidate
                break
    sidecars = set(paired.values())
    plan = [IntakeCandidate(f, paired.get(f)) for f in unique if f not in sidecars]
    return plan, skipped
