"""Per-arm figures: sums of the bills, window figures and the near-zero count."""

from __future__ import annotations

from pifold_agent.pricing.prefix_cache import Bill
from pifold_bench.causes import UncachedSplit
from pifold_bench.figures import arm_figures, near_zero_drops
from pifold_bench.recall import RecallResult
from pifold_bench.run import ArmRun


def test_near_zero_counts_drops_only_after_the_band_was_reached() -> None:
    budget = 100_000
    # Starts under 5% (no drop), reaches 20%, falls to 3% (one drop), stays low (still one),
    # climbs and falls again (two).
    windows = [1_000, 2_000, 25_000, 3_000, 2_500, 40_000, 4_000]
    assert near_zero_drops(windows, budget) == 2
    # A fall that never reached the band's lower edge first is a small session, not a drop.
    assert near_zero_drops([1_000, 15_000, 1_000], budget) == 0
    # A fall to 20% of the budget (the band's lower edge) is not near zero.
    assert near_zero_drops([80_000, 20_000, 80_000, 20_000], budget) == 0


def test_arm_figures_sum_requests_and_side_calls() -> None:
    run = ArmRun(
        name="native",
        bills=[
            Bill(1_000, 0, 0, 100, 0.01, False),
            Bill(200, 1_000, 0, 100, 0.02, False),
            Bill(50, 0, 900, 100, 0.03, True),
        ],
        side_bills=[Bill(5_000, 0, 0, 300, 0.04, True)],
        uncached_by_cause=UncachedSplit(appended=1_150, expired=100, rewrite=5_900),
        windows=[900, 1_150, 300],
        classes=["append", "append", "attributed"],
        first_event_request=2,
        events=1,
        recall=RecallResult({"a": "visible raw", "b": "lost", "c": "recoverable"}, {"c": 2}),
        seconds=0.5,
    )
    figures = arm_figures(run, budget=1_000, planted=3)
    assert (figures.requests, figures.appends, figures.attributed) == (3, 2, 1)
    assert figures.fresh_input == 1_000 + 200 + 50 + 5_000
    assert figures.cache_read == 1_000 and figures.cache_write == 900
    assert figures.uncached_input == figures.fresh_input + 900
    # Only the third request rewrote; the summarisation it needed is counted with it, prompt
    # and output.
    assert figures.rewrite_and_summary_tokens == 50 + 900 + 5_300
    assert figures.output == 600
    assert figures.total_tokens == 6_250 + 1_000 + 900 + 600
    assert abs(figures.cost - 0.10) < 1e-9
    assert (figures.side_calls, figures.side_call_tokens) == (1, 5_300)
    assert figures.above_tier == 2  # the third request and the summarisation call
    assert (figures.peak_window, figures.lowest_after_first_event) == (1_150, 300)
    assert (figures.over_budget, figures.first_over_budget) == (1, 2)
    recall = figures.recall
    assert (recall.visible_raw, recall.recoverable, recall.lost) == (1, 1, 1)
    assert recall.lost_values == ["b"] and recall.deepest_peek == 2
