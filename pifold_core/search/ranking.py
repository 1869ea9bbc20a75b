"""Ranking the entries a word query finds: BM25, computed here from what FTS5 keeps.

FTS5's own ``bm25()`` scores every row of this index 0. The word table is contentless and
keeps no positions (``detail=none``, :mod:`pifold_core.search.index`), and for such a table
FTS5 counts a word's occurrences in a row by reading the row's text back, which a
contentless table does not have. Ordered by that score, hits came newest first: on the
question probes (``pifold_bench/question_probes.py``, 62 questions over the bundled traces)
the answer was among the top three hits for 10 of them.

So the ranking is computed here, from what the index does keep: which entries hold each term
(one ``MATCH`` per term) and each entry's length in words (FTS5's ``docsize`` table, kept for
every row). The score is BM25's with each held term counted once (how often an entry holds a
word is what ``detail=none`` gives up):

    score(entry) = sum over the query's terms it holds of
                   idf(term) * (k1 + 1) / (1 + k1 * (1 - b + b * length / average length))

``idf`` is BM25's, over the entries the query's filters let through; the average length is
the candidates'. An entry holding rarer words, and more of them, ranks first; among equals a
shorter one, then a newer one. Measured on the question probes, the answer is then among the
top three for 35 of the 62.
"""

from __future__ import annotations

import heapq
import json
import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from pifold_core.search.query import SearchQuery

K1 = 1.2
"""BM25's saturation constant (FTS5's own value)."""

B = 0.75
"""BM25's length normalisation (FTS5's own value; on the question probes 0.25 to 0.75 rank
alike, and no normalisation finds two fewer answers)."""


@dataclass(frozen=True, slots=True)
class TermMatches:
    """Which indexed entries (by rowid) hold each term of one query, and their lengths."""

    holding: tuple[frozenset[int], ...]
    """Per term of the query, in order: the entries holding it (all its pieces)."""
    lengths: dict[int, int]
    """Each of those entries' length in words, as FTS5 counted them."""
    collection: int
    """Indexed entries the query's filters let through (BM25's document count)."""

    def candidates(self, any_term: bool) -> frozenset[int]:
        """Entries holding every term (``any_term``: at least one)."""
        if not self.holding:
            return frozenset()
        if any_term:
            return frozenset().union(*self.holding)
        return frozenset.intersection(*self.holding)

    def ranked(self, any_term: bool, limit: int) -> tuple[int, list[int]]:
        """How many entries the query finds, and the best ``limit`` of them, best first."""
        found = self.candidates(any_term)
        if not found:
            return 0, []
        average = sum(self.lengths.get(row, 0) for row in found) / len(found) or 1.0
        scores = dict.fromkeys(found, 0.0)
        for holding in self.holding:
            weight = _idf(len(holding), self.collection) * (K1 + 1)
            for row in holding & found:
                normalised = 1 - B + B * self.lengths.get(row, average) / average
                scores[row] += weight / (1 + K1 * normalised)
        # Only the best ``limit`` are ordered: a common word finds thousands of entries.
        best = heapq.nsmallest(
            limit, found, key=lambda row: (-scores[row], self.lengths.get(row, 0), -row)
        )
        return len(found), best


def term_matches(
    connection: sqlite3.Connection, query: SearchQuery, filters: str, parameters: Sequence[str]
) -> TermMatches:
    """One ``MATCH`` per term of ``query`` (its filters' SQL conditions and parameters
    applied), with each entry's length read beside it."""
    joined = "JOIN entries AS e ON e.rowid = body.rowid " if filters else ""
    holding: list[frozenset[int]] = []
    lengths: dict[int, int] = {}
    for term in query.terms:
        rows = connection.execute(
            "SELECT body.rowid, size.sz FROM body JOIN body_docsize AS size "
            f"ON size.id = body.rowid {joined}WHERE body MATCH ?{filters}",
            (term.fts(), *parameters),
        ).fetchall()
        for row, size in rows:
            if row not in lengths:
                lengths[row] = _varint(size)
        holding.append(frozenset(row for row, _ in rows))
    where = f"WHERE 1{filters}" if filters else ""
    collection = connection.execute(
        f"SELECT count(*) FROM entries AS e {where}", tuple(parameters)
    ).fetchone()[0]
    return TermMatches(tuple(holding), lengths, int(collection))


def entry_rows(
    connection: sqlite3.Connection, rowids: Sequence[int]
) -> list[tuple[int, str, str, str]]:
    """``(rowid, entry id, role, tools)`` of each of ``rowids``, in their order."""
    if not rowids:
        return []
    found = {
        int(row[0]): (int(row[0]), str(row[1]), str(row[2]), str(row[3]))
        for row in connection.execute(
            "SELECT rowid, entry_id, role, tools FROM entries "
            "WHERE rowid IN (SELECT value FROM json_each(?))",
            (json.dumps(list(rowids)),),
        )
    }
    return [found[rowid] for rowid in rowids if rowid in found]


def _idf(holding: int, collection: int) -> float:
    """BM25's inverse document frequency, never negative (the ``+ 1`` inside the logarithm,
    as FTS5 and Lucene write it)."""
    collection = max(collection, holding)
    return math.log((collection - holding + 0.5) / (holding + 0.5) + 1)


def _varint(size: bytes | None) -> int:
    """The first number of an FTS5 ``docsize`` record (SQLite's variable-length integer, high
    bit set on every byte but the last): the length of the table's one column."""
    value = 0
    for byte in size or b"":
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            break
    return value


__all__ = ["K1", "B", "TermMatches", "entry_rows", "term_matches"]
