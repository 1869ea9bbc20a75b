"""Driving every arm over one trace, with the same planted values, clock and cost model.

A trace is prepared once (:mod:`pifold_bench.prepare`: values planted, billed token counts
calibrated, request times, output tokens and prices read). Then each arm replays the planted
trace on its own simulated provider: before every assistant entry the arm is asked for its
request, the wire audit classifies it against the previous one, and the provider bills it.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pifold_agent.pricing.arm_request import ArmRequest
from pifold_agent.pricing.compaction import NativeCompactionArm
from pifold_agent.pricing.prefix_cache import Bill, BilledRequest, PromptPart, SimulatedProvider
from pifold_agent.pricing.prices import PriceBook, load_price_book
from pifold_bench.arms import Arm, EngineArm, UnbatchedArm
from pifold_bench.brief_probe import BriefProbe, probe_arm
from pifold_bench.calibration import (
    Calibration,
    ModelCheck,
)
from pifold_bench.causes import UncachedSplit, side_call_split, split_request
from pifold_bench.list_arms import ClipOnlyArm, LinearArm
from pifold_bench.prepare import ARM_NAMES, BenchSettings, PreparedTrace, prepare_trace
from pifold_bench.recall import RecallResult, classify
from pifold_bench.suggestion_measure import SuggestionMeasure, watch_suggestions
from pifold_core.audit import RequestClass, WireAudit
from pifold_core.options import EngineOptions, Thresholds
from pifold_core.runway import COLD_COMMIT_SHARE
from pifold_core.tokens import TiktokenCounter, TokenCounter

ProgressCallback = Callable[[str, int, int], None]
"""Called as ``(label, entries done, entries in the trace)``."""


@dataclass(frozen=True)
class ArmRun:
    """Everything one arm did on one trace."""

    name: str
    """The arm's name."""
    windows: list[int]
    """Estimated tokens of each request."""
    bills: list[Bill]
    """The bill of each request."""
    side_bills: list[Bill]
    """Bills of side calls (summarisations)."""
    uncached_by_cause: UncachedSplit
    """The uncached input of every request and side call, split by cause."""
    classes: list[RequestClass]
    """The wire audit's verdict on each request."""
    first_event_request: int | None
    """The first request preceded by a rewrite the arm declared (0-based)."""
    events: int
    """Commits, compactions or clearing passes."""
    recall: RecallResult | None
    """Where the planted values ended up (None when recall was not asked for)."""
    seconds: float
    """Wall-clock time of the arm's run."""
    declared_causes: list[str] = field(default_factory=list)
    """Every rewrite the arm declared, in order (``commit 3 (cold-cache)``, ``compaction 1``)."""
    brief_probe: BriefProbe | None = None
    """Planted values a fold holds and its brief shows (engine arms, when recall was asked)."""
    suggestions: SuggestionMeasure | None = None
    """Whether suggestions at a commit name folds used later (``fold``, with recall)."""


def make_arm(
    name: str,
    state_dir: Path,
    prepared: PreparedTrace,
    budget: int,
    counter: TokenCounter,
    fold_options: EngineOptions | None = None,
    cold_commit_share: float = COLD_COMMIT_SHARE,
) -> Arm:
    """A fresh arm called ``name``; ``fold_options`` (the user's settings) drive ``fold`` and
    ``fold-no-cold``; ``cold_commit_share`` is the cold point of every arm that has one."""
    if name == "fold":
        return EngineArm(
            state_dir, budget, counter, options=fold_options, cold_commit_share=cold_commit_share
        )
    if name == "fold-no-cold":
        return EngineArm(state_dir, budget, counter, options=fold_options, cold_cache_commits=False)
    if name == "fold-immediate":
        return EngineArm(
            state_dir, budget, counter, immediate=True, cold_commit_share=cold_commit_share
        )
    if name == "fold-unbatched":
        return UnbatchedArm(state_dir, budget, counter, cold_commit_share=cold_commit_share)
    if name == "native":
        return NativeCompactionArm(counter, budget, prepared.summary_tokens)
    if name == "none":
        return LinearArm(counter)
    if name == "clip-only":
        # Clearing starts where a fold commit would: at the top of the engine's default band.
        return ClipOnlyArm(counter, round(Thresholds().max_target * budget))
    raise ValueError(f"unknown arm {name!r}; arms are {', '.join(ARM_NAMES)}")


