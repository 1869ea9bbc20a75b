"""The commit policy's cache-aware rules as the engine applies them (issue 12): the
threshold commit held to the runway rule, and the cold-cache commit.

The rules themselves, their constants and the figures behind them are in
:mod:`pifold_core.runway`; :class:`CommitPolicy` is the part of the engine that applies them
before each request, over the session state it is given and through the engine's commit (a
:class:`CommitCall`), so that ``engine.py`` holds opening, appending, requests and commits.
"""

from __future__ import annotations

from typing import Protocol

from pifold_core.commit import CommitOutcome
from pifold_core.folds import Fold
from pifold_core.runway import (
    COLD_COMMIT_SHARE,
    COLD_KEEP_SHARE,
    Floor,
    LeavesTooLittle,
    RunwayBlocked,
    cache_is_cold,
    cold_commit_marks,
    host_head_changed,
    make_floor,
    runway_tokens,
)
from pifold_core.session_state import SessionState


class CommitCall(Protocol):
    """The engine's commit: lands marks in one logged rewrite
    (:meth:`~pifold_core.commit_runner.CommitRunner.commit`)."""

    def __call__(
        self,
        cause: str,
        target: int | None,
        expand: Fold | None = None,
        only: set[str] | None = None,
        top_up: bool = True,
        runway: bool = False,
        keep: int | None = None,
    ) -> CommitOutcome: ...


def finds_cache_cold(
    state: SessionState, now_ms: int | None, cache_lifetime_s: int | None, host_head: str | None
) -> bool:
    """Whether a request sent now finds the cache cold: more than the lifetime since the
    previous request, or a host head other than the previous request's."""
    return cache_is_cold(state.last_request_ms, now_ms, cache_lifetime_s) or (
        host_head_changed(state.last_host_head, host_head)
    )


def cold_point_tokens(state: SessionState, cold_commit_share: float) -> int:
    """Occupancy (provider tokens) past which a cold cache commits, and down to which."""
    return int(cold_commit_share * state.options.budget)


def cold_keep_tokens(state: SessionState) -> int:
    """Estimated tokens a cold-cache commit never folds the window below."""
    return state.meter.estimate_for(int(COLD_KEEP_SHARE * state.options.budget))


def cold_commit_choice(state: SessionState, cold_commit_share: float) -> list[str]:
    """The marks a cold-cache commit would land now, stalest first: down to the cold point,
    never below :data:`COLD_KEEP_SHARE` of the budget (:func:`cold_commit_marks`); none at or
    below the cold point."""
    point = cold_point_tokens(state, cold_commit_share)
    if state.expected_tokens() <= point:
        return []
    return cold_commit_marks(
        state.marks.values(),
        state.transcript.fresh_start,
        state.held_raw,
        state.projection.tokens_of_range,
        state.projection.tokens,
        state.meter.estimate_for(point),
        cold_keep_tokens(state),
    )


def floor_after(state: SessionState, tokens_after: int) -> Floor:
    """The floor report for a commit that left the projection at ``tokens_after``."""
    ratio = state.meter.calibration
    expected_after = state.meter.expected(tokens_after)
    fresh = state.transcript.fresh_start
    items = state.projection.items
    fresh_tokens = sum(item.tokens for item in items if item.start >= fresh)
    pin_tokens = sum(
        item.tokens
        for item in items
        if item.start < fresh and item.fold is None and item.start in state.pinned
    )
    return make_floor(
        state.options,
        expected_after,
        host_tokens=max(0, expected_after - round(ratio * tokens_after)),
        pin_tokens=round(ratio * pin_tokens),
        fresh_tokens=round(ratio * fresh_tokens),
    )


