"""The arms of the benchmark: ways of turning the same trace into model requests.

Every arm is driven the same way (:mod:`pifold_bench.run`): each entry of the trace is
appended, and right before each assistant entry the arm is asked for the request that
produced it. An arm answers with the request's messages as digests and estimated tokens, the
causes of any rewrite it made since the previous request, and any side calls it made (a
summarisation call). At the end it shows its final window and, when it has a store, peeks.

This module holds the :class:`Arm` protocol and the engine arms: ``fold``, ``fold-no-cold``,
``fold-unbatched`` and ``fold-immediate``. The arms that keep a plain list of messages,
``none`` (linear history) and ``clip-only`` (old tool results cleared, keeping the newest
three), are in :mod:`pifold_bench.list_arms`. ``native``
lives in :mod:`pifold_agent.pricing.compaction` (the app's demo runs it too), and the request
every arm answers with, :class:`~pifold_agent.pricing.arm_request.ArmRequest`, beside it.

Every request is asked for with the time it was sent (the trace's clock) and the cache
lifetime the simulated provider bills under, as a host passes them from its model descriptor;
the engine arms hand both to :meth:`Engine.prepare_request`, so cold-cache commits fire where
the simulated cache really is cold. The other arms have no use for them.

The engine arms answer different questions. ``fold`` is the engine as shipped, cold-cache
commits included; ``fold-no-cold`` is the same engine with them turned off
(``cold_cache_commits=False``), so the pair prices the cold-cache rule alone.
``fold-immediate`` is a different policy: it lands every mark as soon as it is laid, so it
folds far more, far earlier, and keeps a much smaller window. ``fold-unbatched`` changes only
the scheduling: it starts and stops where ``fold`` does and lands the same marks stalest
first, but one per request, each in a rewrite of its own instead of all of them in one. That
is the comparison behind the seeds' 5.4x (the same folds, landed one at a time or together at
the next fold event), so ``fold`` against ``fold-unbatched`` is the price of not batching,
with the window held alike.

Both comparison arms keep cold-cache commits, because the criterion compares scheduling, not
whether one arm may use a free re-send the other may not. ``fold-unbatched`` starts draining
at either of ``fold``'s two triggers, the band's top or a cold cache (expired, or the host's
prompt head changed) past the cold point, and on a cold cache it drains exactly the marks
``fold`` lands there (:meth:`pifold_core.engine_view.EngineView.cold_commit_choice`), so the first
mark lands on the free re-send as ``fold``'s whole batch does, and the rest land one per
request after it. ``fold-immediate`` runs the engine with its
defaults, so a mark the fresh tail held back when it was laid can still land on a cold cache;
it has little else to land there, since every other mark landed the moment it was laid.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pifold_agent.pricing.arm_request import ArmRequest
from pifold_core.canonical import JsonValue, wire_digest_of
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.marks import Mark
from pifold_core.options import EngineOptions, Thresholds
from pifold_core.peek import PeekError
from pifold_core.runway import COLD_COMMIT_SHARE
from pifold_core.store import StoreError
from pifold_core.tokens import TokenCounter


class Arm(Protocol):
    """A way of managing the context window, driven request by request."""

    name: str
    """The arm's name on the command line and in reports."""

    def append(self, entry: Entry) -> None:
        """Take one entry of the trace, as the host appended it."""
        ...

    def prepare_request(
        self,
        now_ms: int | None = None,
        cache_lifetime_s: int | None = None,
        host_head: str | None = None,
    ) -> ArmRequest:
        """The request for the next model call (the arm may rewrite or compact first).

        ``now_ms`` is when it is sent (the trace's clock), ``cache_lifetime_s`` the cache
        lifetime the provider bills under, and ``host_head`` names the simulated host's
        prompt head (it changes at a recorded host prefix reset); None when unknown (the
        engine never guesses)."""
        ...

    @property
    def events(self) -> int:
        """Commits, compactions or clearing passes so far."""
        ...

    def final_messages(self) -> list[dict[str, JsonValue]]:
        """The window as the arm would send it now."""
        ...

    def peek(self, identifier: str) -> bytes | None:
        """Exact, verified bytes behind ``identifier``, or None when the arm cannot tell."""
        ...

    def close(self) -> None:
        """Release whatever the arm holds open."""
        ...


def message_digest(message: dict[str, JsonValue]) -> str:
    """The digest the wire audit uses: SHA-256 of the message's wire bytes (what is sent)."""
    return wire_digest_of(message)


