"""The index file's tables and how a writer keeps the file (:mod:`pifold_core.search.index`).

``body`` is the contentless FTS5 word table, ``entries`` the per-entry filters, ``meta`` the
format and what the index was built to. The FTS5 settings steer only how the word table's
segments are written and merged (its upkeep's cost and its bytes), never what a search finds,
so a writer brings an older file's settings up to date in place (:func:`create_tables`).
"""

from __future__ import annotations

import contextlib
import sqlite3

WORD_TABLE = (
    # unicode61: words split at punctuation, case and diacritics folded. detail=none: no
    # token positions (FTS5 then refuses phrases; the searcher checks them in the text).
    "CREATE VIRTUAL TABLE body USING fts5(text, content='', detail=none, "
    "tokenize='unicode61 remove_diacritics 2')"
)

WORD_TABLE_CONFIG = (
    # FTS5 writes a transaction's words as one new segment at COMMIT (a commit's text
    # overflowed the default 1 MB buffer: several segments), then merges segments, a little
    # at each write: 64 at a time (format 3 began with 16), all at once only past 128. A
    # merge level rewrites every word's list once; 64 segments a level is one level at
    # 50,000 entries (813 commits) where 16 was two and more, for fewer bytes and more
    # segments for a search to read (bench_search.py: searches stay well inside the goal).
    ("hashsize", 16 * 1024 * 1024),
    ("automerge", 64),
    ("crisismerge", 128),
)
"""Persistent FTS5 settings (kept in the index's own config table), set when it is created and
by a writer that finds others (an index written before, with 16 at a time: same rows)."""

TABLES = (
    "CREATE TABLE IF NOT EXISTS entries (rowid INTEGER PRIMARY KEY, entry_id TEXT NOT NULL, "
    "role TEXT NOT NULL, tools TEXT NOT NULL, paths TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


WRITER_PRAGMAS = (
    "PRAGMA page_size = 8192",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
)
"""How a writer keeps the file: 8 KB pages (a new file only: FTS5's 4 KB leaves pack better,
10 % fewer bytes); a transaction whole or absent after a kill or a power loss, the latest
ones possibly lost to a power loss (rebuilt, and said so: module docstring)."""


def create_tables(connection: sqlite3.Connection) -> None:
    """The tables, when the file has none yet (an existing word table, of whatever format,
    is left as it is: :meth:`~pifold_core.search.index.SearchIndex.format_problem` reads it)."""
    if connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'body'").fetchone() is None:
        connection.execute("BEGIN IMMEDIATE")
        try:
            connection.execute(WORD_TABLE)
            connection.executemany("INSERT INTO body (body, rank) VALUES (?, ?)", WORD_TABLE_CONFIG)
            connection.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
            raise
    for statement in TABLES:
        connection.execute(statement)
    _tune(connection)


def _tune(connection: sqlite3.Connection) -> None:
    """Set :data:`WORD_TABLE_CONFIG` where the word table holds other values (a file written
    before they changed): they steer only how segments merge, never what a search finds.
    A word table of another format is left alone (it is rebuilt before it is written)."""
    if "detail=none" not in str(
        connection.execute("SELECT sql FROM sqlite_master WHERE name = 'body'").fetchone()[0]
    ):
        return
    held = dict(connection.execute("SELECT k, v FROM body_config").fetchall())
    changed = [(key, value) for key, value in WORD_TABLE_CONFIG if held.get(key) != value]
    if changed:
        connection.executemany("INSERT INTO body (body, rank) VALUES (?, ?)", changed)


__all__ = ["TABLES", "WORD_TABLE", "WORD_TABLE_CONFIG", "WRITER_PRAGMAS", "create_tables"]
