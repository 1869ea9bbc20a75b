"""Where everything goes in the bar's 40 cells: pure arithmetic, no colours, no Textual.

The bar is 40 terminal cells, each split into a left and a right half, so the fill moves in
80 steps. A layout says, for every cell, which category (or the empty track) owns each half,
whether a target mark sits there, and which glyph the cell shows. Tests read layouts cell by
cell, so a regression names the cell that moved.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from pifold_core.composition import CATEGORY_ORDER, Category, Composition, Reading

BAR_COLUMNS = 40
"""Terminal cells the bar occupies."""

BAR_STEPS = 2 * BAR_COLUMNS
"""Half-cells: the resolution of the fill."""

HALF_BLOCK = "▌"
"""Left half block: its foreground paints the left half, its background the right half."""

TARGET_MARK = "┊"
"""Dotted vertical line for the band's two targets."""

STOPPED_MESSAGE = "FOLDING STOPPED"
"""Replaces the bar when the engine has stopped folding."""

CATEGORY_CODES: dict[Category, str] = {
    Category.CONSOLIDATED: "C",
    Category.SPAN: "S",
    Category.TOOL: "T",
    Category.MARKED: "M",
    Category.RAW: "R",
    Category.PINNED: "P",
}
"""One letter per category, for readable cell descriptions in tests and logs."""

EMPTY_CODE = "."
"""The letter of a half-cell on the empty track."""

MESSAGE_SPACE_CODE = "_"
"""The code of a blank cell around a message, so descriptions can be split on spaces."""


class BarState(StrEnum):
    """What the bar is showing, which decides both the cells and the suffix."""

    MEASURED = "measured"
    ESTIMATED = "estimated"
    ESTIMATED_AFTER_COMMIT = "estimated_after_commit"
    NOT_MEASURED = "not_measured"
    FOLDING_STOPPED = "folding_stopped"
    UNAVAILABLE = "unavailable"


class Target(StrEnum):
    """The band's two edges."""

    MINIMUM = "min"
    """``min_target``: where a commit stops folding."""
    MAXIMUM = "max"
    """``max_target``: where a commit fires."""


@dataclass(frozen=True, slots=True)
class BarCell:
    """One terminal cell of the bar."""

    left: Category | None
    """The category of the left half, or ``None`` for the empty track."""
    right: Category | None
    """The category of the right half, or ``None`` for the empty track."""
    glyph: str = HALF_BLOCK
    """The character drawn in the cell."""
    targets: tuple[Target, ...] = ()
    """The target marks in this cell (both when the targets share a cell)."""

    @property
    def is_message(self) -> bool:
        """Whether the cell carries a letter of a message instead of fill."""
        return self.glyph not in (HALF_BLOCK, TARGET_MARK)

    @property
    def code(self) -> str:
        """A short description: two letters for the halves (``"CS"``, ``"R."``, ``".."``),
        prefixed by ``┊`` for a mark (``"┊TT"``); a message cell is its letter, with
        ``"_"`` for a space."""
        if self.is_message:
            return MESSAGE_SPACE_CODE if self.glyph == " " else self.glyph
        halves = _code(self.left) + _code(self.right)
        return halves if self.glyph == HALF_BLOCK else self.glyph + halves


def _code(category: Category | None) -> str:
    return EMPTY_CODE if category is None else CATEGORY_CODES[category]


@dataclass(frozen=True, slots=True)
class BarLayout:
    """The whole bar: 40 cells plus the figures they were made from."""

    state: BarState
    """What the bar shows."""
    cells: tuple[BarCell, ...]
    """Exactly :data:`BAR_COLUMNS` cells, left to right."""
    fill_steps: int
    """Half-cells of fill (0 to 80)."""
    allocation: dict[Category, int]
    """Half-cells per category inside the fill (they sum to :attr:`fill_steps`)."""

    @property
    def codes(self) -> tuple[str, ...]:
        """:attr:`BarCell.code` of every cell."""
        return tuple(cell.code for cell in self.cells)


def state_of(composition: Composition | None) -> BarState:
    """The state a composition puts the bar in; ``None`` counts as unavailable."""
    if composition is None or not composition.available:
        return BarState.UNAVAILABLE
    if composition.folding_stopped:
        return BarState.FOLDING_STOPPED
    if composition.fill_share is None or composition.reading is Reading.NOT_MEASURED:
        return BarState.NOT_MEASURED
    if composition.reading is Reading.ESTIMATED_AFTER_COMMIT:
        return BarState.ESTIMATED_AFTER_COMMIT
    if composition.reading is Reading.ESTIMATED:
        return BarState.ESTIMATED
    return BarState.MEASURED


def round_half_up(value: float) -> int:
    """Round to the nearest integer, halves upwards (``round`` would go to even)."""
    return math.floor(value + 0.5)


def fill_steps(composition: Composition) -> int:
    """Half-cells of fill for the composition's occupancy, 0 to :data:`BAR_STEPS`.

    Any non-zero occupancy shows at least one half-cell, so "something is there" never
    rounds away; occupancy above the budget fills the bar and no further.
    """
    share = composition.fill_share
    if share is None or composition.fill_tokens is None or composition.fill_tokens <= 0:
        return 0
    return max(1, min(BAR_STEPS, round_half_up(share * BAR_STEPS)))


