"""A tiny app that shows one fold bar, for snapshot and widget tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from palettes import PaletteSetting
from pifold_core.composition import Composition
from pifold_tui import FoldBar

THEMES: dict[str, str] = {"dark": "textual-dark", "light": "textual-light"}
"""The two backgrounds every snapshot is taken on."""

SCREEN_SIZE = (128, 1)
"""Wide enough for the bar and its longest suffix."""


class BarHarness(App[None]):
    """Shows ``composition`` in a :class:`FoldBar` on ``theme``."""

    def __init__(
        self,
        composition: Composition | None,
        theme: str,
        setting: PaletteSetting | None = None,
        truecolor: bool | None = True,
    ) -> None:
        super().__init__()
        self._composition = composition
        self._setting = setting
        self._truecolor = truecolor
        self.theme = theme

    def compose(self) -> ComposeResult:
        yield FoldBar(self._composition, palette_setting=self._setting, truecolor=self._truecolor)


async def _run(
    app: BarHarness,
    action: Callable[[Pilot[None]], Awaitable[None]],
    size: tuple[int, int] = SCREEN_SIZE,
) -> None:
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await action(pilot)


def run(
    app: BarHarness,
    action: Callable[[Pilot[None]], Awaitable[None]],
    size: tuple[int, int] = SCREEN_SIZE,
) -> None:
    """Run ``action`` against the mounted app in a terminal of ``size``, from a synchronous
    test."""
    asyncio.run(_run(app, action, size))


def screenshot(app: BarHarness, size: tuple[int, int] = SCREEN_SIZE) -> str:
    """The app's SVG screenshot once it has settled, in a terminal of ``size``."""
    result: list[str] = []

    async def capture(pilot: Pilot[None]) -> None:
        await pilot.wait_for_scheduled_animations()
        result.append(pilot.app.export_screenshot(title="fold bar"))

    run(app, capture, size)
    return result[0]
