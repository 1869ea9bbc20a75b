"""A replay that watches the commit policy: the runway between threshold commits, and the
floor a held-back commit names (issue 12, "no thrashing above a fixed floor").

It replays a trace as :func:`pifold_agent.replay.replay_trace` does (the same
:class:`~pifold_agent.replay_progress.ReplayDriver`, the trace's own clock and cache
lifetime) and keeps, for every model request, the expected occupancy the commit trigger saw
before it, the occupancy of the request as sent (after any commit that ran first), the causes
of those commits, and any floor newly named there with what ``status`` then named.

**Runway apart**, precisely. The *inflow* between two requests is how much the expected
occupancy grew from the first as sent to the second as the trigger saw it: the entries
appended between them (and any change of calibration), never what a commit removed. Two
threshold commits, at requests ``a < b``, are *a runway apart* when the inflow summed over
the requests ``a+1 .. b`` is at least :func:`pifold_core.runway.runway_tokens`. The rule
promises it whenever the commit at ``a`` bought runway (it left at most ``maxTarget`` minus
the runway): the one at ``b`` fires only once the trigger sees ``maxTarget`` again, and
commits between them (a cold cache, an overflow) only lower the occupancy further. A commit
the rule waived (the request would not have fitted the budget at all) promises nothing.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

from pifold_agent.importers import load_trace
from pifold_agent.replay import verify_folds
from pifold_agent.replay_lifetime import CacheLifetime, resolve_lifetime
from pifold_agent.replay_progress import ReplayDriver
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.options import EngineOptions
from pifold_core.runway import Floor, needed_after, runway_tokens


@dataclass(frozen=True, slots=True)
class RequestStep:
    """One model request of the replay, as the policy saw it."""

    position: int
    """The answer's position in the trace."""
    before: int
    """Expected occupancy the commit trigger saw (before any commit at this request)."""
    after: int
    """Expected occupancy of the request as sent."""
    causes: tuple[str, ...]
    """Causes of the commits that ran before it, in order."""
    floor: Floor | None
    """A floor newly named at this request (a threshold commit held back for runway)."""
    status_floor: Floor | None
    """What ``status().floor`` named right after, when :attr:`floor` is set."""


@dataclass(frozen=True, slots=True)
class ThresholdGap:
    """Two consecutive threshold commits and the inflow between them."""

    first: int
    """Request index (into :attr:`RunwayAudit.steps`) of the first."""
    second: int
    """Request index of the second."""
    inflow: int
    """Expected occupancy that flowed in over the requests ``first+1 .. second``."""
    left_after_first: int
    """Occupancy the first left (the request it preceded, as sent)."""
    bought_runway: bool
    """The first left at most ``maxTarget`` minus the runway (so the rule promises a gap)."""


@dataclass
class RunwayAudit:
    """What one replay's policy did, request by request."""

    trace: str
    budget: int
    options: EngineOptions
    cache_lifetime_s: int | None
    steps: list[RequestStep] = field(default_factory=list)
    unattributed: int = 0
    folds: int = 0
    verified_folds: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def runway(self) -> int:
        """The runway the rule asks of a threshold commit, in tokens."""
        return runway_tokens(self.options)

    @property
    def needed_after(self) -> int:
        """The occupancy a threshold commit must leave to land."""
        return needed_after(self.options)

    def commits(self, cause: str) -> int:
        """Commits of ``cause`` over the replay."""
        return sum(step.causes.count(cause) for step in self.steps)

    def floors(self) -> list[RequestStep]:
        """The requests at which a threshold commit was held back and a floor named."""
        return [step for step in self.steps if step.floor is not None]

    def gaps(self) -> list[ThresholdGap]:
        """Every pair of consecutive threshold commits, with the inflow between them."""
        at = [index for index, step in enumerate(self.steps) if "threshold" in step.causes]
        gaps = []
        for first, second in itertools.pairwise(at):
            inflow = sum(
                self.steps[index].before - self.steps[index - 1].after
                for index in range(first + 1, second + 1)
            )
            left = self.steps[first].after
            gaps.append(ThresholdGap(first, second, inflow, left, left <= self.needed_after))
        return gaps


def audit_replay(
    path: Path,
    budget: int,
    state_dir: Path,
    cache_lifetime_s: CacheLifetime = "model",
    options: EngineOptions | None = None,
) -> RunwayAudit:
    """Replay ``path`` at ``budget`` into the new state folder ``state_dir`` and audit it."""
    trace = load_trace(path)
    lifetime, _ = resolve_lifetime(trace, cache_lifetime_s)
    engine_options = options or EngineOptions(budget=budget)
    recorded = any(entry.usage is not None for entry in trace.entries)
    engine = Engine.open(state_dir, engine_options, host_measures=recorded)
    audit = RunwayAudit(str(path), budget, engine_options, lifetime)
    try:
        driver = ReplayDriver(engine, lifetime)
        counter = engine.view.projection.counter
        raw_estimate = 0
        for position, entry in enumerate(trace.entries):
            if entry.kind == "assistant":
                audit.steps.append(_step(engine, driver, position, entry, raw_estimate))
            else:
                engine.append(entry)
            raw_estimate += counter.count_message(entry.wire, entry.wire_digest)
        audit.unattributed = engine.view.audit_counts.unattributed
        audit.folds = len(engine.view.forest.folds)
        audit.verified_folds, audit.failures = verify_folds(engine)
    finally:
        engine.close()
    return audit


def _step(
    engine: Engine, driver: ReplayDriver, position: int, entry: Entry, raw_estimate: int
) -> RequestStep:
    before, floor_before = engine.expected_tokens(), engine.view.floor
    history = len(engine.view.commit_history)
    driver.answer(position, entry, raw_estimate)
    causes = tuple(view.cause for view in engine.view.commit_history[history:])
    floor = engine.view.floor if engine.view.floor is not floor_before else None
    status_floor = engine.status().floor if floor is not None else None
    return RequestStep(position, before, driver.figures.sizes[-1], causes, floor, status_floor)


__all__ = ["RequestStep", "RunwayAudit", "ThresholdGap", "audit_replay"]