class CommitPolicy:
    """Decides, before each request, whether the engine commits, and commits through it."""

    def __init__(
        self,
        state: SessionState,
        commit: CommitCall,
        cold_cache_commits: bool = True,
        cold_commit_share: float = COLD_COMMIT_SHARE,
    ) -> None:
        self._state = state
        self._commit = commit
        self.cold_cache_commits = cold_cache_commits
        """Whether a request that finds the cache cold commits standing marks (issue 12);
        an engine flag, not a user option: the bench's ``fold-no-cold`` arm turns it off."""
        self.cold_commit_share = cold_commit_share
        """Share of the budget the expected occupancy must reach for a cold-cache commit."""
        self._blocked_at: tuple[object, ...] | None = None
        """The :meth:`_runway_key` a threshold commit was blocked at (``None``: not blocked)."""

    def commit_before_request(
        self, now_ms: int | None, cache_lifetime_s: int | None, host_head: str | None
    ) -> CommitOutcome | None:
        """The commit due before a request, if any: the band's threshold commit, else the
        cold-cache commit (see ``Engine.prepare_request``)."""
        state = self._state
        commit = None
        # A commit that could not reach its target is not retried until something changes.
        stalled = state.stalled_at is not None and state.stalled_at == state.progress_key()
        if state.expected_tokens() >= state.options.max_tokens and not stalled:
            commit = self._threshold_commit()
        cold = finds_cache_cold(state, now_ms, cache_lifetime_s, host_head)
        if commit is None and cold and self.cold_cache_commits:
            commit = self._cold_cache_commit()
        return commit

    def guarded_commit(
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
        state = self._state
        target = None if only is not None else state.meter.estimate_for(state.options.min_tokens)
        try:
            commit = self._commit(cause, target, only=only, top_up=top_up, runway=runway, keep=keep)
        except OSError as error:
            state.stop_folding(f"commit could not be saved: {error}")
            return None
        except RunwayBlocked as blocked:
            state.set_floor(blocked.floor)
            self._blocked_at = self._runway_key()
            return None
        except LeavesTooLittle:
            return None
        return commit

    def _runway_key(self) -> tuple[object, ...]:
        """What a blocked threshold commit waits on before it is tried again: new marks,
        pins, a commit, the options, or occupancy grown by a quarter of the runway."""
        state = self._state
        step = max(1, runway_tokens(state.options) // 4)
        return (
            state.mark_count,
            frozenset(state.pinned),
            state.commit_count,
            state.options,
            state.expected_tokens() // step,
        )

    def _threshold_commit(self) -> CommitOutcome | None:
        """The band's commit, held to the runway rule even for a request past the budget.

        Waived through past the budget, a commit that buys no runway thrashed (the Claude
        Code trace at 30k: 26 threshold commits one to nine requests apart, 41 commits in 56
        requests). Held back, the state's ``floor`` names what blocks it and the host's
        overflow recovery is the net: the bundled loop and the replay driver recover before
        sending a request past the budget (26 overflow commits on that trace, no threshold
        commit).
        """
        if self._blocked_at is not None and self._blocked_at == self._runway_key():
            return None  # blocked at this state already: the dry run would say the same
        commit = self.guarded_commit("threshold", runway=True)
        if commit is not None:
            self._state.set_floor(None)
            self._blocked_at = None
        return commit

    def _cold_cache_commit(self) -> CommitOutcome | None:
        """The cold-cache commit of :func:`cold_commit_choice`. Consolidation can take a
        little more than the marks free, so a commit left under the keep is taken back and
        tried again without its freshest mark."""
        state = self._state
        chosen = cold_commit_choice(state, self.cold_commit_share)
        keep = cold_keep_tokens(state)
        while chosen and state.folding_stopped is None:
            commit = self.guarded_commit("cold-cache", False, only=set(chosen), keep=keep)
            if commit is not None:
                return commit
            chosen.pop()
        return None


__all__ = [
    "CommitCall",
    "CommitPolicy",
    "cold_commit_choice",
    "cold_keep_tokens",
    "cold_point_tokens",
    "finds_cache_cold",
    "floor_after",
]
