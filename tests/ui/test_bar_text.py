"""The suffix text, the allocation rule and the painted colours of the pure renderer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from palettes import PaletteSetting, contrast_ratio, palette_for
from pifold_core.composition import CATEGORY_ORDER, Composition, FoldCounts
from pifold_tui.fold_bar.layout import BAR_STEPS, allocate, layout_bar
from pifold_tui.fold_bar.paint import BarColours, paint
from pifold_tui.fold_bar.suffix import Role, suffix_parts, suffix_text
from tests.ui.cases import FILL_CASES, SHAPE_CASES, STATE_CASES, C, P, R, S, composition

EXAMPLE_FOLDS = "7 Folds (2 Cons., 3 Span, 2 Tool, 4 Mark, 1 Pin)"


@pytest.mark.parametrize(
    ("case", "text"),
    [
        (FILL_CASES["fill_34"], f"34% · commit at 80% · {EXAMPLE_FOLDS}"),
        (FILL_CASES["fill_0"], "0% · commit at 80% · 0 Folds"),
        (FILL_CASES["fill_2"], "2% · commit at 80% · 1 Fold (1 Span)"),
        (FILL_CASES["fill_100"], f"100% · commit at 80% · {EXAMPLE_FOLDS}"),
        (SHAPE_CASES["tiny_category"], "70% · commit at 80% · 5 Folds (5 Span, 1 Pin)"),
        (STATE_CASES["not_measured"], "not measured yet · commit at 80% · 0 Folds"),
        (
            STATE_CASES["estimated_after_commit"],
            f"~34% estimated after commit · commit at 80% · {EXAMPLE_FOLDS}",
        ),
        (STATE_CASES["estimated"], f"~34% estimated · commit at 80% · {EXAMPLE_FOLDS}"),
        (STATE_CASES["folding_stopped"], f"34% · commit at 80% · {EXAMPLE_FOLDS}"),
        (STATE_CASES["unavailable"], "composition unavailable"),
        (None, "composition unavailable"),
    ],
)
def test_suffix_text(case: Composition | None, text: str) -> None:
    assert suffix_text(case) == text


def test_marks_and_pins_without_folds() -> None:
    fresh = composition(1_000, {R: 1_000}, FoldCounts(marks=2, pins=1))
    assert suffix_text(fresh) == "1% · commit at 80% · 0 Folds (2 Mark, 1 Pin)"


@pytest.mark.parametrize(
    ("fill_tokens", "percent"), [(1, "<1%"), (999, "<1%"), (1_000, "1%"), (210_000, "105%")]
)
def test_percent_never_rounds_something_to_zero(fill_tokens: int, percent: str) -> None:
    assert suffix_text(composition(fill_tokens, {R: fill_tokens})).startswith(percent + " ")


def test_overfull_fills_the_bar_and_no_more() -> None:
    assert layout_bar(composition(260_000, {R: 260_000})).fill_steps == BAR_STEPS


def test_only_counted_kinds_take_category_colours() -> None:
    parts = suffix_parts(FILL_CASES["fill_34"])
    coloured = [(part.text, part.category) for part in parts if part.role is Role.CATEGORY]
    assert [category for _, category in coloured] == [
        category for category in CATEGORY_ORDER if category.value != "raw"
    ]
    assert coloured[0] == ("2 Cons.", C)


masses_strategy = st.lists(st.integers(min_value=0, max_value=10**7), min_size=6, max_size=6)


@given(masses_strategy, st.integers(min_value=0, max_value=BAR_STEPS))
def test_allocation_is_exact_and_keeps_the_floor(masses: list[int], steps: int) -> None:
    counts = allocate(masses, steps)
    present = [index for index, mass in enumerate(masses) if mass > 0]
    assert all(counts[index] == 0 for index, mass in enumerate(masses) if mass == 0)
    if not present:
        assert sum(counts) == 0
        return
    assert sum(counts) == steps
    if steps >= len(present):
        assert all(counts[index] >= 1 for index in present)
    else:
        # Too little room: the largest masses take one half-cell each.
        chosen = {index for index in present if counts[index]}
        assert all(counts[index] <= 1 for index in present)
        assert min((masses[index] for index in chosen), default=10**8) >= max(
            (masses[index] for index in present if index not in chosen), default=0
        )


@given(masses_strategy, st.integers(min_value=6, max_value=BAR_STEPS))
def test_allocation_follows_mass(masses: list[int], steps: int) -> None:
    counts = allocate(masses, steps)
    # A category with more mass never gets fewer half-cells than one with less.
    for first in range(6):
        for second in range(6):
            if masses[first] > masses[second]:
                assert counts[first] >= counts[second]


DARK = palette_for(PaletteSetting(), "#121212")


def test_painted_cells_use_the_palette() -> None:
    colours = BarColours.from_palette(DARK, "#E0E0E0")
    painted = paint(layout_bar(FILL_CASES["fill_80"]), suffix_parts(FILL_CASES["fill_80"]), colours)
    pinned = DARK.shades[5]
    raw = DARK.shades[4]
    # Cell 0: consolidated on both halves.
    assert (painted[0].text, painted[0].foreground, painted[0].background) == (
        "▌",
        DARK.shades[0],
        DARK.shades[0],
    )
    # Cell 23: the minimum mark over raw, in raw's deeper tone.
    assert (painted[23].text, painted[23].foreground, painted[23].background) == (
        "┊",
        DARK.deeper_tones[4],
        raw,
    )
    # Cell 31: the maximum mark over pinned; cell 32 is the empty track.
    assert (painted[31].foreground, painted[31].background) == (DARK.deeper_tones[5], pinned)
    assert (painted[32].foreground, painted[32].background) == (DARK.track, DARK.track)
    # The suffix: a gap, then the reading in ordinary ink on the background.
    assert painted[40].text == " "
    assert (painted[41].text, painted[41].foreground, painted[41].background) == (
        "80%",
        "#E0E0E0",
        DARK.background,
    )


def test_mark_on_the_track_is_muted_ink() -> None:
    colours = BarColours.from_palette(DARK, "#E0E0E0")
    painted = paint(layout_bar(FILL_CASES["fill_0"]), (), colours)
    assert (painted[23].text, painted[23].foreground, painted[23].background) == (
        "┊",
        DARK.muted_ink,
        DARK.track,
    )
    assert contrast_ratio(DARK.muted_ink, DARK.track) >= 3.0


def test_labels_match_their_part_of_the_bar() -> None:
    colours = BarColours.from_palette(DARK, "#E0E0E0")
    case = composition(10_000, {S: 5_000, P: 5_000}, FoldCounts(span=2, pins=1))
    painted = paint(layout_bar(case), suffix_parts(case), colours)
    by_text = {item.text: item.foreground for item in painted[41:]}
    assert by_text["2 Span"] == painted[0].foreground == DARK.shades[1]
    assert by_text["1 Pin"] == DARK.shades[5]


def test_stopped_message_is_bold_on_the_track() -> None:
    colours = BarColours.from_palette(DARK, "#E0E0E0")
    painted = paint(layout_bar(STATE_CASES["folding_stopped"]), (), colours)
    letters = "".join(item.text for item in painted[:40])
    assert letters.strip() == "FOLDING STOPPED"
    assert all(item.bold and item.background == DARK.track for item in painted[:40])


@pytest.mark.parametrize(
    ("prefix", "named"),
    [(0, None), (640, "prefix 640"), (2_848, "prefix 2.8k"), (23_400, "prefix 23k")],
)
def test_the_fixed_prefix_is_named_after_the_reading(prefix: int, named: str | None) -> None:
    """The system prompt and tools are in the fill but in no category: the suffix names them
    (issue 22), and a composition without a prefix reads as before."""
    from dataclasses import replace

    case = replace(FILL_CASES["fill_34"], prefix_tokens=prefix)
    middle = "" if named is None else f"{named} · "
    assert suffix_text(case) == f"34% · {middle}commit at 80% · {EXAMPLE_FOLDS}"


def test_the_prefix_goes_with_the_fold_counts_when_the_width_is_short() -> None:
    from dataclasses import replace

    from pifold_tui.fold_bar.suffix import fitted_suffix

    case = replace(FILL_CASES["fill_34"], prefix_tokens=2_848)
    texts = {
        width: "".join(part.text for part in fitted_suffix(case, width))
        for width in (90, 60, 40, 30, 12)
    }
    assert texts == {
        90: f"34% · prefix 2.8k · commit at 80% · {EXAMPLE_FOLDS}",
        60: "34% · prefix 2.8k · commit at 80% · 7 Folds (2C 3S 2T 4M 1P)",
        40: "34% · prefix 2.8k · commit at 80%",
        30: "34% · commit at 80%",
        12: "34%",
    }