def allocate(masses: Sequence[int], steps: int) -> tuple[int, ...]:
    """Split ``steps`` half-cells among categories in proportion to ``masses``.

    Every category with positive mass gets at least one half-cell when there are enough
    half-cells for all of them; the others share the rest by largest remainder, so the total
    is exact. With fewer half-cells than non-empty categories, the largest masses take one
    each (ties go to the category earlier in the bar).
    """
    counts = [0] * len(masses)
    present = [index for index, mass in enumerate(masses) if mass > 0]
    if steps <= 0 or not present:
        return tuple(counts)
    if steps < len(present):
        largest = sorted(present, key=lambda index: (-masses[index], index))[:steps]
        for index in largest:
            counts[index] = 1
        return tuple(counts)

    # Categories whose fair share is under one half-cell are raised to one; that shrinks
    # everyone else's share, which may push another under one, so repeat until stable.
    floored: set[int] = set()
    while True:
        free = [index for index in present if index not in floored]
        room = steps - len(floored)
        total = sum(masses[index] for index in free)
        quotas = {index: room * masses[index] / total for index in free}
        below_one = {index for index in free if quotas[index] < 1}
        if not below_one:
            break
        floored |= below_one
    for index in floored:
        counts[index] = 1
    for index in free:
        counts[index] = math.floor(quotas[index])
    leftover = steps - sum(counts)
    by_remainder = sorted(
        free, key=lambda index: (-(quotas[index] - counts[index]), -masses[index], index)
    )
    for index in by_remainder[:leftover]:
        counts[index] += 1
    return tuple(counts)


def target_step(target: float) -> int:
    """The half-cell a target mark sits in: the last one the fill must cover to reach it.

    So the mark is drawn over the fill exactly when the occupancy has reached the target
    (after the same rounding the fill uses), and on the empty track before that.
    """
    clamped = min(max(target, 0.0), 1.0)
    return min(max(round_half_up(clamped * BAR_STEPS) - 1, 0), BAR_STEPS - 1)


def _steps_of(
    composition: Composition, steps: int
) -> tuple[tuple[Category | None, ...], dict[Category, int]]:
    masses = [composition.mass(category) for category in CATEGORY_ORDER]
    if steps > 0 and sum(masses) <= 0:
        # Occupancy without any categorised mass can only be raw content: nothing has been
        # folded, marked or pinned yet.
        masses[CATEGORY_ORDER.index(Category.RAW)] = 1
    counts = allocate(masses, steps)
    halves: list[Category | None] = []
    for category, count in zip(CATEGORY_ORDER, counts, strict=True):
        halves.extend([category] * count)
    halves.extend([None] * (BAR_STEPS - len(halves)))
    allocation = {
        category: count for category, count in zip(CATEGORY_ORDER, counts, strict=True) if count
    }
    return tuple(halves), allocation


def _mark_owner(halves: Sequence[Category | None], step: int) -> Category | None:
    """The category a mark at half-cell ``step`` is drawn over.

    Normally the half the target falls in. But the mark covers the whole cell, so when the
    other half is the only half-cell a category has, that category wins: the visibility
    floor must not be hidden by a mark.
    """
    partner = step ^ 1  # the other half of the same cell
    partner_category = halves[partner]
    if (
        partner_category is not None
        and partner_category != halves[step]
        and sum(1 for category in halves if category == partner_category) == 1
    ):
        return partner_category
    return halves[step]


def _message_cells(message: str) -> list[BarCell]:
    padding = BAR_COLUMNS - len(message)
    text = " " * (padding // 2) + message + " " * (padding - padding // 2)
    return [BarCell(None, None, glyph=letter) for letter in text]


def layout_bar(composition: Composition | None) -> BarLayout:
    """The 40 cells of the bar for ``composition`` (``None``: nothing to show yet)."""
    state = state_of(composition)
    if composition is None:
        return BarLayout(state, (BarCell(None, None),) * BAR_COLUMNS, 0, {})
    if state is BarState.FOLDING_STOPPED:
        return BarLayout(state, tuple(_message_cells(STOPPED_MESSAGE)), 0, {})

    showing_fill = state not in (BarState.UNAVAILABLE, BarState.NOT_MEASURED)
    steps = fill_steps(composition) if showing_fill else 0
    halves, allocation = _steps_of(composition, steps)
    cells = [BarCell(halves[2 * column], halves[2 * column + 1]) for column in range(BAR_COLUMNS)]
    marks: dict[int, list[Target]] = {}
    for target, share in (
        (Target.MINIMUM, composition.min_target),
        (Target.MAXIMUM, composition.max_target),
    ):
        marks.setdefault(target_step(share), []).append(target)
    for step, targets in sorted(marks.items()):
        column = step // 2
        # Both targets may land in one cell; the mark then names both.
        existing = cells[column].targets
        owner = _mark_owner(halves, step)
        cells[column] = BarCell(owner, owner, TARGET_MARK, (*existing, *targets))
    return BarLayout(state, tuple(cells), steps, allocation)
