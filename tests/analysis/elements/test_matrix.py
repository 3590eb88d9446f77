"""The element matrix on an incident we write ourselves: every signal finds its claims, the
matrix is pinned by a golden file that dropping any signal from the catalogue breaks, denials
never speak for an element, pattern findings are used only once a pattern run exists, and the
statuses do not depend on who is accused."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from casebuilder.analysis.elements.catalogue import DIRECTORY, Catalogue, load_catalogue
from casebuilder.analysis.elements.matrix import ElementRow, element_matrix, element_row
from casebuilder.analysis.elements.pattern_evidence import PatternEvidence, PatternFinding
from casebuilder.analysis.elements.signals import PATTERN_SIGNALS, signal_words
from casebuilder.analysis.elements.status import status_rules
from casebuilder.model.claim_values import (
    CategoryValue,
    CivilianStatusValue,
    ClaimValue,
    DenialValue,
    FigureValue,
    MilitaryObjectiveValue,
    NoMilitaryObjectiveValue,
    PerpetratorValue,
    TargetValue,
    WeaponValue,
)
from casebuilder.resolution.assessment import claim_grades
from casebuilder.resolution.profiles import load_profiles
from casebuilder.resolution.records import ClaimRecord, DocumentInfo, MentionRecord
from casebuilder.resolution.summary import Incident

GOLDEN = Path(__file__).with_name("golden_matrix.json")
CATALOGUE = load_catalogue()
PROFILES = load_profiles()
DOCUMENT = DocumentInfo(item_id=7, name="made-up-report.txt", sha256="0" * 64,
                        title="", outlet="Example Wire", published=date(2024, 3, 2),
                        published_raw="2024-03-02")


def _figure(low: int, population: str | None) -> FigureValue:
    return FigureValue(low=low, high=low, qualifier="exact", population=population,
                       subgroup=False, cumulative=False, text=f"{low}", earlier_report=False,
                       shared_by=())


def _target(kind: str, protected: bool = False) -> TargetValue:
    return TargetValue(target_type=kind, protected=protected, words=kind)


#: (sentence, claim kind, value, speaker, source kind, party, evidentiality): a report we
#: made up, one claim for every signal the catalogue names.
SENTENCES: list[tuple[str, str, ClaimValue, str, str, str | None, str]] = [
    ("Shells fell on the hospital at dawn, the mayor said.", "category",
     CategoryValue(category="explosive_attack", trigger="shells", weak=False),
     "the mayor", "official", "north", "stated"),
    ("The hospital was hit by rockets, the mayor said.", "target",
     _target("hospital", protected=True), "the mayor", "official", "north", "stated"),
    ("A salvo of rockets hit the market, a witness said.", "weapon",
     WeaponValue(weapon="rocket", family="rocket artillery", wide_area=True, words="rockets"),
     "a witness", "witness", None, "observed"),
    ("A small drone was seen over the shops, a witness said.", "weapon",
     WeaponValue(weapon="drone", family="drone", wide_area=False, words="drone"),
     "a witness", "witness", None, "observed"),
    ("Stalls of the market burned, a witness said.", "target", _target("market"),
     "a witness", "witness", None, "observed"),
    ("Flats of a block were gutted, the mayor said.", "target",
     _target("residential building"), "the mayor", "official", "north", "stated"),
    ("A warehouse building collapsed, the mayor said.", "target", _target("building"),
     "the mayor", "official", "north", "stated"),
    ("The detention camp was shelled, the ombudsman said.", "target",
     _target("prison or camp"), "the ombudsman", "official", "north", "stated"),
    ("The water plant stopped after the strike, the mayor said.", "target",
     _target("water infrastructure"), "the mayor", "official", "north", "stated"),
    ("A queue for bread was hit, the mayor said.", "target", _target("bread queue"),
     "the mayor", "official", "north", "stated"),
    ("The power station went dark, the mayor said.", "target",
     _target("energy infrastructure"), "the mayor", "official", "north", "stated"),
    ("Nine people died, the mayor said.", "killed", _figure(9, "civilians"), "the mayor",
     "official", "north", "stated"),
    ("Two children died, the mayor said.", "killed", _figure(2, "children"), "the mayor",
     "official", "north", "stated"),
    ("Forty were hurt, a medic said.", "injured", _figure(40, None), "a medic", "witness",
     None, "observed"),
    ("No one died at the depot, the army said.", "killed", _figure(0, None), "the army",
     "belligerent_statement", "south", "stated"),
    ("No one was hurt at the depot, the army said.", "injured", _figure(0, None), "the army",
     "belligerent_statement", "south", "stated"),
    ("Women queued there, a witness said.", "civilian_status",
     CivilianStatusValue(civilian=True, words="women"), "a witness", "witness", None,
     "observed"),
    ("Pensioners sheltered there, a witness said.", "civilian_status",
     CivilianStatusValue(civilian=True, words="pensioners"), "a witness", "witness", None,
     "observed"),
    ("Two captured soldiers died, the ombudsman said.", "killed",
     _figure(2, "prisoners of war"), "the ombudsman", "official", "north", "stated"),
    ("Three fighters died, the army said.", "killed", _figure(3, "military"), "the army",
     "belligerent_statement", "south", "stated"),
    ("South's forces fired, the mayor said.", "perpetrator",
     PerpetratorValue(party="south", label="South", words="south", competing=False),
     "the mayor", "official", "north", "stated"),
    ("North's own forces fired, the army said.", "perpetrator",
     PerpetratorValue(party="north", label="North", words="north", competing=True),
     "the army", "belligerent_statement", "south", "denied"),
    ("The army denied the strike.", "denial",
     DenialValue(party="south", speaker="the army", words="denied"), "the army",
     "belligerent_statement", "south", "denied"),
    ("The army said it hit fighters and a weapons depot.", "military_objective",
     MilitaryObjectiveValue(words="weapons", claimed_by="the army"), "the army",
     "belligerent_statement", "south", "stated"),
    ("There were no troops near the market, the mayor said.", "no_military_objective",
     NoMilitaryObjectiveValue(words="troops"), "the mayor", "official", "north", "stated"),
    ("There were no troops there, the army said in its denial.", "no_military_objective",
     NoMilitaryObjectiveValue(words="troops"), "the army", "belligerent_statement", "south",
     "denied"),
    ("Guards tortured the detainees, the ombudsman said.", "category",
     CategoryValue(category="torture", trigger="tortured", weak=False), "the ombudsman",
     "official", "north", "stated"),
    ("Guards raped a detainee, the ombudsman said.", "category",
     CategoryValue(category="sexual_violence", trigger="raped", weak=False), "the ombudsman",
     "official", "north", "stated"),
    ("Detainees were held for weeks, the ombudsman said.", "category",
     CategoryValue(category="detention", trigger="held", weak=False), "the ombudsman",
     "official", "north", "stated"),
    ("Families were forced out of the town, the ombudsman said.", "category",
     CategoryValue(category="displacement", trigger="forced out", weak=False),
     "the ombudsman", "official", "north", "stated"),
    ("The town is under siege, the mayor said.", "category",
     CategoryValue(category="siege", trigger="siege", weak=False), "the mayor", "official",
     "north", "stated"),
    ("People were killed in the street, the mayor said.", "category",
     CategoryValue(category="killing", trigger="killed", weak=False), "the mayor", "official",
     "north", "stated"),
    ("Whole streets were destroyed, the mayor said.", "category",
     CategoryValue(category="destruction", trigger="destroyed", weak=False), "the mayor",
     "official", "north", "stated"),
]


def made_up_incident(parties: dict[str, str] | None = None) -> Incident:
    """The made-up report as one incident; ``parties`` renames the parties (neutrality)."""
    swap = parties or {}
    text, claims = "", []
    for number, (sentence, kind, value, speaker, source_kind, party, evidentiality) in \
            enumerate(SENTENCES, start=1):
        start = len(text)
        text += sentence + " "
        if isinstance(value, PerpetratorValue | DenialValue) and value.party:
            value = dataclasses.replace(value, party=swap.get(value.party, value.party))
        claims.append(ClaimRecord(
            id=number, kind=kind, value=value, rule="made-up", char_start=start,
            char_end=start + len(sentence.split()[0]), sentence_start=start,
            sentence_end=start + len(sentence), quote=sentence, attributed_to=speaker,
            speaker_role="", source_kind=source_kind,
            party=swap.get(party, party) if party else None, verb="said",
            evidentiality=evidentiality, qualifiers=[], also_attributed=[], document=DOCUMENT))
    mention = MentionRecord(id=1, key="made-up", situation=False, categories=[],
                            place_name="", place=None, date=None, date_expression="",
                            date_basis="", document=DOCUMENT, claims=claims)
    return Incident("inc-made-up", [mention])


def compact(row: ElementRow) -> dict[str, Any]:
    return {"status": row.status, "rule": row.rule,
            "for": sorted(f"{e.signal}#{e.claim_id}" for e in row.supporting),
            "against": sorted(f"{e.signal}#{e.claim_id}" for e in row.contrary),
            "patterns": sorted(f"{p.signal}:{p.state}" for p in row.patterns)}


def matrix_of(catalogue: Catalogue, incident: Incident | None = None,
              evidence: PatternEvidence | None = None) -> dict[str, dict[str, Any]]:
    chosen = incident or made_up_incident()
    kwargs = {"evidence": evidence} if evidence else {}
    m = element_matrix(chosen, catalogue, list(catalogue.crimes.values()), profiles=PROFILES,
                       **kwargs)
    return {r.element.id: compact(r) for r in m.rows}


def differences(found: dict[str, Any], golden: dict[str, Any]) -> list[str]:
    return [k for k in sorted(set(found) | set(golden)) if found.get(k) != golden.get(k)]


def test_the_made_up_incident_gives_the_golden_matrix():
    found = matrix_of(CATALOGUE)
    if os.environ.get("CASEBUILDER_REGENERATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    golden = json.loads(GOLDEN.read_text())
    assert not differences(found, golden), differences(found, golden)[:5]


def test_every_signal_of_the_catalogue_finds_something_in_the_made_up_incident():
    found = matrix_of(CATALOGUE)
    for crime in CATALOGUE.crimes.values():
        for e in crime.elements:
            seen = {x.split("#")[0] for x in found[e.id]["for"] + found[e.id]["against"]} | {
                p.rsplit(":", 1)[0] for p in found[e.id]["patterns"]}
            assert {s.name for s in e.signals} <= seen, (e.id, {s.name for s in e.signals} - seen)


def test_dropping_any_signal_from_the_catalogue_breaks_the_golden_matrix():
    golden = json.loads(GOLDEN.read_text())
    incident = made_up_incident()
    grades = {g.claim_id: g for g in claim_grades(incident, PROFILES)}
    from casebuilder.analysis.elements.pattern_evidence import NO_PATTERN_RUN

    dropped = 0
    for crime in CATALOGUE.crimes.values():
        for e in crime.elements:
            for signal in e.signals:
                mutated = dataclasses.replace(
                    e, supports=tuple(s for s in e.supports if s != signal),
                    contradicts=tuple(s for s in e.contradicts if s != signal))
                row = element_row(mutated, incident.claims, grades, NO_PATTERN_RUN, None,
                                  status_rules(), signal_words())
                assert compact(row) != golden[e.id], f"dropping {signal.name} from {e.id} " \
                    "changes nothing the tests see"
                dropped += 1
    assert dropped > 300


def test_a_signal_dropped_from_the_catalogue_file_fails_the_golden_test(tmp_path):
    copy = tmp_path / "elements"
    shutil.copytree(DIRECTORY, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__",
                                                                   "rules"))
    path = copy / "war_crimes.toml"
    text = path.read_text()
    old = 'for = ["target:any", "no_military_objective"]'
    assert old in text
    path.write_text(text.replace(old, 'for = ["target:any"]', 1))
    golden = json.loads(GOLDEN.read_text())
    assert differences(matrix_of(load_catalogue(copy)), golden) == ["8(2)(b)(ii)-2"]


def test_what_speaks_against_is_listed_against():
    found = matrix_of(CATALOGUE)
    aimed_at_civilians = found["8(2)(b)(i)-2"]
    assert "military_objective_claimed#24" in aimed_at_civilians["against"]
    assert "victims:combatants#20" in aimed_at_civilians["against"]
    assert aimed_at_civilians["status"] == "contested"
    assert "denial#23" in found["8(2)(b)(i)-1"]["against"]
    assert "competing_attribution#22" in found["8(2)(b)(i)-1"]["against"]
    assert "no_deaths#15" in found["7(1)(a)-1"]["against"]


def test_a_claim_that_is_part_of_a_denial_never_speaks_for_an_element():
    m = element_matrix(made_up_incident(), CATALOGUE, list(CATALOGUE.crimes.values()),
                       profiles=PROFILES)
    denied = {n for n, s in enumerate(SENTENCES, start=1) if s[6] == "denied"}
    for row in m.rows:
        assert not denied & {e.claim_id for e in row.supporting}, row.element.id
    assert "no_military_objective#25" in matrix_of(CATALOGUE)["8(2)(b)(ii)-2"]["for"]
    assert "no_military_objective#26" not in matrix_of(CATALOGUE)["8(2)(b)(ii)-2"]["for"]


def test_until_a_pattern_run_exists_mental_and_context_elements_need_an_analyst():
    found = matrix_of(CATALOGUE)
    for crime in CATALOGUE.crimes.values():
        for e in crime.elements:
            if e.inferred:
                assert found[e.id]["status"] == "needs_analyst", e.id
                if any(s.pattern for s in e.signals):
                    assert found[e.id]["rule"] == "pattern-run-awaited", e.id
    assert found["8(2)(b)(i)-3"]["patterns"] == sorted(
        f"pattern:{p}:awaited" for p in ("series", "double_tap", "repeated_site",
                                         "wide_area_weapon"))


def test_a_pattern_found_by_a_pattern_run_supports_an_inferred_element():
    evidence = PatternEvidence("run-1", {p: PatternFinding(p, p == "double_tap", "made up")
                                         for p in PATTERN_SIGNALS})
    found = matrix_of(CATALOGUE, evidence=evidence)
    # the intent to attack civilians: a double tap was found, but a military objective is
    # claimed against it
    assert found["8(2)(b)(i)-3"]["status"] == "contested"
    assert "pattern:double_tap:found" in found["8(2)(b)(i)-3"]["patterns"]
    # the awareness of the armed conflict: series and widespread were not found
    assert found["8(2)(b)(i)-5"]["status"] == "needs_analyst"
    assert found["8(2)(b)(i)-5"]["rule"] == "not-from-one-incident"
    without_objective = made_up_incident()
    without_objective.mentions[0].claims = [c for c in without_objective.claims
                                            if c.kind != "military_objective"]
    again = matrix_of(CATALOGUE, without_objective, evidence)
    assert again["8(2)(b)(i)-3"]["status"] == "supported"
    assert again["8(2)(b)(i)-3"]["rule"] == "inferred-from-pattern"


def test_swapping_the_parties_gives_the_same_statuses():
    plain = matrix_of(CATALOGUE)
    swapped = matrix_of(CATALOGUE, made_up_incident({"north": "south", "south": "north"}))
    assert {k: (v["status"], v["rule"]) for k, v in plain.items()} == {
        k: (v["status"], v["rule"]) for k, v in swapped.items()}


def test_sources_naming_two_parties_as_acting_contest_who_did_it():
    incident = made_up_incident()
    second = dataclasses.replace(
        incident.claims[20], id=99,
        value=PerpetratorValue(party="north", label="North", words="north", competing=False))
    incident.mentions[0].claims = [c for c in incident.claims if c.kind not in
                                   {"denial", "perpetrator"}] + [incident.claims[20], second]
    found = matrix_of(CATALOGUE, incident)
    assert found["8(2)(b)(i)-1"]["status"] == "contested"
    assert found["8(2)(b)(i)-1"]["rule"] == "several-parties-named"


@pytest.mark.parametrize("crime_id", ["8(2)(b)(i)", "7(1)(k)"])
def test_the_json_form_cites_every_entry(crime_id):
    m = element_matrix(made_up_incident(), CATALOGUE, [CATALOGUE.crime(crime_id)],
                       profiles=PROFILES)
    data = m.as_json()
    text = "".join(s[0] + " " for s in SENTENCES)
    for element in data["crimes"][0]["elements"]:
        for entry in element["for"] + element["against"]:
            assert text[entry["quote_start"]:entry["quote_end"]] == entry["quote"]
            assert entry["item_id"] == DOCUMENT.item_id and entry["grade"]
