"""The editor at common terminal widths: which columns stay, a header that never wraps, and
a key footer that never cuts a word (issue 19)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from pifold_core.engine import Engine
from pifold_tui.screens.editor import FoldEditorScreen
from pifold_tui.screens.editor.columns import (
    FIXED_WIDTH,
    KIND_MIN,
    KIND_WIDTH,
    STATE_FIRST,
    STATE_WIDTH,
    columns_for,
)
from pifold_tui.screens.editor.window_map import WindowMap
from pifold_tui.screens.status.frame import FittedFooter
from tests.ui.screens.editor_fixtures import ScreenHost, wait_for_source


@given(st.integers(0, 400))
def test_columns_never_overflow_and_give_way_in_order(width: int) -> None:
    columns = columns_for(width)
    used = FIXED_WIDTH + columns.state + columns.kind + columns.text
    assert used == max(width, FIXED_WIDTH)
    assert len(columns.header()) <= max(width, FIXED_WIDTH)
    # The state's first cells before the kind, the kind before the rest of the state, and
    # all of them before the text.
    assert columns.kind == 0 or columns.state >= STATE_FIRST
    assert columns.state <= STATE_FIRST or columns.kind in (0, KIND_WIDTH)
    assert columns.text == 0 or columns.state == STATE_WIDTH
    assert columns.kind == 0 or columns.kind >= KIND_MIN


@pytest.mark.parametrize("size", [(80, 30), (120, 30)])
async def test_the_map_keeps_tokens_and_state_and_the_footer_whole_keys(
    size: tuple[int, int], read_only_engine: Engine
) -> None:
    engine = read_only_engine
    app = ScreenHost(FoldEditorScreen(engine, read_only=True))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await wait_for_source(pilot)
        screen = app.screen
        window_map = screen.query_one(WindowMap)
        header = screen.query_one("#editor-header", Static)
        assert header.region.height == 1
        text = str(header.render())
        assert "tokens" in text and "state" in text
        # The first fold's row: its handle, its tokens and its state all shown.
        first = window_map.rows[0]
        view = window_map.view_of(first)
        line = "".join(segment.text for segment in window_map.render_line(0))
        assert view.identifier in line and f"{view.tokens:,}" in line and view.state in line
        footer = screen.query_one(FittedFooter)
        shown = [key for key in footer.query(FooterKey) if key.display]
        hidden = [key for key in footer.query(FooterKey) if not key.display]
        right = max(key.region.right for key in shown)
        assert right <= size[0]
        for key in shown:  # every shown key is drawn whole
            assert key.region.width == key.outer_size.width > len(key.description)
        assert "escape" in {key.key for key in shown}  # the way out always shows
        if size[0] == 80:
            assert hidden  # more keys than 80 columns hold: some are left out, whole
