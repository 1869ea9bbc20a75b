"""How much the verdict hangs on the cache's lifetime.

Recorded usage shows caches living longer than the price file's families say (a Codex gap of
37 minutes still read 78 %, a DeepSeek gap of 22 minutes all of it), and a commit policy that
reacts to cold caches behaves differently under another lifetime. So the report reruns every
arm under three lifetimes and states each arm's uncached input beside them: the arm's runs
are repeated, not merely re-billed, because an arm may act on whether the cache is warm.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pifold_bench.figures import arm_figures
from pifold_bench.prepare import PreparedTrace
from pifold_bench.run import run_arms
from pifold_core.options import EngineOptions
from pifold_core.tokens import TokenCounter

SENSITIVITY_LIFETIMES = (300, 600, 3_600)
"""Seconds: Anthropic's short lifetime, OpenAI's upper stated one, and an hour."""


def with_lifetime(prepared: PreparedTrace, seconds: int) -> PreparedTrace:
    """``prepared`` billed under a cache that keeps an unused entry ``seconds`` long.

    Only the billing changes: the prefix resets stay as calibrated, since they were judged
    by the cache of the provider that served the trace.
    """
    if seconds < 1:
        raise ValueError("a cache lifetime must be at least one second")
    prices = prepared.prices
    return replace(
        prepared, prices=replace(prices, rules=replace(prices.rules, lifetime_seconds=seconds))
    )


def lifetime_sensitivity(
    prepared: PreparedTrace,
    arms: Sequence[str],
    budget: int,
    counter: TokenCounter,
    lifetimes: Sequence[int] = SENSITIVITY_LIFETIMES,
    fold_options: EngineOptions | None = None,
) -> dict[int, dict[str, int]]:
    """Each arm's uncached input under each lifetime: ``{seconds: {arm: tokens}}``."""
    result: dict[int, dict[str, int]] = {}
    for seconds in lifetimes:
        variant = with_lifetime(prepared, seconds)
        runs = run_arms(variant, arms, budget, counter, recall=False, fold_options=fold_options)
        result[seconds] = {
            name: arm_figures(run, budget, len(prepared.values)).uncached_input
            for name, run in runs.items()
        }
    return result
