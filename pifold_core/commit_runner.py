"""Running commits over a session's state: the real one and its dry run (DESIGN §5, §8).

:class:`CommitRunner` is the part of the engine that lands marks. :meth:`CommitRunner.commit`
is the one way a commit happens, whoever asks for it (the policy before a request, a verb, a
host's ``commit_now``): it runs the :class:`~pifold_core.commit.Committer`, stores the folds'
objects, writes the commit's one log record, then settles the bookkeeping from that record
exactly as a reopen does; if the store or the log refuses, everything it changed is taken
back (:mod:`pifold_core.commit_undo`). :meth:`CommitRunner.preview` runs the same committer
between a snapshot and its restore, for the figures alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pifold_core import commit_undo
from pifold_core.builder import release_landed
from pifold_core.checkpoint import write_if_due as write_checkpoint_if_due
from pifold_core.checkpoint_body import CheckpointBody
from pifold_core.commit import CommitOutcome, Committer
from pifold_core.commit_policy import floor_after
from pifold_core.consolidation import FoldLevels
from pifold_core.folds import Fold
from pifold_core.journal import fold_log_record
from pifold_core.merkle import fold_parts
from pifold_core.preview import CommitPreview, build_preview, check_cause, stopped_preview
from pifold_core.runway import LeavesTooLittle, RunwayBlocked, buys_runway
from pifold_core.session_state import SessionState
from pifold_core.settled_objects import SettledObjects
from pifold_core.tokens import counts_record

SETTLED_RECHECK_ENTRIES = 32
"""Appended entries after which :meth:`CommitRunner.settled_boundary` is computed again even
though nothing else that moves it changed."""


class CommitRunner:
    """Lands and previews commits over one session's state (see the module docstring)."""

    def __init__(
        self, state: SessionState, after_commit: Callable[[CommitOutcome], None] | None = None
    ) -> None:
        self._state = state
        self._after_commit = after_commit
        """Told of each commit once its record is durable (the search index's upkeep)."""
        self.checkpoint_body = CheckpointBody()
        """Builds checkpoint bodies, reusing the chunks that cannot change."""
        self._levels = FoldLevels()
        """The folds' levels, kept for the session (a fold's level never changes)."""
        self._settled: tuple[object, int] | None = None
        """The last :meth:`settled_boundary` answer and the state it was computed for."""
        self.settled_objects = SettledObjects()
        """Freezes what the session holds once it is put back and after each commit, so
        that the collector's full passes do not grow with the session (issue 23)."""
        self.settled_objects.settle(collect=False)  # the state was just opened

    def commit(
        self,
        cause: str,
        target: int | None,
        expand: Fold | None = None,
        only: set[str] | None = None,
        top_up: bool = True,
        runway: bool = False,
        keep: int | None = None,
    ) -> CommitOutcome:
        """Land marks (down to ``target``, or every eligible one, or exactly ``only``) in one
        logged rewrite; with ``expand``, that fold opens in the same rewrite. Taken back
        unlogged when ``runway`` is asked for and not bought, or it leaves under ``keep``."""
        state = self._state
        state.refuse_if_read_only("a commit")
        snapshot = commit_undo.snapshot(state)
        shown_before = set(state.projection.digests())
        try:
            protect = {expand.handle} if expand is not None else None
            outcome = self._committer().run(
                state.commit_count + 1, cause, target, state.staged_refolds, protect, only, top_up
            )
            if runway and not buys_runway(
                state.options, state.meter.expected(outcome.tokens_after)
            ):
                raise RunwayBlocked(floor_after(state, outcome.tokens_after))
            if keep is not None and outcome.tokens_after < keep:
                raise LeavesTooLittle(outcome.tokens_after)
            if expand is not None:
                state.forest.expanded.add(expand.handle)
                state.projection.show_fold(expand)
                outcome.tokens_after = state.projection.tokens
            state.forest.validate_folds([built.fold for built in outcome.built], state.transcript)
            # Children before parents: a fold object lists its child folds by digest, so
            # they are stored first (every object on disk has all its parts).
            folds, entries = state.forest.folds, state.transcript.entries
            smallest_first = [built.fold for built in outcome.built]
            smallest_first.sort(key=lambda fold: fold.end - fold.start)
            state.store.put_folds(
                [
                    (
                        fold.source_digest,
                        fold_parts(fold, folds, entries, state.journal.entry_spans),
                    )
                    for fold in smallest_first
                ]
            )
            spent = sorted(set(snapshot["ephemeral"]) - set(state.ephemeral))
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
            # The counts of the messages it showed (its folds' placeholders, even those a
            # consolidation swallowed at once, and its views), so a reopen replaying this
            # record needs no tokenizer to count them again (issue 23 item 3).
            shown = [
                item
                for built in outcome.built
                for item in state.projection.collapsed_items(built.fold)
            ]
            shown.extend(item for item in state.projection.items if item.digest not in shown_before)
            counted = {item.digest: item.tokens for item in shown}
            if counted:
                record["counts"] = counts_record(state.projection.counter, list(counted.items()))
            state.journal.append("commit", record, durable=True)
        except BaseException:
            commit_undo.undo(state, snapshot)
            raise
        state.commits.append(outcome)
        state.settle_commit(record)  # the bookkeeping a reopen repeats from the same record
        if self._after_commit is not None:
            self._after_commit(outcome)
        release_landed(state.transcript, outcome.built, state.journal.entry_spans)
        self.checkpoint_body.settle(state)  # so the checkpoint's write costs what is open
        write_checkpoint_if_due(state, self.checkpoint_body)
        self.settled_objects.settle(collect=True)
        return outcome

    def preview(self, cause: str = "command") -> CommitPreview:
        """A dry run of the commit ``cause`` names (``command``: every eligible mark, as
        ``Engine.commit_now``; ``threshold`` or ``overflow``: down to the band's target).

        The real committer runs between a snapshot and its restore, so the figures are the
        commit's own; nothing is stored or logged and no state is kept.
        """
        state = self._state
        check_cause(cause)
        if state.folding_stopped is not None:
            return stopped_preview(state, cause, f"folding stopped: {state.folding_stopped}")
        target = None if cause == "command" else state.meter.estimate_for(state.options.min_tokens)
        before = list(state.projection.items)
        snapshot = commit_undo.snapshot(state)
        try:
            outcome = self._committer().run(
                state.commit_count + 1, cause, target, state.staged_refolds
            )
            after = list(state.projection.items)
        finally:
            commit_undo.undo(state, snapshot)
        return build_preview(state, outcome, before, after)

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
        state = self._state
        key = (
            state.commit_count,
            tuple((mark.id, mark.start, mark.end) for mark in state.marks.values()),
            frozenset(state.pinned),
            frozenset(state.staged_refolds),
            frozenset(state.forest.expanded),
            tuple(state.ephemeral),
            state.options,
            state.folding_stopped,
            len(state.transcript.entries) // SETTLED_RECHECK_ENTRIES,
        )
        if self._settled is not None and self._settled[0] == key:
            return min(self._settled[1], len(state.projection.items))
        preview = self.preview("threshold")
        boundary = (
            len(state.projection.items) if preview.first_changed is None else preview.first_changed
        )
        self._settled = (key, boundary)
        return boundary

    def _committer(self) -> Committer:
        """The committer over the state as it stands."""
        state = self._state
        return Committer(
            state.transcript,
            state.forest,
            state.projection,
            state.marks,
            state.options,
            state.held_raw,
            state.pinned,
            state.ephemeral,
            state.sent_through,
            self._levels,
        )


__all__ = ["SETTLED_RECHECK_ENTRIES", "CommitRunner"]
