"""Running a checked query against a current index: ranked words, or a bounded regex scan.

The index only *finds* rows. Every hit is then read back from the session, the entry's
line in the log through the store's verified read (:meth:`FoldStore.entry_bytes`: checksum,
kind and SHA-256 against the entry's digest), and its snippet is cut from those bytes. Its
fold is the innermost fold holding the entry in the forest as it stands now.

A row that names another entry than the transcript holds at its place means the index is
not the session's: :class:`~pifold_core.search.index.IndexUnusable` is raised and the caller
rebuilds (and says so).
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import dataclass
from typing import Protocol

from pifold_core.canonical import canonical_bytes, parse_json
from pifold_core.entries import Entry
from pifold_core.evidence import EvidenceStore
from pifold_core.folds import Forest
from pifold_core.journal import Journal
from pifold_core.search.index import IndexUnusable, SearchIndex
from pifold_core.search.query import SearchQuery
from pifold_core.search.results import SearchHit, SearchResults
from pifold_core.search.snippets import cut_snippet, term_pattern
from pifold_core.search.text import evidence_of, searchable_text
from pifold_core.store import FoldStore, StoreObjectMissing
from pifold_core.transcript import Transcript

MAX_SCANNED = 1_000
"""Regex mode reads at most this many indexed entries, newest first."""

MAX_SCANNED_CHARS = 200_000
"""Regex mode matches at most this many characters of one entry's text."""

SCAN_SECONDS = 1.0
"""Regex mode stops reading new entries after this long (the entries left are counted)."""


class SearchedSession(Protocol):
    """What a search reads of a session (an :class:`~pifold_core.engine.Engine`)."""

    @property
    def transcript(self) -> Transcript: ...

    @property
    def forest(self) -> Forest: ...

    @property
    def store(self) -> FoldStore: ...

    @property
    def journal(self) -> Journal: ...

    @property
    def commit_count(self) -> int: ...

    @property
    def evidence(self) -> EvidenceStore: ...


@dataclass(frozen=True, slots=True)
class _Row:
    index: int
    entry_id: str
    role: str
    tools: str


def run_query(session: SearchedSession, index: SearchIndex, query: SearchQuery) -> SearchResults:
    """One page of hits for ``query`` (see the module docstring).

    Raises:
        sqlite3.Error: SQLite refused (the caller tells a query it refused from damage).
        IndexUnusable: the index names entries the session does not hold there.
        pifold_core.store.StoreError: an entry's bytes no longer verify (never a wrong snippet).
    """
    if query.pattern is not None:
        return _regex_scan(session, index, query, query.pattern)
    connection = index.connection()
    filters, parameters = _filters(query)
    any_term = False
    total = _count(connection, query.match_expression(), filters, parameters)
    if total == 0 and len(query.terms) > 1:
        any_term = True
        total = _count(connection, query.match_expression(True), filters, parameters)
    found = connection.execute(
        "SELECT e.rowid, e.entry_id, e.role, e.tools FROM body JOIN entries AS e "
        f"ON e.rowid = body.rowid WHERE body MATCH ?{filters} "
        "ORDER BY bm25(body), e.rowid DESC LIMIT ? OFFSET ?",
        (query.match_expression(any_term), *parameters, query.limit, query.offset),
    ).fetchall()
    pattern = term_pattern(query.terms)
    hits = []
    for row in found:
        facts = _Row(int(row[0]), str(row[1]), str(row[2]), str(row[3]))
        data, text, peek = verified_entry(session, facts)
        hits.append(_hit(session, facts, (data, text, peek), pattern))
    return SearchResults(total, tuple(hits), query.offset, any_term=any_term)


def _count(
    connection: sqlite3.Connection, expression: str, filters: str, parameters: list[str]
) -> int:
    found = connection.execute(
        "SELECT count(*) FROM body JOIN entries AS e ON e.rowid = body.rowid "
        f"WHERE body MATCH ?{filters}",
        (expression, *parameters),
    ).fetchone()
    return int(found[0])


def _filters(query: SearchQuery) -> tuple[str, list[str]]:
    """The SQL conditions and parameters of the tool and path filters."""
    clauses: list[str] = []
    parameters: list[str] = []
    if query.tool is not None:
        clauses.append(" AND instr(e.tools, ?) > 0")
        parameters.append(" " + query.tool.replace(" ", "_") + " ")
    if query.path is not None:
        clauses.append(" AND instr(e.paths, ?) > 0")
        parameters.append(query.path)
    return "".join(clauses), parameters


