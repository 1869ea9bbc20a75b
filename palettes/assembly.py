"""A complete bar palette for one background: shades, deeper tones, track and ink.

No single colour clears 4.5:1 on both a dark and a light terminal (for ``#1E1E1E`` and white
the luminance it would need is both ≥ 0.233 and ≤ 0.183), so a palette is always made for
one background, and the bar asks for another when the theme changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from palettes.contrast import GRAPHIC_CONTRAST, TEXT_CONTRAST, is_dark, normalise_hex
from palettes.sampling import SHADE_COUNT, PaletteSetting, sample
from palettes.spread import push_off_background
from palettes.uniform import Adjustment, reach_contrast

TRACK_CONTRAST = 1.25
"""Contrast of the empty track against the background: enough to show the bar's 40 columns,
quiet enough not to read as fill."""


@dataclass(frozen=True, slots=True)
class Palette:
    """The colours of the bar on one background, all as ``#RRGGBB``.

    Index ``i`` of every per-category tuple belongs to the ``i``-th category in the bar's
    order (Consolidated Folds first, Pinned last).
    """

    setting: PaletteSetting
    """The map and slice these colours come from."""
    background: str
    """The background every contrast guarantee below refers to."""
    dark: bool
    """Whether the background is dark (the shades were lightened rather than darkened)."""
    samples: tuple[str, ...]
    """The six colours straight from the map, before any adjustment."""
    adjustments: tuple[Adjustment, ...]
    """How each sample was moved to reach 4.5:1 (see :mod:`palettes.spread`)."""
    shades: tuple[str, ...]
    """The six category colours: each clears 4.5:1 against :attr:`background`."""
    deeper_tones: tuple[str, ...]
    """For each shade, the colour of a target mark drawn over it: same hue, moved towards
    the background until it clears 3:1 against the shade."""
    track: str
    """The empty part of the bar."""
    muted_ink: str
    """Target marks on the empty track: a neutral that clears 3:1 against :attr:`track`."""
    muted_text: str
    """Secondary text beside the bar (separators, notes): a neutral that clears 4.5:1
    against :attr:`background`."""

    @property
    def label_colours(self) -> tuple[str, ...]:
        """Colours for the suffix's category labels.

        They are the shades themselves: the labels then match the bar exactly, and the
        shades already clear the 4.5:1 that text needs on this background.
        """
        return self.shades


def _deeper_tone(shade: str, dark: bool) -> str:
    # A mark cut towards the background reads as a notch in the fill: darker on a dark
    # terminal, a paler notch on a light one. It always succeeds, because the shade already
    # has 4.5:1 against the background and the far end of that side has even more.
    return reach_contrast(shade, shade, GRAPHIC_CONTRAST, lighter=not dark).colour


@lru_cache(maxsize=128)
def _assemble(setting: PaletteSetting, background: str) -> Palette:
    dark = is_dark(background)
    samples = sample(setting)
    adjustments = push_off_background(samples, background, TEXT_CONTRAST)
    shades = tuple(adjustment.colour for adjustment in adjustments)
    track = reach_contrast(background, background, TRACK_CONTRAST, lighter=dark).colour
    muted_ink = reach_contrast(track, track, GRAPHIC_CONTRAST, lighter=dark).colour
    palette = Palette(
        setting=setting,
        background=background,
        dark=dark,
        samples=samples,
        adjustments=adjustments,
        shades=shades,
        deeper_tones=tuple(_deeper_tone(shade, dark) for shade in shades),
        track=track,
        muted_ink=muted_ink,
        muted_text=reach_contrast(background, background, TEXT_CONTRAST, lighter=dark).colour,
    )
    assert len(palette.shades) == SHADE_COUNT
    return palette


def palette_for(setting: PaletteSetting, background: str) -> Palette:
    """The bar palette of ``setting`` on ``background`` (``#RRGGBB``), cached.

    The cache key is (map, start, end, background), so switching themes back and forth or
    repainting for a new composition costs a dictionary lookup.

    Raises:
        ValueError: ``background`` is not a ``#RRGGBB`` colour.
    """
    return _assemble(setting, normalise_hex(background))


def cached_palette_count() -> int:
    """How many palettes the cache holds (for tests and diagnostics)."""
    return _assemble.cache_info().currsize
