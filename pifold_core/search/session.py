"""One session's search: the index kept up at every commit, checked and rebuilt before use.

:class:`SessionSearch` is what an engine holds. :meth:`SessionSearch.after_commit` runs once
the commit's log record is durable and adds what the commit folded or clipped, in one SQLite
transaction; it only writes onto an index built to exactly the state before that commit (the
commit count and the fingerprint of the folds), so an index that fell behind is never
patched into a wrong one, and it never fails the commit (the log is the record): a problem
is kept in :attr:`SessionSearch.upkeep_problem` and the next search rebuilds. A tool result
kept as evidence is indexed when it is appended (:meth:`SessionSearch.after_append`): the
window shows only its preview, so the rest must be searchable before any commit hides it.

:meth:`SessionSearch.search` first makes sure the index is the session's: present, sound
(SQLite's own checks, once per process), built to the session's commit count and folds.
An index that only lacks results kept as evidence since its last write (a kill between an
append's log record and its rows) is completed instead: appended entries never change.
Otherwise it is rebuilt from the log and the store, and the result says so in
:attr:`~pifold_core.search.results.SearchResults.rebuilt`: a rebuild is never silent. A
session open read-only never writes its state folder: it rebuilds in memory instead.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pifold_core.commit import CommitOutcome
from pifold_core.entries import Entry
from pifold_core.search.index import (
    INDEX_NAME,
    BuiltTo,
    IndexRecord,
    IndexUnusable,
    SearchIndex,
    fold_fingerprint,
)
from pifold_core.search.query import SearchError, SearchQuery
from pifold_core.search.rebuild import (
    clipped_indices,
    evidence_indices,
    fingerprint_now,
    folded_indices,
    own_ranges,
    roots_before,
    rows_for,
)
from pifold_core.search.results import SearchResults
from pifold_core.search.searcher import SearchedSession, run_query
from pifold_core.search.suggestions import (
    Suggestion,
    mid_batch,
    related_folds,
    suggestion_entry,
    tail_terms,
)
from pifold_core.store import StoreError
from pifold_core.transcript import TranscriptError


class SessionSearch:
    """The search index of one session's state folder."""

    def __init__(self, state_dir: Path, read_only: bool = False) -> None:
        self.path = Path(state_dir) / INDEX_NAME
        """``<state>/search.sqlite3``."""
        self.read_only = read_only
        """Never write the file: a stale or damaged index is rebuilt in memory."""
        self.upkeep_problem: str | None = None
        """Why the latest commit's upkeep wrote nothing (the next search rebuilds)."""
        self._file = SearchIndex(self.path, read_only)
        self._memory: SearchIndex | None = None
        """A read-only session's rebuilt index, and what it was built to."""
        self._memory_built: BuiltTo | None = None
        self._checked = False
        """SQLite's integrity checks passed on the file in this process."""
        self.surfacing = False
        """Suggestions at a commit are on (:meth:`set_surfacing`)."""
        self._suggested_through = 0
        """The latest commit whose suggestions were considered."""

    def close(self) -> None:
        """Close the index (idempotent)."""
        self._file.close()
        if self._memory is not None:
            self._memory.close()

    # -- upkeep ---------------------------------------------------------------------------

    def after_commit(self, session: SearchedSession, outcome: CommitOutcome) -> None:
        """Index what ``outcome`` folded and clipped (see the module docstring); never raises
        for the index's sake."""
        if self.read_only:
            return
        try:
            self.upkeep_problem = self._upkeep(session, outcome)
        except (sqlite3.Error, IndexUnusable, OSError, StoreError) as error:
            self.upkeep_problem = (
                f"the search index was not updated at commit {outcome.number}: {error}"
            )
            self._file.close()

    def _upkeep(self, session: SearchedSession, outcome: CommitOutcome) -> str | None:
        """Write the commit's rows; returns why nothing was written (``None``: written)."""
        index = self._file
        made = {built_fold.fold.handle for built_fold in outcome.built}
        before = BuiltTo(outcome.number - 1, fold_fingerprint(roots_before(session.forest, made)))
        entries = len(session.transcript)
        found = self._writable(before, entries, f"before commit {outcome.number}")
        if isinstance(found, str):
            return found
        spans = [
            span
            for built_fold in outcome.built
            for span in own_ranges(session.forest, built_fold.fold.handle)
        ]
        held = index.indexed_within(spans)
        fresh = {place for start, end in spans for place in range(start, end)} - held
        # Clipped results and results kept as evidence since the last write: a few, which may
        # be held already (evidence is indexed when it is appended).
        others = set(outcome.clipped) - fresh
        others.update(evidence_indices(session.transcript, found.covered, entries, fresh))
        fresh.update(others - index.indexed_among(others))
        index.add(
            rows_for(session.transcript, fresh, session.evidence),
            BuiltTo(outcome.number, fingerprint_now(session.forest)),
            entries,
        )
        return None

    def _writable(self, expected: BuiltTo, entries: int, when: str) -> IndexRecord | str:
        """The file's record when it may be written onto as built to ``expected``; otherwise
        why not: another format, or built to another state. A file never written (or just
        created) may be started only at commit 0 (before the first commit's rows);
        ``entries``: the transcript's length (an index covering more is another log's)."""
        index = self._file
        existed = self.path.exists()
        if existed:
            other_format = index.format_problem()
            if other_format is not None:
                return f"the search index was not updated: {other_format}"
        record = index.record() if existed else IndexRecord(None, 0)
        built = record.built_to
        if built is None:
            if expected.commits != 0 or (existed and index.row_count()):
                # Behind or foreign: never patched; the next search rebuilds it, and says so.
                return f"the search index records no build {when}"
        elif built != expected:
            return f"the search index is built to commit {built.commits}, not to the state {when}"
        elif record.covered > entries:
            return f"the search index covers more entries than the session holds {when}"
        return record

    def after_append(self, session: SearchedSession) -> None:
        """Index the results kept as evidence since the index's last write (the entry just
        appended keeps one): the window shows only their previews, so the rest must be
        searchable from now on, not once a commit folds them. Never raises for the index's
        sake: a problem is kept in :attr:`upkeep_problem` and the next search rebuilds."""
        if self.read_only:
            return
        try:
            self.upkeep_problem = self._add_evidence(session)
        except (sqlite3.Error, IndexUnusable, OSError, StoreError) as error:
            self.upkeep_problem = (
                f"the search index was not updated after entry {len(session.transcript)}: {error}"
            )
            self._file.close()

    def _add_evidence(self, session: SearchedSession) -> str | None:
        """Write the evidence rows not held yet onto an index built to the session as it
        stands; returns why nothing was written (``None``: written, or nothing to write)."""
        index = self._file
        expected = BuiltTo(session.commit_count, fingerprint_now(session.forest))
        entries = len(session.transcript)
        found = self._writable(expected, entries, f"at commit {session.commit_count}")
        if isinstance(found, str):
            return found
        kept = evidence_indices(session.transcript, found.covered, entries)
        fresh = set(kept) - index.indexed_among(kept)
        if fresh:
            index.add(rows_for(session.transcript, fresh, session.evidence), expected, entries)
        return None

    # -- suggestions at a commit ----------------------------------------------------------

    def suggestions(self, session: SearchedSession) -> list[Suggestion]:
        """The folds most related to the fresh tail now (:mod:`pifold_core.search.suggestions`);
        none when the index is not current: a commit never waits on a rebuild."""
        if self.read_only or session.commit_count == 0:
            return []
        expected = BuiltTo(session.commit_count, fingerprint_now(session.forest))
        try:
            if self._problem(expected) is not None:
                return []
            return related_folds(session, self._file, tail_terms(session))
        except (sqlite3.Error, IndexUnusable, OSError, StoreError):
            return []  # a suggestion is a courtesy: the next search rebuilds, and says so

    def set_surfacing(self, on: bool, commits: int) -> None:
        """Turn suggestions at a commit on or off; commits up to ``commits`` get none."""
        self.surfacing = on
        self._suggested_through = commits

    def due_note(self, session: SearchedSession) -> Entry | None:
        """With surfacing on, the note for the latest commit when none was considered for it
        yet (:meth:`suggestion_note`): the first request after a commit carries it, one
        inside a tool batch waits for the next. ``None``: nothing to append now."""
        if not self.surfacing or session.commit_count <= self._suggested_through:
            return None
        if mid_batch(session):
            return None  # results still to come: the note waits for the next request
        self._suggested_through = session.commit_count
        return self.suggestion_note(session)

    def suggestion_note(self, session: SearchedSession) -> Entry | None:
        """The note listing :meth:`suggestions` after the latest commit; ``None`` when no
        fold is related (or the note's id is taken)."""
        suggestions = self.suggestions(session)
        if not suggestions:
            return None
        entry = suggestion_entry(session, session.commit_count, suggestions)
        try:
            session.transcript.check_append(entry)
        except TranscriptError:
            return None
        return entry

    # -- searching ------------------------------------------------------------------------

    def search(self, session: SearchedSession, query: SearchQuery) -> SearchResults:
        """One page of hits for ``query``; the index is made current first (and a rebuild
        reported in the result).

        Raises:
            SearchError: SQLite's full-text search refused the query (nothing changed).
            pifold_core.store.StoreError: an entry's bytes no longer verify.
        """
        if session.commit_count == 0 and not evidence_indices(
            session.transcript, 0, len(session.transcript)
        ):
            return SearchResults(0, (), query.offset)  # nothing hidden yet
        index, rebuilt = self._current(session)
        try:
            results = run_query(session, index, query)
        except sqlite3.OperationalError as error:
            if str(error).startswith("fts5:"):
                raise SearchError(f"full-text search refused {query.text!r}: {error}") from None
            index, rebuilt = self._rebuild(session, f"SQLite failed reading it: {error}")
            results = run_query(session, index, query)
        except (sqlite3.Error, IndexUnusable) as error:
            index, rebuilt = self._rebuild(session, f"it could not be used: {error}")
            results = run_query(session, index, query)
        if rebuilt is None:
            return results
        return SearchResults(
            results.total,
            results.hits,
            results.offset,
            rebuilt,
            results.any_term,
            results.scanned,
            results.unscanned,
            results.checked,
            results.unchecked,
        )

    def _current(self, session: SearchedSession) -> tuple[SearchIndex, str | None]:
        """A usable index built to the session as it stands, and why it was rebuilt."""
        expected = BuiltTo(session.commit_count, fingerprint_now(session.forest))
        if self._memory is not None and self._memory_built == expected:
            return self._memory, None
        problem = self._problem(expected)
        if problem is None:
            try:
                problem = self._evidence_problem(session)
            except (sqlite3.Error, IndexUnusable) as error:
                problem = f"it was damaged ({error})"
        if problem is None:
            return self._file, None
        return self._rebuild(session, problem)

    def _evidence_problem(self, session: SearchedSession) -> str | None:
        """Why a file built to the session's commits still cannot serve it (``None``: it
        can): it covers more entries than the session holds, or results kept as evidence
        since its last write are missing (a writable session adds them now: appended
        entries never change, so this is the upkeep finishing, not a patch)."""
        entries = len(session.transcript)
        covered = self._file.covered()
        if covered > entries:
            return f"it covers {covered:,} entries and the session holds {entries:,}"
        kept = evidence_indices(session.transcript, covered, entries)
        missing = set(kept) - self._file.indexed_among(kept)
        if not missing:
            return None
        if not self.read_only and self._add_evidence(session) is None:
            return None
        return f"it lacks {len(missing):,} of the results kept as evidence since entry {covered:,}"

    def _problem(self, expected: BuiltTo) -> str | None:
        """Why the file cannot serve a search for ``expected`` (``None``: it can)."""
        if not self.path.exists():
            return "it was missing"
        if not self._checked:
            damage = self._file.integrity_problem()
            if damage is not None:
                return f"it was damaged ({damage})"
            self._checked = True
        try:
            other_format = self._file.format_problem()
            if other_format is not None:
                return other_format
            built = self._file.built_to()
        except IndexUnusable as error:
            return f"it was damaged ({error})"
        if built is None:
            return "it recorded no build (never finished, or of another version)"
        if built.commits != expected.commits:
            return (
                f"it was built to commit {built.commits:,} and the session is at commit "
                f"{expected.commits:,}"
            )
        if built.fingerprint != expected.fingerprint:
            return "its folds are not the session's (it was built from another log)"
        return None

    def _rebuild(self, session: SearchedSession, problem: str) -> tuple[SearchIndex, str]:
        """Build the index afresh from the log and the store; returns it and the notice."""
        expected = BuiltTo(session.commit_count, fingerprint_now(session.forest))
        entries = len(session.transcript)
        indices = set(folded_indices(session.forest))
        indices.update(clipped_indices(session.journal.path, session.commit_count))
        indices.update(evidence_indices(session.transcript, 0, entries, indices))
        rows = rows_for(session.transcript, indices, session.evidence)
        if self.read_only:
            if self._memory is not None:
                self._memory.close()
            self._memory = SearchIndex(None)
            self._memory.add(rows, expected, entries, reset=True)
            self._memory_built = expected
            return self._memory, (
                f"search index rebuilt in memory: {problem} (the session is open read-only, "
                "so its file is left as it was)"
            )
        self._file.discard()  # a damaged file is not trusted even to be emptied
        self._file.add(rows, expected, entries, reset=True)
        self._checked = True
        return self._file, f"search index rebuilt: {problem}"


__all__ = ["SessionSearch"]
