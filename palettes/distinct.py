"""Whether a slice keeps the bar's six colours apart: the rule behind ``palette`` settings.

Adjacent categories must be told apart at a glance, which takes ΔE′ 6 (CAM02-UCS; why six:
``tests/palettes``). A narrow slice breaks it (batlow 0.5 → 0.51 samples six copies of one
colour), so a slice is refused when two adjacent colours it samples from the map fall under
ΔE′ 6, and the refusal names the narrowest slice from the same start that works.

The rule reads the map's own colours, not the shades drawn on a given background, for two
reasons. The background is the terminal's, which a settings file cannot know. And the shades
cost half a second per background to compute (each is searched along its lightness for
4.5:1), against a few milliseconds for the samples: a check that runs whenever a settings
file is read must be cheap. The shades then keep the spacing for the full maps and the slices
``tests/palettes`` draws, on dark and light backgrounds alike; pushing a slice off the
background changes lightness only and can bring its closest pair nearer, which the docs say
(cividis 0.01 → 0.84 on a dark terminal: map colours ΔE′ 13, shades 5.9).
"""

from __future__ import annotations

import itertools
from functools import lru_cache

from palettes.sampling import PaletteSetting, sample
from palettes.uniform import delta_e

DISTINGUISHABLE = 6.0
"""Smallest ΔE′ (CAM02-UCS) between the colours of adjacent categories."""

WIDTH_STEP = 0.01
"""The grid the narrowest working width is given on (what a slider moves by)."""


@lru_cache(maxsize=512)
def closest_adjacent(setting: PaletteSetting) -> float:
    """The ΔE′ of the closest two adjacent colours ``setting`` samples from its map."""
    colours = sample(setting)
    return min(delta_e(first, second) for first, second in itertools.pairwise(colours))


def distinct(setting: PaletteSetting) -> bool:
    """Whether every two adjacent colours of ``setting`` are ΔE′ 6 apart or more."""
    return closest_adjacent(setting) >= DISTINGUISHABLE


def _widened(setting: PaletteSetting, steps: int) -> PaletteSetting | None:
    """``setting`` from the same start, in the same direction, ``steps`` grid steps wide;
    ``None`` past the end of the map."""
    direction = 1.0 if setting.end > setting.start else -1.0
    end = round(setting.start + direction * steps * WIDTH_STEP, 6)
    if not 0.0 <= end <= 1.0:
        return None
    return PaletteSetting(setting.map_name, setting.start, end)


def narrowest_working(setting: PaletteSetting) -> PaletteSetting | None:
    """The narrowest slice from ``setting``'s start, in its direction and on the 0.01 grid,
    wider than it, that keeps the promise; ``None`` when not even the widest one does.

    Bisection takes the shades' spread to grow with the width, which holds for these maps
    but not to the last decimal; the answer is a slice that was checked and works.
    """
    low = int(abs(setting.end - setting.start) / WIDTH_STEP + 1e-9)  # taken to fail
    room = 1.0 - setting.start if setting.end > setting.start else setting.start
    high = int(room / WIDTH_STEP + 1e-9)
    if high <= low:
        return None  # no wider slice on the grid (one of zero width is not a slice)
    widest = _widened(setting, high)
    if widest is None or not distinct(widest):
        return None
    while high - low > 1:
        middle = (low + high) // 2
        candidate = _widened(setting, middle)
        if candidate is not None and distinct(candidate):
            high = middle
        else:
            low = middle
    return _widened(setting, high)


def slice_problem(setting: PaletteSetting) -> str | None:
    """Why ``setting`` is refused, naming the slice, the figure and what works; ``None``
    when its adjacent colours are ΔE′ 6 apart or more."""
    closest = closest_adjacent(setting)
    if closest >= DISTINGUISHABLE:
        return None
    named = f"{setting.map_name} {setting.start:g} → {setting.end:g}"
    problem = (
        f"palette {named} is too narrow: adjacent colours are ΔE′ {closest:.1f} apart, under "
        f"the {DISTINGUISHABLE:g} that tells the bar's categories apart"
    )
    working = narrowest_working(setting)
    if working is None:
        return f"{problem}; no slice from {setting.start:g} in that direction keeps them apart"
    width = abs(working.end - working.start)
    return (
        f"{problem}; the narrowest that works from {setting.start:g} is {width:.2f} wide "
        f"({setting.map_name} {working.start:g} → {working.end:g})"
    )


__all__ = [
    "DISTINGUISHABLE",
    "closest_adjacent",
    "distinct",
    "narrowest_working",
    "slice_problem",
]
