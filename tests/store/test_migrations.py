"""The schema comes from Alembic migrations, and the fast start-up path knows the newest one."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from casebuilder.store.database import current_revision, head_revision, make_engine, sqlite_url
from casebuilder.store.database import upgrade as upgrade_db
from casebuilder.store.migrations import HEAD
from casebuilder.store.schema import Base


def test_head_constant_matches_alembic():
    assert head_revision() == HEAD


def test_migrations_build_exactly_the_mapped_schema(tmp_path: Path):
    engine = make_engine(sqlite_url(tmp_path / "m.db"))
    upgrade_db(engine)
    assert current_revision(engine) == HEAD
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == [], f"schema.py and the migrations disagree: {diff}"
        assert {"items", "origins", "custody_events", "checkpoints"} <= set(
            inspect(conn).get_table_names()
        )
    upgrade_db(engine)  # idempotent


@pytest.mark.sqlite_only("WAL is a journal mode of SQLite files")
def test_sqlite_runs_in_wal_mode(case):
    with case.engine.connect() as conn:
        mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
    assert mode == "wal"


def test_a_database_url_holding_a_percent_sign_migrates(tmp_path: Path):
    # A "%" in the URL (here a literal one in the path, rendered as "%25") must not reach
    # Alembic's configparser as an interpolation reference.
    folder = tmp_path / "100% evidence"
    folder.mkdir()
    engine = make_engine(sqlite_url(folder / "m.db"))
    upgrade_db(engine)
    assert current_revision(engine) == HEAD
    assert (folder / "m.db").is_file()


def test_a_case_whose_database_url_holds_a_percent_sign_opens(tmp_path: Path):
    from casebuilder.preservation.case import DATABASE_ENV, init_case, open_case

    # A URL-encoded path: the database lives in "db%dir", written "db%25dir" in the URL.
    folder = tmp_path / "db%dir"
    folder.mkdir()
    environ = {DATABASE_ENV: f"sqlite:///{tmp_path}/db%25dir/case.db"}
    init_case(tmp_path / "home", name="percent", environ=environ).close()
    case = open_case(tmp_path / "home", environ=environ)
    try:
        assert current_revision(case.engine) == HEAD
    finally:
        case.close()
    assert (folder / "case.db").is_file()
