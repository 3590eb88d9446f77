"""The schema comes from Alembic migrations, and the fast start-up path knows the newest one."""

from __future__ import annotations

from pathlib import Path

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


def test_sqlite_runs_in_wal_mode(case):
    with case.engine.connect() as conn:
        mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
    assert mode == "wal"
