"""Ranking a word query's hits (:mod:`pifold_core.search.ranking`): BM25 computed from the
terms each entry holds and its length, since FTS5's own ``bm25()`` scores this index's rows
0 (hits came newest first)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_core.search.index import BuiltTo, IndexRow, SearchIndex
from pifold_core.search.query import parse_query
from pifold_core.search.ranking import _varint, entry_rows, term_matches
from pifold_core.search.searcher import _filters
from pifold_core.search.text import EntryFields


def _index(texts: Sequence[str], tools: Sequence[str] = ()) -> SearchIndex:
    """An in-memory index whose row ``i`` is entry ``e{i}`` holding ``texts[i]``."""
    index = SearchIndex(None)
    rows = [
        IndexRow(
            place,
            f"e{place}",
            EntryFields(text, "tool_result", (tools[place],) if tools else ("read",), ()),
        )
        for place, text in enumerate(texts)
    ]
    index.add(rows, BuiltTo(1, "f"), len(texts))
    return index


def _ranked(index: SearchIndex, text: str, any_term: bool = False, **filters: str) -> list[int]:
    query = parse_query(text, **filters)
    where, parameters = _filters(query)
    matches = term_matches(index.connection(), query, where, parameters)
    return matches.ranked(any_term, 50)[1]


FILLER = " ".join(f"filler{number}" for number in range(40))
"""Forty words no query asks for: makes an entry long."""


def test_fts5_scores_every_row_of_this_layout_zero() -> None:
    """Why the ranking is computed here: on a contentless ``detail=none`` table FTS5's bm25
    cannot count a word in a row (it would read the row's text back) and gives 0."""
    index = _index(["alpha beta", "alpha", FILLER + " beta"])
    scores = (
        index.connection()
        .execute("SELECT bm25(body) FROM body WHERE body MATCH 'alpha OR beta'")
        .fetchall()
    )
    assert scores == [(0.0,), (0.0,), (0.0,)]
    index.close()


def test_an_entry_holding_the_rarer_word_ranks_first() -> None:
    # "common" is in every entry; "rare" only in the oldest, which is also the longest.
    texts = [f"common rare {FILLER}", "common", "common again", "common once more"]
    index = _index(texts)
    assert _ranked(index, "common rare", any_term=True)[0] == 0
    index.close()


def test_more_of_the_words_rank_above_fewer() -> None:
    texts = ["apple banana cherry", "apple date fig", "apple banana grape", "kiwi lime"]
    index = _index(texts)
    assert _ranked(index, "apple banana cherry", any_term=True) == [0, 2, 1]
    index.close()


def test_among_equals_the_shorter_then_the_newer_ranks_first() -> None:
    texts = [f"needle {FILLER}", "needle here", "needle there", f"needle {FILLER} again"]
    index = _index(texts)
    assert _ranked(index, "needle") == [2, 1, 0, 3]
    index.close()


def test_every_term_is_required_unless_any_is_asked() -> None:
    texts = ["red green", "red", "green", "blue"]
    index = _index(texts)
    query = parse_query("red green")
    matches = term_matches(index.connection(), query, "", [])
    assert matches.ranked(False, 10) == (1, [0])
    total, best = matches.ranked(True, 10)
    assert total == 3 and best[0] == 0 and sorted(best) == [0, 1, 2]
    assert matches.ranked(False, 0) == (1, [])  # counted, none asked for
    index.close()


def test_filters_narrow_the_entries_and_the_collection() -> None:
    texts = ["shared word", "shared word", "shared other"]
    index = _index(texts, tools=["read", "bash", "bash"])
    query = parse_query("shared", tool="bash")
    where, parameters = _filters(query)
    matches = term_matches(index.connection(), query, where, parameters)
    assert matches.collection == 2
    assert matches.ranked(False, 10) == (2, [2, 1])
    index.close()


def test_entry_rows_keep_the_ranked_order() -> None:
    index = _index(["a one", "a two", "a three"])
    rows = entry_rows(index.connection(), [2, 0, 1])
    assert [row[1] for row in rows] == ["e2", "e0", "e1"]
    assert entry_rows(index.connection(), []) == []
    index.close()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=70_000), min_size=1, max_size=4))
def test_lengths_are_read_as_fts5_counted_them(counts: list[int]) -> None:
    """FTS5's docsize record, decoded: one, two and three byte lengths."""
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE VIRTUAL TABLE body USING fts5(text, content='', detail=none)")
    for rowid, count in enumerate(counts, 1):
        connection.execute("INSERT INTO body (rowid, text) VALUES (?, ?)", (rowid, "w " * count))
    read = connection.execute("SELECT id, sz FROM body_docsize ORDER BY id").fetchall()
    assert [_varint(size) for _, size in read] == counts
    connection.close()


def test_a_very_long_entry_is_weighed_down_by_its_length() -> None:
    """BM25's length normalisation: holding both words in 1,000 filler words counts for
    less than holding one of them in a short entry (without it, the long one ranks first)."""
    long_text = "x y " + " ".join(f"pad{number}" for number in range(1_000))
    texts = [long_text, "x", "other", "more", "words", "y z"]
    index = _index(texts)
    assert _ranked(index, "x y", any_term=True) == [1, 5, 0]
    index.close()
