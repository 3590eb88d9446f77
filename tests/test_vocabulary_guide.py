"""The worked example of docs/vocabulary.md, run as written: the guide's two data changes are
applied to a copy of the package, its report is ingested, and the incident must read as the
guide says. Data files alone change what is extracted; no code is touched."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import command_env

REPO = Path(__file__).resolve().parent.parent
GUIDE = REPO / "docs" / "vocabulary.md"
BLOCK = re.compile(r"```(\w+) (\S+)\n(.*?)```", re.S)


def guide_blocks() -> dict[str, tuple[str, str]]:
    """The guide's labelled blocks: ``text report``, ``toml <file>``, ``json expected``."""
    worked = GUIDE.read_text(encoding="utf-8").split("## A worked example", 1)[1]
    return {label: (kind, body) for kind, label, body in BLOCK.findall(worked)}


def incident_of(package_root: Path, report: Path, tmp: Path, name: str) -> dict:
    env = command_env(pythonpath=package_root)
    if name != "before":
        # Changed data would make its index the only one kept in the cache folder, so the
        # changed package builds its own; the unchanged one reads the suite's (same digests).
        env["CASEBUILDER_CACHE"] = str(tmp / f"cache-{name}")
    home = tmp / f"home-{name}"
    run = [sys.executable, "-m", "casebuilder", "--home", str(home)]
    done = subprocess.run([*run, "ingest", "--no-progress", str(report)], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = subprocess.run([*run, "incidents", "--json"], env=env, capture_output=True,
                            text=True, timeout=600, check=False)
    (incident,) = json.loads(listed.stdout)["incidents"]
    return incident


@pytest.mark.slow
def test_the_worked_example_of_the_guide(tmp_path):
    blocks = guide_blocks()
    (_, text) = blocks["report"]
    report = tmp_path / "report.txt"
    report.write_text(text, encoding="utf-8")
    copy = tmp_path / "package"
    # the bytecode too: it stays valid (copytree keeps the sources' times), so the copy's
    # commands do not compile every module again
    shutil.copytree(REPO / "src" / "casebuilder", copy / "casebuilder")
    before = incident_of(copy, report, tmp_path, "before")
    changed = [label for label, (kind, _) in blocks.items() if kind == "toml"]
    assert sorted(changed) == ["extraction/vocab/weapons.toml", "gazetteer/data/variants.toml"]
    for label in changed:
        with open(copy / "casebuilder" / label, "a", encoding="utf-8") as fh:
            fh.write("\n" + blocks[label][1])
    after = incident_of(copy, report, tmp_path, "after")
    expected = json.loads(blocks["expected"][1])
    assert {key: after[key] for key in expected} == expected, after
    assert before["weapon"] != "Zircon"  # it was the data change that named the weapon
