"""The index file's own reads: held rows within spans, and its record of itself."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pifold_core.search.index import (
    COVERED_KEY,
    BuiltTo,
    IndexRecord,
    IndexRow,
    IndexUnusable,
    SearchIndex,
)
from pifold_core.search.text import EntryFields


def _rows(indices: list[int]) -> list[IndexRow]:
    return [
        IndexRow(index, f"e{index}", EntryFields(f"word{index}", "user", (), ()))
        for index in indices
    ]


def test_indexed_within_reads_every_span_in_one_query(tmp_path: Path) -> None:
    index = SearchIndex(tmp_path / "index.sqlite3")
    index.add(_rows([1, 3, 5, 8, 9, 20]), BuiltTo(1, "f"), 21)
    assert index.indexed_within([(0, 4), (8, 9), (10, 20)]) == {1, 3, 8}
    assert index.indexed_within([(5, 6), (9, 21)]) == {5, 9, 20}
    assert index.indexed_within([(2, 3), (6, 8)]) == set()
    assert index.indexed_within([]) == set()
    index.close()


def test_the_record_is_read_whole_and_a_fresh_file_records_nothing(tmp_path: Path) -> None:
    index = SearchIndex(tmp_path / "index.sqlite3")
    assert index.record() == IndexRecord(None, 0)
    index.add(_rows([0, 1]), BuiltTo(3, "fingerprint"), 7)
    assert index.record() == IndexRecord(BuiltTo(3, "fingerprint"), 7)
    assert (index.built_to(), index.covered()) == (BuiltTo(3, "fingerprint"), 7)
    index.close()


def test_a_record_of_the_entries_covered_that_is_no_number_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    index = SearchIndex(path)
    index.add(_rows([0]), BuiltTo(1, "f"), 1)
    index.close()
    connection = sqlite3.connect(path)
    connection.execute("UPDATE meta SET value = 'many' WHERE key = ?", (COVERED_KEY,))
    connection.commit()
    connection.close()
    with pytest.raises(IndexUnusable, match="entries covered cannot be read"):
        SearchIndex(path).record()


def test_the_format_is_checked_again_on_a_new_connection(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    index = SearchIndex(path)
    index.add(_rows([0]), BuiltTo(1, "f"), 1)
    assert index.format_problem() is None
    index.close()
    connection = sqlite3.connect(path)
    connection.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    connection.commit()
    connection.close()
    assert "format 2" in str(index.format_problem())
    index.close()
