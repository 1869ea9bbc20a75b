"""The simulated provider on small cases computed by hand."""

from __future__ import annotations

import pytest

from pifold_agent.pricing.prefix_cache import BilledRequest, PromptPart, SimulatedProvider
from pifold_agent.pricing.prices import CacheRules, ModelPrices, Rates, load_price_book

MINUTE_MS = 60_000

EXACT_AUTOMATIC = CacheRules("exact", "automatic", 1, 1, 300, 0)
"""Automatic caching without minimum or steps, so reads equal shared prefixes exactly."""

FLAT = Rates(input=1.0, cache_write=1.25, cache_read=0.1, output=4.0)


def parts(*spec: tuple[str, int]) -> tuple[PromptPart, ...]:
    return tuple(PromptPart(digest, tokens) for digest, tokens in spec)


def provider(rules: CacheRules, rates: Rates = FLAT) -> SimulatedProvider:
    return SimulatedProvider(ModelPrices("test", rules, rates, None))


def test_a_change_at_position_k_rebills_exactly_what_follows_k() -> None:
    bench = provider(EXACT_AUTOMATIC)
    first = parts(("a", 1000), ("b", 2000), ("c", 3000), ("d", 4000))
    bench.bill(BilledRequest(first, 0, 10))
    changed = parts(("a", 1000), ("b", 2000), ("c-folded", 500), ("d", 4000), ("e", 700))
    bill = bench.bill(BilledRequest(changed, MINUTE_MS, 10))
    # Only a and b survive; the fold, the unchanged d after it and the new e are re-billed.
    assert bill.cache_read == 3000
    assert bill.fresh_input == 500 + 4000 + 700
    assert bill.cache_write == 0


def test_a_pure_append_reads_the_whole_previous_request() -> None:
    bench = provider(EXACT_AUTOMATIC)
    bench.bill(BilledRequest(parts(("a", 1000), ("b", 2000)), 0, 10))
    bill = bench.bill(BilledRequest(parts(("a", 1000), ("b", 2000), ("c", 300)), 1000, 10))
    assert (bill.cache_read, bill.fresh_input) == (3000, 300)


def test_openai_minimum_and_128_token_steps() -> None:
    rules = load_price_book().models["gpt-5.4"].rules
    assert (rules.minimum_tokens, rules.step_tokens) == (1024, 128)
    bench = provider(rules)
    small = parts(("a", 600), ("b", 400))
    bench.bill(BilledRequest(small, 0, 1))
    # 1,000 tokens were never cached (under 1,024), so nothing is read back.
    assert bench.bill(BilledRequest(small, 1000, 1)).cache_read == 0
    bench.bill(BilledRequest(parts(("a", 600), ("b", 400), ("c", 500)), 2000, 1))
    bill = bench.bill(BilledRequest(parts(("a", 600), ("b", 400), ("c", 500)), 3000, 1))
    # 1,500 shared tokens are read in whole 128-token steps: 11 x 128 = 1,408.
    assert bill.cache_read == 1408
    assert bill.fresh_input == 92


def test_a_cold_cache_rebills_everything() -> None:
    bench = provider(EXACT_AUTOMATIC)
    prompt = parts(("a", 1000), ("b", 2000))
    bench.bill(BilledRequest(prompt, 0, 1))
    bill = bench.bill(BilledRequest(prompt, 5 * MINUTE_MS + 1, 1))
    assert (bill.cache_read, bill.fresh_input) == (0, 3000)


def test_a_hit_refreshes_the_lifetime() -> None:
    bench = provider(EXACT_AUTOMATIC)
    prompt = parts(("a", 1000), ("b", 2000))
    bench.bill(BilledRequest(prompt, 0, 1))
    assert bench.bill(BilledRequest(prompt, 4 * MINUTE_MS, 1)).cache_read == 3000
    # Eight minutes after the first request but four after the refreshing hit: still warm.
    assert bench.bill(BilledRequest(prompt, 8 * MINUTE_MS, 1)).cache_read == 3000


