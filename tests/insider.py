"""An insider's way into a case database, around casebuilder: the tamper tests edit rows with
it. On SQLite it is the case's file (the sqlite3 module, or the sqlite3 tool); when the suite
runs on PostgreSQL (on_postgres/) it is the case's database on the server (psycopg, or psql).
Statements are written once, with sqlite3's ``?`` placeholders, and read the same on both."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import postgres_cases  # tests/on_postgres, on the path the suite's conftest sets


def server_url(home: Path) -> str | None:
    """The libpq URL of the home's database on the test server, or None for a SQLite home."""
    if not (Path(home) / postgres_cases.MARKER).exists():
        return None
    # A copied home not yet opened is given its own database here, as casebuilder would.
    name = postgres_cases.home_database(Path(home), new=False)
    return postgres_cases.database_url(str(name)).replace("postgresql+psycopg://",
                                                          "postgresql://")


def on_postgresql(home: Path) -> bool:
    return server_url(home) is not None


#: What a PostgreSQL superuser does to edit rows past foreign keys and triggers.
REPLICA = "SET session_replication_role = replica"


class Insider:
    """sqlite3's connection manners (``with`` commits, execute returns a cursor) on either."""

    def __init__(self, home: Path) -> None:
        url = server_url(home)
        self.postgresql = url is not None
        if url is None:
            self._db: Any = sqlite3.connect(Path(home) / "case.db")
        else:
            import psycopg
            from psycopg.types.string import TextLoader

            self._db = psycopg.connect(url)
            # JSON columns come back as the text a SQLite insider reads, not as dicts.
            for kind in ("json", "jsonb"):
                self._db.adapters.register_loader(kind, TextLoader)
            # sqlite3 leaves foreign keys unenforced; a superuser at psql turns them off so.
            self._db.execute(REPLICA)

    @property
    def row_key(self) -> str:
        """The hidden column naming a row where a table has no id of its own."""
        return "ctid" if self.postgresql else "rowid"

    def _sql(self, sql: str, params: Sequence[Any] | None) -> str:
        if not self.postgresql or not params:
            return sql
        return sql.replace("%", "%%").replace("?", "%s")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        if self.postgresql:
            return self._db.execute(self._sql(sql, params), tuple(params) or None)
        return self._db.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        if self.postgresql:
            with self._db.cursor() as cursor:
                cursor.executemany(self._sql(sql, rows[0] if rows else None), rows)
        else:
            self._db.executemany(sql, rows)

    def commit(self) -> None:
        self._db.commit()

    def rollback(self) -> None:
        self._db.rollback()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Insider:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        if kind is None:
            self.commit()
        else:
            self.rollback()


def connect(home: Path) -> Insider:
    return Insider(home)


def run_tool(home: Path, statement: str) -> None:
    """One statement run with the database's own command-line tool (sqlite3 or psql), as an
    insider at a shell would; through the Python driver where the tool is not installed."""
    url = server_url(home)
    tool = shutil.which("sqlite3" if url is None else "psql")
    if tool is None:
        with connect(home) as db:
            db.execute(statement)
        return
    command = ([tool, str(Path(home) / "case.db"), statement] if url is None
               else [tool, "-q", "-v", "ON_ERROR_STOP=1", url, "-c", REPLICA, "-c", statement])
    subprocess.run(command, check=True, capture_output=True)
