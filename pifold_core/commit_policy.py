"""The commit policy's cache-aware rules as the engine applies them (issue 12): the
threshold commit held to the runway rule, and the cold-cache commit.

The rules themselves, their constants and the figures behind them are in
:mod:`pifold_core.runway`; these are the engine's own methods that apply them, kept here so
that ``engine.py`` holds opening, appending, requests and commits. The attributes and the
methods of the engine they use are declared below for the type checker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pifold_core.commit import CommitOutcome
from pifold_core.marks import Mark
from pifold_core.measure import Meter
from pifold_core.options import EngineOptions
from pifold_core.projection import Projection
from pifold_core.runway import (
    COLD_KEEP_SHARE,
    Floor,
    cache_is_cold,
    cold_commit_marks,
    host_head_changed,
    make_floor,
    runway_tokens,
)
from pifold_core.transcript import Transcript


class CommitPolicy:
    """The policy half of :class:`pifold_core.engine.Engine` (a mixin of it, nothing else)."""

    options: EngineOptions
    transcript: Transcript
    projection: Projection
    meter: Meter
    marks: dict[str, Mark]
    pinned: set[int]
    floor: Floor | None
    folding_stopped: str | None
    cold_commit_share: float
    last_request_ms: int | None
    last_host_head: str | None
    mark_count: int
    commit_count: int
    _blocked_at: tuple[object, ...] | None

    if TYPE_CHECKING:

        def expected_tokens(self) -> int: ...

        def _held_raw(self, start: int, end: int) -> bool: ...

        def _guarded_commit(
            self,
            cause: str,
            top_up: bool = True,
            runway: bool = False,
            only: set[str] | None = None,
            keep: int | None = None,
        ) -> CommitOutcome | None: ...

    def _runway_key(self) -> tuple[object, ...]:
        """What a blocked threshold commit waits on before it is tried again: new marks,
        pins, a commit, the options, or occupancy grown by a quarter of the runway."""
        step = max(1, runway_tokens(self.options) // 4)
        return (
            self.mark_count,
            frozenset(self.pinned),
            self.commit_count,
            self.options,
            self.expected_tokens() // step,
        )

    def _threshold_commit(self) -> CommitOutcome | None:
        """The band's commit, held to the runway rule even for a request past the budget.

        Waived through past the budget, a commit that buys no runway thrashed (the Claude
        Code trace at 30k: 26 threshold commits one to nine requests apart, 41 commits in 56
        requests). Held back, :attr:`floor` names what blocks it and the host's overflow
        recovery is the net: the bundled loop and the replay driver recover before sending a
        request past the budget (26 overflow commits on that trace, no threshold commit).
        """
        if self._blocked_at is not None and self._blocked_at == self._runway_key():
            return None  # blocked at this state already: the dry run would say the same
        commit = self._guarded_commit("threshold", runway=True)
        if commit is not None:
            self.floor, self._blocked_at = None, None
        return commit

    def finds_cache_cold(
        self, now_ms: int | None, cache_lifetime_s: int | None, host_head: str | None
    ) -> bool:
        """Whether a request sent now finds the cache cold: more than the lifetime since the
        previous request, or a host head other than the previous request's."""
        return cache_is_cold(self.last_request_ms, now_ms, cache_lifetime_s) or (
            host_head_changed(self.last_host_head, host_head)
        )

    def cold_keep_tokens(self) -> int:
        """Estimated tokens a cold-cache commit never folds the window below."""
        return self.meter.estimate_for(int(COLD_KEEP_SHARE * self.options.budget))

    def cold_point_tokens(self) -> int:
        """Occupancy (provider tokens) past which a cold cache commits, and down to which."""
        return int(self.cold_commit_share * self.options.budget)

    def cold_commit_choice(self) -> list[str]:
        """The marks a cold-cache commit would land now, stalest first: down to the cold
        point, never below :data:`COLD_KEEP_SHARE` of the budget (:func:`cold_commit_marks`);
        none at or below the cold point."""
        if self.expected_tokens() <= self.cold_point_tokens():
            return []
        return cold_commit_marks(
            self.marks.values(),
            self.transcript.fresh_start,
            self._held_raw,
            self.projection.tokens_of_range,
            self.projection.tokens,
            self.meter.estimate_for(self.cold_point_tokens()),
            self.cold_keep_tokens(),
        )

    def _cold_cache_commit(self) -> CommitOutcome | None:
        """The cold-cache commit of :meth:`cold_commit_choice`. Consolidation can take a
        little more than the marks free, so a commit left under the keep is taken back and
        tried again without its freshest mark."""
        chosen = self.cold_commit_choice()
        keep = self.cold_keep_tokens()
        while chosen and self.folding_stopped is None:
            commit = self._guarded_commit("cold-cache", False, only=set(chosen), keep=keep)
            if commit is not None:
                return commit
            chosen.pop()
        return None

    def _floor_after(self, tokens_after: int) -> Floor:
        """The floor report for a commit that left the projection at ``tokens_after``."""
        ratio = self.meter.calibration
        expected_after = self.meter.expected(tokens_after)
        fresh = self.transcript.fresh_start
        fresh_tokens = sum(item.tokens for item in self.projection.items if item.start >= fresh)
        pin_tokens = sum(
            item.tokens
            for item in self.projection.items
            if item.start < fresh and item.fold is None and item.start in self.pinned
        )
        return make_floor(
            self.options,
            expected_after,
            host_tokens=max(0, expected_after - round(ratio * tokens_after)),
            pin_tokens=round(ratio * pin_tokens),
            fresh_tokens=round(ratio * fresh_tokens),
        )


__all__ = ["CommitPolicy"]
