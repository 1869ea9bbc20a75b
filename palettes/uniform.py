"""Moving a colour's lightness in CAM02-UCS with its hue held.

CAM02-UCS (J′, a′, b′) is the perceptually uniform space viridis was designed in: equal
distances look roughly equally different, and hue is the angle of (a′, b′). Lightness moves
along J′ with that angle fixed. When a step leaves the sRGB gamut, the chroma (the length of
(a′, b′)) shrinks until the colour fits again; clipping RGB channels instead would drag the
hue towards the nearest primary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from colorspacious import cspace_convert

from palettes.contrast import (
    FloatArray,
    contrast_from_luminance,
    contrast_ratio,
    hex_to_rgb8,
    quantise,
    relative_luminance,
    relative_luminance_rgb8,
    rgb8_to_hex,
)

UNIFORM_SPACE = "CAM02-UCS"
"""The colorspacious name of the space every adjustment happens in."""

LADDER_STEPS = 1001
"""Lightness values tried between a colour and the end of its range.

A J′ range is at most 100 wide, so this gives steps of 0.1 J′ or finer, well below the
8-bit quantisation the result goes through anyway.
"""

_BISECTION_ROUNDS = 24
"""Halvings of the chroma scale: 2⁻²⁴ is far below one 8-bit step."""

_GAMUT_TOLERANCE = 1e-6
"""How far outside [0, 1] a channel may fall from floating-point noise alone."""


class ContrastUnreachableError(ValueError):
    """No lightness on the requested side of a colour reaches the requested contrast."""


@dataclass(frozen=True, slots=True)
class Adjustment:
    """The result of one lightness search."""

    colour: str
    """The adjusted colour as ``#RRGGBB`` (the colour that was checked)."""
    original: str
    """The colour the search started from."""
    lightness_change: float
    """J′ after minus J′ before; 0 when the original already passed."""
    chroma_scale: float
    """Share of the original chroma kept (1.0 unless the gamut forced a reduction)."""

    @property
    def unchanged(self) -> bool:
        """Whether the original colour passed as it was."""
        return self.colour == self.original


def to_uniform(colour: str) -> FloatArray:
    """The (J′, a′, b′) coordinates of a ``#RRGGBB`` colour."""
    unit = np.array(hex_to_rgb8(colour), dtype=np.float64) / 255.0
    with np.errstate(divide="ignore", invalid="ignore"):
        # colorspacious divides by the chroma when computing hue; greys give a harmless 0/0.
        return np.asarray(cspace_convert(unit, "sRGB1", UNIFORM_SPACE), dtype=np.float64)


def hue_and_chroma(colour: str) -> tuple[float, float]:
    """Hue angle in degrees [0, 360) and chroma of a colour in CAM02-UCS."""
    _, a_prime, b_prime = to_uniform(colour)
    hue = float(np.degrees(np.arctan2(b_prime, a_prime)) % 360.0)
    return hue, float(np.hypot(a_prime, b_prime))


def _to_unit_rgb(uniform: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(cspace_convert(uniform, UNIFORM_SPACE, "sRGB1"), dtype=np.float64)


def _inside_gamut(unit_rgb: FloatArray) -> npt.NDArray[np.bool_]:
    low_ok = np.all(unit_rgb >= -_GAMUT_TOLERANCE, axis=-1)
    high_ok = np.all(unit_rgb <= 1.0 + _GAMUT_TOLERANCE, axis=-1)
    finite = np.all(np.isfinite(unit_rgb), axis=-1)
    return np.asarray(low_ok & high_ok & finite)


def gamut_mapped(
    lightness: FloatArray, a_prime: float, b_prime: float
) -> tuple[FloatArray, FloatArray]:
    """sRGB colours (rows) for each J′ in ``lightness`` at the hue of (a′, b′).

    Returns the unit RGB rows and the chroma scale each row kept. Rows already inside the
    gamut keep scale 1; the others get the largest scale in [0, 1] that fits, by bisection
    (vectorised over the rows that need it).
    """
    count = lightness.shape[0]
    scales = np.ones(count)
    uniform = np.column_stack([lightness, np.full(count, a_prime), np.full(count, b_prime)])
    unit_rgb = _to_unit_rgb(uniform)
    outside = ~_inside_gamut(unit_rgb)
    if outside.any():
        rows = np.flatnonzero(outside)
        low = np.zeros(rows.size)  # a grey of that lightness always fits
        high = np.ones(rows.size)
        for _ in range(_BISECTION_ROUNDS):
            middle = (low + high) / 2.0
            trial = np.column_stack([lightness[rows], middle * a_prime, middle * b_prime])
            fits = _inside_gamut(_to_unit_rgb(trial))
            low = np.where(fits, middle, low)
            high = np.where(fits, high, middle)
        scales[rows] = low
        fitted = np.column_stack([lightness[rows], low * a_prime, low * b_prime])
        unit_rgb[rows] = _to_unit_rgb(fitted)
    return unit_rgb, scales


def reach_contrast(colour: str, against: str, ratio: float, *, lighter: bool) -> Adjustment:
    """Move ``colour`` along J′ (hue held) until its 8-bit form clears ``ratio`` against
    ``against``; the smallest move that passes wins.

    A colour that already passes is returned unchanged. ``lighter`` picks the direction:
    towards J′ = 100 or towards J′ = 0.

    Raises:
        ContrastUnreachableError: even the end of the range does not reach ``ratio``.
    """
    if contrast_ratio(colour, against) >= ratio:
        return Adjustment(colour, colour, 0.0, 1.0)
    start_lightness, a_prime, b_prime = to_uniform(colour)
    end_lightness = 100.0 if lighter else 0.0
    ladder = np.linspace(start_lightness, end_lightness, LADDER_STEPS)
    unit_rgb, scales = gamut_mapped(ladder, float(a_prime), float(b_prime))
    channels = quantise(unit_rgb)
    ratios = contrast_from_luminance(relative_luminance_rgb8(channels), relative_luminance(against))
    passing = np.flatnonzero(ratios >= ratio)
    if passing.size == 0:
        direction = "lighter" if lighter else "darker"
        raise ContrastUnreachableError(
            f"no {direction} colour of the hue of {colour} reaches {ratio}:1 against {against}"
        )
    first = int(passing[0])
    red, green, blue = (int(value) for value in channels[first])
    return Adjustment(
        colour=rgb8_to_hex(red, green, blue),
        original=colour,
        lightness_change=float(ladder[first] - start_lightness),
        chroma_scale=float(scales[first]),
    )


def colour_at_lightness(colour: str, lightness: float) -> tuple[str, float]:
    """``colour`` moved to J′ = ``lightness`` with its hue held, quantised to 8 bits.

    Returns the ``#RRGGBB`` result and the share of chroma the gamut allowed it to keep.
    """
    _, a_prime, b_prime = to_uniform(colour)
    unit_rgb, scales = gamut_mapped(np.array([lightness]), float(a_prime), float(b_prime))
    red, green, blue = (int(value) for value in quantise(unit_rgb)[0])
    return rgb8_to_hex(red, green, blue), float(scales[0])


def delta_e(first: str, second: str) -> float:
    """Euclidean distance ΔE′ between two colours in CAM02-UCS."""
    return float(np.linalg.norm(to_uniform(first) - to_uniform(second)))
