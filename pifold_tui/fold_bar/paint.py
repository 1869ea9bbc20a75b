"""Turning a layout and a suffix into coloured Rich segments: the bar's pure renderer.

Nothing here needs a running app. The widget decides *which* colours apply (the palette for
the widget's background on a truecolor terminal, the theme's own colours elsewhere) and
hands them in as :class:`BarColours`; this module only places them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style

from palettes import Palette
from pifold_core.composition import CATEGORY_ORDER, Category, Composition
from pifold_tui.fold_bar.layout import BAR_COLUMNS, BarCell, BarLayout, layout_bar
from pifold_tui.fold_bar.suffix import Role, SuffixPart, fitted_suffix

GAP = " "
"""Between the bar and its suffix."""


@dataclass(frozen=True, slots=True)
class BarColours:
    """Every colour the bar uses, as Rich colour strings (``#RRGGBB`` or names)."""

    categories: tuple[str, ...]
    """Fill colour per category, in bar order."""
    deeper_tones: tuple[str, ...]
    """Colour of a target mark drawn over each category's fill, in bar order."""
    track: str
    """The empty part of the bar."""
    muted_ink: str
    """A target mark on the empty track."""
    text: str
    """Ordinary suffix text and the ``FOLDING STOPPED`` message."""
    muted_text: str
    """Separators and notes in the suffix."""
    background: str
    """Behind the suffix."""

    @classmethod
    def from_palette(cls, palette: Palette, text: str) -> BarColours:
        """Truecolor colours: the palette made for the widget's background."""
        return cls(
            categories=palette.shades,
            deeper_tones=palette.deeper_tones,
            track=palette.track,
            muted_ink=palette.muted_ink,
            text=text,
            muted_text=palette.muted_text,
            background=palette.background,
        )

    def fill(self, category: Category | None) -> str:
        """The colour of a half-cell owned by ``category`` (the track for ``None``)."""
        if category is None:
            return self.track
        return self.categories[CATEGORY_ORDER.index(category)]

    def label(self, category: Category) -> str:
        """The suffix colour of a category's count: the colour of its part of the bar."""
        return self.categories[CATEGORY_ORDER.index(category)]

    def mark(self, category: Category | None) -> str:
        """The ink of a target mark over ``category`` (muted ink on the track)."""
        if category is None:
            return self.muted_ink
        return self.deeper_tones[CATEGORY_ORDER.index(category)]


@dataclass(frozen=True, slots=True)
class PaintedCell:
    """One cell as the terminal receives it."""

    text: str
    """The character."""
    foreground: str
    """Its colour."""
    background: str
    """The colour behind it."""
    bold: bool = False
    """Whether the character is bold (the stopped message)."""


def paint_cell(cell: BarCell, colours: BarColours) -> PaintedCell:
    """Colours for one bar cell."""
    if cell.targets:
        # The mark cell is painted in one colour: the owner's fill behind a deeper tone of
        # the same hue, so the mark has no colour of its own.
        return PaintedCell(cell.glyph, colours.mark(cell.left), colours.fill(cell.left))
    if cell.is_message:
        return PaintedCell(cell.glyph, colours.text, colours.track, bold=True)
    return PaintedCell(cell.glyph, colours.fill(cell.left), colours.fill(cell.right))


def paint_suffix(part: SuffixPart, colours: BarColours) -> PaintedCell:
    """Colours for a run of suffix text."""
    if part.role is Role.CATEGORY and part.category is not None:
        foreground = colours.label(part.category)
    elif part.role is Role.MUTED:
        foreground = colours.muted_text
    else:
        foreground = colours.text
    return PaintedCell(part.text, foreground, colours.background)


@lru_cache(maxsize=512)
def _style(foreground: str, background: str, bold: bool) -> Style:
    # Shared Style objects let Rich reuse its cached escape sequences and let Strip.simplify
    # merge runs; the set of colours a bar uses is small, so the cache stays small.
    return Style(color=foreground, bgcolor=background, bold=bold or None)


def to_segments(painted: Sequence[PaintedCell]) -> list[Segment]:
    """Rich segments for painted cells and runs."""
    return [
        Segment(item.text, _style(item.foreground, item.background, item.bold)) for item in painted
    ]


def paint(layout: BarLayout, parts: Sequence[SuffixPart], colours: BarColours) -> list[PaintedCell]:
    """The bar's cells, then a gap and the suffix if there is one, painted."""
    painted = [paint_cell(cell, colours) for cell in layout.cells]
    if parts:
        painted.append(PaintedCell(GAP, colours.text, colours.background))
        painted.extend(paint_suffix(part, colours) for part in parts)
    return painted


def suffix_columns(width: int | None) -> int | None:
    """Cells a row of ``width`` leaves the suffix after the bar and the gap (``None``: no
    limit)."""
    if width is None:
        return None
    return max(0, width - BAR_COLUMNS - len(GAP))


def render_bar(
    composition: Composition | None, colours: BarColours, width: int | None = None
) -> list[Segment]:
    """Everything the bar's row shows for ``composition`` in ``width`` cells, as Rich
    segments; the suffix is shortened to fit (:func:`.suffix.fitted_suffix`), never cut."""
    parts = fitted_suffix(composition, suffix_columns(width))
    return to_segments(paint(layout_bar(composition), parts, colours))
