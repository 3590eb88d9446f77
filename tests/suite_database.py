"""Which database the suite's case homes live in, and which tests open one.

Every run notes, in .pytest_cache/casebuilder/database-tests, each test (and each fixture) that
opened a case database, in its own process or in a ``casebuilder`` command it started.

``CASEBUILDER_TEST_DATABASE=postgresql`` (with CASEBUILDER_TEST_POSTGRES_URL, an admin URL of a
server) runs the suite with every case home in a database of its own on that server
(on_postgres/postgres_cases.py); tests marked ``sqlite_only`` are skipped, saying why.
``--database-tests-from FILE`` runs only the tests a run noted in FILE, with those using a
fixture that opened a database (but not those asking for ``postgres_url``, which were on the
server in that run already): .ci/run uses it to run on
PostgreSQL every test whose outcome can depend on the database, after the whole suite has run
on SQLite (docs/decisions/0033-suite-on-postgresql.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ON_POSTGRES = Path(__file__).resolve().parent / "on_postgres"
if str(ON_POSTGRES) not in sys.path:
    sys.path.insert(0, str(ON_POSTGRES))

import postgres_cases  # noqa: E402  (lives in on_postgres/, put on the path just above)


def on_postgresql() -> bool:
    return postgres_cases.enabled()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--database-tests-from", metavar="FILE", default=None,
                     help="run only the tests that opened a case database in the run that "
                          "wrote FILE (a copy of .pytest_cache/casebuilder/database-tests)")


def pytest_configure(config: pytest.Config) -> None:
    # Every process the tests start (casebuilder commands, Dask workers) loads
    # on_postgres/sitecustomize.py, which notes database openings and, on PostgreSQL, patches.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ON_POSTGRES), os.environ.get("PYTHONPATH", "")) if p)
    folder = Path(config.rootpath) / ".pytest_cache" / "casebuilder"
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "database-tests"
    controller = not hasattr(config, "workerinput")
    if controller:
        log.write_text("")
    os.environ[postgres_cases.DATABASE_LOG_ENV] = str(log)
    if on_postgresql():
        worker = getattr(config, "workerinput", {}).get("workerid", "main")
        registry = folder / f"postgres-databases-{worker}"
        registry.write_text("")
        os.environ[postgres_cases.REGISTRY_ENV] = str(registry)
        if controller:
            postgres_cases.make_template()
        postgres_cases.copy_with_homes()
    postgres_cases.patch_when_imported()


def pytest_unconfigure(config: pytest.Config) -> None:
    if on_postgresql() and not hasattr(config, "workerinput"):
        postgres_cases.drop_all()


def _noted(path: str) -> tuple[set[str], set[str]]:
    tests: set[str] = set()
    fixtures: set[str] = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        test, _, fixture = line.partition("\t")
        tests.add(test)
        if fixture:
            fixtures.add(fixture)
    return tests, fixtures


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    source = config.getoption("--database-tests-from")
    if source:
        tests, fixtures = _noted(source)
        kept, left = [], []
        for item in items:
            used = set(getattr(item, "fixturenames", ()))
            # Tests asking for postgres_url ran on the server already, in the noted run.
            opens = (item.nodeid in tests or fixtures & used) and "postgres_url" not in used
            (kept if opens else left).append(item)
        if not kept:
            raise pytest.UsageError(f"{source} names no test of this collection")
        config.hook.pytest_deselected(items=left)
        items[:] = kept
    if on_postgresql():
        for item in items:
            marker = item.get_closest_marker("sqlite_only")
            if marker is not None:
                reason = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "")
                item.add_marker(pytest.mark.skip(reason=f"SQLite only: {reason}"))


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[object],
                         request: pytest.SubRequest) -> Iterator[None]:
    # A fixture that opens a case (a prepared home shared by a module) is noted by name, so
    # every test using it counts as opening a database, not only the first.
    before = os.environ.get(postgres_cases.FIXTURE_ENV)
    os.environ[postgres_cases.FIXTURE_ENV] = fixturedef.argname
    try:
        return (yield)
    finally:
        if before is None:
            os.environ.pop(postgres_cases.FIXTURE_ENV, None)
        else:
            os.environ[postgres_cases.FIXTURE_ENV] = before


@pytest.fixture(autouse=True)
def _drop_test_databases(request: pytest.FixtureRequest) -> Iterator[None]:
    """On PostgreSQL, the databases of the homes a test made under its tmp_path go with it."""
    if not on_postgresql() or "tmp_path" not in request.fixturenames:
        yield
        return
    tmp_path = request.getfixturevalue("tmp_path")
    yield
    postgres_cases.drop_registered_under(tmp_path)
