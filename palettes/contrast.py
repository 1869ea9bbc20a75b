"""WCAG 2 contrast on the 8-bit colours a terminal actually receives.

Everything here works on ``#RRGGBB`` strings or on arrays of 8-bit channel values, because
the guarantee the bar makes (4.5:1 for every shade) must hold for the quantised colour that
leaves the program, not for the floating-point colour that produced it.
"""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

TEXT_CONTRAST = 4.5
"""WCAG 2 success criterion 1.4.3: the minimum ratio for normal-size text."""

GRAPHIC_CONTRAST = 3.0
"""WCAG 2 success criterion 1.4.11: the minimum ratio for non-text interface parts."""

EQUAL_CONTRAST_LUMINANCE = 0.179
"""The background luminance at which black and white give the same contrast.

Solving ``(L + 0.05) / 0.05 == 1.05 / (L + 0.05)`` gives ``L ≈ 0.179``: below it a colour
gains contrast by getting lighter, above it by getting darker. At that point either extreme
still reaches about 4.58:1, so a search in the right direction always finds a passing colour.
"""

_HEX_PATTERN = re.compile(r"^#?([0-9a-fA-F]{6})$")

FloatArray = npt.NDArray[np.float64]


def normalise_hex(colour: str) -> str:
    """``colour`` as an upper-case ``#RRGGBB`` string.

    Raises:
        ValueError: ``colour`` is not six hexadecimal digits (with or without ``#``).
    """
    match = _HEX_PATTERN.match(colour.strip())
    if match is None:
        raise ValueError(f"colour {colour!r} is not a #RRGGBB hexadecimal colour")
    return "#" + match.group(1).upper()


def hex_to_rgb8(colour: str) -> tuple[int, int, int]:
    """The three 8-bit channels of a ``#RRGGBB`` colour."""
    digits = normalise_hex(colour)[1:]
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def rgb8_to_hex(red: int, green: int, blue: int) -> str:
    """The ``#RRGGBB`` string of three 8-bit channels."""
    return f"#{red:02X}{green:02X}{blue:02X}"


def quantise(unit_rgb: FloatArray) -> npt.NDArray[np.int64]:
    """Round colours with channels in [0, 1] (last axis) to 8-bit channels.

    Channels a hair outside [0, 1] from floating-point noise are clamped; callers keep real
    out-of-gamut colours away from here by reducing chroma first.
    """
    clamped = np.clip(unit_rgb, 0.0, 1.0)
    return np.asarray(np.floor(clamped * 255.0 + 0.5), dtype=np.int64)


def relative_luminance_rgb8(channels: npt.NDArray[np.int64]) -> FloatArray:
    """WCAG 2 relative luminance of 8-bit colours (channels on the last axis)."""
    unit = np.asarray(channels, dtype=np.float64) / 255.0
    # 0.04045 is the sRGB standard's knee; WCAG prints 0.03928, but no 8-bit value lies
    # between the two, so the results are identical.
    linear = np.where(unit <= 0.04045, unit / 12.92, ((unit + 0.055) / 1.055) ** 2.4)
    weights = np.array([0.2126, 0.7152, 0.0722])
    return np.asarray(linear @ weights, dtype=np.float64)


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of a ``#RRGGBB`` colour, in [0, 1]."""
    channels = np.array(hex_to_rgb8(colour), dtype=np.int64)
    return float(relative_luminance_rgb8(channels))


def contrast_from_luminance(first: FloatArray | float, second: float) -> FloatArray:
    """WCAG 2 contrast ratio between luminances (vectorised over ``first``)."""
    first_array = np.asarray(first, dtype=np.float64)
    lighter = np.maximum(first_array, second)
    darker = np.minimum(first_array, second)
    return np.asarray((lighter + 0.05) / (darker + 0.05), dtype=np.float64)


def contrast_ratio(first: str, second: str) -> float:
    """WCAG 2 contrast ratio between two ``#RRGGBB`` colours, from 1 to 21."""
    return float(contrast_from_luminance(relative_luminance(first), relative_luminance(second)))


def is_dark(background: str) -> bool:
    """Whether colours gain contrast on ``background`` by getting lighter.

    This is the sense of "dark" that matters for contrast: it splits at the luminance where
    black and white are equally far away, not at mid-grey.
    """
    return relative_luminance(background) < EQUAL_CONTRAST_LUMINANCE
