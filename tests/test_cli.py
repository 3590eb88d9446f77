"""The command line as a user meets it: case home resolution, messages, exit codes, demo."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli


def test_home_defaults_to_casebuilder_data_in_the_working_directory(tmp_path, dev_reports):
    result = run_cli("ingest", dev_reports / "2022-04-08-kramatorsk-1.txt", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "casebuilder-data" / "config.toml").is_file()
    assert "1 new" in result.stdout or "2 new" in result.stdout


def test_home_from_environment(tmp_path, dev_reports):
    home = tmp_path / "from-env"
    result = run_cli("ingest", dev_reports, env={"CASEBUILDER_HOME": str(home)}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (home / "config.toml").is_file()  # a case home was made there
    assert not (tmp_path / "casebuilder-data").exists()
    assert run_cli("verify", env={"CASEBUILDER_HOME": str(home)}).returncode == 0


def test_errors_are_messages_not_tracebacks(tmp_path):
    result = run_cli("verify", home=tmp_path / "nothing-here")
    assert result.returncode == 2
    assert "is not a case home" in result.stderr
    assert "Traceback" not in result.stderr


def test_init_refuses_to_overwrite_and_show_logs_a_view(tmp_path, dev_reports):
    home = tmp_path / "h"
    assert run_cli("init", "--name", "Test", home=home).returncode == 0
    again = run_cli("init", home=home)
    assert again.returncode == 2 and "already holds a case" in again.stderr
    assert (
        run_cli("ingest", dev_reports / "2022-04-08-kramatorsk-3.html", home=home).returncode == 0
    )
    shown = run_cli("show", "1", home=home)
    assert shown.returncode == 0, shown.stderr
    record = json.loads(shown.stdout)
    assert record["format"] == "html"
    tail = run_cli("log", "--tail", "1", home=home).stdout
    assert json.loads(tail)["action"] == "view"


def test_ingest_summary_lists_failures_with_reasons(tmp_path):
    bad = tmp_path / "fake.pdf"
    bad.write_text("plain words, not a PDF")
    result = run_cli("ingest", bad, tmp_path / "missing.txt", home=tmp_path / "h")
    assert result.returncode == 1  # partial failure: some paths not taken in or not read
    assert "fake.pdf" in result.stdout and "not a PDF" in result.stdout
    assert "missing.txt" in result.stdout and "no such file" in result.stdout


def test_demo_runs_on_the_shipped_samples(tmp_path):
    result = run_cli("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK: every stored file" in result.stdout
    home = tmp_path / "casebuilder-demo"
    bundles = list((home / "exports").glob("bundle-*"))
    assert len(bundles) == 1 and (bundles[0] / "verify_bundle.py").is_file()
    again = run_cli("demo", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "0 new" in again.stdout


def test_version(tmp_path: Path):
    assert run_cli("--version").stdout.startswith("casebuilder, version")
