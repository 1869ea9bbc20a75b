"""Colour palettes for the fold bar: pure Python on cmap and colorspacious, no Textual.

The public surface is small: choose a :class:`PaletteSetting` (map, start, end) and ask
:func:`palette_for` for the :class:`Palette` on a given background colour.
"""

from __future__ import annotations

from palettes.assembly import TRACK_CONTRAST, Palette, palette_for
from palettes.contrast import GRAPHIC_CONTRAST, TEXT_CONTRAST, contrast_ratio, is_dark
from palettes.sampling import MAP_NAMES, SHADE_COUNT, PaletteSetting, PaletteSettingError
from palettes.uniform import ContrastUnreachableError, delta_e, hue_and_chroma

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
