"""What a replay did, and why it exits 1: the report ``pifold replay`` prints and its ``--json``.

:func:`~pifold_agent.replay.replay_trace` fills a :class:`ReplayReport` (the traffic, the
folds verified, the window's sizes, how the recorded usage was used, the provider's cache
figures); :func:`broken_promises` names the promises a finished replay broke (a rewrite
without a cause, a fold that did not verify, a request over the budget), in the same words
as both demos, which count requests over the budget the same way
(:func:`requests_over_budget`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class WindowFigures:
    """Request sizes: expected occupancy (provider count plus calibrated estimate)."""

    budget: int
    peak: int
    mean: float
    min_after_first_commit: int | None
    max_after_first_commit: int | None
    largest_inflow: int
    """Largest growth between two consecutive requests with no commit between them."""
    peak_estimated: int
    """Largest request by the engine's own token estimate, uncalibrated."""


@dataclass(frozen=True)
class MeasurementFigures:
    """How the replay used the usage the trace recorded (DESIGN §6)."""

    recorded: bool
    """The trace recorded provider usage."""
    bound: int
    """Usage reports bound to our own request: the projection was still the raw history."""
    calibration_samples: int
    """Later reports used only to calibrate (our projection differed from what was sent)."""
    calibration: float
    """Measured tokens per estimated token at the end."""
    reading: str
    """The final reading: measured, estimated_after_commit, estimated or not_measured."""


@dataclass(frozen=True)
class ReplayReport:
    """What a replay did; ``to_json`` gives the documented ``--json`` object."""

    trace: str
    format: str
    entries: int
    requests: int
    appends: int
    rewrites: int
    unattributed: int
    commits: int
    folds: dict[str, int]
    verified_folds: int
    failed_folds: int
    skipped_lines: int
    window: WindowFigures
    measurement: MeasurementFigures
    clipped: int
    """Tool results clipped by the commits (a later fold may hold them since)."""
    pins: int
    """Pinned entries at the end."""
    marks_pending: int
    """Marks laid but not applied at the end."""
    consolidations: int
    """Consolidated folds made."""
    commit_sizes: list[int]
    """Folds landed by each commit, in order."""
    overflows: int
    """Requests a provider would have refused as too long, recovered by an overflow commit."""
    over_budget: int
    """Requests whose expected occupancy was over the budget even so (a replay that had
    any exits 1)."""
    torn_tail: str | None = None
    """What reopening the state cut off its log (a torn last line, from a kill), if anything."""
    cache_lifetime_s: int | None = None
    """The cache lifetime passed with every request (``None``: none, so no cold-cache
    commit could fire)."""
    cache_lifetime_source: str = "none"
    """Where it came from: ``descriptor``, ``price file``, ``price file default`` (a model
    the price file does not list, priced as its default), ``option`` or ``none``."""
    cold_commits: int = 0
    """Commits made because the cache was cold (``cold-cache``)."""
    cache: dict[str, Any] = field(default_factory=dict)
    """The provider's own cache figures the trace recorded (pifold's sessions keep a verdict
    with every reply: :meth:`pifold_agent.cache_report.tally.CacheTally.to_json`)."""
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    request_tokens: list[int] = field(default_factory=list)

    @property
    def append_share(self) -> float:
        """Share of requests that were pure appends."""
        return self.appends / self.requests if self.requests else 1.0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("request_tokens")
        return data


def requests_over_budget(request_tokens: Sequence[int], budget: int) -> int:
    """Requests whose expected occupancy was over the serving budget: what a provider would
    have refused even after overflow recovery. One count for ``replay`` and both demos,
    each of which exits 1 when it is not zero."""
    return sum(tokens > budget for tokens in request_tokens)


def broken_promises(report: ReplayReport) -> str | None:
    """Why a finished replay (or ``pifold demo``) exits 1: a rewrite without a cause, a fold
    that did not verify, or a request the recovery could not bring under the budget."""
    problems = []
    if report.unattributed:
        problems.append(f"{report.unattributed} unattributed rewrite(s)")
    if report.failed_folds:
        problems.append(f"{report.failed_folds} fold(s) failed verification")
    if report.over_budget:
        problems.append(
            over_budget_problem(report.over_budget, report.window.peak, report.window.budget)
        )
    return "; ".join(problems) or None


def over_budget_problem(count: int, peak: int, budget: int) -> str:
    """The words for requests over the budget, the same in ``replay`` and both demos."""
    return (
        f"{count} request(s) over the budget even after overflow recovery "
        f"(peak {peak:,} > budget {budget:,} tokens)"
    )


__all__ = [
    "MeasurementFigures",
    "ReplayReport",
    "WindowFigures",
    "broken_promises",
    "over_budget_problem",
    "requests_over_budget",
]
