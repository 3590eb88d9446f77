"""Every vocabulary file loads, has the expected shape, and a broken one fails loudly."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from casebuilder.extraction.vocabulary import (
    CATEGORY_ORDER,
    VOCAB_DIR,
    VocabularyError,
    load_vocabulary,
)
from casebuilder.resolution.profiles import load_profiles


def test_vocabularies_load_with_every_category_and_known_weapons():
    v = load_vocabulary()
    assert set(v.categories) == set(CATEGORY_ORDER)
    for name in ("Iskander", "Tochka-U", "Kalibr", "Kh-22", "Grad", "glide bomb",
                 "Shahed drone", "artillery", "tank fire", "gunfire"):
        assert name in v.weapons, name
    for target in ("residential building", "hospital", "maternity ward", "school", "shelter",
                   "theatre", "market", "shop or mall", "railway station", "bread queue", "cafe",
                   "energy infrastructure", "evacuation route"):
        assert target in v.targets, target
    assert v.evidentiality_verbs["denied"] == "denied"
    assert v.evidentiality_verbs["said"] == "stated"
    assert v.evidentiality_verbs["saw"] == "observed"
    assert "could not be independently verified" in v.evidentiality_phrases
    assert {"russia", "ukraine"} <= set(v.parties)
    from datetime import date

    # "the war" is the latest war begun by the report's publication (wars.toml)
    latest = v.wars.war_for("war", None)
    assert latest is not None and latest.start == date(2022, 2, 24)
    earlier = v.wars.war_for("war", date(2019, 1, 1))
    assert earlier is not None and earlier.start.year == 2014
    assert v.wars.war_for("war", date(2010, 1, 1)) is None
    assert len(v.digest) == 64


def test_every_weapon_names_a_known_category_and_aliases_are_lower_case():
    v = load_vocabulary()
    for weapon in v.weapons.values():
        assert weapon.category in CATEGORY_ORDER
        assert all(a == a.lower() for a in weapon.aliases)


def test_a_broken_vocabulary_is_refused_with_the_file_named(tmp_path):
    broken = tmp_path / "vocab"
    shutil.copytree(VOCAB_DIR, broken)
    text = (broken / "categories.toml").read_text()
    (broken / "categories.toml").write_text(text + "\n[bombardment]\ntriggers = ['x']\n")
    with pytest.raises(VocabularyError, match="unknown category"):
        load_vocabulary(broken)
    (broken / "categories.toml").write_text("not = [valid")
    with pytest.raises(VocabularyError, match=r"categories\.toml"):
        load_vocabulary(broken)


def test_an_analyst_can_extend_a_vocabulary(tmp_path):
    extended = tmp_path / "vocab"
    shutil.copytree(VOCAB_DIR, extended)
    with open(extended / "weapons.toml", "a") as fh:
        fh.write('\n["Lancet drone"]\naliases = ["lancet"]\nfamily = "drone"\n'
                 'category = "explosive_attack"\nwide_area = false\n')
    v = load_vocabulary(extended)
    assert "Lancet drone" in v.weapons
    assert v.digest != load_vocabulary().digest


def test_source_profiles_load():
    profiles = load_profiles()
    assert profiles.kinds["official"].reliability in "ABCDEF"
    assert profiles.for_source("someone", "no such kind").reliability == "F"


def test_a_misspelt_key_stops_casebuilder_extract_naming_file_line_and_key(tmp_path):
    """The audit's case: a category whose ``triggers`` key is spelt ``trigers`` loaded with no
    triggers and no error. Now the command stops before reading anything."""
    import shutil
    import subprocess
    import sys

    from conftest import command_env

    repo = Path(__file__).resolve().parents[2]
    copy = tmp_path / "package"
    shutil.copytree(repo / "src" / "casebuilder", copy / "casebuilder",
                    ignore=shutil.ignore_patterns("__pycache__"))
    categories = copy / "casebuilder" / "extraction" / "vocab" / "categories.toml"
    text = categories.read_text(encoding="utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), 1)
                if row.startswith("triggers ="))
    categories.write_text(text.replace("\ntriggers =", "\ntrigers =", 1), encoding="utf-8")
    env = command_env(pythonpath=copy)
    report = tmp_path / "report.txt"
    report.write_text("A shell hit the market in Kherson, killing two.\n")
    home = tmp_path / "home"
    run = [sys.executable, "-m", "casebuilder", "--home", str(home)]
    subprocess.run([*run, "ingest", "--no-extract", str(report)], env=env, check=True,
                   capture_output=True)
    done = subprocess.run([*run, "extract"], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"categories.toml:{line}" in done.stderr and "'trigers'" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
