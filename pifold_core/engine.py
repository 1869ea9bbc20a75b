"""The engine: the small API a host drives (DESIGN §8).

A host appends entries, asks for the projection before each model request, and may peek,
expand, refold or commit. Every change of state is written to the session's append-only
log first, so :meth:`Engine.open` rebuilds the same state, and the same projection byte for
byte, after a restart or a crash.

Every operation is all or nothing, by one rule: nothing changes in memory before its log
record is written. A verb checks, plans, writes its one record, then applies. Where the
record can only be computed by applying (the marks an appended entry lays, the folds a
commit builds), the change is made, the record written, and the change rolled back exactly
if the write fails (:meth:`Engine.append` undoes its entry, :meth:`Engine._commit` restores
its snapshot). A failed write therefore leaves the engine as it was, and a retry succeeds.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pifold_core import commit_undo
from pifold_core.audit import WireAudit, request_digest
from pifold_core.builder import release_landed
from pifold_core.canonical import (
    WIRE_FORMAT_VERSION,
    JsonValue,
)
from pifold_core.checkpoint import LogDigest
from pifold_core.checkpoint import write_if_due as write_checkpoint_if_due
from pifold_core.checkpoint_body import CheckpointBody
from pifold_core.commit import CommitOutcome, Committer
from pifold_core.commit_policy import CommitPolicy
from pifold_core.composition import Composition
from pifold_core.engine_errors import EngineError, ReadOnlySession, SessionLocked
from pifold_core.engine_results import OverflowRecovery, Request
from pifold_core.entries import Entry, Usage
from pifold_core.entry_reader import attach_readers
from pifold_core.evidence import EvidenceStore
from pifold_core.fold_verbs import FoldVerbs
from pifold_core.folds import Fold, Forest, ForestError
from pifold_core.host_notes import HostNote, log_note
from pifold_core.journal import Journal, TornTail, fold_log_record
from pifold_core.lock import SessionLock
from pifold_core.mark_edits import MarkEditError, find_mark
from pifold_core.marks import Mark, MarkLayer
from pifold_core.measure import Meter
from pifold_core.merkle import fold_parts
from pifold_core.notice import maybe_notice
from pifold_core.opening import open_engine
from pifold_core.options import EngineOptions
from pifold_core.peek import PeekError
from pifold_core.preview import CommitPreview, build_preview, check_cause, stopped_preview
from pifold_core.projection import Projection
from pifold_core.reporting import build_status, fold_rows
from pifold_core.restore import settle_commit
from pifold_core.runway import (
    COLD_COMMIT_SHARE,
    Floor,
    LeavesTooLittle,
    RunwayBlocked,
    buys_runway,
    check_host_head,
    check_request_clock,
)
from pifold_core.search import SearchQuery, SearchResults, SessionSearch
from pifold_core.state_folder import LOG_NAME
from pifold_core.status import CommitView, EngineStatus, FoldRow
from pifold_core.store import FoldStore
from pifold_core.tokens import TiktokenCounter, TokenCounter, token_record
from pifold_core.transcript import Transcript
from pifold_core.window import compose

SETTLED_RECHECK_ENTRIES = 32
"""Appended entries after which :meth:`Engine.settled_boundary` is computed again even
though nothing else that moves it changed."""


class Engine(CommitPolicy, FoldVerbs):
    """Lossless folding over one session, persisted under ``state_dir``."""

    def __init__(
        self,
        state_dir: Path,
        options: EngineOptions,
        counter: TokenCounter | None = None,
        host_measures: bool = True,
        cold_cache_commits: bool = True,
        cold_commit_share: float = COLD_COMMIT_SHARE,
    ) -> None:
        self.state_dir = Path(state_dir)
        self.options = options
        self.cold_cache_commits = cold_cache_commits
        """Whether a request that finds the cache cold commits standing marks (issue 12);
        an engine flag, not a user option: the bench's ``fold-no-cold`` arm turns it off."""
        self.cold_commit_share = cold_commit_share
        """Share of the budget the expected occupancy must reach for a cold-cache commit."""
        self.last_request_ms: int | None = None
        """When the previous request was prepared (host clock), as logged; ``None``: unknown."""
        self.last_host_head: str | None = None
        """The host's digest of its own prompt head at the previous request, as logged
        (``None``: the host passed none)."""
        self.floor: Floor | None = None
        """What blocked the latest threshold commit for want of runway (``None``: nothing)."""
        self._blocked_at: tuple[object, ...] | None = None
        self.transcript = Transcript()
        self.forest = Forest()
        self.projection = Projection(
            self.transcript, self.forest, counter if counter is not None else TiktokenCounter()
        )
        self.marks: dict[str, Mark] = {}
        """Pending marks by id."""
        self.staged_refolds: set[str] = set()
        """Expanded folds that collapse again at the next commit."""
        self.pin_opened: set[str] = set()
        """Folds a commit opened because they held pinned entries."""
        self.pinned: set[int] = set()
        """Entry indices held raw through every commit."""
        self.ephemeral: dict[str, str] = {}
        """Ephemeral peeks not withdrawn yet: call id to the id peeked."""
        self.meter = Meter(host_measures)
        """Provider counts and the calibrated estimate (DESIGN §6)."""
        self.audit = WireAudit()
        self.layer = MarkLayer(options)
        self.store = FoldStore(self.state_dir / "store", self.state_dir / LOG_NAME)
        self.evidence = EvidenceStore(self.state_dir / "pi-fold-evidence")
        self.journal = Journal(self.state_dir / LOG_NAME)
        self.commits: list[CommitOutcome] = []
        """Every commit of this process (restored commits are summarised, not kept)."""
        self.last_commit: CommitView | None = None
        """What the most recent commit did, live or restored from the log."""
        self.commit_history: list[CommitView] = []
        """What every commit of the session did, oldest first, live or restored."""
        self.commit_count = 0
        self._settled: tuple[object, int] | None = None
        """The last :meth:`settled_boundary` answer and the state it was computed for."""
        self.mark_count = 0
        self.clipped_total = 0
        """Tool results clipped by every commit of the session."""
        self.epoch = 0
        """Rewrites declared so far (commits and verbs); an older epoch's measurement is stale."""
        self.sent_through = 0
        """Entries before this index were part of a request already sent."""
        self.folding_stopped: str | None = None
        """Set when a commit failed to persist: folding stops, requests go on unfolded."""
        self.stalled_reason: str | None = None
        """Why the latest threshold commit fell short of its target, while it stands."""
        self.stalled_at: tuple[int, int] | None = None
        """The :meth:`progress_key` a threshold commit fell short at: it is not retried
        until that key moves (``None``: not stalled)."""
        self._blacklisted_results: list[int] = []
        """Indices of results of blacklisted tools, in order: they stay raw."""
        self.noticed = False
        """The pre-commit notice was given in this epoch (cleared by every commit)."""
        self.restoring = False
        """Set while a reopen replays the log: appended entries lay no marks of their own
        (the log's marks are replayed instead)."""
        self.host_notes: list[HostNote] = []
        """The host's notes (:meth:`note`), oldest first, live or restored from the log."""
        self.evidence_ids: set[str] = set()
        """Evidence artifacts this session's entries point at (the ids ``peek`` resolves)."""
        self.read_only = False
        """Opened with ``read_only``: nothing is ever written, every changing verb refuses."""
        self.lock: SessionLock | None = None
        """The writer's lock on the state folder, held from :meth:`open` to :meth:`close`."""
        self.log_digest = LogDigest(self.state_dir / LOG_NAME)
        """The running SHA-256 of the log a checkpoint names (:mod:`pifold_core.checkpoint`)."""
        self.checkpoint_records = 0
        """Records the latest checkpoint read or written covers (0: none yet)."""
        self.checkpoint_problem: str | None = None
        """Why the checkpoint found on open was not used (damaged or doubtful: rebuilt)."""
        self.checkpoint_body = CheckpointBody()
        """Builds checkpoint bodies, reusing the chunks that cannot change."""
        self._search: SessionSearch | None = None
        """The search index (issue 21), opened on first use: :meth:`search`."""
        attach_readers(self.transcript.entries, lambda: self.journal)

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
        open raises :class:`SessionLocked`. ``read_only`` opens beside a writer: it rebuilds
        the state without writing anything (a half-written last line is left for its
        writer), and every verb that would change the session raises
        :class:`ReadOnlySession`. A store object or evidence artifact found damaged does not
        stop the open: ``status().damaged`` names it and touching it raises.

        ``cold_cache_commits`` and ``cold_commit_share`` are engine flags, not logged options:
        they decide when the live engine commits, and a reopen replays the commits logged.
        """
        engine = open_engine(cls, state_dir, options, counter, host_measures, read_only)
        engine.cold_cache_commits = cold_cache_commits
        engine.cold_commit_share = cold_commit_share
        return engine

    def note(self, body: dict[str, JsonValue]) -> HostNote:
        """Log a note of the host's own progress (a replay driver's step); moves no byte.

        Whatever decides a host's future behaviour belongs in the log, not in its memory, so
        that a host killed at any point resumes exactly: notes come back in
        :attr:`host_notes` on reopen, and :attr:`log_length` tells what was logged after one.
        """
        self._refuse_if_read_only("note")
        note = log_note(self.journal, body)
        self.host_notes.append(note)
        return note

    @property
    def log_length(self) -> int:
        """Records in the session log so far (the next record's sequence number)."""
        return self.journal.next_sequence

    @property
    def torn_tail(self) -> TornTail | None:
        """The torn last log line found (and cut off) on open, if any."""
        return self.journal.torn

    # -- appending ----------------------------------------------------------------------------

    def append(self, entry: Entry) -> Entry:
        """Append one entry; returns it as kept (a large tool result becomes a preview).

        All or nothing: the entry and the marks it lays are one log record. The marks depend
        on the applied entry, so it is applied in memory first and taken back exactly when
        that record cannot be written; a failed append leaves the engine as it was and can
        simply be retried.

        Raises:
            EngineError: not an entry, or a tool result whose call a fold already holds.
            TranscriptError: its id (or a tool call id) is already in the transcript.
            OSError: the log could not be written; nothing was applied.
        """
        self._refuse_if_read_only("append")
        if not isinstance(entry, Entry):
            raise EngineError(f"append takes an Entry, got {type(entry).__name__}")
        self.transcript.check_append(entry)
        self._refuse_late_result(entry)
        outcome = self.evidence.ingest(entry, self.options.evidence_threshold_bytes)
        entry = outcome.entry
        evidence = _evidence_of(entry)
        new_evidence = evidence is not None and evidence not in self.evidence_ids
        layer, mark_count = copy.copy(self.layer), self.mark_count
        laid = self.apply_entry(entry)
        body: dict[str, Any] = {"record": entry.to_record()}
        if laid:
            body["marks"] = [mark.to_record() for mark in laid]
        # A pure function of the bytes, kept so a reopen need not tokenise the entry again.
        body["tokens"] = token_record(
            self.projection.counter, self.projection.whole_tokens(len(self.transcript) - 1)
        )
        try:
            self.journal.append("entry", body)
        except BaseException:
            for mark in laid:
                del self.marks[mark.id]
            self.layer, self.mark_count = layer, mark_count
            index = len(self.transcript) - 1
            self.projection.undo_append_entry(index)
            self.transcript.undo_append()
            if self._blacklisted_results and self._blacklisted_results[-1] == index:
                self._blacklisted_results.pop()
            if new_evidence:
                self.evidence_ids.discard(str(evidence))
            self.evidence.used_bytes -= outcome.artifact_bytes
            raise
        return entry

    def _refuse_late_result(self, entry: Entry) -> None:
        """A result whose call a fold already holds would split the two (restore refuses)."""
        if entry.kind != "tool_result":
            return
        site = self.transcript.call_site.get(str(entry.call_id))
        holders = self.forest.root_overlapping(site, site + 1) if site is not None else []
        if holders:
            raise EngineError(
                f"tool result {entry.id} answers call {entry.call_id}, which fold "
                f"{holders[0].handle} already holds; a fold never separates a call from its "
                "result, so append a late result as a note instead"
            )

    def apply_entry(self, entry: Entry) -> list[Mark]:
        """Apply an entry to memory, nothing logged; returns the marks it laid (none while
        :attr:`restoring`). The replay interface: :meth:`append` logs, then calls this."""
        if entry.kind == "tool_result" and entry.tool_name in self.options.blacklist:
            self._blacklisted_results.append(len(self.transcript))
        self.transcript.append(entry)
        self.projection.append_entry(len(self.transcript) - 1)
        evidence = _evidence_of(entry)
        if evidence is not None:
            self.evidence_ids.add(evidence)
        proposals = self.layer.advance(self.transcript, self.forest)
        if self.restoring:
            return []  # restored marks come from the log, never from the policy
        laid: list[Mark] = []
        for kind, start, end in proposals:
            if self._markable(start, end):
                self.mark_count += 1
                mark = Mark(f"mark-{self.mark_count}", kind, start, end)
                self.marks[mark.id] = mark
                laid.append(mark)
        return laid

    def _markable(self, start: int, end: int) -> bool:
        if any(m.start == start and m.end == end for m in self.marks.values()):
            return False
        return all(
            start <= root.start and root.end <= end and (root.start, root.end) != (start, end)
            for root in self.forest.root_overlapping(start, end)
        )

    # -- measurement --------------------------------------------------------------------------

    def expected_tokens(self) -> int:
        """Occupancy expected for the next request (DESIGN §6)."""
        return self.meter.expected(self.projection.tokens)

    def report_usage(self, request: int, usage: Usage) -> None:
        """Bind the provider's usage for request number ``request`` (from :class:`Request`).

        A usage whose prompt is unknown (:mod:`pifold_core.usage`) is no reading: nothing is
        measured or logged, and the figure shown stays what it was.
        """
        self._refuse_if_read_only("report_usage")
        if not isinstance(usage, Usage):
            raise EngineError(f"usage must be a Usage, got {type(usage).__name__}")
        for name in ("input_tokens", "cache_read_tokens", "cache_write_tokens"):
            value = getattr(usage, name)
            if value is not None:
                _check_token_count(f"usage {name}", value)
        if usage.prompt_tokens is None:
            return
        if usage.prompt_tokens <= 0:
            raise EngineError(f"usage must count at least one prompt token, got {usage!r}")
        if request not in self.meter.sent:
            raise EngineError(f"request {request} is not one of the recent requests sent")
        self.journal.append("usage", {"request": request, "tokens": usage.prompt_tokens})
        self.meter.measure(request, usage.prompt_tokens)

    def calibrate(self, measured_growth: int, estimated_growth: int) -> bool:
        """Learn the token ratio from growth the provider counted elsewhere (a replay)."""
        self._refuse_if_read_only("calibrate")
        _check_token_count("measured_growth", measured_growth)
        _check_token_count("estimated_growth", estimated_growth)
        if not self.meter.usable_sample(measured_growth, estimated_growth):
            return False
        # Logged first, like every change: a failed write leaves the live state as the log.
        self.journal.append(
            "calibrate", {"measured": measured_growth, "estimated": estimated_growth}
        )
        self.meter.calibrate(measured_growth, estimated_growth)
        return True

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
          width below ``maxTarget``). Blocked, nothing is committed and :attr:`floor` says
          what blocks it (host prompt, pins, fresh tail) and which budget would work, even
          for a request past the budget: the host's overflow recovery is the net there.
        - **cold-cache**: the cache is cold (expired, or the host's head changed) and
          occupancy is at least :attr:`cold_commit_share` of the budget: every standing mark
          that can land does (no spans are cut), since the re-send is coming regardless
          (:mod:`pifold_core.runway`). Off with the ``cold_cache_commits`` flag.

        A usage report that read nothing from the cache is not a cold signal: that request
        already wrote the cache again.
        """
        self._refuse_if_read_only("prepare_request")
        check_request_clock(now_ms, cache_lifetime_s)
        check_host_head(host_head)
        commit = None
        floor_before = self.floor
        if self.folding_stopped is None:
            maybe_notice(self)
            expected = self.expected_tokens()
            if expected >= self.options.max_tokens and not self._stalled():
                commit = self._threshold_commit()
            cold = self.finds_cache_cold(now_ms, cache_lifetime_s, host_head)
            if commit is None and cold and self.cold_cache_commits:
                commit = self._cold_cache_commit()
        digests = self.projection.digests()
        # Classified, logged, then counted: a request whose record cannot be written was
        # never sent, so live and reopened numbering agree.
        record = self.audit.classify(digests, self.projection.tokens)
        body: dict[str, Any] = {
            "n": record.number,
            "count": len(digests),
            "prefix": request_digest(digests),
            "class": record.classification,
            "wire": WIRE_FORMAT_VERSION,
        }
        if now_ms is not None:
            body["at"] = now_ms
        if cache_lifetime_s is not None:
            body["lifetime"] = cache_lifetime_s
        if host_head is not None:
            body["head"] = host_head
        if self.floor is not None and self.floor is not floor_before:
            # Held back at this request: logged so a reopened status names the same floor.
            body["floor"] = self.floor.to_record()
        self.journal.append("request", body)
        self.audit.accept(record, digests)
        self.after_request(record.number, now_ms, host_head)
        return Request(
            self.projection.messages(),
            digests,
            self.projection.tokens,
            record,
            commit,
            self.expected_tokens(),
        )

    def after_request(
        self, number: int, at_ms: int | None = None, host_head: str | None = None
    ) -> None:
        """The bookkeeping after request ``number`` was logged (live and on replay alike)."""
        self.sent_through = len(self.transcript)
        self.last_request_ms = at_ms
        self.last_host_head = host_head
        self.meter.sent_request(number, self.projection.tokens, self.epoch)

    def _guarded_commit(
        self,
        cause: str,
        top_up: bool = True,
        runway: bool = False,
        only: set[str] | None = None,
        keep: int | None = None,
    ) -> CommitOutcome | None:
        """A policy commit; a failure to persist stops folding instead of stopping the agent.

        It lands marks down to ``minTarget``, or exactly the marks ``only`` names. With
        ``runway``, a commit that would not buy runway is taken back unlogged; with ``keep``,
        one that would leave fewer estimated tokens is."""
        target = None if only is not None else self.meter.estimate_for(self.options.min_tokens)
        try:
            commit = self._commit(cause, target, only=only, top_up=top_up, runway=runway, keep=keep)
        except OSError as error:
            self.folding_stopped = f"commit could not be saved: {error}"
            return None
        except RunwayBlocked as blocked:
            self.floor = blocked.floor
            self._blocked_at = self._runway_key()
            return None
        except LeavesTooLittle:
            return None
        return commit

    def progress_key(self) -> tuple[int, int]:
        """What a stalled threshold commit waits on: eligible units and marks laid."""
        return (self.transcript.eligible_units, self.mark_count)

    def _stalled(self) -> bool:
        """A commit that could not reach its target is not retried until something changes."""
        return self.stalled_at is not None and self.stalled_at == self.progress_key()

    def commit_now(self, cause: str = "command") -> CommitOutcome:
        """Apply every eligible standing mark now (the ``/fold`` command)."""
        return self._commit(cause, target=None)

    def preview_commit(self, cause: str = "command") -> CommitPreview:
        """A dry run of the commit ``cause`` names (``command``: every eligible mark, as
        :meth:`commit_now`; ``threshold`` or ``overflow``: down to the band's target).

        The real committer runs between a snapshot and its restore, so the figures are the
        commit's own; nothing is stored or logged and no state is kept.
        """
        check_cause(cause)
        if self.folding_stopped is not None:
            return stopped_preview(self, cause, f"folding stopped: {self.folding_stopped}")
        target = None if cause == "command" else self.meter.estimate_for(self.options.min_tokens)
        before = list(self.projection.items)
        snapshot = commit_undo.snapshot(self)
        try:
            committer = Committer(
                self.transcript,
                self.forest,
                self.projection,
                self.marks,
                self.options,
                self._held_raw,
                self.pinned,
                self.ephemeral,
                self.sent_through,
            )
            outcome = committer.run(self.commit_count + 1, cause, target, self.staged_refolds)
            after = list(self.projection.items)
        finally:
            commit_undo.undo(self, snapshot)
        return build_preview(self, outcome, before, after)

    def settled_boundary(self) -> int:
        """Projection messages the next band commit will not rewrite (DESIGN §13): where its
        preview's bytes first change, or the whole projection when it would change none.

        The dry run behind it costs a commit's work, and a host asks before every request,
        so the answer is kept until something that moves it changes: a commit, the marks,
        pins, staged refolds, ephemeral peeks, the options, or another
        :data:`SETTLED_RECHECK_ENTRIES` appended entries (a growing window can make the commit
        cut spans earlier than the marks; an answer late by those few entries costs at most
        one breakpoint's worth of cache at the next commit, never a wrong byte).
        """
        key = (
            self.commit_count,
            tuple((mark.id, mark.start, mark.end) for mark in self.marks.values()),
            frozenset(self.pinned),
            frozenset(self.staged_refolds),
            frozenset(self.forest.expanded),
            tuple(self.ephemeral),
            self.options,
            self.folding_stopped,
            len(self.transcript.entries) // SETTLED_RECHECK_ENTRIES,
        )
        if self._settled is not None and self._settled[0] == key:
            return min(self._settled[1], len(self.projection.items))
        preview = self.preview_commit("threshold")
        boundary = (
            len(self.projection.items) if preview.first_changed is None else preview.first_changed
        )
        self._settled = (key, boundary)
        return boundary

    def recover_from_overflow(self) -> OverflowRecovery:
        """The provider refused the request as too long: fold and commit at once."""
        commit = self._commit("overflow", target=self.meter.estimate_for(self.options.min_tokens))
        expected = self.expected_tokens()
        return OverflowRecovery(commit, expected, expected <= self.options.budget)

    def commit_marks(self, mark_ids: Sequence[str], cause: str = "marks") -> CommitOutcome:
        """Land the named pending marks now, in one rewrite (the others stay pending).

        Everything else a commit carries rides along: staged refolds and pins, consolidation,
        withdrawn peeks and the tool-call diet.
        """
        self._refuse_if_read_only("commit_marks")
        if isinstance(mark_ids, str) or not isinstance(mark_ids, Sequence) or not mark_ids:
            raise EngineError("mark_ids must be a non-empty list of pending mark ids")
        try:
            marks = [find_mark(self.marks, mark_id) for mark_id in mark_ids]
        except MarkEditError as error:
            raise EngineError(str(error)) from None
        return self._commit(cause, target=None, only={mark.id for mark in marks})

    def _commit(
        self,
        cause: str,
        target: int | None,
        expand: Fold | None = None,
        only: set[str] | None = None,
        top_up: bool = True,
        runway: bool = False,
        keep: int | None = None,
    ) -> CommitOutcome:
        self._refuse_if_read_only("a commit")
        snapshot = commit_undo.snapshot(self)
        try:
            committer = Committer(
                self.transcript,
                self.forest,
                self.projection,
                self.marks,
                self.options,
                self._held_raw,
                self.pinned,
                self.ephemeral,
                self.sent_through,
            )
            protect = {expand.handle} if expand is not None else None
            outcome = committer.run(
                self.commit_count + 1, cause, target, self.staged_refolds, protect, only, top_up
            )
            if runway and not buys_runway(self.options, self.meter.expected(outcome.tokens_after)):
                raise RunwayBlocked(self._floor_after(outcome.tokens_after))
            if keep is not None and outcome.tokens_after < keep:
                raise LeavesTooLittle(outcome.tokens_after)
            if expand is not None:
                self.forest.expanded.add(expand.handle)
                self.projection.show_fold(expand)
                outcome.tokens_after = self.projection.tokens
            self.forest.validate_folds([built.fold for built in outcome.built], self.transcript)
            # Children before parents: a fold object lists its child folds by digest, so
            # they are stored first (every object on disk has all its parts).
            folds, entries = self.forest.folds, self.transcript.entries
            smallest_first = [built.fold for built in outcome.built]
            smallest_first.sort(key=lambda fold: fold.end - fold.start)
            self.store.put_folds(
                [
                    (fold.source_digest, fold_parts(fold, folds, entries, self.journal.entry_spans))
                    for fold in smallest_first
                ]
            )
            spent = sorted(set(snapshot["ephemeral"]) - set(self.ephemeral))
            record: dict[str, Any] = {
                "n": outcome.number,
                "cause": cause,
                "folds": [fold_log_record(built.fold.to_record()) for built in outcome.built],
                "applied": outcome.applied_marks,
                "dropped": sorted(outcome.dropped_marks),
                "refolded": outcome.refolded,
                "pinOpened": outcome.pin_opened,
                "pinRestored": outcome.pin_restored,
                "spentPeeks": spent,
                "withdrawn": outcome.withdrawn,
                "clipped": outcome.clipped,
                "expanded": expand.handle if expand is not None else None,
                "short": outcome.short_of_target,
                "shortReason": outcome.short_reason,
                "tokensBefore": outcome.tokens_before,
                "tokensAfter": outcome.tokens_after,
            }
            self.journal.append("commit", record, durable=True)
        except BaseException:
            commit_undo.undo(self, snapshot)
            raise
        self.commits.append(outcome)
        settle_commit(self, record)  # the bookkeeping a reopen repeats from the same record
        # The log record is durable: index what the commit hid (never fails the commit; an
        # index left behind is rebuilt, and reported, at the next search).
        self._session_search().after_commit(self, outcome)
        release_landed(self.transcript, outcome.built, self.journal.entry_spans)
        write_checkpoint_if_due(self)
        return outcome

    def declare_rewrite(self, cause: str) -> None:
        """Announce an attributed rewrite to the audit and age the measurement (a commit or
        a verb that changed bytes already sent; live and on replay alike)."""
        self.epoch += 1
        self.audit.declare(cause)

    def _held_raw(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` holds an entry that must stay raw: pinned, or a result of
        a tool in ``blacklistAutoFoldTools``."""
        if any(start <= index < end for index in self.pinned):
            return True
        position = bisect.bisect_left(self._blacklisted_results, start)
        return (
            position < len(self._blacklisted_results) and self._blacklisted_results[position] < end
        )

    # -- options --------------------------------------------------------------------------------

    def apply_options(self, options: EngineOptions) -> None:
        """Take new options in the running session (a settings change); logged for reopen."""
        self._refuse_if_read_only("apply_options")
        if not isinstance(options, EngineOptions):
            raise EngineError(f"options must be EngineOptions, got {type(options).__name__}")
        if options == self.options:
            return
        self.journal.append("options", {"options": options.to_record()}, durable=True)
        self.set_options(options)

    def set_options(self, options: EngineOptions) -> None:
        """Take ``options`` in memory, nothing logged (:meth:`apply_options` logs first)."""
        if options.blacklist != self.options.blacklist:
            self._blacklisted_results = self.transcript.results_of_tools(options.blacklist)
        self.options = options
        self.layer.options = options
        self.stalled_at = None  # a new band or budget deserves a fresh attempt
        self.stalled_reason = None

    def refresh_blacklisted_results(self) -> None:
        """Find the results of blacklisted tools again (a checkpoint's reopen)."""
        self._blacklisted_results = self.transcript.results_of_tools(self.options.blacklist)

    # -- reading -------------------------------------------------------------------------------

    def search(self, query: SearchQuery) -> SearchResults:
        """Full-text search over what folds and clips hid (issue 21, :mod:`pifold_core.search`):
        one page of hits, each with its innermost fold and a snippet cut from verified bytes.
        Moves no byte; a rebuilt index is named in :attr:`SearchResults.rebuilt`.

        Raises:
            SearchError: SQLite refused the query (nothing changed).
            pifold_core.store.StoreError: an entry's bytes no longer verify.
        """
        return self._session_search().search(self, query)

    def _session_search(self) -> SessionSearch:
        if self._search is None:
            self._search = SessionSearch(self.state_dir, self.read_only)
        return self._search

    def composition(self) -> Composition:
        """What fills the window, for the fold bar."""
        reading = self.meter.reading(self.epoch)
        composed = compose(
            self.projection,
            self.forest,
            self.marks.values(),
            self.pinned,
            self.options,
            fill_tokens=self.meter.shown(self.projection.tokens, self.epoch),
            reading=reading,
            folding_stopped=self.folding_stopped is not None,
        )
        return replace(composed, floor=self.floor)  # a threshold commit held for runway

    def status(self) -> EngineStatus:
        """Everything the ``status`` action reports."""
        return build_status(self)

    def fold_rows(self) -> list[FoldRow]:
        """Every fold in transcript order with its depth, parent and state."""
        return fold_rows(self)

    def close(self) -> None:
        """Write a checkpoint if one is due, flush the log and give the writer's lock up
        (idempotent)."""
        try:
            write_checkpoint_if_due(self, closing=True)
            self.journal.close()
        finally:
            if self._search is not None:
                self._search.close()
            if self.lock is not None:
                self.lock.release()

    def _refuse_if_read_only(self, verb: str) -> None:
        if self.read_only:
            raise ReadOnlySession(
                f"{self.state_dir} is open read-only: {verb} would change the session, so it "
                "is refused (nothing was changed); open it without read_only to change it"
            )


def _evidence_of(entry: Entry) -> str | None:
    """The evidence id a kept entry points at, if any."""
    evidence = entry.extra.get("evidence")
    if isinstance(evidence, dict) and isinstance(evidence.get("id"), str):
        return str(evidence["id"])
    return None


def _check_token_count(name: str, value: object) -> None:
    """Token counts are whole numbers: the log replays them as ``int``, so a float would
    rebuild a different calibration on reopen."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError(f"{name} must be a whole number of tokens, got {value!r}")


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
