"""The fold bar: pure layout, suffix and painting, plus the Textual widget."""

from __future__ import annotations

from pifold_tui.fold_bar.layout import (
    BAR_COLUMNS,
    BAR_STEPS,
    BarCell,
    BarLayout,
    BarState,
    layout_bar,
)
from pifold_tui.fold_bar.paint import BarColours, PaintedCell, paint, render_bar
from pifold_tui.fold_bar.suffix import fitted_suffix, suffix_parts, suffix_text
from pifold_tui.fold_bar.widget import FoldBar

__all__ = [
    "BAR_COLUMNS",
    "BAR_STEPS",
    "BarCell",
    "BarColours",
    "BarLayout",
    "BarState",
    "FoldBar",
    "PaintedCell",
    "fitted_suffix",
    "layout_bar",
    "paint",
    "render_bar",
    "suffix_parts",
    "suffix_text",
]
