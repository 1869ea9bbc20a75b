"""Compositions the bar tests share: every fill level, edge case and state the issue names.

Budget 200 000 tokens, band 60 % → 80 %, so the minimum mark sits in half-cell 47 (cell 23,
right half) and the maximum in half-cell 63 (cell 31, right half).
"""

from __future__ import annotations

from pifold_core.composition import Category, Composition, FoldCounts, Reading
from pifold_core.runway import Floor

BUDGET = 200_000
MIN_TARGET = 0.6
MAX_TARGET = 0.8

C, S, T, M, R, P = (
    Category.CONSOLIDATED,
    Category.SPAN,
    Category.TOOL,
    Category.MARKED,
    Category.RAW,
    Category.PINNED,
)

EXAMPLE_COUNTS = FoldCounts(consolidated=2, span=3, tool=2, marks=4, pins=1)
"""The counts of DESIGN §10's example suffix."""

SIX_MASSES = {C: 10_000, S: 16_000, T: 6_000, M: 12_000, R: 20_000, P: 4_000}
"""All six categories, 68 000 tokens."""


def composition(
    fill_tokens: int | None,
    masses: dict[Category, int] | None = None,
    counts: FoldCounts | None = None,
    *,
    reading: Reading = Reading.MEASURED,
    folding_stopped: bool = False,
) -> Composition:
    """A composition in the shared budget and band."""
    return Composition(
        budget=BUDGET,
        fill_tokens=fill_tokens,
        max_target=MAX_TARGET,
        min_target=MIN_TARGET,
        masses=dict(masses or {}),
        counts=counts or FoldCounts(),
        reading=reading,
        folding_stopped=folding_stopped,
    )


def scaled(masses: dict[Category, int], total: int) -> dict[Category, int]:
    """``masses`` rescaled to add up to about ``total`` tokens (the proportions matter)."""
    current = sum(masses.values())
    return {category: mass * total // current for category, mass in masses.items()}


FILL_CASES: dict[str, Composition] = {
    "fill_0": composition(0),
    "fill_2": composition(4_000, {S: 1_000, R: 3_000}, FoldCounts(span=1)),
    "fill_34": composition(68_000, SIX_MASSES, EXAMPLE_COUNTS),
    "fill_79": composition(158_000, scaled(SIX_MASSES, 158_000), EXAMPLE_COUNTS),
    "fill_80": composition(160_000, scaled(SIX_MASSES, 160_000), EXAMPLE_COUNTS),
    "fill_100": composition(200_000, scaled(SIX_MASSES, 200_000), EXAMPLE_COUNTS),
}
"""Occupancy 0, 2, 34, 79, 80 and 100 % of the budget."""

SHAPE_CASES: dict[str, Composition] = {
    # 70 % with 20 tokens pinned: the pinned share is 0.0001 of a half-cell by mass, yet it
    # must keep one half-cell.
    "tiny_category": composition(
        140_000,
        {S: 60_000, R: 79_980, P: 20},
        FoldCounts(span=5, pins=1),
    ),
    "all_six": composition(
        120_000,
        {C: 20_000, S: 20_000, T: 20_000, M: 20_000, R: 20_000, P: 20_000},
        FoldCounts(consolidated=1, span=1, tool=1, marks=1, pins=1),
    ),
    # 3 % is 2.4 → 2 half-cells for six categories: only the two largest show.
    "very_low": composition(6_000, {C: 500, S: 900, T: 1_500, M: 200, R: 2_500, P: 400}),
}
"""The visibility floor, all six categories, and too little room for everyone."""

STATE_CASES: dict[str, Composition | None] = {
    "not_measured": composition(None, reading=Reading.NOT_MEASURED),
    "estimated_after_commit": composition(
        68_000, SIX_MASSES, EXAMPLE_COUNTS, reading=Reading.ESTIMATED_AFTER_COMMIT
    ),
    "estimated": composition(68_000, SIX_MASSES, EXAMPLE_COUNTS, reading=Reading.ESTIMATED),
    "folding_stopped": composition(68_000, SIX_MASSES, EXAMPLE_COUNTS, folding_stopped=True),
    "unavailable": Composition.unavailable(BUDGET, MAX_TARGET, MIN_TARGET),
    "no_composition": None,
}
"""Every state the bar can be in."""

FLOOR = Floor(
    host_tokens=10_000,
    pin_tokens=0,
    fresh_tokens=1_200,
    other_tokens=300,
    expected_after=11_500,
    needed_after=9_000,
    budget_that_works=21_000,
)

BLOCKED = Composition(
    budget=BUDGET,
    fill_tokens=168_000,
    max_target=MAX_TARGET,
    min_target=MIN_TARGET,
    masses=dict(SIX_MASSES),
    counts=EXAMPLE_COUNTS,
    floor=FLOOR,
)
"""84 % full, past the trigger, and the floor keeps the commit from landing."""
