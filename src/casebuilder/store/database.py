"""Opening the case database and bringing its schema to the current migration.

SQLite (in WAL mode, so readers never block the writer) is the default; any SQLAlchemy URL can be
configured instead, PostgreSQL first. The only dialect-specific code here is connection set-up
(pragmas); every query elsewhere goes through SQLAlchemy so it runs on both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.orm import Session, sessionmaker

from casebuilder.errors import StoreError

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers (a web front end, a verify run) work while an ingest writes.
    cursor.execute("PRAGMA journal_mode=WAL")
    # FULL: a committed custody entry must survive a power cut, not just a crash.
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def make_engine(url: str) -> Engine:
    engine = create_engine(url, future=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _alembic_config(engine: Engine) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    # Config values go through configparser interpolation, where "%" starts a reference: a URL
    # holding one (a URL-encoded socket path or password) must have it doubled.
    url = engine.url.render_as_string(hide_password=False)
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision() -> str:
    """The newest migration shipped with this version of casebuilder."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(MIGRATIONS_DIR))
    head = script.get_current_head()
    if head is None:
        raise StoreError("no migrations found")
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
        return None if row is None else str(row[0])


def upgrade(engine: Engine) -> None:
    """Apply every migration not yet applied (a no-op on an up-to-date database)."""
    from alembic import command

    cfg = _alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def ensure_schema(engine: Engine) -> None:
    # Importing Alembic costs a noticeable part of a short command's start-up, so only do it
    # when the recorded revision is not the one this code was written against.
    from casebuilder.store.migrations import HEAD

    if current_revision(engine) != HEAD:
        upgrade(engine)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
