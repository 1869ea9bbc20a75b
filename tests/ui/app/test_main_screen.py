"""The main screen's layout bookkeeping (:mod:`pifold_tui.app.main_screen`).

A stream-layout list of two rows: the first holds a text two levels below the list, the
second is a text of its own. Both change in the same tick. Every arrangement the list's
stream layout returns is checked against each row's true height: on Textual's own screen
the first row keeps its old height for one layout (it was never recorded as changed, and
the second row was), on the main screen it never does. The Textual half is the upstream
behaviour the correction exists for: once Textual records the row itself, it fails, and
the correction can go.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.layout import ArrangeResult
from textual.layouts.stream import StreamLayout
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from pifold_tui.app.main_screen import MainScreen


class Row(Vertical):
    DEFAULT_CSS = "Row { height: auto; }"


class Rows(VerticalScroll):
    DEFAULT_CSS = "Rows { layout: stream; height: 1fr; }"


class TwoRows(App[None]):
    def __init__(self, screen_type: type[Screen[Any]]) -> None:
        super().__init__()
        self.screen_type = screen_type

    def get_default_screen(self) -> Screen[Any]:
        return self.screen_type(id="_default")

    def compose(self) -> ComposeResult:
        with Rows():
            with Row(id="deep"):
                yield Static("one line", id="inner")
            yield Static("second", id="flat")


def stale_heights(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """Watch every stream arrangement: ``(row id, placed height, true height)`` for each row
    placed at a height other than its content's."""
    seen: list[tuple[str, int, int]] = []
    arrange = StreamLayout.arrange

    def watched(
        layout: StreamLayout,
        parent: Widget,
        children: list[Widget],
        size: Size,
        greedy: bool = True,
    ) -> ArrangeResult:
        placements = arrange(layout, parent, children, size, greedy)
        for placement in placements:
            widget = placement.widget
            gutter_width, gutter_height = widget.styles.gutter.totals
            true = (
                widget.get_content_height(size, parent.app.viewport_size, size.width - gutter_width)
                + gutter_height
            )
            if placement.region.height != true:
                seen.append((widget.id or "", placement.region.height, true))
        return placements

    monkeypatch.setattr(StreamLayout, "arrange", watched)
    return seen


async def run_scene(screen_type: type[Screen[Any]], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    app = TwoRows(screen_type)
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        assert app.query_one("#deep").region.height == 1
        stale = stale_heights(monkeypatch)
        app.query_one("#inner", Static).update("1\n2\n3")
        app.query_one("#flat", Static).update("second, again")
        await pilot.pause()
        await pilot.pause()
        # Both screens come to rest right: the difference is the layout in between.
        assert app.query_one("#deep").region.height == 3
        return stale


async def test_textual_s_own_screen_lays_the_deep_row_out_at_its_old_height_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert await run_scene(Screen, monkeypatch) == [("deep", 1, 3)]


async def test_the_main_screen_never_places_a_row_at_a_stale_height(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert await run_scene(MainScreen, monkeypatch) == []
