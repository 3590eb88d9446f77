"""Opening the case database and bringing its schema to the current migration.

SQLite (in WAL mode, so readers never block the writer) is the default; any SQLAlchemy URL can be
configured instead, PostgreSQL first. The only dialect-specific code here is connection set-up
(pragmas); every query elsewhere goes through SQLAlchemy so it runs on both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
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


_DIGITS_AS_ZEROS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"0" * 19


def _json_value(text: str | bytes) -> Any:
    """A JSON column's value. orjson reads a list of 10,000 stored incidents several times
    faster than json (docs/decisions/0031); the rare text it refuses and json accepts (a lone
    surrogate escaped in a hostile file's name, say) is read by json, so nothing stored
    becomes unreadable. orjson reads an integer past 64 bits as a float: a text with a run of
    19 digits (a figure a hostile text made up, say) is read by json, which keeps it exact.
    Written JSON is unchanged: json.dumps, as before."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    # every digit made "0", everything else " ": a run of 19 zeros is a run of 19 digits (a
    # C-speed test; a regular expression costs as much as json itself)
    if _LONG_RUN in raw.translate(_DIGITS_AS_ZEROS):
        return json.loads(text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def make_engine(url: str) -> Engine:
    engine = create_engine(url, future=True, json_deserializer=_json_value)
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