def _regex_scan(
    session: SearchedSession, index: SearchIndex, query: SearchQuery, pattern: re.Pattern[str]
) -> SearchResults:
    """Match ``pattern`` against indexed entries newest first, within the scan's bounds."""
    connection = index.connection()
    filters, parameters = _filters(query)
    where = f"WHERE 1{filters}"
    candidates = int(
        connection.execute(f"SELECT count(*) FROM entries AS e {where}", parameters).fetchone()[0]
    )
    rows = connection.execute(
        f"SELECT e.rowid, e.entry_id, e.role, e.tools FROM entries AS e {where} "
        "ORDER BY e.rowid DESC LIMIT ?",
        (*parameters, MAX_SCANNED),
    ).fetchall()
    deadline = time.monotonic() + SCAN_SECONDS
    matched: list[tuple[_Row, tuple[bytes, str, str]]] = []
    scanned = 0
    for row in rows:
        if time.monotonic() > deadline:
            break
        facts = _Row(int(row[0]), str(row[1]), str(row[2]), str(row[3]))
        data, text, peek = verified_entry(session, facts)
        text = text[:MAX_SCANNED_CHARS]
        scanned += 1
        if pattern.search(text):
            matched.append((facts, (data, text, peek)))
    page = matched[query.offset : query.offset + query.limit]
    hits = tuple(_hit(session, facts, read, pattern) for facts, read in page)
    return SearchResults(
        len(matched), hits, query.offset, scanned=scanned, unscanned=candidates - scanned
    )


def verified_entry(session: SearchedSession, row: _Row) -> tuple[bytes, str, str]:
    """The bytes a row's text comes from, read back and verified (the entry's record, or for
    an entry kept as evidence the artifact's), the searchable text rebuilt from them, and the
    id a ``peek`` reads those bytes by."""
    transcript = session.transcript
    if row.index >= len(transcript) or transcript.id_of(row.index) != row.entry_id:
        raise IndexUnusable(
            f"it names entry {row.entry_id} at place {row.index}, which the session does not hold"
        )
    facts = transcript.entries.facts_of(row.index)
    span = session.journal.entry_spans.get(row.entry_id)
    if span is None:
        raise StoreObjectMissing(f"entry {row.entry_id} has no line in the log", facts.digest)
    data = session.store.entry_bytes(facts.digest, span)
    record = parse_json(data)
    assert isinstance(record, dict)  # verified: the bytes are the entry's canonical record
    entry = Entry.from_record(record)
    evidence = evidence_of(entry)
    if evidence is None:
        return data, searchable_text(entry), row.entry_id
    original = session.evidence.read(evidence)  # verified against its name
    whole = parse_json(original)
    assert isinstance(whole, dict)
    return original, searchable_text(Entry.from_record(whole)), evidence


def match_offset(data: bytes, text: str, pattern: re.Pattern[str] | None) -> int | None:
    """Where the first match of ``pattern`` in ``text`` lies in the entry's record bytes
    (found as JSON writes it), so a ``peek`` can read just around it; ``None``: not found."""
    found = pattern.search(text) if pattern is not None else None
    if found is None or not found.group():
        return None
    position = data.find(canonical_bytes(found.group())[1:-1])
    return position if position >= 0 else None


def _hit(
    session: SearchedSession,
    row: _Row,
    read: tuple[bytes, str, str],
    pattern: re.Pattern[str] | None,
) -> SearchHit:
    data, text, peek = read
    chain = session.forest.chain_at(row.index)
    tools = row.tools.split()
    return SearchHit(
        fold=chain[-1].handle if chain else None,
        entry=row.entry_id,
        index=row.index,
        role=row.role,
        tool=tools[0] if tools else None,
        snippet=cut_snippet(text, pattern),
        byte_offset=match_offset(data, text, pattern),
        peek_id=peek,
    )


__all__ = [
    "MAX_SCANNED",
    "MAX_SCANNED_CHARS",
    "SCAN_SECONDS",
    "SearchedSession",
    "match_offset",
    "run_query",
    "verified_entry",
]
