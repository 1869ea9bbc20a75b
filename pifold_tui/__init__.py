"""The Textual layer of pifold. Embed the fold bar with ``from pifold_tui import FoldBar``."""

from __future__ import annotations

from palettes import PaletteSetting
from pifold_tui.fold_bar import FoldBar

__all__ = ["FoldBar", "PaletteSetting"]
