"""The bar's row at 40, 60, 80 and 120 columns: exact text, nothing cut inside a word.

The row is the 40 cells of the bar, a gap and the suffix (whose forms
:func:`pifold_tui.fold_bar.suffix.fitted_suffix` chooses); these tests read the whole row as
the terminal would receive it.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from palettes import PaletteSetting, palette_for
from pifold_core.composition import Composition
from pifold_tui.fold_bar.layout import BAR_COLUMNS, layout_bar
from pifold_tui.fold_bar.paint import BarColours, render_bar
from pifold_tui.fold_bar.suffix import (
    FULL_FORMS,
    SHORTENING_ORDER,
    fitted_forms,
    fitted_suffix,
    suffix_parts,
    suffix_text,
    width_of,
)
from tests.ui.cases import (
    BLOCKED,
    FILL_CASES,
    STATE_CASES,
    C,
    M,
    P,
    S,
    T,
    composition,
)

COLOURS = BarColours.from_palette(palette_for(PaletteSetting(), "#121212"), "#E0E0E0")

CASES: dict[str, Composition | None] = {
    "fill_34": FILL_CASES["fill_34"],
    "fill_2": FILL_CASES["fill_2"],
    "fill_100": FILL_CASES["fill_100"],
    "blocked": BLOCKED,
    "stale": STATE_CASES["estimated_after_commit"],
    "estimated": STATE_CASES["estimated"],
    "not_measured": STATE_CASES["not_measured"],
    "unavailable": STATE_CASES["unavailable"],
}


def row_text(case: Composition | None, width: int) -> str:
    """The row's characters as painted for a terminal ``width`` cells wide."""
    return "".join(segment.text for segment in render_bar(case, COLOURS, width))


def suffix_at(case: Composition | None, width: int) -> str:
    """What follows the bar's 40 cells and the gap at ``width``."""
    text = row_text(case, width)
    bar = "".join(cell.glyph for cell in layout_bar(case).cells)
    assert text.startswith(bar)
    return text[BAR_COLUMNS + 1 :]


EXPECTED: dict[str, dict[int, str]] = {
    "fill_34": {
        120: "34% · commit at 80% · 7 Folds (2 Cons., 3 Span, 2 Tool, 4 Mark, 1 Pin)",
        80: "34% · commit at 80% · 7 Folds",
        60: "34% · commit at 80%",
    },
    "fill_2": {
        120: "2% · commit at 80% · 1 Fold (1 Span)",
        80: "2% · commit at 80% · 1 Fold (1 Span)",
        60: "2% · commit at 80%",
    },
    "fill_100": {
        120: "100% · commit at 80% · 7 Folds (2 Cons., 3 Span, 2 Tool, 4 Mark, 1 Pin)",
        80: "100% · commit at 80% · 7 Folds",
        60: "100%",
    },
    "blocked": {
        120: "84% · commit at 80% blocked: 21k budget works · 7 Folds (2C 3S 2T 4M 1P)",
        80: "84% · commit blocked: 21k budget works",
        60: "84%",
    },
    "stale": {
        120: "~34% estimated after commit · commit at 80% · 7 Folds (2C 3S 2T 4M 1P)",
        80: "~34% after commit · commit at 80%",
        60: "~34% after commit",
    },
    "estimated": {
        120: "~34% estimated · commit at 80% · 7 Folds (2C 3S 2T 4M 1P)",
        80: "~34% estimated · commit at 80%",
        60: "~34% estimated",
    },
    "not_measured": {
        120: "not measured yet · commit at 80% · 0 Folds",
        80: "not measured yet · commit at 80%",
        60: "not measured yet",
    },
    "unavailable": {
        120: "composition unavailable",
        80: "composition unavailable",
        60: "unavailable",
    },
}


@pytest.mark.parametrize("width", [120, 80, 60])
@pytest.mark.parametrize("name", list(CASES))
def test_the_suffix_at_each_width(name: str, width: int) -> None:
    assert suffix_at(CASES[name], width) == EXPECTED[name][width]
    assert len(row_text(CASES[name], width)) <= width


@pytest.mark.parametrize("name", list(CASES))
def test_at_40_columns_the_bar_stands_alone(name: str) -> None:
    text = row_text(CASES[name], 40)
    assert text == "".join(cell.glyph for cell in layout_bar(CASES[name]).cells)


def test_without_a_width_the_suffix_is_written_out() -> None:
    assert "".join(part.text for part in fitted_suffix(BLOCKED, None)) == (
        "84% · commit at 80% blocked by floor (host 10k, pins 0, tail 1k; 21k budget works)"
        " · 7 Folds (2 Cons., 3 Span, 2 Tool, 4 Mark, 1 Pin)"
    )
    assert fitted_forms(BLOCKED, None) == FULL_FORMS


def test_letters_keep_each_kind_in_its_colour() -> None:
    forms = fitted_forms(BLOCKED, 79)
    assert forms is not None
    coloured = [
        (part.text, part.category) for part in suffix_parts(BLOCKED, forms) if part.category
    ]
    assert coloured == [("2C", C), ("3S", S), ("2T", T), ("4M", M), ("1P", P)]


every_case = st.sampled_from(
    [*CASES.values(), *FILL_CASES.values(), *STATE_CASES.values(), composition(1, {})]
)


@given(every_case, st.integers(min_value=0, max_value=200))
def test_the_suffix_fits_and_is_one_of_the_stated_forms(
    case: Composition | None, columns: int
) -> None:
    parts = fitted_suffix(case, columns)
    assert width_of(parts) <= columns
    text = "".join(part.text for part in parts)
    # Whatever was chosen is a whole form of the order, never a cut one.
    allowed = {suffix_text(case, forms) for forms in SHORTENING_ORDER} | {""}
    assert text in allowed
    # A wider row never shows less.
    wider = fitted_suffix(case, columns + 1)
    assert width_of(wider) >= width_of(parts)
