"""The whole suite on PostgreSQL: every case home a test makes gets a database of its own.

With CASEBUILDER_TEST_DATABASE=postgresql (and CASEBUILDER_TEST_POSTGRES_URL, an admin URL of
the server .ci/run starts), a case home made without a database URL is given a fresh database,
cloned from a template holding the migrated schema. Its name is kept in a file in the home, so
every process that opens the home (the test, the ``casebuilder`` commands it runs, Dask
workers) reaches the same database, as they would reach the SQLite file of the home. A copy of
a home (tests copy a prepared case before changing it) gets a copy of the database the first
time it is opened, again as copying the folder copies a SQLite file.

This lives with the tests on purpose: casebuilder itself takes its database from
CASEBUILDER_DATABASE_URL or the case's config.toml and never invents one.
"""

from __future__ import annotations

import fcntl
import importlib.abc
import importlib.machinery
import os
import sys
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

MODE_ENV = "CASEBUILDER_TEST_DATABASE"
ADMIN_ENV = "CASEBUILDER_TEST_POSTGRES_URL"
REGISTRY_ENV = "CASEBUILDER_TEST_POSTGRES_REGISTRY"
#: Where each process notes the test (and the fixture being set up) that opened a database.
DATABASE_LOG_ENV = "CASEBUILDER_TEST_DATABASE_LOG"
FIXTURE_ENV = "CASEBUILDER_TEST_FIXTURE"
#: What the ``casebuilder`` processes a test starts must keep of its environment.
PASSED_ON = (MODE_ENV, ADMIN_ENV, REGISTRY_ENV, DATABASE_LOG_ENV, FIXTURE_ENV)
MARKER = "test-postgres-database"
TEMPLATE = "cbt_template"
CASE_MODULE = "casebuilder.preservation.case"


def enabled() -> bool:
    return os.environ.get(MODE_ENV) == "postgresql"


def admin_url() -> str:
    url = os.environ.get(ADMIN_ENV, "")
    if not url:
        raise RuntimeError(f"{MODE_ENV}=postgresql needs {ADMIN_ENV} (an admin URL of the "
                           "test server, as .ci/run sets it)")
    return url


def database_url(name: str) -> str:
    return f"{admin_url().rsplit('/', 1)[0]}/{name}"


def _admin() -> Any:
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    return create_engine(admin_url(), isolation_level="AUTOCOMMIT", poolclass=NullPool)


def _run(*statements: str) -> None:
    from sqlalchemy import text

    engine = _admin()
    try:
        with engine.connect() as conn:
            for statement in statements:
                conn.execute(text(statement))
    finally:
        engine.dispose()


