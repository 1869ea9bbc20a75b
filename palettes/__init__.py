"""Colour palettes for the fold bar: pure Python on cmap and colorspacious, no Textual.

The public surface is small: choose a :class:`PaletteSetting` (map, start, end) and ask
:func:`palette_for` for the :class:`Palette` on a given background colour.

The names load on first use, so a module that needs only the list of maps
(:data:`~palettes.sampling.MAP_NAMES`, which ``pifold_core.options`` checks a setting
against) does not import numpy and the colour libraries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from palettes.assembly import TRACK_CONTRAST, Palette, palette_for
    from palettes.contrast import GRAPHIC_CONTRAST, TEXT_CONTRAST, contrast_ratio, is_dark
    from palettes.sampling import MAP_NAMES, SHADE_COUNT, PaletteSetting, PaletteSettingError
    from palettes.uniform import ContrastUnreachableError, delta_e, hue_and_chroma

_HOMES = {
    "TRACK_CONTRAST": "assembly",
    "Palette": "assembly",
    "palette_for": "assembly",
    "GRAPHIC_CONTRAST": "contrast",
    "TEXT_CONTRAST": "contrast",
    "contrast_ratio": "contrast",
    "is_dark": "contrast",
    "MAP_NAMES": "sampling",
    "SHADE_COUNT": "sampling",
    "PaletteSetting": "sampling",
    "PaletteSettingError": "sampling",
    "ContrastUnreachableError": "uniform",
    "delta_e": "uniform",
    "hue_and_chroma": "uniform",
}
"""The module each name lives in."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [
    "GRAPHIC_CONTRAST",
    "MAP_NAMES",
    "SHADE_COUNT",
    "TEXT_CONTRAST",
    "TRACK_CONTRAST",
    "ContrastUnreachableError",
    "Palette",
    "PaletteSetting",
    "PaletteSettingError",
    "contrast_ratio",
    "delta_e",
    "hue_and_chroma",
    "is_dark",
    "palette_for",
]
