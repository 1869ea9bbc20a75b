"""A trace made ready for the arms: the run's settings, and one trace's preparation.

A trace is prepared once: values are planted (:mod:`pifold_bench.recall`), the recorded
usage calibrates the billed token counts (:mod:`pifold_bench.calibration`), request times and
output tokens are read off the trace, the prices of its model are looked up, and the native
arm's summary length is chosen. Every arm then replays the same :class:`PreparedTrace`
(:mod:`pifold_bench.run`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pifold_agent.importers import load_trace
from pifold_agent.pricing.compaction import DEFAULT_SUMMARY_TOKENS
from pifold_agent.pricing.prices import ModelPrices, PriceBook, main_model
from pifold_bench.calibration import Calibration, calibrate, lifetime_source, request_times
from pifold_bench.native import recorded_summaries
from pifold_bench.recall import PlantedValue, plant_values
from pifold_core.entries import Entry
from pifold_core.tokens import TokenCounter

FOLD_ARMS: tuple[str, ...] = ("fold", "fold-no-cold", "fold-unbatched", "fold-immediate")
"""The arms that run the engine: an unattributed rewrite or a lost planted value in any of
them is a bug (the command exits 1 and the report shows it in red)."""

ARM_NAMES: tuple[str, ...] = (*FOLD_ARMS, "native", "none", "clip-only")
"""Every arm, in report order."""


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


__all__ = [
    "ARM_NAMES",
    "FOLD_ARMS",
    "BenchSettings",
    "PreparedTrace",
    "prepare_entries",
    "prepare_trace",
]