class EngineArm:
    """``fold`` (the engine with its defaults), ``fold-no-cold`` (cold-cache commits off) or
    ``fold-immediate`` (every mark applied the moment it is laid, one rewrite each)."""

    def __init__(
        self,
        state_dir: Path,
        budget: int,
        counter: TokenCounter,
        immediate: bool = False,
        options: EngineOptions | None = None,
        cold_cache_commits: bool = True,
        cold_commit_share: float = COLD_COMMIT_SHARE,
    ) -> None:
        if immediate:
            self.name = "fold-immediate"
        else:
            self.name = "fold" if cold_cache_commits else "fold-no-cold"
        options = options if options is not None else EngineOptions(budget=budget)
        self.engine = Engine.open(
            state_dir,
            options,
            counter,
            cold_cache_commits=cold_cache_commits,
            cold_commit_share=cold_commit_share,
        )
        self.counter = counter
        self.immediate = immediate
        self._causes: list[str] = []
        self._marks_committed: set[str] = set()
        self._last_messages: list[dict[str, JsonValue]] = []

    def append(self, entry: Entry) -> None:
        self.engine.append(entry)
        if self.immediate and any(
            mark not in self._marks_committed for mark in self.engine.view.marks
        ):
            # Only when a new mark appears: a mark the commit holds back (fresh tail) must not
            # trigger a commit after every later append.
            self._marks_committed.update(self.engine.view.marks)
            outcome = self.engine.commit_now("immediate")
            self._causes.append(f"commit {outcome.number} (immediate)")

    def prepare_request(
        self,
        now_ms: int | None = None,
        cache_lifetime_s: int | None = None,
        host_head: str | None = None,
    ) -> ArmRequest:
        request = self.engine.prepare_request(now_ms, cache_lifetime_s, host_head)
        if request.commit is not None:
            self._causes.append(f"commit {request.commit.number} ({request.commit.cause})")
        tokens = tuple(
            self.counter.count_message(message, digest)
            for message, digest in zip(request.messages, request.digests, strict=True)
        )
        self._last_messages = request.messages
        causes, self._causes = tuple(self._causes), []
        return ArmRequest(tuple(request.digests), tokens, causes)

    @property
    def events(self) -> int:
        return self.engine.view.commit_count

    def final_messages(self) -> list[dict[str, JsonValue]]:
        return self.engine.view.projection.messages()

    def peek(self, identifier: str) -> bytes | None:
        try:
            return self.engine.peek(identifier).data
        except (PeekError, StoreError, ValueError):
            return None

    def close(self) -> None:
        self.engine.close()


UNBATCHED_CAUSE = "unbatched"
"""The cause ``fold-unbatched`` gives each of its commits."""


def unbatched_options(budget: int) -> EngineOptions:
    """Engine options for ``fold-unbatched``: a band the engine itself never reaches in
    practice, so that the arm, not the engine, decides when and what to commit.

    Only the band moves; the size rules (``consolidateAfter``, ``minFoldChars``) stay the
    defaults, so the runtime lays exactly the marks it lays for ``fold``. Should a single
    request still carry the window to 99% (an inflow the one-mark-per-request drain cannot
    keep up with), the engine's own commit lands just enough to get under 98%, as a safety net
    rather than a batch; its cause (``threshold``) tells it apart in the report.
    """
    defaults = Thresholds()
    return EngineOptions(
        budget=budget,
        thresholds=Thresholds(
            max_target=0.99,
            min_target=0.98,
            consolidate_after=defaults.consolidate_after,
            min_fold_chars=defaults.min_fold_chars,
        ),
        # The options insist the (disabled) pre-commit notice would speak inside the band:
        # maxTarget - noticeLeadShare > minTarget, so the default lead of 0.10 is refused.
        notice_lead_share=0.005,
    )


