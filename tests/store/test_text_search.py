"""Full-text search over item texts, the same through FTS5 on SQLite and text search on
PostgreSQL: what is found, in what order, the snippet's marks, what is left out, and what of
a query's syntax never reaches the engine."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from casebuilder.store.database import make_engine, sqlite_url
from casebuilder.store.text_search import START, STOP, text_index_for, words_of

TEXTS = {
    1: "A missile struck the railway station in Kramatorsk; cluster munitions were found.",
    2: "Shelling of the market in Kharkiv killed four civilians, the governor said.",
    3: "Ракета влучила у вокзал у Краматорську; загинули цивільні.",
    4: "The railway bridge near Kharkiv was hit twice; the railway station was closed.",
    5: "",
}


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request, tmp_path) -> Iterator[object]:  # type: ignore[no-untyped-def]
    url = (sqlite_url(tmp_path / "t.db") if request.param == "sqlite"
           else request.getfixturevalue("postgres_url"))
    made = make_engine(url)
    index = text_index_for(made)
    with made.begin() as connection:
        index.prepare(connection)
        index.prepare(connection)  # made once, whatever the number of calls
        index.add(connection, sorted(TEXTS.items()))
    yield made
    made.dispose()


def _search(engine, query, excluded=frozenset(), limit=10):  # type: ignore[no-untyped-def]
    with engine.connect() as connection:
        return text_index_for(engine).search(connection, words_of(query), limit, excluded)


@pytest.mark.parametrize("query, found", [
    ("railway station", {1, 4}),
    ("RAILWAY Kharkiv", {4}),
    ("Kharkiv", {2, 4}),
    ("вокзал", {3}),
    ("Краматорську", {3}),
    ("railway nowhere", set()),
    ('railway" OR "market', set()),  # quotes and operators are only words: "or" too
    ("body:market", set()),  # no column filter gets through
])
def test_every_word_must_be_in_the_text(engine, query, found):
    hits, count = _search(engine, query)
    assert {h.item_id for h in hits} == found and count == len(found)


def test_the_best_match_comes_first_and_the_words_are_marked(engine):
    hits, _ = _search(engine, "railway")
    assert hits[0].item_id == 4  # "railway" three times
    assert f"{START}railway{STOP}" in hits[0].snippet.lower()


def test_excluded_items_are_neither_found_nor_counted(engine):
    hits, count = _search(engine, "Kharkiv", excluded=frozenset({2}))
    assert [h.item_id for h in hits] == [4] and count == 1


def test_the_limit_keeps_the_best_but_the_count_is_of_all(engine):
    hits, count = _search(engine, "the", limit=1)
    assert len(hits) == 1 and count == 3


def test_what_was_indexed_is_known_so_nothing_is_indexed_twice(engine):
    with engine.connect() as connection:
        assert text_index_for(engine).indexed(connection) == set(TEXTS)


def test_a_query_is_only_its_words():
    assert words_of('"x" OR y* NEAR(z) -w body:v') == ["x", "or", "y", "near", "z", "w",
                                                       "body", "v"]
    assert words_of("   ") == []
