"""Exact cell tests of the pure renderer: which glyph and which category every cell gets.

Expected bars are written as space-separated cell codes (see ``BarCell.code``), with
``XX*n`` for n equal cells. A mismatch names each cell that differs.
"""

from __future__ import annotations

import pytest

from pifold_core.composition import Composition, FoldCounts
from pifold_tui.fold_bar.layout import (
    BAR_COLUMNS,
    BAR_STEPS,
    HALF_BLOCK,
    TARGET_MARK,
    BarLayout,
    BarState,
    Target,
    layout_bar,
    target_step,
)
from tests.ui.cases import FILL_CASES, SHAPE_CASES, STATE_CASES, C, M, P, R, S, T


def expand(description: str) -> list[str]:
    """``"CC*2 CS .."`` → ``["CC", "CC", "CS", ".."]``."""
    codes: list[str] = []
    for token in description.split():
        code, _, repeat = token.partition("*")
        codes.extend([code] * (int(repeat) if repeat else 1))
    return codes


def assert_cells(layout: BarLayout, description: str) -> None:
    expected = expand(description)
    assert len(expected) == BAR_COLUMNS, f"test bug: {len(expected)} cells described"
    wrong = [
        f"cell {index}: expected {want!r}, got {got!r}"
        for index, (want, got) in enumerate(zip(expected, layout.codes, strict=True))
        if want != got
    ]
    assert not wrong, "\n".join(wrong)


EMPTY_WITH_MARKS = "..*23 ┊.. ..*7 ┊.. ..*8"
"""Nothing filled; the minimum mark in cell 23 and the maximum in cell 31, on the track."""

FILL_34 = "CC*2 SS*3 TT MM*2 MR RR*3 RP P. ..*9 ┊.. ..*7 ┊.. ..*8"

EXPECTED: dict[str, str] = {
    "fill_0": EMPTY_WITH_MARKS,
    "fill_2": "SR ..*22 ┊.. ..*7 ┊.. ..*8",
    "fill_34": FILL_34,
    # 63 half-cells: the maximum mark's half (63) is still empty, so it stays on the track.
    "fill_79": "CC*4 CS SS*7 TT*3 MM*5 MR RR*2 ┊RR RR*5 RP PP ┊.. ..*8",
    # 64 half-cells: the fill reaches the maximum mark, which is drawn over pinned.
    "fill_80": "CC*4 CS SS*7 TT*3 MM*5 MR RR*2 ┊RR RR*6 PP ┊PP ..*8",
    "fill_100": "CC*6 SS*9 ST TT*3 MM*4 ┊MM MM*2 RR*5 ┊RR RR*5 RP PP*2",
    # The pinned 20 tokens keep one half-cell (cell 27, right half).
    "tiny_category": "SS*12 RR*11 ┊RR RR*3 RP ..*3 ┊.. ..*8",
    # 48 half-cells, eight each; the fill ends exactly at the minimum mark.
    "all_six": "CC*4 SS*4 TT*4 MM*4 RR*4 PP*3 ┊PP ..*7 ┊.. ..*8",
    # Two half-cells for six categories: raw and tool (the largest) take them, in bar order.
    "very_low": "TR ..*22 ┊.. ..*7 ┊.. ..*8",
    "not_measured": EMPTY_WITH_MARKS,
    "estimated_after_commit": FILL_34,
    "estimated": FILL_34,
    "folding_stopped": "_*12 F O L D I N G _ S T O P P E D _*13",
    "unavailable": EMPTY_WITH_MARKS,
    "no_composition": "..*40",
}

ALL_CASES: dict[str, Composition | None] = {**FILL_CASES, **SHAPE_CASES, **STATE_CASES}


def test_every_case_has_an_expectation() -> None:
    assert set(ALL_CASES) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_cells(name: str) -> None:
    assert_cells(layout_bar(ALL_CASES[name]), EXPECTED[name])


@pytest.mark.parametrize(
    ("name", "steps", "allocation"),
    [
        ("fill_0", 0, {}),
        ("fill_2", 2, {S: 1, R: 1}),
        ("fill_34", 27, {C: 4, S: 6, T: 2, M: 5, R: 8, P: 2}),
        ("fill_79", 63, {C: 9, S: 15, T: 6, M: 11, R: 18, P: 4}),
        ("fill_80", 64, {C: 9, S: 15, T: 6, M: 11, R: 19, P: 4}),
        ("fill_100", 80, {C: 12, S: 19, T: 7, M: 14, R: 23, P: 5}),
        ("tiny_category", 56, {S: 24, R: 31, P: 1}),
        ("very_low", 2, {T: 1, R: 1}),
    ],
)
def test_fill_steps_and_allocation(name: str, steps: int, allocation: dict[object, int]) -> None:
    layout = layout_bar(ALL_CASES[name])
    assert layout.fill_steps == steps
    assert layout.allocation == allocation


@pytest.mark.parametrize(
    ("name", "state"),
    [
        ("fill_34", BarState.MEASURED),
        ("not_measured", BarState.NOT_MEASURED),
        ("estimated_after_commit", BarState.ESTIMATED_AFTER_COMMIT),
        ("estimated", BarState.ESTIMATED),
        ("folding_stopped", BarState.FOLDING_STOPPED),
        ("unavailable", BarState.UNAVAILABLE),
        ("no_composition", BarState.UNAVAILABLE),
    ],
)
def test_state(name: str, state: BarState) -> None:
    assert layout_bar(ALL_CASES[name]).state is state


def test_glyphs_are_half_blocks_except_marks() -> None:
    cells = layout_bar(FILL_CASES["fill_34"]).cells
    marks = {index for index, cell in enumerate(cells) if cell.glyph == TARGET_MARK}
    assert marks == {23, 31}
    assert all(cell.glyph == HALF_BLOCK for index, cell in enumerate(cells) if index not in marks)
    assert cells[23].targets == (Target.MINIMUM,)
    assert cells[31].targets == (Target.MAXIMUM,)


def test_targets_in_one_cell_share_the_mark() -> None:
    base = FILL_CASES["fill_34"]
    same_cell = Composition(
        budget=base.budget,
        fill_tokens=base.fill_tokens,
        max_target=0.5,
        min_target=0.49,
        masses=base.masses,
        counts=base.counts,
    )
    cells = layout_bar(same_cell).cells
    assert cells[19].targets == (Target.MINIMUM, Target.MAXIMUM)
    assert sum(1 for cell in cells if cell.targets) == 1


@pytest.mark.parametrize(
    ("target", "step"),
    [(0.0, 0), (0.0125, 0), (0.025, 1), (0.5, 39), (0.55, 43), (0.8, 63), (1.0, 79), (1.5, 79)],
)
def test_target_step(target: float, step: int) -> None:
    assert target_step(target) == step
    assert 0 <= step < BAR_STEPS


def test_mark_keeps_a_lone_half_cell_visible() -> None:
    # Pinned owns only half-cell 46; the minimum mark sits in half-cell 47 of the same cell.
    # Drawn over the (empty) target half the pinned half-cell would vanish, so the mark is
    # drawn over pinned instead.
    lone = Composition(
        budget=200_000,
        fill_tokens=117_500,  # 47 half-cells
        max_target=0.8,
        min_target=0.6,
        masses={R: 117_400, P: 100},
        counts=FoldCounts(pins=1),
    )
    cells = layout_bar(lone).cells
    assert cells[23].code == "┊PP"
