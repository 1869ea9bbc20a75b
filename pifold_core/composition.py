"""What fills the window, as plain data for the fold bar (DESIGN §10).

The engine produces a :class:`Composition`; a user interface renders it without asking the
engine anything else. This module is pure data: no engine, no terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pifold_core.runway import Floor


class Category(StrEnum):
    """The six categories of the bar, in the bar's order: most compressed first."""

    CONSOLIDATED = "consolidated"
    """Content inside collapsed consolidated folds (folds of folds)."""
    SPAN = "span"
    """Content inside collapsed span folds."""
    TOOL = "tool"
    """Tool results inside collapsed tool folds."""
    MARKED = "marked"
    """Raw content under a pending mark: it folds at the next commit."""
    RAW = "raw"
    """Raw content with no mark: eligible later."""
    PINNED = "pinned"
    """Entries the user or agent pinned: held raw through every commit."""


CATEGORY_ORDER: tuple[Category, ...] = tuple(Category)
"""The categories from most compressed to most settled."""

CATEGORY_LABELS: dict[Category, str] = {
    Category.CONSOLIDATED: "Consolidated Folds",
    Category.SPAN: "Span Folds",
    Category.TOOL: "Tool Folds",
    Category.MARKED: "Marked",
    Category.RAW: "Raw",
    Category.PINNED: "Pinned",
}
"""Human names of the categories, as a legend shows them."""


class Reading(StrEnum):
    """How trustworthy the fill figure is."""

    MEASURED = "measured"
    """The provider counted the last request; the fill adds an estimate of what followed."""
    NOT_MEASURED = "not_measured"
    """No provider count exists yet for this session."""
    ESTIMATED_AFTER_COMMIT = "estimated_after_commit"
    """A commit rewrote the window after the last count, so no count describes it yet: the
    fill is the engine's expectation for the next request (the last count moved by the
    calibrated estimate of what the commit took out and what was appended since), the very
    figure the commit trigger compares. The count taken before the commit is not shown: it
    describes a window that no longer exists (issue 19: a bar reading ``16% before commit``
    while the same screen expected 47.9 % for the next request)."""
    ESTIMATED = "estimated"
    """No provider count is available (for example a replay): the fill is the engine's
    own token estimate of the projection."""


@dataclass(frozen=True, slots=True)
class FoldCounts:
    """The numbers the bar's suffix names."""

    consolidated: int = 0
    """Visible (collapsed, outermost) consolidated folds."""
    span: int = 0
    """Visible span folds."""
    tool: int = 0
    """Visible tool folds."""
    marks: int = 0
    """Pending marks."""
    pins: int = 0
    """Pinned entries."""

    @property
    def folds(self) -> int:
        """Visible compressed folds: the ``N Folds`` of the suffix (marks and pins excluded)."""
        return self.consolidated + self.span + self.tool


@dataclass(frozen=True, slots=True)
class Composition:
    """Everything the fold bar shows, in tokens and counts."""

    budget: int
    """The serving budget (``providerInputBudget``) in tokens; every share is of this."""
    fill_tokens: int | None
    """Occupancy in tokens (provider count plus estimate), or ``None`` before any count."""
    max_target: float
    """Share of the budget at which a commit fires."""
    min_target: float
    """Share of the budget at which a commit stops folding."""
    masses: dict[Category, int]
    """Estimated tokens per category in the current projection."""
    counts: FoldCounts
    """Counts for the suffix."""
    reading: Reading = Reading.MEASURED
    """Whether :attr:`fill_tokens` is measured, estimated (after a commit, or for want of any
    count) or missing."""
    folding_stopped: bool = False
    """Folding has stopped (the engine is suspended); the bar says ``FOLDING STOPPED``."""
    available: bool = True
    """False when the composition could not be computed; the bar states it is unavailable."""
    floor: Floor | None = None
    """Set while a threshold commit is held back for want of runway: what blocks it."""
    prefix_tokens: int = 0
    """The host's fixed prefix (system prompt and tools), estimated like :attr:`masses`: part
    of the fill, in no category (no fold can take it out)."""

    @property
    def fill_share(self) -> float | None:
        """Occupancy as a share of the budget (may exceed 1), or ``None`` when unknown."""
        if self.fill_tokens is None or self.budget <= 0:
            return None
        return self.fill_tokens / self.budget

    def mass(self, category: Category) -> int:
        """Tokens in ``category`` (0 when absent)."""
        return self.masses.get(category, 0)

    @classmethod
    def unavailable(cls, budget: int, max_target: float, min_target: float) -> Composition:
        """A composition that only says it could not be computed."""
        return cls(
            budget=budget,
            fill_tokens=None,
            max_target=max_target,
            min_target=min_target,
            masses={},
            counts=FoldCounts(),
            reading=Reading.NOT_MEASURED,
            available=False,
        )
