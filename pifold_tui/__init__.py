"""The Textual layer of pifold. Embed the fold bar with ``from pifold_tui import FoldBar``."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from palettes import PaletteSetting
    from pifold_tui.fold_bar import FoldBar

_HOMES = {"FoldBar": "pifold_tui.fold_bar", "PaletteSetting": "palettes"}
"""Where each name lives. They load on first use (the colour maps bring numpy), so the
terminal app draws its first frame before the bar is needed."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


__all__ = ["FoldBar", "PaletteSetting"]
