"""Every map on dark and light backgrounds: contrast, hue, separation, caching, bad input."""

from __future__ import annotations

import itertools
import math

import pytest

from palettes import (
    GRAPHIC_CONTRAST,
    MAP_NAMES,
    SHADE_COUNT,
    TEXT_CONTRAST,
    Palette,
    PaletteSetting,
    PaletteSettingError,
    contrast_ratio,
    delta_e,
    palette_for,
)
from palettes.assembly import cached_palette_count
from palettes.uniform import to_uniform

DARK_BACKGROUNDS = ("#121212", "#1E1E1E")
"""Textual's dark background and surface."""
LIGHT_BACKGROUNDS = ("#E0E0E0", "#FFFFFF")
"""Textual's light background, and paper white."""
BACKGROUNDS = DARK_BACKGROUNDS + LIGHT_BACKGROUNDS

SLICES = ((0.0, 1.0), (1.0, 0.0), (0.1, 0.9))
"""The full map, the full map reversed, and an inner slice."""

DISTINGUISHABLE = 6.0
"""Smallest ΔE′ (CAM02-UCS) allowed between adjacent categories.

ΔE′ ≈ 1 is about one just-noticeable difference for large patches side by side, but the
bar's patches are half a terminal cell wide, and colour discrimination drops sharply for
small fields; the categories must also be told apart at a glance, not on inspection. Six
units is several times the large-field threshold and clears the usual "obvious at a glance"
level, while staying reachable for the map with the least built-in variety: cividis is
designed to vary mostly in lightness, and pushing its dark half off a light background
leaves its closest neighbours at about 6.5. Every other map keeps adjacent ΔE′ above 12.
"""

HUE_DRIFT = 1.0
"""Largest hue difference ΔH′ allowed between a map sample and its adjusted shade.

ΔH′ = 2·√(C₁C₂)·sin(Δh/2) measures the hue change in the same units as ΔE′, so a greyish
colour, whose hue angle is ill-defined, is not penalised for a large angle it cannot show.
The only sources of drift are 8-bit quantisation and colorspacious round trips, which stay
well under one unit."""


def _hue_difference(first: str, second: str) -> float:
    _, first_a, first_b = to_uniform(first)
    _, second_a, second_b = to_uniform(second)
    first_chroma, second_chroma = math.hypot(first_a, first_b), math.hypot(second_a, second_b)
    angle = math.atan2(second_b, second_a) - math.atan2(first_b, first_a)
    angle = (angle + math.pi) % (2 * math.pi) - math.pi
    return 2 * math.sqrt(first_chroma * second_chroma) * abs(math.sin(angle / 2))


CASES = [
    (map_name, start, end, background)
    for map_name in MAP_NAMES
    for start, end in SLICES
    for background in BACKGROUNDS
]
"""Every map, slice and background. The palettes are made by the tests that use them
(``palette_for`` caches each), not at import: making all of them takes seconds, which
collection would pay in every test process."""


@pytest.fixture
def palette(request: pytest.FixtureRequest) -> Palette:
    map_name, start, end, background = request.param
    return palette_for(PaletteSetting(map_name, start, end), background)


def _id(case: tuple[str, float, float, str]) -> str:
    map_name, start, end, background = case
    return f"{map_name}-{start:g}-{end:g}-{background}"


all_palettes = pytest.mark.parametrize("palette", CASES, ids=_id, indirect=True)


@all_palettes
def test_every_shade_clears_text_contrast(palette: Palette) -> None:
    ratios = [contrast_ratio(shade, palette.background) for shade in palette.shades]
    assert min(ratios) >= TEXT_CONTRAST, ratios


@all_palettes
def test_hue_drift_stays_small(palette: Palette) -> None:
    drifts = [
        _hue_difference(sample, shade)
        for sample, shade in zip(palette.samples, palette.shades, strict=True)
    ]
    assert max(drifts) <= HUE_DRIFT, drifts


@all_palettes
def test_shades_move_away_from_the_background_only(palette: Palette) -> None:
    for sample, shade in zip(palette.samples, palette.shades, strict=True):
        change = to_uniform(shade)[0] - to_uniform(sample)[0]
        # Lighter on a dark background, darker on a light one (allowing quantisation noise).
        assert change * (1 if palette.dark else -1) >= -0.5, (sample, shade)


