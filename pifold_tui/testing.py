"""Testing a host's fold bar: an app that shows one bar at a fixed size, theme and colour depth.

A snapshot of the bar must not depend on the terminal the tests happen to run in. Left to
itself, :class:`~pifold_tui.FoldBar` follows the terminal: the palette on a truecolor
terminal (``COLORTERM=truecolor``), the theme's own colours elsewhere, and Textual drops all
colour when ``NO_COLOR`` is set. So the same test would pass on a laptop and fail in CI.
:class:`FoldBarTestApp` pins every one of those choices, and :func:`fold_bar_svg` returns
the screenshot a snapshot library (syrupy, pytest-textual-snapshot) compares::

    from pifold_core.composition import Category, Composition, FoldCounts
    from pifold_tui.testing import fold_bar_svg

    def test_my_bar(snapshot):
        composition = Composition(
            budget=200_000, fill_tokens=68_000, max_target=0.8, min_target=0.2,
            masses={Category.SPAN: 30_000, Category.RAW: 38_000}, counts=FoldCounts(span=3),
        )
        assert fold_bar_svg(composition) == snapshot

:func:`fold_bar_text` gives the same bar as plain text, for exact-string assertions.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from contextlib import contextmanager

from textual.app import App, ComposeResult

from palettes import PaletteSetting
from pifold_core.composition import CATEGORY_ORDER, Composition
from pifold_tui.fold_bar import FoldBar
from pifold_tui.fold_bar.paint import BarColours, render_bar

DEFAULT_WIDTH = 100
"""Columns of the test terminal: the bar's 40 cells and its longest suffix fit."""

DARK_THEME = "textual-dark"
"""The theme a test draws on unless it asks for another (``textual-light`` for light)."""


@contextmanager
def _without_no_color() -> Iterator[None]:
    """Hide ``NO_COLOR`` while an app is built: Textual reads it once, in ``App.__init__``."""
    saved = os.environ.pop("NO_COLOR", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["NO_COLOR"] = saved


class FoldBarTestApp(App[None]):
    """An app showing one :class:`FoldBar`, whatever terminal the tests run in.

    Args:
        composition: What the bar shows (``None`` is a bar with no composition yet).
        theme: The Textual theme to draw on.
        truecolor: ``True`` paints with the palette, ``False`` with the theme's colours;
            either way the terminal's own colour depth is ignored.
        palette_setting: The colour map (batlow over its full range if omitted).
    """

    def __init__(
        self,
        composition: Composition | None,
        *,
        theme: str = DARK_THEME,
        truecolor: bool = True,
        palette_setting: PaletteSetting | None = None,
    ) -> None:
        with _without_no_color():
            super().__init__()
        self._composition = composition
        self._truecolor = truecolor
        self._palette_setting = palette_setting
        self.theme = theme

    def compose(self) -> ComposeResult:
        yield FoldBar(
            self._composition, palette_setting=self._palette_setting, truecolor=self._truecolor
        )


async def fold_bar_svg_async(
    composition: Composition | None,
    *,
    width: int = DEFAULT_WIDTH,
    theme: str = DARK_THEME,
    truecolor: bool = True,
    palette_setting: PaletteSetting | None = None,
    title: str = "fold bar",
) -> str:
    """The SVG screenshot of the bar in a terminal ``width`` columns wide and one row high,
    for a test that already runs in an event loop."""
    app = FoldBarTestApp(
        composition, theme=theme, truecolor=truecolor, palette_setting=palette_setting
    )
    async with app.run_test(size=(width, 1)) as pilot:
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        return app.export_screenshot(title=title)


def fold_bar_svg(
    composition: Composition | None,
    *,
    width: int = DEFAULT_WIDTH,
    theme: str = DARK_THEME,
    truecolor: bool = True,
    palette_setting: PaletteSetting | None = None,
    title: str = "fold bar",
) -> str:
    """The SVG screenshot of the bar (see :func:`fold_bar_svg_async`), from a plain test."""
    return asyncio.run(
        fold_bar_svg_async(
            composition,
            width=width,
            theme=theme,
            truecolor=truecolor,
            palette_setting=palette_setting,
            title=title,
        )
    )


_UNCOLOURED = BarColours(
    categories=("default",) * len(CATEGORY_ORDER),
    deeper_tones=("default",) * len(CATEGORY_ORDER),
    track="default",
    muted_ink="default",
    text="default",
    muted_text="default",
    background="default",
)
"""Colours for a text rendering, where only the characters count."""


def fold_bar_text(composition: Composition | None, *, width: int = DEFAULT_WIDTH) -> str:
    """The bar as plain text in ``width`` columns (half-blocks, marks and the suffix as it
    fits), for exact-string assertions; colours are left out."""
    return "".join(segment.text for segment in render_bar(composition, _UNCOLOURED, width))


__all__ = [
    "DARK_THEME",
    "DEFAULT_WIDTH",
    "FoldBarTestApp",
    "fold_bar_svg",
    "fold_bar_svg_async",
    "fold_bar_text",
]