def run_arm(
    arm: Arm,
    prepared: PreparedTrace,
    progress: ProgressCallback | None = None,
    recall: bool = True,
) -> ArmRun:
    """Replay the prepared trace through ``arm`` and bill every request."""
    started = time.perf_counter()
    calibration = prepared.calibration
    provider = SimulatedProvider(prepared.prices)
    lifetime_ms = prepared.prices.rules.lifetime_seconds * 1000
    audit = WireAudit()
    windows: list[int] = []
    bills: list[Bill] = []
    side_bills: list[Bill] = []
    causes: list[UncachedSplit] = []
    previous_parts: tuple[PromptPart, ...] = ()
    classes: list[RequestClass] = []
    first_event_request: int | None = None
    preamble_version = 0
    declared: list[str] = []
    total = len(prepared.entries)
    watcher = watch_suggestions(arm, prepared.entries) if recall else None
    for position, entry in enumerate(prepared.entries):
        if entry.kind == "assistant":
            number = len(bills)
            sent_at = prepared.request_times[number]
            reset = number in calibration.prefix_resets
            if reset:
                preamble_version += 1
            # The host's clock, the billed lifetime and its prompt head: the engine's cold
            # cache is the bill's. The simulated host makes a recorded reset by changing its
            # preamble, so it knows of it before sending, as a host that rebuilt its system
            # prompt does.
            request = arm.prepare_request(
                sent_at, prepared.prices.rules.lifetime_seconds, f"preamble {preamble_version}"
            )
            for cause in request.causes:
                audit.declare(cause)
            declared += request.causes
            if request.causes and first_event_request is None:
                first_event_request = number
            classes.append(
                audit.observe(list(request.digests), request.total_tokens).classification
            )
            for call in request.side_calls:
                side = PromptPart(f"side call {call.label}", calibration.billed(call.prompt_tokens))
                output = calibration.billed(call.output_tokens)
                side_bill = provider.bill(BilledRequest((side,), sent_at, output, cached=False))
                side_bills.append(side_bill)
                causes.append(side_call_split(side_bill))
            parts, breakpoints = _prompt(request, calibration, preamble_version)
            output = prepared.output_tokens[number]
            bill = provider.bill(BilledRequest(parts, sent_at, output, breakpoints))
            bills.append(bill)
            warm = number > 0 and sent_at - prepared.request_times[number - 1] <= lifetime_ms
            causes.append(split_request(previous_parts, parts, bill, reset, warm))
            previous_parts = parts
            windows.append(request.total_tokens)
            if watcher is not None:
                watcher.after_request(position)
        arm.append(entry)
        if progress is not None and (position % 25 == 0 or position + 1 == total):
            progress(arm.name, position + 1, total)
    return ArmRun(
        name=arm.name,
        windows=windows,
        bills=bills,
        side_bills=side_bills,
        uncached_by_cause=sum(causes, UncachedSplit()),
        classes=classes,
        first_event_request=first_event_request,
        events=arm.events,
        recall=classify(arm, prepared.values, prepared.raw_digests) if recall else None,
        seconds=time.perf_counter() - started,
        declared_causes=declared,
        brief_probe=probe_arm(arm, prepared.values) if recall else None,
        suggestions=watcher.measure() if watcher is not None else None,
    )


def _prompt(
    request: ArmRequest, calibration: Calibration, preamble_version: int
) -> tuple[tuple[PromptPart, ...], tuple[int, ...]]:
    """The billed parts of a request and the host's breakpoints in it."""
    parts = [
        PromptPart(digest, calibration.billed(tokens))
        for digest, tokens in zip(request.digests, request.tokens, strict=True)
    ]
    # The preamble is a part of its own even when it holds no token, so that a host prefix
    # reset still changes the first bytes of the prompt.
    if not (calibration.preamble_tokens or calibration.prefix_resets):
        return tuple(parts), (len(parts),)
    preamble = PromptPart(f"preamble {preamble_version}", calibration.preamble_tokens)
    # Pi's breakpoints: the end of the system prompt and the end of the request.
    return (preamble, *parts), (1, len(parts) + 1)


def model_check_skipped(prepared: PreparedTrace) -> str | None:
    """Why the model check cannot be made on ``prepared``, or None when it can."""
    simulated = prepared.prices.rules.family
    if simulated == prepared.recorded_family:
        return None
    return (
        f"skipped: priced as {prepared.prices.model} ({simulated}), but the trace was served "
        f"by a {prepared.recorded_family} cache, so its recorded reads say nothing of this one"
    )


def check_model(prepared: PreparedTrace, counter: TokenCounter) -> ModelCheck | None:
    """Replay the linear history and compare its simulated cache reads with the recorded ones.

    Run twice when the host reset its prefix somewhere: once as calibrated, once without the
    resets, so the report shows how much they matter. None when nothing was recorded, or when
    the simulated cache is of another family than the one that served the trace
    (:func:`model_check_skipped`).
    """
    calibration = prepared.calibration
    if not calibration.checked_requests or model_check_skipped(prepared) is not None:
        return None

    def simulated_reads(calibrated: PreparedTrace) -> int:
        run = run_arm(LinearArm(counter), calibrated, recall=False)
        return sum(run.bills[number].cache_read for number in calibration.checked_requests)

    without = None
    if calibration.prefix_resets:
        plain = replace(calibration, prefix_resets=frozenset())
        without = simulated_reads(replace(prepared, calibration=plain))
    return ModelCheck(
        len(calibration.checked_requests),
        simulated_reads(prepared),
        calibration.recorded_cache_read,
        without,
    )


def bench_trace(
    path: Path,
    settings: BenchSettings,
    counter: TokenCounter | None = None,
    book: PriceBook | None = None,
    progress: ProgressCallback | None = None,
) -> tuple[PreparedTrace, dict[str, ArmRun]]:
    """Run every requested arm over the trace at ``path``."""
    counter = counter if counter is not None else TiktokenCounter()
    book = book if book is not None else load_price_book()
    prepared = prepare_trace(path, settings, counter, book)
    return prepared, run_arms(prepared, settings.arms, settings.budget, counter, progress)


def run_arms(
    prepared: PreparedTrace,
    names: Sequence[str],
    budget: int,
    counter: TokenCounter,
    progress: ProgressCallback | None = None,
    recall: bool = True,
    fold_options: EngineOptions | None = None,
    cold_commit_share: float = COLD_COMMIT_SHARE,
) -> dict[str, ArmRun]:
    """Run the named arms over a prepared trace, each in its own state folder."""
    runs: dict[str, ArmRun] = {}
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"pifold-bench-{name}-") as state:
            arm = make_arm(
                name, Path(state), prepared, budget, counter, fold_options, cold_commit_share
            )
            try:
                runs[name] = run_arm(arm, prepared, progress, recall)
            finally:
                arm.close()
    return runs