class UnbatchedArm(EngineArm):
    """``fold-unbatched``: ``fold``'s band and marks, but one mark per request.

    Before each request: once the expected occupancy reaches ``maxTarget`` x budget of the
    default band (0.80), the arm drains. Each request while draining lands the stalest
    eligible pending mark (one that ends before the fresh tail; stalest is the smallest
    ``(start, -end)``, the order a commit applies marks in) with :meth:`Engine.commit_marks`,
    one rewrite per mark. Draining stops once the occupancy is at or under ``minTarget`` x
    budget (0.20) or no eligible mark is left. When a request finds the cache cold (expired,
    or the host's head changed), the arm takes the marks ``fold``'s cold-cache commit would
    land (:meth:`EngineView.cold_commit_choice`, the same cold point) and lands them one per
    request, the first on the free re-send. ``fold`` starts at the same points and lands
    the same marks, in the same order, each batch in one rewrite.
    :attr:`events` counts every commit the arm made (one per landed mark, plus any whose mark
    the engine dropped).
    """

    def __init__(
        self,
        state_dir: Path,
        budget: int,
        counter: TokenCounter,
        cold_cache_commits: bool = True,
        cold_commit_share: float = COLD_COMMIT_SHARE,
    ) -> None:
        # The engine's own cold-cache rule stays off (it would land the whole choice in one
        # commit); the arm applies fold's cold trigger itself and drains the choice, below.
        super().__init__(
            state_dir,
            budget,
            counter,
            options=unbatched_options(budget),
            cold_cache_commits=False,
            cold_commit_share=cold_commit_share,
        )
        self.name = "fold-unbatched"
        self.cold_cache_commits = cold_cache_commits
        """Whether a cold cache past the cold point starts a drain, as it commits in ``fold``."""
        band = Thresholds()
        # Computed as EngineOptions.max_tokens and min_tokens are, for the default band.
        self.high = int(band.max_target * budget)
        """Expected occupancy at which draining starts (where ``fold`` commits)."""
        self.low = int(band.min_target * budget)
        """Expected occupancy at or under which draining stops (where ``fold`` stops)."""
        self.draining = False
        """Whether the arm is between reaching :attr:`high` and getting back to :attr:`low`."""
        self.cold_queue: list[str] = []
        """The marks of a cold drain not landed yet: what ``fold``'s cold-cache commit landed
        at once (:meth:`EngineView.cold_commit_choice`), one per request, stalest first."""
        self.landed: list[tuple[int, str]] = []
        """``(request number, mark id)`` of every mark the arm landed (0-based requests)."""
        self._requests = 0
        self._held: set[str] = set()

    def prepare_request(
        self,
        now_ms: int | None = None,
        cache_lifetime_s: int | None = None,
        host_head: str | None = None,
    ) -> ArmRequest:
        if self._cold_start(now_ms, cache_lifetime_s, host_head):
            # The marks fold's cold-cache commit would land here, drained one per request.
            self.cold_queue = self.engine.view.cold_commit_choice()
        if self.cold_queue:
            self._land_queued()
        elif self.draining or self.engine.expected_tokens() >= self.high:
            self.draining = self._land_one()
        self._requests += 1
        return super().prepare_request(now_ms, cache_lifetime_s, host_head)

    def _land_queued(self) -> None:
        """Land the first mark of a cold drain still pending (one rewrite)."""
        while self.cold_queue:
            mark_id = self.cold_queue.pop(0)
            if mark_id not in self.engine.view.marks:
                continue  # landed inside an earlier one of the drain
            outcome = self.engine.commit_marks([mark_id], cause=UNBATCHED_CAUSE)
            self._causes.append(f"commit {outcome.number} ({UNBATCHED_CAUSE})")
            if mark_id in outcome.applied_marks:
                self.landed.append((self._requests, mark_id))
                return

    def _cold_start(
        self, now_ms: int | None, cache_lifetime_s: int | None, host_head: str | None
    ) -> bool:
        """Whether ``fold`` would make a cold-cache commit at this request (its rule: the
        cache expired or the host's head changed, and occupancy at the cold point)."""
        if not self.cold_cache_commits:
            return False
        return self.engine.view.finds_cache_cold(now_ms, cache_lifetime_s, host_head)

    def _land_one(self) -> bool:
        """Land the stalest eligible mark; whether to go on draining at the next request."""
        while (mark := self._stalest_eligible()) is not None:
            outcome = self.engine.commit_marks([mark.id], cause=UNBATCHED_CAUSE)
            self._causes.append(f"commit {outcome.number} ({UNBATCHED_CAUSE})")
            if mark.id in outcome.applied_marks:
                self.landed.append((self._requests, mark.id))
                return self.engine.expected_tokens() > self.low
            if mark.id in outcome.held_marks:
                # Held raw (a pin or a blacklisted tool's result): it would be held again.
                self._held.add(mark.id)
            # Otherwise the commit dropped the mark (under minFoldChars once cut, or no
            # longer foldable), as a batched commit skips it: try the next one, so that a
            # request while draining still lands a fold.
        return False

    def _stalest_eligible(self) -> Mark | None:
        fresh = self.engine.view.transcript.fresh_start
        eligible = [
            mark
            for mark in self.engine.view.marks.values()
            if mark.end <= fresh and mark.id not in self._held
        ]
        # The order a commit applies marks in (Committer.run), so the same marks go first.
        return min(eligible, key=lambda mark: (mark.start, -mark.end, mark.id), default=None)
