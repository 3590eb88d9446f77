"""Full-text search over the texts of a case's items: SQLite's FTS5 and PostgreSQL's text
search behind one interface (TextIndex), chosen by the database the case is on.

Place in the flow: the store, below preservation/text_search.py, which decides what is
indexed (the text of each original) and who may find what. The index is derived data, made
again from the stored texts whenever it is missing: it is not part of the schema of record
(the migrations), holds nothing that is not in the texts, and is never evidence. Both engines
split words the same way for the purpose (letters and digits, any script, case folded, no
stemming: a search for "Kharkiv" finds "Kharkiv", not "Kharkivska"); SQLite also folds
diacritics, PostgreSQL's 'simple' configuration does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import Connection, Engine, TextClause, bindparam, text

#: Marks around the matched words in a snippet: characters no text of a report holds.
START, STOP = "\x02", "\x03"
WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    item_id: int
    snippet: str  # with START and STOP around the words that matched
    rank: float  # lower is better


class TextIndex(Protocol):
    def prepare(self, connection: Connection) -> None:
        """Make the index's table if it is not there."""

    def indexed(self, connection: Connection) -> set[int]: ...

    def add(self, connection: Connection, rows: list[tuple[int, str]]) -> None: ...

    def search(self, connection: Connection, words: list[str], limit: int,
               excluded: frozenset[int]) -> tuple[list[Hit], int]:
        """The best ``limit`` hits for all of ``words``, and how many items match."""


def words_of(query: str) -> list[str]:
    """The words of what someone typed, as both engines split them (nothing of the engines'
    own query syntax gets through: quotes, operators, columns)."""
    return [w.lower() for w in WORD.findall(query)][:20]


class Fts5Index:
    """SQLite: an FTS5 table whose rowid is the original item's id."""

    def prepare(self, connection: Connection) -> None:
        connection.execute(text(
            "CREATE VIRTUAL TABLE IF NOT EXISTS item_text_index USING fts5("
            "body, tokenize = 'unicode61 remove_diacritics 2')"))

    def indexed(self, connection: Connection) -> set[int]:
        return set(connection.execute(text("SELECT rowid FROM item_text_index")).scalars())

    def add(self, connection: Connection, rows: list[tuple[int, str]]) -> None:
        if rows:
            connection.execute(text("INSERT INTO item_text_index (rowid, body) VALUES "
                                    "(:id, :body)"), [{"id": i, "body": b} for i, b in rows])

    def search(self, connection: Connection, words: list[str], limit: int,
               excluded: frozenset[int]) -> tuple[list[Hit], int]:
        match = " ".join('"' + w.replace('"', '""') + '"' for w in words)
        return _hits(connection, _FTS5_HITS, _FTS5_COUNT, {"match": match}, limit, excluded)


class PostgresIndex:
    """PostgreSQL: a table of texts with a stored tsvector and a GIN index."""

    def prepare(self, connection: Connection) -> None:
        connection.execute(text(
            "CREATE TABLE IF NOT EXISTS item_text_index (item_id integer PRIMARY KEY, "
            "body text NOT NULL, words tsvector GENERATED ALWAYS AS "
            "(to_tsvector('simple', body)) STORED)"))
        connection.execute(text("CREATE INDEX IF NOT EXISTS ix_item_text_index_words ON "
                                "item_text_index USING gin (words)"))

    def indexed(self, connection: Connection) -> set[int]:
        return set(connection.execute(text("SELECT item_id FROM item_text_index")).scalars())

    def add(self, connection: Connection, rows: list[tuple[int, str]]) -> None:
        if rows:
            # NUL cannot be stored in a PostgreSQL text
            connection.execute(text("INSERT INTO item_text_index (item_id, body) VALUES "
                                    "(:id, :body) ON CONFLICT (item_id) DO NOTHING"),
                               [{"id": i, "body": b.replace("\x00", " ")} for i, b in rows])

    def search(self, connection: Connection, words: list[str], limit: int,
               excluded: frozenset[int]) -> tuple[list[Hit], int]:
        query = " & ".join("'" + w.replace("'", "''") + "'" for w in words)
        return _hits(connection, _PG_HITS, _PG_COUNT, {"query": query}, limit, excluded)


# The queries, fixed text with bound values only. ``excluded`` is never empty when bound
# (item ids start at 1, so -1 excludes nothing), which keeps each query one text.
_FTS5_HITS = text(
    "SELECT rowid, snippet(item_text_index, 0, :start, :stop, '…', 16), bm25(item_text_index) "
    "FROM item_text_index WHERE item_text_index MATCH :match AND rowid NOT IN :excluded "
    "ORDER BY bm25(item_text_index), rowid LIMIT :limit")
_FTS5_COUNT = text("SELECT count(*) FROM item_text_index WHERE item_text_index MATCH :match "
                   "AND rowid NOT IN :excluded")
_PG_HITS = text(
    "SELECT item_id, ts_headline('simple', body, to_tsquery('simple', :query), "
    "'StartSel=' || :start || ', StopSel=' || :stop || ', MaxWords=30, MinWords=12'), "
    "-ts_rank(words, to_tsquery('simple', :query)) AS rank FROM item_text_index "
    "WHERE words @@ to_tsquery('simple', :query) AND item_id NOT IN :excluded "
    "ORDER BY rank, item_id LIMIT :limit")
_PG_COUNT = text("SELECT count(*) FROM item_text_index WHERE words @@ to_tsquery('simple', "
                 ":query) AND item_id NOT IN :excluded")


def _hits(connection: Connection, hits_sql: TextClause, count_sql: TextClause,
          params: dict[str, object], limit: int, excluded: frozenset[int]
          ) -> tuple[list[Hit], int]:
    bound = {**params, "excluded": sorted(excluded) or [-1]}
    hits = connection.execute(hits_sql.bindparams(bindparam("excluded", expanding=True)),
                              {**bound, "start": START, "stop": STOP, "limit": limit})
    found = [Hit(int(r[0]), str(r[1]), float(r[2])) for r in hits]
    count = connection.execute(count_sql.bindparams(bindparam("excluded", expanding=True)),
                               bound).scalar_one()
    return found, int(count)


def text_index_for(engine: Engine) -> TextIndex:
    if engine.dialect.name == "postgresql":
        return PostgresIndex()
    return Fts5Index()
