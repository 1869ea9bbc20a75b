"""The words after the bar: ``34% · commit at 80% · 7 Folds (2 Cons., 3 Span, 1 Pin)``.

Pure text with a role per piece, so a painter can colour each kind's label like its part of
the bar without parsing the string back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pifold_core.composition import Category, Composition
from pifold_tui.fold_bar.layout import BarState, round_half_up, state_of

SEPARATOR = " · "
"""Between the suffix's three figures."""

UNAVAILABLE_TEXT = "composition unavailable"
NOT_MEASURED_TEXT = "not measured yet"
STALE_NOTE = " before commit"
"""Appended to a reading taken before the last commit rewrote the window."""
ESTIMATE_PREFIX = "~"
ESTIMATE_NOTE = " estimated"
"""Around a reading that is the engine's own estimate rather than the provider's count."""

KIND_LABELS: tuple[tuple[str, Category], ...] = (
    ("Cons.", Category.CONSOLIDATED),
    ("Span", Category.SPAN),
    ("Tool", Category.TOOL),
    ("Mark", Category.MARKED),
    ("Pin", Category.PINNED),
)
"""The counted kinds in the bar's order, each with the category whose colour it takes."""


class Role(StrEnum):
    """How a piece of the suffix is coloured."""

    TEXT = "text"
    """Ordinary foreground."""
    MUTED = "muted"
    """Separators, notes and states: secondary ink."""
    CATEGORY = "category"
    """A kind's count and label, in its category's colour."""


@dataclass(frozen=True, slots=True)
class SuffixPart:
    """A run of suffix text with one colour role."""

    text: str
    """The characters."""
    role: Role = Role.TEXT
    """How to colour them."""
    category: Category | None = None
    """For :attr:`Role.CATEGORY`, whose colour."""


def format_percent(fill_tokens: int, budget: int) -> str:
    """Occupancy as a whole percentage of the budget; ``<1%`` for a sliver, never ``0%``
    when something is there."""
    if budget <= 0:
        return "?%"
    percent = round_half_up(100 * fill_tokens / budget)
    if percent == 0 and fill_tokens > 0:
        return "<1%"
    return f"{percent}%"


def _reading_parts(composition: Composition, state: BarState) -> list[SuffixPart]:
    if state is BarState.NOT_MEASURED or composition.fill_tokens is None:
        return [SuffixPart(NOT_MEASURED_TEXT, Role.MUTED)]
    percent = format_percent(composition.fill_tokens, composition.budget)
    if state is BarState.STALE_AFTER_COMMIT:
        return [SuffixPart(percent), SuffixPart(STALE_NOTE, Role.MUTED)]
    if state is BarState.ESTIMATED:
        return [SuffixPart(ESTIMATE_PREFIX + percent), SuffixPart(ESTIMATE_NOTE, Role.MUTED)]
    return [SuffixPart(percent)]


def _folds_parts(composition: Composition) -> list[SuffixPart]:
    counts = composition.counts
    noun = "Fold" if counts.folds == 1 else "Folds"
    parts = [SuffixPart(f"{counts.folds} {noun}")]
    values = {
        Category.CONSOLIDATED: counts.consolidated,
        Category.SPAN: counts.span,
        Category.TOOL: counts.tool,
        Category.MARKED: counts.marks,
        Category.PINNED: counts.pins,
    }
    kinds = [(label, category) for label, category in KIND_LABELS if values[category] > 0]
    if not kinds:
        return parts
    parts.append(SuffixPart(" ("))
    for position, (label, category) in enumerate(kinds):
        if position:
            parts.append(SuffixPart(", "))
        parts.append(SuffixPart(f"{values[category]} {label}", Role.CATEGORY, category))
    parts.append(SuffixPart(")"))
    return parts


def thousands(tokens: int) -> str:
    """Tokens in whole thousands (``30k``), or as they are under a thousand."""
    return f"{round_half_up(tokens / 1_000)}k" if tokens >= 1_000 else str(tokens)


def _floor_parts(composition: Composition) -> list[SuffixPart]:
    """``blocked by floor (host 30k, pins 0, tail 9k; 75k budget works)``, when it is."""
    floor = composition.floor
    if floor is None:
        return []
    text = (
        f" blocked by floor (host {thousands(floor.host_tokens)}, pins "
        f"{thousands(floor.pin_tokens)}, tail {thousands(floor.fresh_tokens)}; "
        f"{thousands(floor.budget_that_works)} budget works)"
    )
    return [SuffixPart(text, Role.MUTED)]


def suffix_parts(composition: Composition | None) -> tuple[SuffixPart, ...]:
    """The suffix for ``composition`` as coloured runs (``None``: unavailable)."""
    state = state_of(composition)
    if composition is None or state is BarState.UNAVAILABLE:
        return (SuffixPart(UNAVAILABLE_TEXT, Role.MUTED),)
    commit = f"commit at {round_half_up(100 * composition.max_target)}%"
    return (
        *_reading_parts(composition, state),
        SuffixPart(SEPARATOR, Role.MUTED),
        SuffixPart(commit),
        *_floor_parts(composition),
        SuffixPart(SEPARATOR, Role.MUTED),
        *_folds_parts(composition),
    )


def suffix_text(composition: Composition | None) -> str:
    """The suffix as plain text."""
    return "".join(part.text for part in suffix_parts(composition))
