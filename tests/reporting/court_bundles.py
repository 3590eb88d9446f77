"""Helpers for tests that tamper with real court bundles as a forger would: change files, then
rewrite the manifests, Payload-Oxum and the tag manifests so that only the custody checks of
``verify_bundle.py`` can tell."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from conftest import venv_script


def rebag(bag: Path) -> None:
    """Rewrite both manifests, Payload-Oxum and the tag manifests for what is on disk now."""
    payload = sorted(p.relative_to(bag).as_posix() for p in (bag / "data").rglob("*")
                     if p.is_file())
    for algorithm in ("sha256", "sha512"):
        (bag / f"manifest-{algorithm}.txt").write_text("".join(
            f"{hashlib.new(algorithm, (bag / p).read_bytes()).hexdigest()}  {p}\n"
            for p in payload), encoding="utf-8")
    octets = sum((bag / p).stat().st_size for p in payload)
    info = [line if not line.startswith("Payload-Oxum:") else
            f"Payload-Oxum: {octets}.{len(payload)}"
            for line in (bag / "bag-info.txt").read_text(encoding="utf-8").splitlines()]
    (bag / "bag-info.txt").write_text("\n".join(info) + "\n", encoding="utf-8")
    tags = sorted(p.name for p in bag.iterdir()
                  if p.is_file() and not p.name.startswith("tagmanifest-"))
    for algorithm in ("sha256", "sha512"):
        (bag / f"tagmanifest-{algorithm}.txt").write_text("".join(
            f"{hashlib.new(algorithm, (bag / t).read_bytes()).hexdigest()}  {t}\n"
            for t in tags), encoding="utf-8")


def bagit_ok(bag: Path) -> bool:
    done = subprocess.run([sys.executable, venv_script("bagit.py"), "--validate", str(bag)],
                          capture_output=True, text=True, check=False)
    return done.returncode == 0


def verify(bag: Path, *args: str) -> tuple[int, str]:
    """Run the bundle's own verify_bundle.py as an expert would: plain python3, inside it."""
    done = subprocess.run(["python3", "verify_bundle.py", *args], cwd=bag, capture_output=True,
                          text=True, check=False, env={"PATH": "/usr/bin:/bin"})
    return done.returncode, done.stdout + done.stderr


def assert_passes(bag: Path) -> None:
    code, output = verify(bag)
    assert code == 0, output
    assert bagit_ok(bag)


def assert_caught(bag: Path, *fragments: str, bagit_passes: bool = True) -> str:
    code, output = verify(bag)
    assert code == 1, output
    assert "Traceback" not in output and "[internal]" not in output, output
    assert not any(" FAIL [bagit]" in line for line in output.splitlines()), output
    for fragment in fragments:
        assert fragment in output, f"{fragment!r} not in:\n{output}"
    if bagit_passes:
        assert bagit_ok(bag), "bagit.py should accept the rewritten bag"
    return output


def bundle_entry(bag: Path) -> tuple[int, dict]:
    lines = (bag / "data/custody/log.jsonl").read_bytes().splitlines()
    index = max(i for i, line in enumerate(lines) if json.loads(line)["action"] == "bundle")
    return index, json.loads(lines[index])


