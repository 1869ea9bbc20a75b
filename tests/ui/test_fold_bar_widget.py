"""The FoldBar widget: repainting on composition, palette and theme changes, and the
theme-colour fallback on terminals without truecolor."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from palettes import PaletteSetting, palette_for
from pifold_tui import FoldBar
from tests.ui.cases import FILL_CASES, STATE_CASES
from tests.ui.harness import BarHarness, run


def _row(bar: FoldBar) -> tuple[str, set[str]]:
    """The bar's first row as text, and every foreground colour it uses."""
    strip = bar.render_line(0)
    text = "".join(segment.text for segment in strip)
    colours = {
        segment.style.color.name.upper()
        for segment in strip
        if segment.style is not None and segment.style.color is not None
    }
    return text, colours


def test_public_import() -> None:
    import pifold_tui

    assert pifold_tui.FoldBar is FoldBar


def test_new_composition_repaints() -> None:
    async def check(pilot: Pilot[None]) -> None:
        bar = pilot.app.query_one(FoldBar)
        assert "not measured yet" in _row(bar)[0]
        bar.composition = FILL_CASES["fill_34"]
        await pilot.pause()
        text, _ = _row(bar)
        assert text.startswith("▌▌")
        assert "34% · commit at 80% · 7 Folds" in text

    run(BarHarness(STATE_CASES["not_measured"], "textual-dark"), check)


def test_theme_change_switches_to_the_light_palette() -> None:
    async def check(pilot: Pilot[None]) -> None:
        bar = pilot.app.query_one(FoldBar)
        dark = palette_for(PaletteSetting(), "#121212")
        assert set(dark.shades) <= _row(bar)[1]
        pilot.app.theme = "textual-light"
        await pilot.pause()
        light = palette_for(PaletteSetting(), "#E0E0E0")
        colours = _row(bar)[1]
        assert set(light.shades) <= colours
        assert not set(dark.shades) & colours - set(light.shades)

    run(BarHarness(FILL_CASES["fill_100"], "textual-dark"), check)


def test_palette_change_repaints() -> None:
    async def check(pilot: Pilot[None]) -> None:
        bar = pilot.app.query_one(FoldBar)
        bar.palette_setting = PaletteSetting("plasma", 0.9, 0.1)
        await pilot.pause()
        plasma = palette_for(PaletteSetting("plasma", 0.9, 0.1), "#121212")
        assert set(plasma.shades) <= _row(bar)[1]

    run(BarHarness(FILL_CASES["fill_100"], "textual-dark"), check)


def test_truecolor_terminal_uses_the_palette() -> None:
    async def check(pilot: Pilot[None]) -> None:
        assert pilot.app.query_one(FoldBar).uses_palette()

    run(BarHarness(FILL_CASES["fill_34"], "textual-dark", truecolor=None), check)


@pytest.mark.parametrize("term", ["xterm-256color", "xterm"])
def test_other_terminals_use_the_theme_colours(term: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.delenv("TEXTUAL_COLOR_SYSTEM", raising=False)
    monkeypatch.setenv("TERM", term)

    async def check(pilot: Pilot[None]) -> None:
        bar = pilot.app.query_one(FoldBar)
        assert not bar.uses_palette()
        theme = pilot.app.current_theme
        colours = bar.bar_colours()
        assert colours.categories[0].upper() == str(theme.primary).upper()
        assert colours.categories[1].upper() == str(theme.secondary).upper()
        assert colours.track != palette_for(PaletteSetting(), "#121212").track

    run(BarHarness(FILL_CASES["fill_34"], "textual-dark", truecolor=None), check)


def test_bar_is_one_row_and_keeps_its_forty_columns() -> None:
    async def check(pilot: Pilot[None]) -> None:
        bar = pilot.app.query_one(FoldBar)
        assert bar.size.height == 1
        text, _ = _row(bar)
        assert text[:40].strip() == "FOLDING STOPPED"
        assert text[40:].startswith(" 34%")

    run(BarHarness(STATE_CASES["folding_stopped"], "textual-light"), check)
