"""Which colour map, which slice of it, and the six colours sampled from that slice."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cmap import Colormap

MAP_NAMES: tuple[str, ...] = ("batlow", "viridis", "plasma", "magma", "cividis")
"""The maps a palette may use: perceptually uniform, sequential, readable by most forms of
colour-vision deficiency. batlow is by Fabio Crameri (MIT); viridis, plasma and magma by
van der Walt and Smith (CC0); cividis by Nuñez, Anderton and Renslow (BSD-3-Clause)."""

SHADE_COUNT = 6
"""One shade per category of the bar, from Consolidated Folds (at ``start``) to Pinned (at
``end``)."""

LOOKUP_RESOLUTION = 1024
"""Entries in the map's lookup table when sampling.

cmap snaps a position to the nearest of N table entries; 1024 keeps arbitrary slices smooth
(the maps themselves have 256 stops, interpolated linearly)."""


class PaletteSettingError(ValueError):
    """A palette setting is invalid; :attr:`field` names the offending setting."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"palette {field}: {message}")
        self.field = field
        """The name of the invalid field: ``"map"``, ``"start"`` or ``"end"``."""


def _check_position(field: str, value: object) -> float:
    # bool is an int subclass, but True as a map position is a mistake, not 1.0.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PaletteSettingError(field, f"must be a number in [0, 1], got {value!r}")
    position = float(value)
    if math.isnan(position) or not 0.0 <= position <= 1.0:
        raise PaletteSettingError(field, f"must lie in [0, 1], got {value!r}")
    return position


@dataclass(frozen=True, slots=True)
class PaletteSetting:
    """The user's palette choice: a map and the slice of it the six categories span.

    Raises:
        PaletteSettingError: on construction, for an unknown map, a position outside
            [0, 1] or equal start and end. The error's ``field`` names the culprit.
    """

    map_name: str = "batlow"
    """One of :data:`MAP_NAMES`."""
    start: float = 0.0
    """Map position of the Consolidated Folds shade, in [0, 1]."""
    end: float = 1.0
    """Map position of the Pinned shade, in [0, 1]; may be below ``start`` (the slice then
    runs backwards) but not equal to it."""

    def __post_init__(self) -> None:
        if not isinstance(self.map_name, str) or self.map_name not in MAP_NAMES:
            raise PaletteSettingError(
                "map", f"unknown map {self.map_name!r}; choose one of {', '.join(MAP_NAMES)}"
            )
        start = _check_position("start", self.start)
        end = _check_position("end", self.end)
        if start == end:
            raise PaletteSettingError(
                "end", f"must differ from start (both are {start:g}): six shades need a range"
            )
        # Normalise ints to floats so equal settings hash and cache alike.
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)

    @property
    def positions(self) -> tuple[float, ...]:
        """The :data:`SHADE_COUNT` evenly spaced map positions, start first."""
        step = (self.end - self.start) / (SHADE_COUNT - 1)
        inner = tuple(self.start + step * index for index in range(1, SHADE_COUNT - 1))
        # The ends are exact, so a slice to 1.0 really samples the last colour.
        return (self.start, *inner, self.end)

    @property
    def reversed(self) -> PaletteSetting:
        """The same slice run the other way."""
        return PaletteSetting(self.map_name, self.end, self.start)


@lru_cache(maxsize=len(MAP_NAMES))
def _colormap(map_name: str) -> Colormap:
    # cmap costs about a tenth of a second to import; only pay it when sampling.
    from cmap import Colormap

    return Colormap(map_name)


def sample(setting: PaletteSetting) -> tuple[str, ...]:
    """The six unadjusted ``#RRGGBB`` colours of ``setting``, Consolidated first."""
    colormap = _colormap(setting.map_name)
    return tuple(
        str(colormap(position, N=LOOKUP_RESOLUTION).hex).upper() for position in setting.positions
    )
