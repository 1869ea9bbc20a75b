"""Pushing six shades off the background without letting them collapse into one.

Moving each failing shade only as far as it must (the smallest lightness change that clears
4.5:1) stacks every failing shade on the same lightness. For maps whose character is mostly
lightness, such as cividis, the dark half of the map then turns into three near-identical
blue-greys on a dark terminal (adjacent ΔE′ about 3.5). Instead, the shades' lightness range
is compressed into the part of the range the background allows: the shade nearest the
background lands exactly on the contrast floor, the farthest keeps its lightness, and the
ones between keep their relative spacing. Every shade still moves only away from the
background, with its hue held, and every result is checked on its 8-bit form.
"""

from __future__ import annotations

from collections.abc import Sequence

from palettes.contrast import is_dark
from palettes.uniform import Adjustment, colour_at_lightness, reach_contrast, to_uniform

MINIMUM_SPREAD = 25.0
"""J′ the compressed range spans at least, when the whole slice sits too near the background.

Without it a slice lying entirely in the dark part of a map (say magma 0 → 0.3 on a dark
terminal) would be squeezed onto the contrast floor. 25 J′ across five gaps keeps adjacent
shades about 5 J′ apart before any difference in hue is counted."""

_LIGHTNESS_LIMIT = 100.0
"""The top of the J′ scale (white)."""


def push_off_background(
    samples: Sequence[str], background: str, ratio: float
) -> tuple[Adjustment, ...]:
    """Adjust ``samples`` so each clears ``ratio`` against ``background``, keeping order.

    When every sample already passes, nothing changes. Otherwise lightness is remapped
    linearly in "distance from the background" (J′ on a dark background, 100 − J′ on a light
    one) from [nearest sample, farthest sample] to [contrast floor, farthest sample], the
    floor being the highest distance any failing sample needed.
    """
    dark = is_dark(background)
    minimal = [reach_contrast(sample, background, ratio, lighter=dark) for sample in samples]
    if all(adjustment.unchanged for adjustment in minimal):
        return tuple(minimal)

    lightness = [float(to_uniform(sample)[0]) for sample in samples]

    def distance(value: float) -> float:
        # How far from the background side of the J′ scale a lightness lies.
        return value if dark else _LIGHTNESS_LIMIT - value

    def lightness_at(value: float) -> float:
        return value if dark else _LIGHTNESS_LIMIT - value

    distances = [distance(value) for value in lightness]
    floor = max(
        distances[index] + abs(adjustment.lightness_change)
        for index, adjustment in enumerate(minimal)
        if not adjustment.unchanged
    )
    nearest, farthest = min(distances), max(distances)
    top = min(max(farthest, floor + MINIMUM_SPREAD), _LIGHTNESS_LIMIT)
    width = farthest - nearest

    adjustments: list[Adjustment] = []
    for sample, own_lightness, own_distance in zip(samples, lightness, distances, strict=True):
        share = (own_distance - nearest) / width if width > 0 else 0.0
        target = floor + share * (top - floor)
        moved, scale = colour_at_lightness(sample, lightness_at(target))
        # Quantisation to 8 bits can lose a hair of contrast; finish with the smallest move.
        final = reach_contrast(moved, background, ratio, lighter=dark)
        adjustments.append(
            Adjustment(
                colour=final.colour,
                original=sample,
                lightness_change=float(to_uniform(final.colour)[0]) - own_lightness,
                chroma_scale=scale * final.chroma_scale,
            )
        )
    return tuple(adjustments)
