"""Running a checked query against a current index: ranked words, or a bounded regex scan.

The index only *finds* rows. Every hit is then read back from the session, the entry's
line in the log through the store's verified read (:meth:`FoldStore.entry_bytes`: checksum,
kind and SHA-256 against the entry's digest), and its snippet is cut from those bytes. Its
fold is the innermost fold holding the entry in the forest as it stands now.

The index keeps no word positions, so a term of several pieces (a quoted phrase, a word like
``handler_4242``) finds every entry holding its pieces anywhere. Such a query takes its best
ranked candidates, at most :data:`MAX_CHECKED`, and filters each one's raw log line (cheap,
unverified, never refusing a line that holds the terms); through the page asked for, a line
that passes is read back verified and kept only when its text holds each such term whole and
in order, so every hit shown is exact; past the page, lines that pass are counted toward the
total. The result says how many candidates it checked and how many it left at the bound.

A row that names another entry than the transcript holds at its place means the index is
not the session's: :class:`~pifold_core.search.index.IndexUnusable` is raised and the caller
rebuilds (and says so).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from pifold_core.canonical import canonical_bytes, parse_json
from pifold_core.entries import Entry
from pifold_core.evidence import EvidenceStore
from pifold_core.folds import Forest
from pifold_core.journal import Journal
from pifold_core.search.index import IndexUnusable, SearchIndex
from pifold_core.search.query import SearchQuery
from pifold_core.search.ranking import TermMatches, entry_rows, term_matches
from pifold_core.search.regex_words import required_words
from pifold_core.search.results import SearchHit, SearchResults
from pifold_core.search.snippets import cut_snippet, line_prefilter, term_check, term_pattern
from pifold_core.search.text import evidence_of, searchable_text
from pifold_core.store import FoldStore, StoreObjectMissing
from pifold_core.transcript import Transcript

MAX_SCANNED = 500
"""Regex mode reads at most this many indexed entries, newest first (of those the index
finds holding the pattern's words, when it has any). Each is read back verified and parsed,
about 0.15 ms of CPU at 50,000 entries: 1,000 took 145 ms for a pattern without words
(``bench_search.py``), over the 100 ms a search may take; one with words reads only the
entries holding them (9 ms)."""

MAX_SCANNED_CHARS = 200_000
"""Regex mode matches at most this many characters of one entry's text."""

MAX_CHECKED = 500
"""A phrase query checks at most this many of its best ranked candidates' text (each line
filtered raw first, and read back verified only when it may hold the phrase)."""

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
    if any(term.needs_check for term in query.terms):
        return _checked_ranking(session, index, query)
    connection = index.connection()
    filters, parameters = _filters(query)
    matches = term_matches(connection, query, filters, parameters)
    page_end = query.offset + query.limit
    any_term = False
    total, best = matches.ranked(any_term, page_end)
    if total == 0 and len(query.terms) > 1:
        any_term = True
        total, best = matches.ranked(any_term, page_end)
    found = entry_rows(connection, best[query.offset :])
    pattern = term_pattern(query.terms)
    hits = []
    for row in found:
        facts = _Row(int(row[0]), str(row[1]), str(row[2]), str(row[3]))
        data, text, peek = verified_entry(session, facts)
        hits.append(_hit(session, facts, (data, text, peek), pattern))
    return SearchResults(total, tuple(hits), query.offset, any_term=any_term)


def _checked_ranking(
    session: SearchedSession, index: SearchIndex, query: SearchQuery
) -> SearchResults:
    """Ranked words with terms the index alone cannot confirm: every term, else any."""
    connection = index.connection()
    filters, parameters = _filters(query)
    matches = term_matches(connection, query, filters, parameters)
    results = _checked(session, connection, query, matches, any_term=False)
    if results.total == 0 and not results.unchecked and len(query.terms) > 1:
        return _checked(session, connection, query, matches, any_term=True)
    return results


def _checked(
    session: SearchedSession,
    connection: sqlite3.Connection,
    query: SearchQuery,
    matches: TermMatches,
    any_term: bool,
) -> SearchResults:
    """The best :data:`MAX_CHECKED` candidates, in rank order, kept when their text holds
    every term needing a check (``any_term``: any term at all). Each raw log line is filtered
    first; up to the page's end a line that passes is read back verified and checked
    exactly, and past it the lines that pass are counted toward the total."""
    candidates, best = matches.ranked(any_term, MAX_CHECKED)
    found = entry_rows(connection, best)
    checked_terms = [term for term in query.terms if any_term or term.needs_check]
    checks = [term_check(term) for term in checked_terms]
    line_filters = [line_prefilter([term]) for term in checked_terms]
    pattern = term_pattern(query.terms)
    matched: list[tuple[_Row, tuple[bytes, str, str]]] = []
    counted = 0
    page_end = query.offset + query.limit
    with open(session.journal.path, "rb") as log:
        for row in found:
            facts = _Row(int(row[0]), str(row[1]), str(row[2]), str(row[3]))
            verdict = _line_verdict(session, log.fileno(), facts, line_filters, any_term)
            if verdict is False:
                continue
            if verdict is True and len(matched) >= page_end:
                counted += 1  # past the page: its line holds the terms
                continue
            read = verified_entry(session, facts)
            held = (check(read[1]) for check in checks)
            if any(held) if any_term else all(held):
                matched.append((facts, read))
    page = matched[query.offset : page_end]
    return SearchResults(
        len(matched) + counted,
        tuple(_hit(session, facts, read, pattern) for facts, read in page),
        query.offset,
        any_term=any_term,
        checked=len(found),
        unchecked=candidates - len(found),
    )


def _line_verdict(
    session: SearchedSession,
    descriptor: int,
    row: _Row,
    filters: Sequence[Callable[[bytes], bool] | None],
    any_term: bool,
) -> bool | None:
    """What the row's raw log line (read unverified) says of the checked terms: ``False``,
    it cannot hold them; ``True``, it does; ``None``, it cannot tell (the text is kept in an
    evidence artifact, the entry is not one text block, or a term has no filter): only the
    verified text can."""
    span = session.journal.entry_spans.get(row.entry_id)
    if span is None or any(check is None for check in filters):
        return None
    line = os.pread(descriptor, span.length, span.offset)
    if b'"evidence"' in line or line.count(b'"type":') != 1 or b'"type":"text"' not in line:
        # Evidence keeps the text elsewhere; of several blocks (or a tool call, whose name
        # the text puts before its arguments) the line's order is not the text's.
        return None
    held = (check is not None and check(line) for check in filters)
    return any(held) if any_term else all(held)


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
    """Match ``pattern`` against indexed entries newest first, within the scan's bounds:
    every entry, or when the pattern holds words a match must contain
    (:mod:`pifold_core.search.regex_words`), only the entries the index finds holding them,
    however old."""
    connection = index.connection()
    filters, parameters = _filters(query)
    words = required_words(pattern)
    if words is None:
        source, where = "entries AS e", f"WHERE 1{filters}"
    else:
        source = "body JOIN entries AS e ON e.rowid = body.rowid"
        where = f"WHERE body MATCH ?{filters}"
        parameters = [words.match_expression(), *parameters]
    candidates = int(
        connection.execute(f"SELECT count(*) FROM {source} {where}", parameters).fetchone()[0]
    )
    rows = connection.execute(
        f"SELECT e.rowid, e.entry_id, e.role, e.tools FROM {source} {where} "
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


def verified_row(
    session: SearchedSession, index: int, entry_id: str, role: str, tools: str
) -> tuple[bytes, str, str]:
    """:func:`verified_entry` of one index row given by its columns."""
    return verified_entry(session, _Row(index, entry_id, role, tools))


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
    "MAX_CHECKED",
    "MAX_SCANNED",
    "MAX_SCANNED_CHARS",
    "SCAN_SECONDS",
    "SearchedSession",
    "match_offset",
    "run_query",
    "verified_entry",
    "verified_row",
]
