"""The figures reported per arm and per trace, and their JSON form.

Token and dollar figures are billed provider tokens (estimates times the calibrated scale,
plus the preamble, see :mod:`pifold_bench.calibration`); window figures are the engine's own
estimates of the messages, the unit the budget and the band are stated in.

**Near zero**: a request whose window is under :data:`NEAR_ZERO_SHARE` of the budget, right
after one that was not, in an arm whose window had already reached
:data:`REACHED_SHARE` of the budget. That is the restart-from-nothing the seeds' sawtooth
shows for compaction that ends a session; the first requests of a session do not count.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from itertools import pairwise
from typing import Any

from pifold_agent.pricing.compaction import turn_prefix_summary_tokens
from pifold_bench.brief_probe import BriefProbe
from pifold_bench.calibration import ModelCheck
from pifold_bench.causes import UncachedSplit
from pifold_bench.prepare import PreparedTrace
from pifold_bench.recall import recall_split
from pifold_bench.run import ArmRun, model_check_skipped
from pifold_bench.suggestion_measure import SuggestionMeasure

NEAR_ZERO_SHARE = 0.05
"""Below this share of the budget a window counts as near zero."""

REACHED_SHARE = 0.20
"""A drop counts only after the window once reached this share (the band's lower edge)."""


@dataclass(frozen=True)
class RecallFigures:
    """Where the planted values ended up in one arm."""

    planted: int
    """Values planted in the trace."""
    visible_raw: int
    """In a message sent as the host appended it."""
    visible_in_brief: int
    """In a message the arm made: a fold's brief or placeholder, an evidence preview, a
    native summary."""
    recoverable: int
    """One or more verified peeks away."""
    lost: int
    """Neither visible nor recoverable."""
    lost_values: list[str]
    """The lost values themselves, for inspection."""
    deepest_peek: int
    """Most peeks any recoverable value needed (0 when none did)."""
    found_by_search: int | None = None
    """Recoverable values a search for them finds in the top three hits (``None``: the arm
    cannot search; only the engine arms can)."""


@dataclass(frozen=True)
class ArmFigures:
    """The headline figures of one arm on one trace."""

    arm: str
    """The arm's name."""
    requests: int
    """Model requests of the trace (side calls not included)."""
    appends: int
    """Requests whose previous request is a prefix of them."""
    attributed: int
    """Rewrites the arm declared (commits, compactions, clearing passes)."""
    unattributed: int
    """Rewrites nobody declared: a bug in the arm."""
    fresh_input: int
    """Input billed at the input rate (neither read from nor written to the cache)."""
    cache_read: int
    """Input replayed from the cache."""
    cache_write: int
    """Input written to the cache at the write rate."""
    uncached_input: int
    """Fresh input plus cache writes: every input token the provider did not replay, which
    is what the seeds call fresh input."""
    rewrite_and_summary_tokens: int
    """The uncached input of the requests that rewrote, plus every token of the side calls
    (a summarisation's whole prompt and its output, which exist only because of the rewrite):
    what rewriting cost, apart from cold caches and new material on appends. Leaving the side
    calls out would make compaction look cheaper than it is on its rewrites."""
    uncached_by_cause: UncachedSplit
    """The uncached input split by cause (appended, expired, reset, rewrite); the four add up
    to ``uncached_input``. See :mod:`pifold_bench.causes`."""
    output: int
    """Generated tokens, side calls included."""
    total_tokens: int
    """Fresh input + cache read + cache write + output, side calls included."""
    cost: float
    """Dollars, side calls included."""
    side_calls: int
    """Summarisation calls (native), billed in the totals above."""
    side_call_tokens: int
    """Their prompt and output tokens."""
    cache_share: float
    """Cache reads over all input: a diagnostic, not a score (a huge cached window scores well)."""
    peak_window: int
    """Largest request window."""
    mean_window: float
    """Mean request window."""
    lowest_after_first_event: int | None
    """Smallest window after the first commit, compaction or clearing pass."""
    above_tier: int
    """Requests and side calls billed at the long-context rates (a summarisation prompt can
    pass the tier on its own)."""
    events: int
    """Commits (fold arms), compactions (native) or clearing passes (clip-only)."""
    cold_cache_commits: int
    """Of the commits, those the engine made because the cache was cold (cause
    ``cold-cache``)."""
    near_zero: int
    """Times the window fell to near zero (see the module's docstring)."""
    over_budget: int
    """Requests whose window was larger than the budget: where ``none`` passes it, and any
    request an arm sent over it because it had nothing left to fold, compact or clear (a
    native overflow: one turn's results larger than the budget)."""
    first_over_budget: int | None
    """1-based number of the first such request (where ``none`` would have failed)."""
    recall: RecallFigures
    """Where the planted values ended up."""
    seconds: float
    """How long the arm took to run."""
    brief_probe: BriefProbe | None = None
    """Planted values a fold holds, and how many its brief shows (engine arms only)."""
    suggestions: SuggestionMeasure | None = None
    """Whether suggestions at a commit name folds used later (``fold`` only)."""


def arm_figures(run: ArmRun, budget: int, planted: int) -> ArmFigures:
    """Summarise one arm's run."""
    bills = run.bills + run.side_bills
    fresh = sum(bill.fresh_input for bill in bills)
    read = sum(bill.cache_read for bill in bills)
    write = sum(bill.cache_write for bill in bills)
    output = sum(bill.output for bill in bills)
    windows = run.windows
    after = windows[run.first_event_request :] if run.first_event_request is not None else []
    over = [number for number, size in enumerate(windows) if size > budget]
    recall = run.recall
    split = recall_split(recall)
    side_call_tokens = sum(bill.prompt_tokens + bill.output for bill in run.side_bills)
    return ArmFigures(
        arm=run.name,
        requests=len(run.bills),
        appends=run.classes.count("append"),
        attributed=run.classes.count("attributed"),
        unattributed=run.classes.count("unattributed"),
        fresh_input=fresh,
        cache_read=read,
        cache_write=write,
        uncached_input=fresh + write,
        rewrite_and_summary_tokens=sum(
            bill.fresh_input + bill.cache_write
            for bill, verdict in zip(run.bills, run.classes, strict=True)
            if verdict != "append"
        )
        + side_call_tokens,
        uncached_by_cause=run.uncached_by_cause,
        output=output,
        total_tokens=fresh + read + write + output,
        cost=round(sum(bill.cost for bill in bills), 6),
        side_calls=len(run.side_bills),
        side_call_tokens=side_call_tokens,
        cache_share=round(read / (fresh + read + write), 4) if fresh + read + write else 0.0,
        peak_window=max(windows, default=0),
        mean_window=round(sum(windows) / len(windows), 1) if windows else 0.0,
        lowest_after_first_event=min(after) if after else None,
        above_tier=sum(1 for bill in bills if bill.above_tier),
        events=run.events,
        cold_cache_commits=sum(
            1 for cause in run.declared_causes if cause.endswith("(cold-cache)")
        ),
        near_zero=near_zero_drops(windows, budget),
        over_budget=len(over),
        first_over_budget=over[0] + 1 if over else None,
        recall=RecallFigures(
            planted=planted,
            visible_raw=split.get("visible_raw", 0),
            visible_in_brief=split.get("visible_in_brief", 0),
            recoverable=split.get("recoverable", 0),
            lost=split.get("lost", 0),
            lost_values=recall.lost_values if recall is not None else [],
            deepest_peek=max(recall.peek_depths.values(), default=0) if recall else 0,
            found_by_search=recall.found_by_search if recall is not None else None,
        ),
        seconds=round(run.seconds, 3),
        brief_probe=run.brief_probe,
        suggestions=run.suggestions,
    )


def near_zero_drops(windows: list[int], budget: int) -> int:
    """How often the window fell under the near-zero line after having reached the band."""
    low = NEAR_ZERO_SHARE * budget
    reached = REACHED_SHARE * budget
    drops = 0
    highest = 0
    for previous, current in pairwise(windows):
        highest = max(highest, previous)
        if current < low <= previous and highest >= reached:
            drops += 1
    return drops


def trace_json(
    prepared: PreparedTrace,
    runs: dict[str, ArmRun],
    check: ModelCheck | None,
    budget: int,
    as_of: str,
    sensitivity: dict[int, dict[str, int]] | None = None,
) -> dict[str, Any]:
    """The ``--json`` object of one trace (``sensitivity``: uncached input by arm under other
    cache lifetimes, when it was run)."""
    calibration = prepared.calibration
    planted = len(prepared.values)
    return {
        "trace": str(prepared.path),
        "format": prepared.format,
        "entries": len(prepared.entries),
        "requests": len(prepared.request_times),
        "budget": budget,
        "pricing": {
            "model": prepared.prices.model,
            "family": prepared.prices.rules.family,
            "recorded_family": prepared.recorded_family,
            "own_model": prepared.priced_as_own_model,
            "prices_as_of": as_of,
        },
        "calibration": {
            "main_model": calibration.main_model,
            "preamble_tokens": calibration.preamble_tokens,
            "scale": round(calibration.scale, 4),
            "prefix_resets": len(calibration.prefix_resets),
            "recorded_compaction_at_request": (
                None
                if calibration.recorded_compaction_at is None
                else calibration.recorded_compaction_at + 1
            ),
        },
        "model_check_skipped": model_check_skipped(prepared),
        "model_check": None
        if check is None
        else {
            "requests": check.requests,
            "simulated_cache_read": check.simulated_cache_read,
            "recorded_cache_read": check.recorded_cache_read,
            "simulated_without_prefix_resets": check.simulated_without_resets,
            "ratio": None if check.ratio is None else round(check.ratio, 4),
            "within_10_percent": check.within_tolerance,
        },
        "native_summary_tokens": prepared.summary_tokens,
        "native_summary_source": prepared.summary_source,
        "native_turn_prefix_summary_tokens": turn_prefix_summary_tokens(prepared.summary_tokens),
        "planted_values": planted,
        "cache_lifetime_seconds": prepared.prices.rules.lifetime_seconds,
        "cache_lifetime_source": prepared.lifetime_source,
        "uncached_input_by_cache_lifetime": None
        if sensitivity is None
        else {str(seconds): by_arm for seconds, by_arm in sensitivity.items()},
        "arms": {
            name: {**asdict(arm_figures(run, budget, planted)), "windows": run.windows}
            for name, run in runs.items()
        },
    }
