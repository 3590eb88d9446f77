"""Searching the texts of a case's items for words: the web interface's search, over the
text of every original (its own, or the text made from it), through one index whatever the
database (store/text_search.py: FTS5 on SQLite, text search on PostgreSQL).

Place in the flow: in preservation, beside the item reads. The index is brought up to date
before each search (texts received since are added), so it never misses an item; items a
reader may not see (restricted, preservation/restriction.py) are left out of the hits and of
their count in the query itself. The caller logs the search as a view.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from casebuilder.preservation.case import Case
from casebuilder.preservation.items import first_names
from casebuilder.preservation.reads import text_of
from casebuilder.store.schema import Item
from casebuilder.store.text_search import START, STOP, text_index_for, words_of


@dataclass(frozen=True)
class Found:
    item_id: int
    name: str
    parts: list[tuple[str, bool]]  # the snippet, each piece with whether it matched


@dataclass(frozen=True)
class Search:
    words: list[str]
    found: list[Found]
    matching: int


def search_texts(case: Case, query: str, *, withheld: frozenset[int] = frozenset(),
                 limit: int = 50) -> Search:
    """The items whose text holds every word of ``query``, best first."""
    words = words_of(query)
    if not words:
        return Search([], [], 0)
    index = text_index_for(case.engine)
    bring_up_to_date(case)
    with case.engine.connect() as connection:
        hits, matching = index.search(connection, words, limit, withheld)
    with case.session() as session:
        names = first_names(session, [h.item_id for h in hits])
    return Search(words, [Found(h.item_id, names.get(h.item_id, ""), _parts(h.snippet))
                          for h in hits], matching)


def bring_up_to_date(case: Case) -> int:
    """Add the texts of the originals not yet in the index; how many were looked at."""
    index = text_index_for(case.engine)
    with case.engine.begin() as connection:
        index.prepare(connection)
        known = index.indexed(connection)
    with case.session() as session:
        # ids first: a search on a case of many items reads only the few new ones whole
        new = [i for i in session.scalars(select(Item.id).where(Item.kind == "original")
                                          .order_by(Item.id)) if i not in known]
        waiting = [item for start in range(0, len(new), 500) for item in session.scalars(
            select(Item).where(Item.id.in_(new[start:start + 500])))]
        for item in waiting:
            session.expunge(item)
    # An item without a text is indexed empty, so that it is not looked at again each time.
    rows = []
    for item in waiting:
        found = text_of(case, item)
        rows.append((item.id, found[1] if found is not None else ""))
    with case.engine.begin() as connection:
        index.add(connection, rows)
    return len(rows)


def _parts(snippet: str) -> list[tuple[str, bool]]:
    parts: list[tuple[str, bool]] = []
    for n, piece in enumerate(snippet.replace(STOP, START).split(START)):
        if piece:
            parts.append((piece, n % 2 == 1))
    return parts
