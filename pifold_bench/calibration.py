"""Fitting the simulation to what the provider recorded, and checking it against that record.

The engine counts tokens with tiktoken and sees only the messages; the provider counts with
its own tokenizer and also bills the host's system prompt and tool definitions, which no
trace records as messages. Where a trace carries usage, three facts are measured from it and
applied to every arm alike:

* **preamble** and **scale**: each recorded prompt is fitted as ``preamble + scale x the
  estimated linear history`` (least squares over the checked requests). Billed tokens are
  the estimates times the scale, plus a preamble part in front of every request.
* **prefix resets**: a request the provider served no cached token at all although the
  previous one was inside the cache's lifetime means the host changed the start of its
  prompt there (a system prompt that carries the time, for example). The same host would
  have done so under every arm, so every arm's preamble changes at those requests.

The checked requests are the recorded calls of the trace's main model (side calls to another
model are skipped), up to the first one whose prompt shrank below half of the one before: a
native compaction or a cleared context in the recorded session, after which the recorded
prompt is no longer the linear history the ``none`` arm replays.

The **model check** then compares the ``none`` arm's simulated cache reads over the checked
requests with the cache reads the provider recorded for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from pifold_agent.pricing.prices import CacheRules, ModelPrices, main_model
from pifold_agent.providers.models import BUILT_IN as BUILT_IN_MODELS
from pifold_agent.providers.models import lookup as lookup_model
from pifold_core.entries import Entry
from pifold_core.tokens import TokenCounter

SHRINK_SHARE = 0.5
"""A recorded prompt below this share of the previous one marks a compaction or a reset."""

CHECK_TOLERANCE = 0.10
"""The model check passes when simulated reads are within 10% of the recorded ones."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """What the recorded usage says about the host and the provider's token counts."""

    preamble_tokens: int
    """Tokens in front of every request that the trace does not show (system prompt, tools)."""
    scale: float
    """Provider tokens per estimated token."""
    prefix_resets: frozenset[int]
    """Request numbers (0-based) before which the host changed its preamble."""
    checked_requests: tuple[int, ...]
    """Request numbers the model check covers."""
    recorded_cache_read: int
    """Cache reads the provider recorded over :attr:`checked_requests`."""
    recorded_compaction_at: int | None
    """The request where the recorded prompt shrank (a native compaction), if any."""
    main_model: str | None
    """The model that made most of the recorded requests."""

    def billed(self, estimated_tokens: int) -> int:
        """Provider tokens for a message estimated at ``estimated_tokens``."""
        return round(estimated_tokens * self.scale)


UNCALIBRATED = Calibration(0, 1.0, frozenset(), (), 0, None, None)
"""For a trace without recorded usage: no preamble, estimates billed as they are."""


def request_times(entries: Sequence[Entry]) -> list[int]:
    """When each request was sent: the time of the entry before its answer, never earlier
    than the request before it (real traces are not always in clock order)."""
    times: list[int] = []
    latest = 0
    for position, entry in enumerate(entries):
        if entry.kind == "assistant":
            before = entries[position - 1].timestamp_ms if position else entry.timestamp_ms
            latest = max(latest, before)
            times.append(latest)
    return times


