"""The search index: one SQLite FTS5 file beside the store (issue 21).

``<state>/search.sqlite3`` holds three tables:

- ``body``: a *contentless* FTS5 table (``content=''``) over each indexed entry's searchable
  text (:func:`pifold_core.search.text.searchable_text`). Contentless, because the index only
  *finds*: a snippet is always cut from the entry's bytes read back from the session and
  hash-verified, so keeping a second copy of the text would only cost space. It keeps which
  entries hold a word and nothing more (``detail=none``): positions were 40 % of the index,
  and what they bought, phrases, is checked against the verified text instead
  (:mod:`pifold_core.search.searcher`), which makes a phrase hit exact; with one column,
  ``detail=column`` (format 2) kept only that the one column holds it, for 60 % more bytes
  and upkeep. On either, FTS5's own ``bm25()`` scores every row 0 (it would count a word in
  a row by reading the row's text back, which a contentless table lacks), so the hits are
  ranked by :mod:`pifold_core.search.ranking` from the rows each term matches and FTS5's
  ``docsize`` lengths.
- ``entries``: one row per indexed entry, its rowid the entry's index in the transcript (an
  append-only list, so the number never changes): the entry id, role, tool names and paths
  the filters read.
- ``meta``: the format (:data:`SCHEMA_VERSION`) and what the index was built to: the number
  of commits, a fingerprint of the folds (:func:`fold_fingerprint`) and how many entries it
  looked at for evidence (:data:`COVERED_KEY`). An index of another format (format 1 kept
  positions, format 2 indexed evidence only once folded) is rebuilt, and the rebuild says
  why (:meth:`SearchIndex.format_problem`).

The index is a derived file: the log and the store are the record. It is written after each
commit's log record is durable (and after an evidence-keeping append's), in one SQLite
transaction. Whatever leaves it missing, damaged or behind the log (a kill between the two
writes, a file copied from elsewhere) is found by :meth:`SessionSearch._problem
<pifold_core.search.session.SessionSearch>` and the index is rebuilt from the log and the
store, and the rebuild is reported (:mod:`pifold_core.search.rebuild`).

Durability: the writer keeps the file in write-ahead-log mode with ``synchronous NORMAL``
(:data:`~pifold_core.search.schema.WRITER_PRAGMAS`), not the log's fsync at every write. A
kill of the process loses nothing (the WAL is in the operating system's cache); a power loss
or an OS crash can lose the latest transactions but never tears one (SQLite's WAL
guarantee): the file is whole and built to an earlier commit, which the next search finds
behind the log, rebuilds and says. Rebuildable from the log and the store, the index must
never be *wrong* but need not be as durable as the log (WAL and the skipped fsyncs take a
fifth off the upkeep's CPU). On close the writer puts the file back in rollback mode, so a
read-only viewer writes nothing beside it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pifold_core.canonical import sha256_hex
from pifold_core.search.schema import WRITER_PRAGMAS, create_tables
from pifold_core.search.text import EntryFields

INDEX_NAME = "search.sqlite3"
"""The index file's name inside the state folder."""

SCHEMA_VERSION = "3"
"""Layout of the tables; an index of another version is rebuilt. 1: ``detail=full``
(positions kept); 2: ``detail=column``; 3: ``detail=none``, evidence-keeping entries indexed
when they are appended (:data:`COVERED_KEY`), FTS5 tuned for cheaper upkeep
(:data:`~pifold_core.search.schema.WORD_TABLE_CONFIG`)."""

COVERED_KEY = "entries"
"""The ``meta`` key recording how many transcript entries the index has looked at for
evidence: every entry before that place that keeps an evidence artifact is held."""

INDEX_MODE = 0o600
"""The index holds the words of the transcript: private to the user, like the log."""

BUSY_TIMEOUT_MS = 5_000
"""How long a write waits for a reader's lock (a ``pifold search`` beside the agent)."""

_SHARED = {"check_same_thread": False}
"""An app searches from a worker thread and commits from its UI thread: one at a time, never
both at once, so one connection serves both."""


class IndexUnusable(Exception):
    """The index file cannot be read as an index (SQLite refused it); the message says why."""


@dataclass(frozen=True, slots=True)
class BuiltTo:
    """What an index was built to: checked against the session before it is trusted."""

    commits: int
    """Commits of the session the index covers."""
    fingerprint: str
    """:func:`fold_fingerprint` of the folds at that commit."""


@dataclass(frozen=True, slots=True)
class IndexRow:
    """One entry to index."""

    index: int
    """The entry's index in the transcript (the row's id)."""
    entry_id: str
    """The entry's id."""
    fields: EntryFields
    """Its text, role, tools and paths."""


