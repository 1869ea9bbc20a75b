"""WCAG 2 arithmetic and the hue-held lightness search."""

from __future__ import annotations

import pytest

from palettes.contrast import contrast_ratio, is_dark, normalise_hex, relative_luminance
from palettes.uniform import ContrastUnreachableError, hue_and_chroma, reach_contrast


@pytest.mark.parametrize(
    ("first", "second", "ratio"),
    [("#000000", "#FFFFFF", 21.0), ("#FFFFFF", "#FFFFFF", 1.0), ("#777777", "#FFFFFF", 4.48)],
)
def test_contrast_ratio_known_values(first: str, second: str, ratio: float) -> None:
    assert contrast_ratio(first, second) == pytest.approx(ratio, abs=0.01)
    assert contrast_ratio(second, first) == pytest.approx(ratio, abs=0.01)


def test_relative_luminance_uses_the_srgb_curve() -> None:
    assert relative_luminance("#000000") == 0.0
    assert relative_luminance("#FFFFFF") == pytest.approx(1.0)
    # 0x80 = 128: ((128/255 + 0.055) / 1.055) ** 2.4 = 0.2158
    assert relative_luminance("#808080") == pytest.approx(0.2158, abs=1e-4)


@pytest.mark.parametrize(
    ("background", "dark"),
    [
        ("#121212", True),
        ("#1E1E1E", True),
        ("#757575", True),
        ("#767676", False),
        ("#E0E0E0", False),
        ("#FFF", None),
    ],
)
def test_is_dark_splits_where_black_and_white_are_equal(background: str, dark: bool | None) -> None:
    if dark is None:
        with pytest.raises(ValueError, match="#RRGGBB"):
            is_dark(background)
    else:
        assert is_dark(background) is dark


def test_normalise_hex() -> None:
    assert normalise_hex("1e1e1e") == "#1E1E1E"
    with pytest.raises(ValueError):
        normalise_hex("#12345G")


def test_a_passing_colour_is_not_moved() -> None:
    adjustment = reach_contrast("#FACCFA", "#1E1E1E", 4.5, lighter=True)
    assert adjustment.unchanged
    assert adjustment.lightness_change == 0.0


def test_search_finds_the_smallest_passing_move_with_hue_held() -> None:
    adjustment = reach_contrast("#011959", "#1E1E1E", 4.5, lighter=True)
    assert contrast_ratio(adjustment.colour, "#1E1E1E") >= 4.5
    assert contrast_ratio(adjustment.colour, "#1E1E1E") < 4.6  # no further than needed
    assert adjustment.lightness_change > 0
    original_hue, _ = hue_and_chroma("#011959")
    moved_hue, _ = hue_and_chroma(adjustment.colour)
    assert abs(moved_hue - original_hue) < 2.0


def test_out_of_gamut_steps_reduce_chroma_instead_of_clipping() -> None:
    # Viridis' yellow must get much darker to read on white; at that lightness its full
    # chroma does not exist in sRGB.
    adjustment = reach_contrast("#FDE725", "#FFFFFF", 4.5, lighter=False)
    assert adjustment.chroma_scale < 1.0
    assert contrast_ratio(adjustment.colour, "#FFFFFF") >= 4.5
    original_hue, _ = hue_and_chroma("#FDE725")
    moved_hue, _ = hue_and_chroma(adjustment.colour)
    assert abs(moved_hue - original_hue) < 2.0


def test_impossible_contrast_is_an_error() -> None:
    with pytest.raises(ContrastUnreachableError, match="22"):
        reach_contrast("#808080", "#000000", 22.0, lighter=True)
