"""The cache-lifetime sensitivity: a pause costs a re-send only when it outlives the cache."""

from __future__ import annotations

from pathlib import Path

from pifold_bench.prepare import BenchSettings, prepare_entries
from pifold_bench.sensitivity import lifetime_sensitivity, with_lifetime
from tests.bench.conftest import BOOK, COUNTER, prepared
from tests.bench.helpers import Session


def _paused_session() -> Session:
    """Two turns with a twenty-minute pause before the second."""
    session = Session()
    session.long_turn(batches=4, characters=8_000)
    session.clock += 20 * 60 * 1_000
    session.long_turn(batches=4, characters=8_000, seed=1)
    return session


def test_with_lifetime_changes_only_the_lifetime() -> None:
    trace = prepared(_paused_session().entries, budget=200_000)
    variant = with_lifetime(trace, 3_600)
    assert variant.prices.rules.lifetime_seconds == 3_600
    assert variant.prices.rules.family == trace.prices.rules.family
    assert variant.prices.rates_for(1) == trace.prices.rates_for(1)
    assert variant.entries is trace.entries
    assert trace.prices.rules.lifetime_seconds != 3_600


def test_a_pause_longer_than_the_cache_costs_a_re_send_and_a_shorter_one_does_not() -> None:
    trace = prepared(_paused_session().entries, budget=200_000)
    figures = lifetime_sensitivity(trace, ("none", "fold"), 200_000, COUNTER, (600, 3_600))
    # Under ten minutes the twenty-minute pause empties the cache; under an hour it does not.
    assert figures[600]["none"] > figures[3_600]["none"]
    assert figures[600]["fold"] > figures[3_600]["fold"]
    # Nothing but the pause differs: the gap between the two is the re-sent first turn.
    assert figures[600]["none"] - figures[3_600]["none"] > 8 * 8_000 // 4 // 2


def test_the_cache_lifetime_setting_bills_under_that_lifetime() -> None:
    session = _paused_session()
    settings = BenchSettings(budget=200_000, planted=0, cache_lifetime_s=3_600)
    trace = prepare_entries(
        session.entries, Path("synthetic.jsonl"), "synthetic", settings, COUNTER, BOOK
    )
    assert trace.prices.rules.lifetime_seconds == 3_600