def make_template() -> None:
    """The migrated schema every test case's database starts from (made once per run)."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    from casebuilder.store.database import ensure_schema

    drop_all()
    _run(f'CREATE DATABASE "{TEMPLATE}"')
    engine = create_engine(database_url(TEMPLATE), poolclass=NullPool)
    try:
        ensure_schema(engine)
    finally:
        engine.dispose()


def drop_all() -> None:
    """Every database a test run made, the template last."""
    from sqlalchemy import text

    engine = _admin()
    try:
        with engine.connect() as conn:
            names = [row[0] for row in conn.execute(
                text(r"SELECT datname FROM pg_database WHERE datname LIKE 'cbt\_%'"))]
            for name in sorted(names, key=lambda n: n == TEMPLATE):
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        engine.dispose()


def _fresh_name() -> str:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return f"cbt_{worker}_{uuid.uuid4().hex[:16]}"


def _register(name: str, home: str) -> None:
    registry = os.environ.get(REGISTRY_ENV)
    if registry:
        with open(registry, "a", encoding="utf-8") as out:
            out.write(f"{name}\t{home}\n")


def _copy_database(source: str, name: str) -> None:
    from sqlalchemy.exc import OperationalError

    try:
        _run(f'CREATE DATABASE "{name}" TEMPLATE "{source}"')
    except OperationalError as exc:
        if "being accessed by other users" not in str(exc):
            raise
        # The original is still open somewhere (a test copying a home it holds open): the
        # copy is what a file copy of that moment would be, so its connections are closed.
        _run(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
             f"WHERE datname = '{source}' AND pid <> pg_backend_pid()",
             f'CREATE DATABASE "{name}" TEMPLATE "{source}"')


def home_database(root: Path, *, new: bool) -> str | None:
    """The test database of the case home ``root``: made for a new home, copied for a copied
    home; None for a home that has none (an existing home made before this mode)."""
    marker = root / MARKER
    here = str(root.resolve())
    if not marker.exists():
        if not new:
            return None
        root.mkdir(parents=True, exist_ok=True)
    with open(marker, "a+", encoding="utf-8") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.seek(0)
        lines = held.read().split("\n")
        if len(lines) >= 2 and lines[0]:
            name, made_for = lines[0], lines[1]
            if made_for == here:
                return name
            copy = _fresh_name()
            _copy_database(name, copy)
            name = copy
        else:
            name = _fresh_name()
            _run(f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE}"')
        held.seek(0)
        held.truncate()
        held.write(f"{name}\n{here}\n")
        held.flush()
        _register(name, here)
        return name


def drop_registered_under(directory: Path) -> None:
    """Drop the databases of the homes made under ``directory`` (a finished test's tmp_path)."""
    registry = os.environ.get(REGISTRY_ENV)
    if not registry or not os.path.exists(registry):
        return
    inside = str(directory.resolve())
    keep: list[str] = []
    drop: list[str] = []
    with open(registry, "r+", encoding="utf-8") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        for line in held.read().splitlines():
            home = line.partition("\t")[2]
            (drop if home == inside or home.startswith(inside + os.sep) else keep).append(line)
        if drop:
            held.seek(0)
            held.truncate()
            held.write("".join(f"{line}\n" for line in keep))
    if drop:
        _run(*(f'DROP DATABASE IF EXISTS "{line.split(chr(9))[0]}" WITH (FORCE)'
               for line in drop))


def note_database_opened() -> None:
    """One line for the test running now (PYTEST_CURRENT_TEST, which the processes a test
    starts inherit) and the fixture being set up, if any."""
    log = os.environ.get(DATABASE_LOG_ENV)
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    if log and test:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{test}\t{os.environ.get(FIXTURE_ENV, '')}\n")


def patch(case_module: ModuleType) -> None:
    """Note every opening of a case database; on PostgreSQL, give homes without a database
    URL a test database."""
    original_url = case_module._database_url
    original_open = case_module._open_database
    env_name = case_module.DATABASE_ENV

    def _database_url(paths: Any, config: Any, environ: Mapping[str, str]) -> str:
        note_database_opened()
        if not enabled() or environ.get(env_name) or config.database_url:
            return str(original_url(paths, config, environ))
        name = home_database(paths.root, new=not paths.config.exists())
        if name is None:
            return str(original_url(paths, config, environ))
        return database_url(name)

    def _open_database(url: str, paths: Any, config: Any, environ: Mapping[str, str], *,
                       new: bool) -> Any:
        # The test database stands in for the home's SQLite file, which does not exist.
        if enabled() and (paths.root / MARKER).exists() and \
                url.startswith(admin_url().rsplit("/", 1)[0]):
            new = True
        return original_open(url, paths, config, environ, new=new)

    case_module._database_url = _database_url
    case_module._open_database = _open_database


def copy_with_homes() -> None:
    """Make ``shutil.copytree`` copy the databases of the case homes it copies, at once: a
    folder copy of a SQLite home is a copy of that moment, not of the day it is first opened."""
    import shutil

    if getattr(shutil.copytree, "copies_test_databases", False):
        return
    real = shutil.copytree

    def copytree(src: Any, dst: Any, *args: Any, **kwargs: Any) -> Any:
        done = real(src, dst, *args, **kwargs)
        for marker in Path(dst).rglob(MARKER):
            home_database(marker.parent, new=False)
        return done

    copytree.copies_test_databases = True  # type: ignore[attr-defined]
    shutil.copytree = copytree


class _PatchAfterImport(importlib.abc.MetaPathFinder):
    """Patches the case module as soon as it has been imported, in any process."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != CASE_MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        run_module = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run_module(module)
            patch(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def patch_when_imported() -> None:
    if CASE_MODULE in sys.modules:
        patch(sys.modules[CASE_MODULE])
    elif not any(isinstance(f, _PatchAfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _PatchAfterImport())