def anthropic(lookback: int = 20, minimum: int = 1) -> SimulatedProvider:
    return provider(CacheRules("anthropic", "breakpoint", minimum, 1, 300, lookback))


def test_breakpoints_write_then_read_the_growing_prefix() -> None:
    bench = anthropic()
    first = parts(("system", 1000), ("u1", 200), ("r1", 300))
    bill = bench.bill(BilledRequest(first, 0, 50, breakpoints=(1, 3)))
    assert (bill.cache_read, bill.cache_write, bill.fresh_input) == (0, 1500, 0)
    second = (*first, *parts(("a1", 100), ("r2", 400)))
    bill = bench.bill(BilledRequest(second, 1000, 50, breakpoints=(1, 5)))
    # The tail breakpoint finds the previous tail entry two blocks back.
    assert (bill.cache_read, bill.cache_write, bill.fresh_input) == (1500, 500, 0)


def test_a_commit_behind_a_tail_breakpoint_rewrites_all_but_the_system_prompt() -> None:
    bench = anthropic()
    history = parts(("system", 1000), ("u1", 2000), ("r1", 3000), ("a1", 100), ("r2", 400))
    bench.bill(BilledRequest(history, 0, 50, breakpoints=(1, 5)))
    folded = parts(("system", 1000), ("fold", 300), ("a1", 100), ("r2", 400), ("r3", 50))
    bill = bench.bill(BilledRequest(folded, 1000, 50, breakpoints=(1, 5)))
    # No entry sits right before the changed bytes except the system prompt's.
    assert (bill.cache_read, bill.cache_write) == (1000, 850)


def test_the_lookback_stops_at_its_block_limit() -> None:
    bench = anthropic(lookback=2)
    start = parts(("system", 100), ("m0", 100))
    bench.bill(BilledRequest(start, 0, 1, breakpoints=(1, 2)))
    grown = (*start, *parts(("m1", 100), ("m2", 100), ("m3", 100)))
    bill = bench.bill(BilledRequest(grown, 1000, 1, breakpoints=(1, 5)))
    # The previous tail entry is three blocks back, one more than the lookback reaches.
    assert (bill.cache_read, bill.cache_write) == (100, 400)


def test_breakpoint_prefixes_under_the_minimum_are_not_cached() -> None:
    bench = anthropic(minimum=1024)
    prompt = parts(("system", 500), ("u1", 300))
    bench.bill(BilledRequest(prompt, 0, 1, breakpoints=(1, 2)))
    bill = bench.bill(BilledRequest(prompt, 1000, 1, breakpoints=(1, 2)))
    assert (bill.cache_read, bill.cache_write, bill.fresh_input) == (0, 0, 800)


def test_anthropic_prices_writes_at_1_25x_and_reads_at_0_1x() -> None:
    opus = load_price_book().models["claude-opus-4-5"]
    assert opus.rates.cache_write == pytest.approx(1.25 * opus.rates.input)
    assert opus.rates.cache_read == pytest.approx(0.1 * opus.rates.input)
    assert opus.rules.minimum_tokens == 4096
    bench = SimulatedProvider(opus)
    prompt = parts(("system", 10_000), ("u1", 2_000))
    write = bench.bill(BilledRequest(prompt, 0, 1_000, breakpoints=(1, 2)))
    read = bench.bill(BilledRequest(prompt, 1000, 1_000, breakpoints=(1, 2)))
    assert write.cost == pytest.approx((12_000 * 6.25 + 1_000 * 25.0) / 1e6)
    assert read.cost == pytest.approx((12_000 * 0.5 + 1_000 * 25.0) / 1e6)


