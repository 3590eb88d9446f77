"""Shared fixtures: paths to ../shared, fresh case homes, and a way to run the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from casebuilder.preservation.case import SECOND_DIGEST_ENV, Case, init_case

pytest_plugins = ["tsa_authority", "suite_database", "suite_order"]

ON_POSTGRES = Path(__file__).resolve().parent / "on_postgres"
sys.path.insert(0, str(ON_POSTGRES))
import postgres_cases  # noqa: E402  (in on_postgres/, put on the path just above)


def pytest_configure(config: pytest.Config) -> None:
    # One gazetteer index cache for the whole run (and for the CLI processes tests start),
    # kept out of the user's own cache folder.
    if not os.environ.get("CASEBUILDER_CACHE"):
        cache = Path(config.rootpath) / ".pytest_cache" / "casebuilder-cache"
        cache.mkdir(parents=True, exist_ok=True)
        os.environ["CASEBUILDER_CACHE"] = str(cache)
    # Commands run by tests take both digests while storing, so that no background sealer
    # outlives the test that started it; tests of the background sealer ask for it (and
    # cases made with environ={} keep the default, so library ingests leave SHA-512 pending).
    os.environ.setdefault(SECOND_DIGEST_ENV, "inline")
    # The hundreds of `casebuilder` processes tests start would each compile the modules they
    # import from source where the environment forbids writing bytecode
    # (PYTHONDONTWRITEBYTECODE, as on our CI machine): write it once, before any worker
    # starts. Stale or missing files only cost time, never change a result.
    if not hasattr(config, "workerinput"):
        import compileall

        compileall.compile_dir(Path(__file__).resolve().parent.parent / "src", quiet=2)


REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DEV_REPORTS = SHARED / "corpus" / "dev" / "reports"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"the shared data folder {SHARED} is not beside the project")
    return SHARED


@pytest.fixture(scope="session")
def dev_reports(shared_dir: Path) -> Path:
    if not DEV_REPORTS.is_dir():
        pytest.skip(f"{DEV_REPORTS} is missing from the shared folder")
    return DEV_REPORTS


@pytest.fixture
def case(tmp_path: Path) -> Iterator[Case]:
    opened = init_case(
        tmp_path / "home", name="test case", investigator="Test Investigator", environ={}
    )
    try:
        yield opened
    finally:
        opened.close()


#: What a command run by a test keeps of the test's environment (the rest of CASEBUILDER_*
#: would make a test depend on the shell it was started from).
PASSED_TO_COMMANDS = {"CASEBUILDER_CACHE", SECOND_DIGEST_ENV, *postgres_cases.PASSED_ON}


def command_env(pythonpath: Path | None = None) -> dict[str, str]:
    """The environment of a ``casebuilder`` process started by a test; ``pythonpath`` runs it
    on another copy of the package (the suite's PostgreSQL set-up stays on the path)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CASEBUILDER_") or k in PASSED_TO_COMMANDS}
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), str(ON_POSTGRES)])
    return env


def run_cli(
    *args: str | os.PathLike[str],
    home: Path | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m casebuilder`` as a user would, in a separate process."""
    command = [sys.executable, "-m", "casebuilder"]
    if home is not None:
        command += ["--home", str(home)]
    command += [os.fspath(a) for a in args]
    full_env = command_env()
    full_env.update(env or {})
    return subprocess.run(
        command, capture_output=True, text=True, env=full_env, cwd=cwd, timeout=600, check=False
    )


def venv_script(name: str) -> str:
    """A console script installed beside the running interpreter (e.g. bagit.py)."""
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    import shutil

    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


@pytest.fixture(scope="session")
def extraction_tools():
    from casebuilder.extraction.run import ExtractionTools, cache_dir

    return ExtractionTools.build(cache_dir(dict(os.environ)))


@pytest.fixture(scope="session")
def suite_gazetteer(extraction_tools):
    """The gazetteer of the run's extraction tools, kept where commands keep theirs
    (CASEBUILDER_CACHE/gazetteer): loaded once per worker and built once per run, where a
    folder of each test module's own made each worker build the index again (15 s a time)."""
    return extraction_tools.gazetteer


@pytest.fixture(scope="session")
def dev_case_home(tmp_path_factory, dev_reports, extraction_tools) -> Path:
    """A case holding the development reports, ingested and extracted once per run.
    Tests that change it must copy it first (see ``dev_case_copy``)."""
    from casebuilder.extraction.run import extract_items
    from casebuilder.intake.ingest import ingest

    home = tmp_path_factory.mktemp("dev-case") / "home"
    case = init_case(home, name="development reports", environ={})
    try:
        ingest(case, [dev_reports])
        extract_items(case, extraction_tools)
    finally:
        case.close()
    return home


@pytest.fixture
def dev_case_copy(dev_case_home, tmp_path) -> Path:
    import shutil

    copy = tmp_path / "home"
    shutil.copytree(dev_case_home, copy)
    return copy