def calibrate(entries: Sequence[Entry], counter: TokenCounter, rules: CacheRules) -> Calibration:
    """Fit preamble, scale and prefix resets to the trace's recorded usage.

    ``rules`` are the cache rules of the provider that served the trace (not those it is
    priced under): whether a request was warm, and so whether an empty read was a reset,
    is a fact about that provider.
    """
    model = main_model(entries)
    linear: list[int] = []
    recorded: list[tuple[int, int, int, str | None]] = []  # prompt, read, output, model
    history = 0
    for entry in entries:
        if entry.kind == "assistant":
            usage = entry.usage
            linear.append(history)
            if usage is None:
                recorded.append((0, 0, 0, entry.model))
            else:
                # 0 is "no reading" below (a prompt of 0 is skipped), as for no usage at all.
                recorded.append(
                    (
                        usage.prompt_tokens or 0,
                        usage.cache_read_tokens or 0,
                        usage.output_tokens or 0,
                        entry.model,
                    )
                )
        history += counter.count_message(entry.wire, entry.wire_digest)
    checked: list[int] = []
    compaction_at = None
    for number, (prompt, _read, _output, request_model) in enumerate(recorded):
        if prompt <= 0 or request_model != model:
            continue
        if checked and prompt < SHRINK_SHARE * recorded[checked[-1]][0]:
            compaction_at = number
            break
        checked.append(number)
    if not checked:
        return UNCALIBRATED
    preamble, scale = _fit(
        [linear[number] for number in checked], [recorded[number][0] for number in checked]
    )
    times = request_times(entries)
    resets: set[int] = set()
    lifetime_ms = rules.lifetime_seconds * 1000
    for previous, number in pairwise(checked):
        warm = times[number] - times[previous] <= lifetime_ms
        previous_cacheable = recorded[previous][0] >= rules.minimum_tokens
        if warm and previous_cacheable and recorded[number][1] < rules.minimum_tokens:
            resets.add(number)
    return Calibration(
        preamble_tokens=preamble,
        scale=scale,
        prefix_resets=frozenset(resets),
        checked_requests=tuple(checked),
        recorded_cache_read=sum(recorded[number][1] for number in checked),
        recorded_compaction_at=compaction_at,
        main_model=model,
    )


def _fit(estimated: list[int], recorded: list[int]) -> tuple[int, float]:
    """``recorded = preamble + scale x estimated``: the preamble from the first request, where
    the history is shortest, the scale by least squares over all of them.

    A free intercept would be pulled around by the tokenizer ratio drifting as the content
    changes (prose early, code later); the first request pins the preamble instead.
    """
    preamble = max(0, recorded[0] - estimated[0])
    squares = sum(history * history for history in estimated)
    if squares == 0:
        return preamble, 1.0
    scale = 1.0
    # Each refinement moves the preamble by the first request's share of the scale's change,
    # so this settles in a few rounds.
    for _ in range(50):
        scale = (
            sum(
                history * (prompt - preamble)
                for history, prompt in zip(estimated, recorded, strict=True)
            )
            / squares
        )
        if scale <= 0:
            return max(0, recorded[0] - estimated[0]), 1.0
        settled = max(0, recorded[0] - round(scale * estimated[0]))
        if settled == preamble:
            break
        preamble = settled
    return preamble, scale


def lifetime_source(prices: ModelPrices, from_option: bool) -> str:
    """Where ``prices``' cache lifetime comes from, for the report.

    A host tells the engine its model descriptor's lifetime; the bench tells the engine arms
    the lifetime the simulated provider bills under, so that a commit the engine makes on a
    cold cache finds the bill's cache cold too. For every model both tables list, the two agree.
    """
    seconds = prices.rules.lifetime_seconds
    family = prices.rules.family
    if from_option:
        return f"{seconds:,} s, set by --cache-lifetime"
    descriptor = lookup_model(prices.model, BUILT_IN_MODELS)
    if descriptor is None:
        return f"{seconds:,} s, the price file's {family} ({prices.model} has no descriptor)"
    if descriptor.cache_lifetime_s == seconds:
        return f"{seconds:,} s, the {prices.model} model descriptor's ({family} agrees)"
    return (
        f"{seconds:,} s, the price file's {family} (the {prices.model} descriptor says "
        f"{descriptor.cache_lifetime_s:,} s)"
    )


@dataclass(frozen=True, slots=True)
class ModelCheck:
    """The ``none`` arm's simulated cache reads against the provider's recorded ones."""

    requests: int
    """Requests compared."""
    simulated_cache_read: int
    """Cache reads the simulation billed the ``none`` arm for them."""
    recorded_cache_read: int
    """Cache reads the provider recorded for them."""
    simulated_without_resets: int | None = None
    """The simulated reads with no prefix reset applied (None: the trace showed none)."""

    @property
    def ratio(self) -> float | None:
        """Simulated over recorded, or None when nothing was recorded."""
        if self.recorded_cache_read == 0:
            return None
        return self.simulated_cache_read / self.recorded_cache_read

    @property
    def within_tolerance(self) -> bool | None:
        """Whether the ratio is within :data:`CHECK_TOLERANCE` of 1 (None: nothing to check)."""
        ratio = self.ratio
        return None if ratio is None else abs(ratio - 1) <= CHECK_TOLERANCE
