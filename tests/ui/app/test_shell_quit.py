"""Ctrl+Q at any moment of the demo leaves nothing half-done: no error from a widget being
torn down, exit status 0, the session checked and closed, its temporary folder removed.

The whole app as ``pifold`` opens it (the product's conversation and prompt) plays the demo
unpaced, so events pour in faster than the conversation shows them; Ctrl+Q is pressed when
the loop has emitted a seeded number of events (mid-reply, between tool calls, around a
commit). Textual re-raises at the end of ``run_test`` any error a handler raised, which is
what the user saw printed after the app had gone (``tests/fault/test_app_exit.py`` quits the
real command in a pty at random moments, at full size in the fault harness)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pifold_core.engine import Engine
from pifold_core.tokens import TiktokenCounter
from pifold_tui.app.app import PifoldApp
from pifold_tui.app.conversation import Conversation
from pifold_tui.app.launch import conversation_for, open_prompt_project, prompt_for
from tests.ui.app.harness import SIZE, EventWatch, assert_session_consistent
from tests.ui.app.shell_fixtures import demo_loader

MOMENTS = sorted(random.Random(19).sample(range(1, 700), 2))
"""Events emitted before Ctrl+Q, one case each."""


def unpaced_demo(cwd: Path) -> PifoldApp:
    return PifoldApp(
        demo_loader(cwd), conversation_for, prompt_for, cwd=cwd, on_session=open_prompt_project
    )


@pytest.mark.parametrize("moment", MOMENTS)
async def test_ctrl_q_at_any_moment_of_the_demo_leaves_cleanly(tmp_path: Path, moment: int) -> None:
    app = unpaced_demo(tmp_path)
    checked: list[Path] = []
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        session = app.session
        assert session is not None and session.engine is not None
        state = session.engine.state_dir
        remove = session.cleanup
        assert remove is not None

        def check_then_remove() -> None:
            # The session is closed by now: the state is checked as a reopen sees it.
            reopened = Engine.open(state, None, TiktokenCounter(), read_only=True)
            try:
                assert_session_consistent(reopened)
            finally:
                reopened.close()
            checked.append(state)
            remove()

        session.cleanup = check_then_remove
        watch = EventWatch(app)
        await watch.until(lambda event: len(watch.events) >= moment)
        await pilot.press("ctrl+q")
        assert app.leaving is not None
        await app.leaving.wait()
        assert app.return_code == 0
        assert app.session is None
        conversation = app.query_one(Conversation)
        assert conversation.streaming is None  # the aborted reply was settled on screen
    assert checked == [state]
    assert not state.parent.exists()