@all_palettes
def test_adjacent_categories_stay_distinguishable(palette: Palette) -> None:
    distances = [delta_e(first, second) for first, second in itertools.pairwise(palette.shades)]
    assert min(distances) >= DISTINGUISHABLE, distances


@all_palettes
def test_deeper_tones_stand_out_from_their_fill(palette: Palette) -> None:
    for shade, tone in zip(palette.shades, palette.deeper_tones, strict=True):
        assert contrast_ratio(shade, tone) >= GRAPHIC_CONTRAST
        assert _hue_difference(shade, tone) <= 2 * HUE_DRIFT
        # Towards the background: darker on dark themes, lighter on light ones.
        assert (to_uniform(tone)[0] < to_uniform(shade)[0]) == palette.dark


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_track_ink_and_notes(background: str) -> None:
    palette = palette_for(PaletteSetting(), background)
    assert 1.2 <= contrast_ratio(palette.track, background) < 1.5
    assert contrast_ratio(palette.muted_ink, palette.track) >= GRAPHIC_CONTRAST
    assert contrast_ratio(palette.muted_text, background) >= TEXT_CONTRAST
    assert palette.label_colours == palette.shades


def test_dark_and_light_palettes_differ() -> None:
    dark = palette_for(PaletteSetting(), "#1E1E1E")
    light = palette_for(PaletteSetting(), "#FFFFFF")
    assert dark.dark and not light.dark
    # Batlow's blue end is lifted on dark and kept on light; its pink end the other way.
    assert dark.shades[0] != dark.samples[0] and light.shades[0] == light.samples[0]
    assert dark.shades[5] == dark.samples[5] and light.shades[5] != light.samples[5]


def test_positions_are_even_and_reverse() -> None:
    setting = PaletteSetting("batlow", 0.1, 0.9)
    assert setting.positions == pytest.approx((0.1, 0.26, 0.42, 0.58, 0.74, 0.9))
    assert setting.reversed.positions == pytest.approx(tuple(reversed(setting.positions)))
    forwards = palette_for(setting, "#121212")
    backwards = palette_for(setting.reversed, "#121212")
    assert backwards.samples == tuple(reversed(forwards.samples))
    assert len(forwards.shades) == SHADE_COUNT


def test_known_batlow_samples() -> None:
    # cmap's batlow at 0, 0.4 and 1 with a 1024-entry table.
    samples = palette_for(PaletteSetting("batlow", 0.0, 1.0), "#FFFFFF").samples
    assert samples[0] == "#011959"
    assert samples[5] == "#FACCFA"


def test_results_are_cached_per_setting_and_background() -> None:
    setting = PaletteSetting("magma", 0.2, 0.8)
    first = palette_for(setting, "#121212")
    count = cached_palette_count()
    assert palette_for(PaletteSetting("magma", 0.2, 0.8), "#121212") is first
    assert palette_for(setting, "121212") is first  # same colour, other spelling
    assert cached_palette_count() == count
    assert palette_for(setting, "#E0E0E0") is not first
    assert cached_palette_count() == count + 1


@pytest.mark.parametrize(
    ("arguments", "field", "message"),
    [
        ({"map_name": "jet"}, "map", "unknown map 'jet'"),
        ({"start": 1.5}, "start", r"\[0, 1\]"),
        ({"start": -0.01}, "start", r"\[0, 1\]"),
        ({"end": 2}, "end", r"\[0, 1\]"),
        ({"end": math.nan}, "end", r"\[0, 1\]"),
        ({"start": "0.2"}, "start", "number"),
        ({"start": True}, "start", "number"),
        ({"start": 0.5, "end": 0.5}, "end", "differ from start"),
    ],
)
def test_bad_settings_name_the_field(
    arguments: dict[str, object], field: str, message: str
) -> None:
    with pytest.raises(PaletteSettingError, match=message) as caught:
        PaletteSetting(**arguments)  # type: ignore[arg-type]
    assert caught.value.field == field
    assert str(caught.value).startswith(f"palette {field}:")


def test_bad_background_is_rejected() -> None:
    with pytest.raises(ValueError, match="#RRGGBB"):
        palette_for(PaletteSetting(), "dark")
