"""``casebuilder patterns`` end to end on the development case: JSON out, the run logged."""

from __future__ import annotations

import hashlib
import json

from conftest import run_cli


def log_entries(home):
    return [json.loads(line) for line in
            (home / "custody" / "log.jsonl").read_text().splitlines()]


def test_patterns_json_on_the_dev_case_is_logged_with_its_digests(dev_case_copy):
    result = run_cli("patterns", "--json", home=dev_case_copy)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["inputs"]["incidents"] == data["inputs"]["of"] > 5
    kinds = {f["kind"] for f in data["findings"]}
    assert {"scale", "protected_object", "wide_area_populated"} <= kinds
    incidents = json.loads(run_cli("incidents", "--json", home=dev_case_copy).stdout)
    known = {p["id"] for p in incidents["incidents"]}
    assert all(set(f["incidents"]) <= known for f in data["findings"])
    (entry,) = [e for e in log_entries(dev_case_copy) if e["action"] == "view"
                and e["details"].get("what") == "pattern analysis"]
    details = entry["details"]
    assert details["findings_digest"] == hashlib.sha256(result.stdout.encode()).hexdigest()
    assert details["inputs"]["digest"] == data["inputs"]["digest"]
    assert details["parameters_digest"] == data["parameters_digest"]
    assert {"numpy", "scipy", "scikit-learn", "python"} <= set(details["versions"])

    again = run_cli("patterns", "--json", home=dev_case_copy)
    assert again.stdout == result.stdout  # the same case and parameters: the same bytes


def test_patterns_selection_and_a_bad_parameters_file(dev_case_copy, tmp_path):
    result = run_cli("patterns", "--json", "--from", "2022-04-01", "--category",
                     "explosive_attack", home=dev_case_copy)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["selection"] == {"from": "2022-04-01", "category": "explosive_attack"}
    assert data["inputs"]["incidents"] < data["inputs"]["of"]
    bad = tmp_path / "parameters.toml"
    bad.write_text("[run]\nseed = { value = 1, why = 'x' }\n")
    failed = run_cli("patterns", "--parameters", bad, home=dev_case_copy)
    assert failed.returncode == 2 and "parameter" in failed.stderr
    shown = run_cli("patterns", home=dev_case_copy)
    assert shown.returncode == 0 and "[scale]" in shown.stdout