@dataclass(frozen=True, slots=True)
class IndexRecord:
    """What an index file records of itself (:meth:`SearchIndex.record`)."""

    built_to: BuiltTo | None
    """What it was built to; ``None`` when it records no build (never written, or of
    another version)."""
    covered: int
    """:data:`COVERED_KEY` (0 when never recorded)."""


def fold_fingerprint(root_handles: Iterable[str]) -> str:
    """SHA-256 of the root folds' handles in order: handles come from the folds' content, so
    the same commits over the same entries give the same fingerprint, and another session's
    index (or one built before a log was cut) does not match."""
    return sha256_hex("\n".join(root_handles).encode("utf-8"))


def _packed(names: Sequence[str]) -> str:
    """Names between spaces (`` a b ``), so a filter matches one whole name with ``instr``."""
    return " " + " ".join(name.replace(" ", "_") for name in names) + " " if names else ""


class SearchIndex:
    """One index file (or an in-memory index), opened lazily."""

    def __init__(self, path: Path | None, read_only: bool = False) -> None:
        self.path = path
        """The index file; ``None``: an in-memory index (a read-only session's rebuild)."""
        self.read_only = read_only
        """Open the file without writing it (a viewer beside a live writer)."""
        self._connection: sqlite3.Connection | None = None
        self._format_known = False
        """This connection found the file of this version's format (a file's format changes
        only when it is rebuilt, through a new connection): the upkeep asks at every commit."""

    # -- connection ---------------------------------------------------------------------

    def connection(self) -> sqlite3.Connection:
        """The open connection, made on first use (its tables created when writable).

        Raises:
            IndexUnusable: SQLite cannot open the file as a database.
        """
        if self._connection is not None:
            return self._connection
        try:
            if self.path is None:
                connection = sqlite3.connect(":memory:", isolation_level=None, **_SHARED)
            elif self.read_only:
                uri = f"file:{self.path}?mode=ro"
                connection = sqlite3.connect(uri, uri=True, isolation_level=None, **_SHARED)
            else:
                self._create_private()
                connection = sqlite3.connect(self.path, isolation_level=None, **_SHARED)
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not self.read_only:
                for pragma in WRITER_PRAGMAS:
                    connection.execute(pragma)
                create_tables(connection)
        except sqlite3.Error as error:
            raise IndexUnusable(f"SQLite cannot open it: {error}") from None
        self._connection = connection
        return connection

    def _create_private(self) -> None:
        """Create the file 0600 before SQLite does, so it is never readable by others (its
        journal takes the file's mode)."""
        assert self.path is not None
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, INDEX_MODE)
        os.close(descriptor)

    def close(self) -> None:
        """Close the connection (idempotent); the next use opens it again. A writer first
        puts the file back in rollback mode (see the module docstring); if a reader holds it
        just then, it stays in WAL mode, which every reader can open too."""
        if self._connection is not None:
            with contextlib.suppress(sqlite3.Error):
                if not self.read_only and self.path is not None:
                    self._connection.execute("PRAGMA journal_mode = DELETE")
                self._connection.close()
            self._connection = None
            self._format_known = False

    def discard(self) -> None:
        """Delete the file and its journal (a damaged index is rebuilt from nothing)."""
        self.close()
        if self.path is None:
            return
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")

    # -- what it was built to -----------------------------------------------------------

    def built_to(self) -> BuiltTo | None:
        """What the index covers, or ``None`` when it records nothing (never written, or of
        another schema version).

        Raises:
            IndexUnusable: SQLite refused to read it.
        """
        return self.record().built_to

    def record(self) -> IndexRecord:
        """What the index records of itself, in one read (the upkeep asks at every commit).

        Raises:
            IndexUnusable: SQLite refused to read it, or its record of the entries covered
                is not a number.
        """
        try:
            rows = dict(self.connection().execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.Error as error:
            raise IndexUnusable(f"its tables cannot be read: {error}") from None
        try:
            covered = int(rows.get(COVERED_KEY, 0))
        except ValueError as error:
            raise IndexUnusable(
                f"its record of the entries covered cannot be read: {error}"
            ) from None
        if rows.get("schema") != SCHEMA_VERSION or "commits" not in rows:
            return IndexRecord(None, covered)
        try:
            built_to = BuiltTo(int(rows["commits"]), str(rows["fingerprint"]))
        except (KeyError, ValueError):
            built_to = None
        return IndexRecord(built_to, covered)

    def format_problem(self) -> str | None:
        """Why the file is of another format than this version writes (``None``: it is not):
        its recorded format, or its word table's declared layout.

        Raises:
            IndexUnusable: SQLite refused to read it.
        """
        if self._format_known:
            return None
        try:
            connection = self.connection()
            recorded = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            declared = connection.execute(
                "SELECT sql FROM sqlite_master WHERE name = 'body'"
            ).fetchone()
        except sqlite3.Error as error:
            raise IndexUnusable(f"its tables cannot be read: {error}") from None
        if recorded is not None and recorded[0] != SCHEMA_VERSION:
            return (
                f"it was written in format {recorded[0]}, and this version writes format "
                f"{SCHEMA_VERSION}"
            )
        if declared is not None and "detail=none" not in str(declared[0]):
            return f"its word table is not of format {SCHEMA_VERSION} (it keeps word details)"
        self._format_known = recorded is not None and declared is not None
        return None

    def integrity_problem(self) -> str | None:
        """What SQLite's own checks find wrong with the file (``None``: nothing); the FTS
        index's structure is checked too."""
        try:
            connection = self.connection()
            found = connection.execute("PRAGMA quick_check").fetchall()
            if [row[0] for row in found] != ["ok"]:
                return "SQLite's quick_check found damage: " + "; ".join(
                    str(row[0]) for row in found[:3]
                )
            if not self.read_only:
                connection.execute("INSERT INTO body(body) VALUES ('integrity-check')")
        except (sqlite3.Error, IndexUnusable) as error:
            return f"SQLite refused it: {error}"
        return None

    # -- writing ------------------------------------------------------------------------

    def indexed_within(self, spans: Sequence[tuple[int, int]]) -> set[int]:
        """Entry indices inside the ``[start, end)`` ``spans`` the index already holds, in
        one query (a consolidation's own entries are dozens of gaps between its children)."""
        if not spans:
            return set()
        found = self.connection().execute(
            # json_extract, not ->> (SQLite 3.38): older SQLite builds run pifold too.
            "SELECT entries.rowid FROM json_each(?) AS span JOIN entries "
            "ON entries.rowid >= json_extract(span.value, '$[0]') "
            "AND entries.rowid < json_extract(span.value, '$[1]')",
            (json.dumps(spans),),
        )
        return {int(row[0]) for row in found}

    def indexed_among(self, indices: Iterable[int]) -> set[int]:
        """Which of ``indices`` (a few, anywhere in the transcript) the index already holds."""
        found = self.connection().execute(
            "SELECT rowid FROM entries WHERE rowid IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(set(indices))),),
        )
        return {int(row[0]) for row in found}

    def covered(self) -> int:
        """How many transcript entries the index has looked at for evidence (see
        :data:`COVERED_KEY`; 0 when it never recorded it).

        Raises:
            IndexUnusable: SQLite refused to read it.
        """
        return self.record().covered

    def add(
        self, rows: Sequence[IndexRow], built_to: BuiltTo, covered: int, reset: bool = False
    ) -> None:
        """Index ``rows`` and record ``built_to`` and ``covered`` (:data:`COVERED_KEY`), in
        one transaction (all or nothing).

        With ``reset`` everything held before is dropped first (a rebuild). The caller passes
        only entries not held yet (:meth:`indexed_within`, :meth:`indexed_among`); one held
        already breaks the ``entries`` key, and the whole transaction is refused rather than
        counted twice.

        Raises:
            sqlite3.Error: the write failed (``IntegrityError``: a row already held); nothing
                of it was kept.
        """
        connection = self.connection()
        connection.execute("BEGIN IMMEDIATE")
        try:
            if reset:
                connection.execute("INSERT INTO body(body) VALUES ('delete-all')")
                connection.execute("DELETE FROM entries")
            connection.executemany(
                "INSERT INTO entries (rowid, entry_id, role, tools, paths) VALUES (?, ?, ?, ?, ?)",
                [
                    (
                        row.index,
                        row.entry_id,
                        row.fields.role,
                        _packed(row.fields.tools),
                        "\n".join(row.fields.paths),
                    )
                    for row in rows
                ],
            )
            connection.executemany(
                "INSERT INTO body (rowid, text) VALUES (?, ?)",
                [(row.index, row.fields.body) for row in rows],
            )
            connection.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [
                    ("schema", SCHEMA_VERSION),
                    ("commits", str(built_to.commits)),
                    ("fingerprint", built_to.fingerprint),
                    (COVERED_KEY, str(covered)),
                ],
            )
            connection.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
            raise

    def row_count(self) -> int:
        """Entries indexed."""
        return int(self.connection().execute("SELECT count(*) FROM entries").fetchone()[0])


__all__ = [
    "COVERED_KEY",
    "INDEX_MODE",
    "INDEX_NAME",
    "SCHEMA_VERSION",
    "WRITER_PRAGMAS",
    "BuiltTo",
    "IndexRecord",
    "IndexRow",
    "IndexUnusable",
    "SearchIndex",
    "fold_fingerprint",
]
