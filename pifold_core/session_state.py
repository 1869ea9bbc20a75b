"""One session's state in memory, and the bookkeeping that changes it (DESIGN §8).

:class:`SessionState` is everything a session's log rebuilds: the transcript, the forest and
the projection over them, the pending marks, pins and staged refolds, the meter and the wire
audit, the commit counters, and the log, store and evidence folder they persist to. The
engine (:mod:`pifold_core.engine`) owns one and drives it; the modules that open, replay,
checkpoint, preview and report a session (:mod:`~pifold_core.opening`,
:mod:`~pifold_core.restore`, :mod:`~pifold_core.checkpoint_state`,
:mod:`~pifold_core.commit_undo`, :mod:`~pifold_core.notice`, :mod:`~pifold_core.preview`,
:mod:`~pifold_core.reporting`) take the state, never the engine, so none of them imports it.

The bookkeeping a live call and a reopen share is here, as methods: what the engine does
after logging a record, the replay does from the same record through the same method, so a
running session and a restarted one cannot drift apart. Every plain field is set only by a
method of this class (the containers are changed in place).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pifold_core.audit import WireAudit
from pifold_core.commit import CommitOutcome
from pifold_core.engine_errors import ReadOnlySession
from pifold_core.engine_results import OpenReport
from pifold_core.entries import Entry
from pifold_core.entry_reader import attach_readers
from pifold_core.evidence import EvidenceStore
from pifold_core.folds import Forest
from pifold_core.host_notes import HostNote
from pifold_core.journal import Journal
from pifold_core.lock import SessionLock
from pifold_core.log_digest import LogDigest
from pifold_core.marks import Mark, MarkLayer
from pifold_core.measure import Meter
from pifold_core.options import EngineOptions
from pifold_core.projection import Projection
from pifold_core.runway import Floor
from pifold_core.state_folder import LOG_NAME
from pifold_core.status import CommitView
from pifold_core.store import FoldStore
from pifold_core.tokens import TiktokenCounter, TokenCounter
from pifold_core.transcript import Transcript


class SessionState:
    """The state of one session persisted under ``state_dir`` (see the module docstring)."""

    def __init__(
        self,
        state_dir: Path,
        options: EngineOptions,
        counter: TokenCounter | None = None,
        host_measures: bool = True,
    ) -> None:
        self.state_dir = Path(state_dir)
        """The session's state folder."""
        self.options = options
        """The session's options (logged; change them with :meth:`set_options`)."""
        self.last_request_ms: int | None = None
        """When the previous request was prepared (host clock), as logged; ``None``: unknown."""
        self.last_host_head: str | None = None
        """The host's prompt head digest at the previous request, as logged (or ``None``)."""
        self.floor: Floor | None = None
        """What blocked the latest threshold commit for want of runway (``None``: nothing)."""
        self.transcript = Transcript()
        """Every entry of the session, in order."""
        self.forest = Forest()
        """The folds over the transcript."""
        self.projection = Projection(
            self.transcript, self.forest, counter if counter is not None else TiktokenCounter()
        )
        """What the model is sent: the transcript through the forest's open folds."""
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
        """The wire audit: every request classified against the one before."""
        self.layer = MarkLayer(options)
        """The mark policy's walk over closed units."""
        self.store = FoldStore(self.state_dir / "store", self.state_dir / LOG_NAME)
        """The folds' content-addressed objects."""
        self.evidence = EvidenceStore(self.state_dir / "pi-fold-evidence")
        """Large tool results kept whole beside the log."""
        self.journal = Journal(self.state_dir / LOG_NAME)
        """The session's append-only log (replaced by the one :meth:`attach` opens)."""
        self.commits: list[CommitOutcome] = []
        """Every commit outcome of this process (restored commits are summarised, not kept)."""
        self.last_commit: CommitView | None = None
        """What the most recent commit did, live or restored from the log."""
        self.commit_history: list[CommitView] = []
        """What every commit of the session did, oldest first, live or restored."""
        self.commit_count = 0
        """Commits so far in the session (the last commit's number)."""
        self.mark_count = 0
        """Marks laid so far in the session (the last mark's number)."""
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
        """The :meth:`progress_key` a short threshold commit waits to move (``None``: none)."""
        self.blacklisted_results: list[int] = []
        """Indices of results of blacklisted tools, in order: they stay raw."""
        self.noticed = False
        """The pre-commit notice was given in this epoch (cleared by every commit)."""
        self.restoring = False
        """Set while a reopen replays the log: applied entries lay no marks (the log's do)."""
        self.host_notes: list[HostNote] = []
        """The host's notes, oldest first, live or restored from the log."""
        self.evidence_ids: set[str] = set()
        """Evidence artifacts this session's entries point at (the ids ``peek`` resolves)."""
        self.read_only = False
        """Opened read-only: nothing is ever written, every changing verb refuses."""
        self.lock: SessionLock | None = None
        """The writer's lock on the state folder, held from opening to closing."""
        self.log_digest = LogDigest(self.state_dir / LOG_NAME)
        """The running SHA-256 of the log a checkpoint names (:mod:`pifold_core.checkpoint`)."""
        self.checkpoint_records = 0
        """Records the latest checkpoint read or written covers (0: none yet)."""
        self.opened = OpenReport()
        """What opening the session replayed and checked (:mod:`pifold_core.opening`)."""
        attach_readers(self.transcript.entries, lambda: self.journal)

    # -- opening -------------------------------------------------------------------------------

    def attach(self, journal: Journal, lock: SessionLock | None) -> None:
        """Take the log opened for this session and the writer's lock (``None``: read-only)."""
        self.journal = journal
        self.log_digest = LogDigest(journal.path)
        self.read_only, self.lock = lock is None, lock

    def resume_checkpoint(self, records: int, hashed: Any, log_bytes: int) -> None:
        """The session was put back from a checkpoint covering ``records`` records, whose
        log bytes hash to ``hashed`` (the digest goes on from there)."""
        self.checkpoint_records = records
        self.log_digest.seed(hashed, log_bytes)

    def checkpoint_written(self, records: int) -> None:
        """A checkpoint covering ``records`` records was written."""
        self.checkpoint_records = records

    def set_opened(self, report: OpenReport) -> None:
        """What opening the session replayed and checked."""
        self.opened = report

    @contextmanager
    def replaying(self) -> Iterator[None]:
        """Mark the state :attr:`restoring` while a reopen replays the log."""
        self.restoring = True
        try:
            yield
        finally:
            self.restoring = False

    def restore_bookkeeping(
        self,
        *,
        mark_count: int,
        commit_count: int,
        commit_history: list[CommitView],
        clipped_total: int,
        epoch: int,
        sent_through: int,
        stalled_reason: str | None,
        stalled_at: tuple[int, int] | None,
        noticed: bool,
        last_request_ms: int | None,
        last_host_head: str | None,
        floor: Floor | None,
        host_notes: list[HostNote],
        evidence_ids: set[str],
    ) -> None:
        """Take the counters a checkpoint kept (:mod:`pifold_core.checkpoint_state`)."""
        self.mark_count, self.commit_count = mark_count, commit_count
        self.commit_history = commit_history
        self.last_commit = commit_history[-1] if commit_history else None
        self.clipped_total, self.epoch, self.sent_through = clipped_total, epoch, sent_through
        self.stalled_reason, self.stalled_at = stalled_reason, stalled_at
        self.noticed = noticed
        self.last_request_ms, self.last_host_head = last_request_ms, last_host_head
        self.floor = floor
        self.host_notes = host_notes
        self.evidence_ids = evidence_ids
        self.refresh_blacklisted_results()

    def refuse_if_read_only(self, verb: str) -> None:
        """Raise :class:`ReadOnlySession` naming ``verb`` when the session is read-only."""
        if self.read_only:
            raise ReadOnlySession(
                f"{self.state_dir} is open read-only: {verb} would change the session, so it "
                "is refused (nothing was changed); open it without read_only to change it"
            )

    # -- options -------------------------------------------------------------------------------

    def set_options(self, options: EngineOptions) -> None:
        """Take ``options`` in memory, nothing logged (the engine logs first)."""
        if options.blacklist != self.options.blacklist:
            self.blacklisted_results = self.transcript.results_of_tools(options.blacklist)
        self.options = options
        self.layer.set_options(options)
        self.stalled_at = None  # a new band or budget deserves a fresh attempt
        self.stalled_reason = None

    def refresh_blacklisted_results(self) -> None:
        """Find the results of blacklisted tools again (a checkpoint's reopen)."""
        self.blacklisted_results = self.transcript.results_of_tools(self.options.blacklist)

    def held_raw(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` holds an entry that must stay raw: pinned, or a result of
        a tool in ``blacklistAutoFoldTools``."""
        if any(start <= index < end for index in self.pinned):
            return True
        position = bisect.bisect_left(self.blacklisted_results, start)
        return position < len(self.blacklisted_results) and self.blacklisted_results[position] < end

    # -- entries and marks -----------------------------------------------------------------------

    def apply_entry(self, entry: Entry) -> list[Mark]:
        """Apply an entry to memory, nothing logged; returns the marks it laid (none while
        :attr:`restoring`). The engine's ``append`` logs, then calls this; so does a reopen."""
        if entry.kind == "tool_result" and entry.tool_name in self.options.blacklist:
            self.blacklisted_results.append(len(self.transcript))
        self.transcript.append(entry)
        self.projection.append_entry(len(self.transcript) - 1)
        evidence = evidence_of(entry)
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

    def before_append(self) -> tuple[list[int | None], int]:
        """What :meth:`undo_append` needs to take the next applied entry back."""
        return self.layer.run_state(), self.mark_count

    def undo_append(
        self,
        laid: list[Mark],
        saved: tuple[list[int | None], int],
        new_evidence: str | None,
        artifact_bytes: int,
    ) -> None:
        """Take back the last applied entry and the marks it laid, exactly (its log record
        could not be written); ``saved`` is :meth:`before_append`'s answer."""
        for mark in laid:
            del self.marks[mark.id]
        self.layer.restore_run_state(saved[0])
        self.mark_count = saved[1]
        index = len(self.transcript) - 1
        self.projection.undo_append_entry(index)
        self.transcript.undo_append()
        if self.blacklisted_results and self.blacklisted_results[-1] == index:
            self.blacklisted_results.pop()
        if new_evidence is not None:
            self.evidence_ids.discard(new_evidence)
        self.evidence.account(-artifact_bytes)

    def add_logged_mark(self, mark: Mark) -> None:
        """A mark the log says was laid (a reopen)."""
        self.marks[mark.id] = mark
        self.mark_count += 1

    def add_host_note(self, note: HostNote) -> None:
        """A host note logged now or found in the log."""
        self.host_notes.append(note)

    def release_pin_folds(self) -> list[str]:
        """Stage to collapse again the folds a pin opened that hold no pin any more.

        Run by ``unpin`` live and on reopen alike, so it writes no log record of its own.
        """
        released: list[str] = []
        for handle in sorted(self.pin_opened):
            fold = self.forest.folds[handle]
            if not any(fold.start <= index < fold.end for index in self.pinned):
                self.pin_opened.discard(handle)
                if handle in self.forest.expanded:
                    self.staged_refolds.add(handle)
                    released.append(handle)
        return released

    # -- requests and commits ------------------------------------------------------------------

    def expected_tokens(self) -> int:
        """Occupancy expected for the next request (DESIGN §6)."""
        return self.meter.expected(self.projection.tokens)

    def progress_key(self) -> tuple[int, int]:
        """What a stalled threshold commit waits on: eligible units and marks laid."""
        return (self.transcript.eligible_units, self.mark_count)

    def after_request(self, number: int, at_ms: int | None, host_head: str | None) -> None:
        """The bookkeeping after request ``number`` was logged (live and on replay alike)."""
        self.sent_through = len(self.transcript)
        self.last_request_ms = at_ms
        self.last_host_head = host_head
        self.meter.sent_request(number, self.projection.tokens, self.epoch)

    def declare_rewrite(self, cause: str) -> None:
        """Announce an attributed rewrite to the audit and age the measurement (a commit or
        a verb that changed bytes already sent; live and on replay alike)."""
        self.epoch += 1
        self.audit.declare(cause)

    def set_floor(self, floor: Floor | None) -> None:
        """What holds the threshold commit back now (``None``: nothing)."""
        self.floor = floor

    def stop_folding(self, reason: str) -> None:
        """A commit could not be saved: folding stops, requests go on unfolded."""
        self.folding_stopped = reason

    def mark_noticed(self) -> None:
        """The pre-commit notice was given in this epoch."""
        self.noticed = True

    def settle_commit(self, body: dict[str, Any]) -> None:
        """The bookkeeping after a commit, from its log record alone.

        The live commit and the reopen both call this with the same record, so counters, the
        pins' opened folds, the last commit's view, the rewrite declaration and the stall can
        never drift apart between a running session and a restarted one.
        """
        opened = body.get("pinOpened", [])
        self.commit_count = int(body["n"])
        self.clipped_total += len(body.get("clipped", []))
        # Refolds land before pins within a commit: a fold refolded and reopened stays open.
        self.pin_opened.difference_update(body["refolded"])
        self.pin_opened.update(opened)
        entries = self.transcript.entries
        self.last_commit = CommitView.from_record(
            body,
            self.audit.counts.requests + 1,
            len(entries),
            entries[-1].timestamp_ms if len(entries) else None,
        )
        self.commit_history.append(self.last_commit)
        self.noticed = False
        changed = body.get("expanded") or any(
            body.get(key)
            for key in ("folds", "refolded", "pinOpened", "pinRestored", "withdrawn", "clipped")
        )
        if changed:
            # A commit that found nothing to change sent no rewrite: the reading stays valid.
            self.declare_rewrite(f"commit {body['n']} ({body['cause']})")
        if body["cause"] == "threshold" and body.get("short"):
            self.stalled_at = self.progress_key()  # not retried until something changes
            self.stalled_reason = body.get("shortReason")
        elif body["cause"] == "threshold":
            self.stalled_reason = None  # a threshold commit that reached its target clears it
        if body["cause"] == "threshold":
            self.floor = None  # it landed: no floor holds it back any more


def evidence_of(entry: Entry) -> str | None:
    """The evidence id a kept entry points at, if any."""
    evidence = entry.extra.get("evidence")
    if isinstance(evidence, dict) and isinstance(evidence.get("id"), str):
        return str(evidence["id"])
    return None


__all__ = ["SessionState", "evidence_of"]
