"""Driving every arm over one trace, with the same planted values, clock and cost model.

A trace is prepared once: values are planted, the recorded usage calibrates the billed
token counts (:mod:`pifold_bench.calibration`), request times and output tokens are read
off the trace, and the prices of its model are looked up. Then each arm replays the planted
trace on its own simulated provider: before every assistant entry the arm is asked for its
request, the wire audit classifies it against the previous one, and the provider bills it.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pifold_agent.importers import load_trace
from pifold_agent.pricing.arm_request import ArmRequest
from pifold_agent.pricing.compaction import DEFAULT_SUMMARY_TOKENS, NativeCompactionArm
from pifold_agent.pricing.prefix_cache import Bill, BilledRequest, PromptPart, SimulatedProvider
from pifold_agent.pricing.prices import ModelPrices, PriceBook, load_price_book, main_model
from pifold_bench.arms import Arm, ClipOnlyArm, EngineArm, LinearArm, UnbatchedArm
from pifold_bench.brief_probe import BriefProbe, probe_arm
from pifold_bench.calibration import (
    Calibration,
    ModelCheck,
    calibrate,
    lifetime_source,
    request_times,
)
from pifold_bench.causes import UncachedSplit, side_call_split, split_request
from pifold_bench.native import recorded_summaries
from pifold_bench.recall import PlantedValue, RecallResult, classify, plant_values
from pifold_bench.suggestion_measure import SuggestionMeasure, watch_suggestions
from pifold_core.audit import RequestClass, WireAudit
from pifold_core.entries import Entry
from pifold_core.options import EngineOptions, Thresholds
from pifold_core.runway import COLD_COMMIT_SHARE
from pifold_core.tokens import TiktokenCounter, TokenCounter

FOLD_ARMS: tuple[str, ...] = ("fold", "fold-no-cold", "fold-unbatched", "fold-immediate")
"""The arms that run the engine: an unattributed rewrite or a lost planted value in any of
them is a bug (the command exits 1 and the report shows it in red)."""

ARM_NAMES: tuple[str, ...] = (*FOLD_ARMS, "native", "none", "clip-only")
"""Every arm, in report order."""

ProgressCallback = Callable[[str, int, int], None]
"""Called as ``(label, entries done, entries in the trace)``."""


@dataclass(frozen=True, slots=True)
class BenchSettings:
    """What a benchmark run is asked to do."""

    budget: int = 100_000
    """The serving budget every arm works against, in estimated tokens."""
    arms: tuple[str, ...] = ARM_NAMES
    """Arms to run, in report order."""
    seed: int = 7
    """Seed for where and what values are planted."""
    planted: int = 12
    """Values to plant per trace (fewer when the trace has fewer tool results)."""
    summary_tokens: int | None = None
    """Native summary length; None: from the trace's recorded compactions, else the default."""
    price_model: str | None = None
    """Price every trace as this model; None: the trace's own model."""
    cache_lifetime_s: int | None = None
    """Bill under a cache that keeps an unused entry this many seconds; None: the priced
    family's lifetime from the price file."""


@dataclass(frozen=True)
class PreparedTrace:
    """One trace, ready for every arm."""

    path: Path
    """The trace file."""
    format: str
    """Its format as the importer detected it."""
    entries: list[Entry]
    """The entries with the values planted."""
    values: list[PlantedValue]
    """The planted values."""
    request_times: list[int]
    """When each request was sent (trace clock, ms)."""
    output_tokens: list[int]
    """Billed output tokens of each request."""
    calibration: Calibration
    """Preamble, scale and prefix resets measured from the recorded usage."""
    prices: ModelPrices
    """How requests are billed."""
    priced_as_own_model: bool
    """False when the model is not in the price file and the default model's prices apply."""
    summary_tokens: int
    """The native arm's summary length."""
    summary_source: str
    """Where :attr:`summary_tokens` came from."""
    recorded_family: str
    """The cache family of the provider that served the trace (of its main model, as the
    price file lists it; the default model's family for a model it does not list)."""
    raw_digests: set[str] = field(default_factory=set)
    """Wire digests of the planted entries (a window message with one is raw)."""
    lifetime_source: str = ""
    """Where the cache lifetime the provider bills under (and the engine arms are told) came
    from: ``--cache-lifetime``, or the priced model's descriptor checked against its family."""


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


def prepare_trace(
    path: Path, settings: BenchSettings, counter: TokenCounter, book: PriceBook
) -> PreparedTrace:
    """Import ``path`` and get it ready for the arms."""
    trace = load_trace(path)
    summaries = recorded_summaries(path, trace.entries)
    return prepare_entries(trace.entries, path, trace.format, settings, counter, book, summaries)


def prepare_entries(
    original: Sequence[Entry],
    path: Path,
    trace_format: str,
    settings: BenchSettings,
    counter: TokenCounter,
    book: PriceBook,
    summaries: Sequence[str] = (),
) -> PreparedTrace:
    """Get imported entries ready for the arms (``summaries``: compactions the trace recorded)."""
    recorded_model = main_model(original)
    model = settings.price_model if settings.price_model is not None else recorded_model
    prices, own = book.lookup(model)
    if settings.cache_lifetime_s is not None:
        rules = replace(prices.rules, lifetime_seconds=settings.cache_lifetime_s)
        prices = replace(prices, rules=rules)
    # Prefix resets are read off the recorded usage, so they are judged by the cache of the
    # provider that served the trace, whatever the trace is priced as.
    recorded_rules = book.lookup(recorded_model)[0].rules
    calibration = calibrate(original, counter, recorded_rules)
    entries, values = plant_values(original, settings.planted, settings.seed)
    outputs: list[int] = []
    for entry in entries:
        if entry.kind == "assistant":
            # Some hosts log usage before the answer is complete, so the answer's own size is
            # a floor for what was generated.
            own_size = calibration.billed(counter.count_message(entry.wire, entry.wire_digest))
            recorded = (entry.usage.output_tokens if entry.usage is not None else None) or 0
            outputs.append(max(recorded, own_size))
    if settings.summary_tokens is not None:
        summary_tokens, source = settings.summary_tokens, "set on the command line"
    elif summaries:
        lengths = [counter.count_text(summary) for summary in summaries]
        summary_tokens = round(sum(lengths) / len(lengths))
        source = f"mean of {len(summaries)} summary(ies) recorded in the trace"
    else:
        summary_tokens, source = DEFAULT_SUMMARY_TOKENS, "default (the trace records none)"
    return PreparedTrace(
        path=path,
        format=trace_format,
        entries=entries,
        values=values,
        request_times=request_times(entries),
        output_tokens=outputs,
        calibration=calibration,
        prices=prices,
        priced_as_own_model=own,
        summary_tokens=summary_tokens,
        summary_source=source,
        recorded_family=recorded_rules.family,
        raw_digests={entry.wire_digest for entry in entries},
        lifetime_source=lifetime_source(prices, settings.cache_lifetime_s is not None),
    )


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
