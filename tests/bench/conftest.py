"""Fixtures for the benchmark's tests: synthetic sessions prepared for the arms."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pifold_agent.pricing.prices import load_price_book
from pifold_bench.prepare import BenchSettings, PreparedTrace, prepare_entries
from pifold_core.entries import Entry
from tests.bench.helpers import QuarterCounter

COUNTER = QuarterCounter()
BOOK = load_price_book()


def prepared(
    entries: Sequence[Entry],
    budget: int,
    planted: int = 0,
    summary_tokens: int | None = None,
    seed: int = 7,
) -> PreparedTrace:
    """``entries`` ready for the arms, priced as gpt-5.4, with no recorded usage."""
    settings = BenchSettings(
        budget=budget, planted=planted, summary_tokens=summary_tokens, seed=seed
    )
    return prepare_entries(entries, Path("synthetic.jsonl"), "synthetic", settings, COUNTER, BOOK)
