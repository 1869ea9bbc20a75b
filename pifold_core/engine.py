"""The engine: the small API a host drives (DESIGN §8).

A host appends entries, asks for the projection before each model request, and may peek,
expand, refold or commit. Every change of state is written to the session's append-only
log first, so :meth:`Engine.open` rebuilds the same state, and the same projection byte for
byte, after a restart or a crash.

Every operation is all or nothing, by one rule: nothing changes in memory before its log
record is written. A verb checks, plans, writes its one record, then applies. Where the
record can only be computed by applying (the marks an appended entry lays, the folds a
commit builds), the change is made, the record written, and the change rolled back exactly
if the write fails (an append undoes its entry, a commit restores its snapshot), so a failed
write leaves the engine as it was, and a retry succeeds.

The engine holds the session's state (:mod:`pifold_core.session_state`) and four parts that
work on it: what the host feeds in (entries, token counts: :mod:`pifold_core.host_input`),
the commit runner (:mod:`pifold_core.commit_runner`), the policy that decides when to commit
before a request (:mod:`pifold_core.commit_policy`) and the verbs on folds, marks and pins
(:mod:`pifold_core.fold_verbs`). Hosts read the state through :attr:`Engine.view`
(:mod:`pifold_core.engine_view`); the public methods below (the host API page) are all.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pifold_core.canonical import JsonValue
from pifold_core.checkpoint import write_if_due as write_checkpoint_if_due
from pifold_core.commit import CommitOutcome
from pifold_core.commit_policy import CommitPolicy
from pifold_core.commit_runner import CommitRunner
from pifold_core.composition import Composition
from pifold_core.engine_errors import EngineError, ReadOnlySession, SessionLocked
from pifold_core.engine_lock import guarded
from pifold_core.engine_results import OverflowRecovery, Request
from pifold_core.engine_view import EngineView
from pifold_core.entries import Entry, Usage
from pifold_core.fold_range import SourceRange
from pifold_core.fold_verbs import FoldVerbs
from pifold_core.folds import ForestError
from pifold_core.host_input import HostInput
from pifold_core.host_notes import HostNote, log_note
from pifold_core.mark_edits import MarkEditError, find_mark
from pifold_core.marks import Mark
from pifold_core.notice import due_notice
from pifold_core.opening import open_session
from pifold_core.options import EngineOptions
from pifold_core.peek import PeekError, PeekResult
from pifold_core.pins import PinOutcome
from pifold_core.preview import CommitPreview
from pifold_core.reporting import build_composition, build_status, fold_rows
from pifold_core.request_log import log_request
from pifold_core.runway import COLD_COMMIT_SHARE, check_host_head, check_request_clock
from pifold_core.search import SearchQuery, SearchResults, SessionSearch
from pifold_core.search.suggestions import Suggestion
from pifold_core.session_state import SessionState, evidence_of
from pifold_core.state_folder import LOG_NAME
from pifold_core.status import EngineStatus, FoldRow
from pifold_core.tokens import TokenCounter


@guarded  # a worker's peek or search never meets a change (pifold_core.engine_lock)
class Engine:
    """Lossless folding over one session, persisted under its state folder.

    Open one with :meth:`open`. Its state (:class:`~pifold_core.session_state.SessionState`)
    is its own: hosts change it through the methods below and read it through :attr:`view`.
    """

    def __init__(
        self,
        state: SessionState,
        cold_cache_commits: bool = True,
        cold_commit_share: float = COLD_COMMIT_SHARE,
    ) -> None:
        self._state = state
        self._commits = CommitRunner(state, self._index_commit)
        commit = self._commits.commit
        self._policy = CommitPolicy(state, commit, cold_cache_commits, cold_commit_share)
        self._verbs = FoldVerbs(state, commit)
        self._input = HostInput(state)
        self.view = EngineView(state, self._policy)
        """What hosts read of the session: transcript, forest, projection, marks, counters."""
        self._search: SessionSearch | None = None
        """The search index (issue 21), opened on first use: :meth:`search`."""

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        state_dir: Path,
        options: EngineOptions | None = None,
        counter: TokenCounter | None = None,
        host_measures: bool = True,
        read_only: bool = False,
        cold_cache_commits: bool = True,
        cold_commit_share: float = COLD_COMMIT_SHARE,
    ) -> Engine:
        """Open a session's state, restoring it when a log exists.

        A logged session keeps the options it was logged with (so its projection is
        unchanged); ``options`` apply to a new session. Change a running session's options
        with :meth:`apply_options`.

        One writer per session: a writable open holds ``<state>/lock`` until :meth:`close`
        (the kernel frees it when the process ends, however it ends), and a second writable
        open raises :class:`SessionLocked`. ``read_only`` opens beside a writer, writing
        nothing (a half-written last line is left for its writer); every verb that would
        change the session raises :class:`ReadOnlySession`. A damaged store object or evidence
        artifact does not stop the open: ``status().damaged`` names it, touching it raises.

        ``cold_cache_commits`` and ``cold_commit_share`` are engine flags, not logged options:
        they decide when the live engine commits, and a reopen replays the commits logged.
        """
        state = open_session(state_dir, options, counter, host_measures, read_only)
        return cls(state, cold_cache_commits, cold_commit_share)

    @property
    def state_dir(self) -> Path:
        """The session's state folder."""
        return self._state.state_dir

    @property
    def options(self) -> EngineOptions:
        """The session's options as they stand (change them with :meth:`apply_options`)."""
        return self._state.options

    def note(self, body: dict[str, JsonValue]) -> HostNote:
        """Log a note of the host's own progress (a replay driver's step); moves no byte.

        Whatever decides a host's future behaviour belongs in the log, not in its memory, so
        that a host killed at any point resumes exactly: notes come back in
        ``view.host_notes`` on reopen, and ``view.log_length`` tells what was logged after one.
        """
        self._state.refuse_if_read_only("note")
        note = log_note(self._state.journal, body)
        self._state.add_host_note(note)
        return note

    # -- appending ----------------------------------------------------------------------------

    def append(self, entry: Entry) -> Entry:
        """Append one entry; returns it as kept (a large tool result becomes a preview). All
        or nothing: the entry and the marks it lays are one log record; a failed append
        leaves the engine as it was and can simply be retried (:mod:`pifold_core.host_input`).

        Raises:
            EngineError: not an entry, or a tool result whose call a fold already holds.
            TranscriptError: its id (or a tool call id) is already in the transcript.
            OSError: the log could not be written; nothing was applied.
        """
        kept = self._input.append(entry)
        if evidence_of(kept) is not None:  # only its preview shows: search the rest (issue 21)
            self._session_search().after_append(self._state)
        return kept

    # -- measurement --------------------------------------------------------------------------

    def expected_tokens(self) -> int:
        """Occupancy expected for the next request (DESIGN §6)."""
        return self._state.expected_tokens()

    def report_usage(self, request: int, usage: Usage) -> None:
        """Bind the provider's usage for request ``request``; one whose prompt is unknown
        (:mod:`pifold_core.usage`) is no reading: nothing logged, the figure stays."""
        self._input.report_usage(request, usage)

    def set_host_prefix(self, tokens: int) -> None:
        """The host's fixed prefix (its system prompt and tool definitions as sent, counted by
        :func:`pifold_core.host_prefix.prefix_tokens`) is ``tokens``: part of every estimate
        and figure from now on. Logged when it changes, so a reopen counts the same."""
        self._input.set_host_prefix(tokens)

    def calibrate(self, measured_growth: int, estimated_growth: int) -> bool:
        """Learn the token ratio from growth the provider counted elsewhere (a replay)."""
        return self._input.calibrate(measured_growth, estimated_growth)

    # -- requests and commits -------------------------------------------------------------------

    def prepare_request(
        self,
        now_ms: int | None = None,
        cache_lifetime_s: int | None = None,
        host_head: str | None = None,
    ) -> Request:
        """The projection for the next model request; commits first when it is due.

        ``now_ms`` (the host's clock) and ``cache_lifetime_s`` (the model descriptor's cache
        lifetime) let the engine see a cold cache: more than the lifetime since the previous
        request. ``host_head`` is the host's digest of the head of its own prompt (system
        prompt and tool definitions, as it sends them): when it differs from the previous
        request's, every byte after it is a cache miss, so the cache is cold as surely as
        after an expiry. All three go in the request's log record, so a reopened engine
        decides the same way. Commits, in order:

        - **threshold**: expected occupancy at ``maxTarget``; it lands only when it buys
          runway (:mod:`pifold_core.runway`: occupancy after it at least half the band's
          width below ``maxTarget``). Blocked, nothing is committed and ``view.floor`` says
          what blocks it (host prompt, pins, fresh tail) and which budget would work, even
          for a request past the budget: the host's overflow recovery is the net there.
        - **cold-cache**: the cache is cold (expired, or the host's head changed) and
          occupancy is at least the engine's ``cold_commit_share`` of the budget: every
          standing mark that can land does (no spans are cut), since the re-send is coming
          regardless (:mod:`pifold_core.runway`). Off with the ``cold_cache_commits`` flag.

        A usage report that read nothing from the cache is not a cold signal: that request
        already wrote the cache again.
        """
        state = self._state
        state.refuse_if_read_only("prepare_request")
        check_request_clock(now_ms, cache_lifetime_s)
        check_host_head(host_head)
        commit = None
        floor_before = state.floor
        if state.folding_stopped is None:
            notice = due_notice(state)
            if notice is not None:
                self.append(notice)
                state.mark_noticed()
            commit = self._policy.commit_before_request(now_ms, cache_lifetime_s, host_head)
            suggested = self._search.due_note(state) if self._search is not None else None
            if suggested is not None:
                self.append(suggested)  # suggestions at a commit ride on its rewrite
        projection = state.projection
        digests = projection.digests()
        record = log_request(state, digests, now_ms, cache_lifetime_s, host_head, floor_before)
        return Request(
            projection.messages(),
            digests,
            projection.tokens,
            record,
            commit,
            self.expected_tokens(),
        )

    def commit_now(self, cause: str = "command") -> CommitOutcome:
        """Apply every eligible standing mark now (the ``/fold`` command)."""
        return self._commits.commit(cause, target=None)

    def preview_commit(self, cause: str = "command") -> CommitPreview:
        """A dry run of the commit ``cause`` names (``command``: every eligible mark, as
        :meth:`commit_now`; ``threshold`` or ``overflow``: down to the band's target).

        The real committer runs between a snapshot and its restore, so the figures are the
        commit's own; nothing is stored or logged and no state is kept.
        """
        return self._commits.preview(cause)

    def settled_boundary(self) -> int:
        """Projection messages the next band commit will not rewrite (DESIGN §13): where its
        preview's bytes first change, or the whole projection when it would change none.
        Kept until something that moves it changes (see
        :meth:`~pifold_core.commit_runner.CommitRunner.settled_boundary`)."""
        return self._commits.settled_boundary()

    def recover_from_overflow(self) -> OverflowRecovery:
        """The provider refused the request as too long: fold and commit at once."""
        state = self._state
        commit = self._commits.commit(
            "overflow", target=state.meter.estimate_for(state.options.min_tokens)
        )
        expected = self.expected_tokens()
        return OverflowRecovery(commit, expected, expected <= state.options.budget)

    def commit_marks(self, mark_ids: Sequence[str], cause: str = "marks") -> CommitOutcome:
        """Land the named pending marks now, in one rewrite (the others stay pending).

        Everything else a commit carries rides along: staged refolds and pins, consolidation,
        withdrawn peeks and the tool-call diet.
        """
        self._state.refuse_if_read_only("commit_marks")
        if isinstance(mark_ids, str) or not isinstance(mark_ids, Sequence) or not mark_ids:
            raise EngineError("mark_ids must be a non-empty list of pending mark ids")
        try:
            marks = [find_mark(self._state.marks, mark_id) for mark_id in mark_ids]
        except MarkEditError as error:
            raise EngineError(str(error)) from None
        return self._commits.commit(cause, target=None, only={mark.id for mark in marks})

    # -- options --------------------------------------------------------------------------------

    def apply_options(self, options: EngineOptions) -> None:
        """Take new options in the running session (a settings change); logged for reopen."""
        self._input.apply_options(options)

    # -- the verbs on folds, marks and pins (DESIGN §7; :mod:`pifold_core.fold_verbs`) ------

    def peek(self, identifier: str, offset: int = 0, length: int | None = None) -> PeekResult:
        """Exact, verified bytes of a fold, an entry or an evidence artifact. Moves nothing."""
        return self._verbs.peek(identifier, offset, length)

    def peek_range(self, identifier: str, offset: int, length: int) -> SourceRange:
        """Verified bytes of one range, reading only the fold parts it overlaps (the editor)."""
        return self._verbs.peek_range(identifier, offset, length)

    def note_ephemeral_peek(self, call_id: str, identifier: str) -> None:
        """Tool call ``call_id``'s result is a peek copy to withdraw at the next commit (call
        after a successful peek, before the result is appended; ``run_tool`` does)."""
        self._verbs.note_ephemeral_peek(call_id, identifier)

    def expand(self, handle: str) -> CommitOutcome:
        """Restore a fold's source in place, one level; pending marks land in the same rewrite."""
        return self._verbs.expand(handle)

    def refold(self, handle: str) -> None:
        """Stage an expanded fold to collapse again at the next commit."""
        self._verbs.refold(handle)

    def pin(self, ids: Sequence[str]) -> PinOutcome:
        """Hold entries raw through every commit; folded ones show raw from the next commit."""
        return self._verbs.pin(ids)

    def unpin(self, ids: Sequence[str]) -> PinOutcome:
        """Release pinned entries; nothing moves (they stay raw until something folds them)."""
        return self._verbs.unpin(ids)

    def set_brief(self, mark_id: str, text: str) -> Mark:
        """Write the brief a pending mark's fold will carry. Free until the commit."""
        return self._verbs.set_brief(mark_id, text)

    def reboundary(self, mark_id: str, start_id: str, end_id: str) -> Mark:
        """Re-cut a pending mark to ``[start_id, end_id]`` over closed units. Free."""
        return self._verbs.reboundary(mark_id, start_id, end_id)

    def unmark(self, mark_id: str) -> Mark:
        """Withdraw a pending mark. Free."""
        return self._verbs.unmark(mark_id)

    # -- reading -------------------------------------------------------------------------------

    def search(self, query: SearchQuery) -> SearchResults:
        """Full-text search over what folds and clips hid (issue 21, :mod:`pifold_core.search`):
        one page of hits, each with its innermost fold and a snippet cut from verified bytes.
        Moves no byte; a rebuilt index is named in :attr:`SearchResults.rebuilt`.

        Raises:
            SearchError: SQLite refused the query (nothing changed).
            pifold_core.store.StoreError: an entry's bytes no longer verify.
        """
        return self._session_search().search(self._state, query)

    def set_surfacing(self, on: bool) -> None:
        """Suggestions at a commit on or off (the host's ``surfacing`` setting, off by
        default): see :meth:`SessionSearch.due_note`."""
        self._session_search().set_surfacing(on, self._state.commit_count)

    def suggestions(self) -> list[Suggestion]:
        """The folds a commit's note would suggest now (for measures; appends nothing)."""
        return self._session_search().suggestions(self._state)

    def _session_search(self) -> SessionSearch:
        if self._search is None:
            self._search = SessionSearch(self.state_dir, self._state.read_only)
        return self._search

    def _index_commit(self, outcome: CommitOutcome) -> None:
        # Never fails the commit: an index left behind is rebuilt, and reported, when searched.
        self._session_search().after_commit(self._state, outcome)

    def composition(self) -> Composition:
        """What fills the window, for the fold bar."""
        return build_composition(self._state)

    def status(self) -> EngineStatus:
        """Everything the ``status`` action reports."""
        return build_status(self._state)

    def fold_rows(self) -> list[FoldRow]:
        """Every fold in transcript order with its depth, parent and state."""
        return fold_rows(self._state)

    def close(self) -> None:
        """Checkpoint if anything was logged since (the next open replays nothing), flush the
        log, give the lock up, unfreeze what ``settled_objects`` froze (idempotent)."""
        state = self._state
        try:
            write_checkpoint_if_due(state, self._commits.checkpoint_body, closing=True)
            state.journal.close()
        finally:
            self._commits.settled_objects.release()
            if self._search is not None:
                self._search.close()
            if state.lock is not None:
                state.lock.release()


__all__ = [
    "LOG_NAME",
    "Engine",
    "EngineError",
    "ForestError",
    "HostNote",
    "OverflowRecovery",
    "PeekError",
    "ReadOnlySession",
    "Request",
    "SessionLocked",
]