def test_the_long_context_tier_prices_the_whole_request() -> None:
    gpt = load_price_book().models["gpt-5.5"]
    bench = SimulatedProvider(gpt)
    below = bench.bill(BilledRequest(parts(("a", 272_000)), 0, 1_000, cached=False))
    above = bench.bill(BilledRequest(parts(("b", 272_001)), 0, 1_000, cached=False))
    assert not below.above_tier and above.above_tier
    assert below.cost == pytest.approx((272_000 * 5.0 + 1_000 * 30.0) / 1e6)
    # One token over the line doubles the input rate for all 272,001 and lifts the output.
    assert above.cost == pytest.approx((272_001 * 10.0 + 1_000 * 45.0) / 1e6)


def test_tier_rates_apply_to_cached_tokens_too() -> None:
    gpt = load_price_book().models["gpt-5.5"]
    bench = SimulatedProvider(gpt)
    prompt = parts(("a", 128 * 1563), ("b", 128 * 782))  # whole 128-token steps: 300,160
    bench.bill(BilledRequest(prompt, 0, 0))
    bill = bench.bill(BilledRequest(prompt, 1000, 0))
    assert bill.cache_read == 300_160 and bill.above_tier
    assert bill.cost == pytest.approx(300_160 * 1.0 / 1e6)


def test_an_uncached_call_is_billed_whole_and_leaves_the_cache_alone() -> None:
    bench = provider(EXACT_AUTOMATIC)
    prompt = parts(("summary prompt", 5_000))
    first = bench.bill(BilledRequest(prompt, 0, 700, cached=False))
    second = bench.bill(BilledRequest(prompt, 1000, 700, cached=False))
    assert (first.fresh_input, first.output) == (5_000, 700)
    assert second.cache_read == 0
    assert first.cost == pytest.approx((5_000 * 1.0 + 700 * 4.0) / 1e6)


SONNET_RULES = load_price_book().models["claude-sonnet-4-5"].rules
"""Anthropic's rules as the price file states them: a 5-minute lifetime, a 1,024 minimum."""


def test_a_breakpoint_entry_is_warm_at_five_minutes_and_cold_one_millisecond_later() -> None:
    assert SONNET_RULES.lifetime_seconds == 300
    prompt = parts(("system", 1000), ("u1", 2000))
    warm = provider(SONNET_RULES)
    warm.bill(BilledRequest(prompt, 0, 1, breakpoints=(1, 2)))
    bill = warm.bill(BilledRequest(prompt, 300_000, 1, breakpoints=(1, 2)))
    assert (bill.cache_read, bill.cache_write, bill.fresh_input) == (3000, 0, 0)
    cold = provider(SONNET_RULES)
    cold.bill(BilledRequest(prompt, 0, 1, breakpoints=(1, 2)))
    bill = cold.bill(BilledRequest(prompt, 300_001, 1, breakpoints=(1, 2)))
    # Both entries (system prompt and tail) are gone: everything is written again.
    assert (bill.cache_read, bill.cache_write, bill.fresh_input) == (0, 3000, 0)


def test_a_breakpoint_hit_through_the_lookback_refreshes_that_entry() -> None:
    bench = provider(SONNET_RULES)
    first = parts(("system", 1000), ("u1", 2000), ("a1", 500))
    bill = bench.bill(BilledRequest(first, 0, 1, breakpoints=(1, 3)))
    assert (bill.cache_read, bill.cache_write) == (0, 3500)
    # The tail breakpoint sits two blocks later and finds the entry at block 3 (written at 0)
    # by looking back; that hit refreshes it, though no breakpoint of this request is there.
    grown = (*first, *parts(("r1", 400), ("a2", 100)))
    bill = bench.bill(BilledRequest(grown, 200_000, 1, breakpoints=(1, 5)))
    assert (bill.cache_read, bill.cache_write) == (3500, 500)
    # 450,000 ms after it was written but 250,000 after the hit, the block-3 entry is warm.
    # Without the refresh only the system prompt (rewritten at 200,000) would be read:
    # 1,000 read and 2,500 written.
    bill = bench.bill(BilledRequest(first, 450_000, 1, breakpoints=(1, 3)))
    assert (bill.cache_read, bill.cache_write, bill.fresh_input) == (3500, 0, 0)
