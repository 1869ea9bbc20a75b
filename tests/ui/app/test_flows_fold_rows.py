"""The conversation's fold rows follow the window when a fold screen changes it (issue 13):
a fold expanded in the editor shows its messages again once the editor closes, with no fold
row left standing for it, and the bar shows the new window."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_tui.screens.editor import FoldEditorScreen
from tests.ui.app.harness import (
    SIZE,
    assert_session_consistent,
    conversation,
    engine_of,
    flow_app,
    opened,
    options,
    prepare,
    run_to_end,
    send,
)
from tests.ui.app.test_flows import LONG_TURN_BUDGET


async def test_a_fold_expanded_in_the_editor_is_shown_unfolded_when_it_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "long_turn.jsonl", budget=LONG_TURN_BUDGET, yes=True))
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        await send(pilot, "count ten blocks")
        await run_to_end(app, pilot)
        engine = engine_of(app)
        rows = [view for view, _ in conversation(app).fold_views]
        assert rows, "the long turn committed no fold to show"
        handle = rows[0].handle
        rows[0].focus()
        await pilot.press("enter")  # a fold row opens the editor on its fold
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, FoldEditorScreen) and not editor.read_only
        selected = editor.window_map.selected
        assert selected is not None and selected.handle == handle
        await pilot.press("e")  # expand: the plan is shown first
        await pilot.pause()
        await pilot.press("enter")  # confirm it
        await pilot.pause()
        assert handle not in {row.handle for row in engine.fold_rows() if row.state == "collapsed"}
        await pilot.press("escape")  # leave the editor
        await pilot.pause()
        await pilot.pause()
        assert not isinstance(app.screen, FoldEditorScreen)

        shown_handles = [view.handle for view, _ in conversation(app).fold_views]
        assert handle not in shown_handles, "the expanded fold still shows as a fold row"
        assert app.bar is not None and app.bar.composition == engine.composition()
        assert_session_consistent(engine)
