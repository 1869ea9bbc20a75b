"""The app as a person uses it (issue 13): the real conversation, prompt, bar and footer over
a real session, driven with Pilot key presses and the scripted provider.

Every flow ends by checking the session: zero unattributed rewrites, every fold verified
byte for byte, and a reopen beside the live engine rebuilding the same state.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_agent.loop.events import MessageEnd
from pifold_tui.app.footer import SessionFooter
from tests.ui.app.harness import (
    GREETING,
    SIZE,
    assert_session_consistent,
    conversation,
    engine_of,
    flow_app,
    opened,
    options,
    prepare,
    prompt_area,
    run_to_end,
    send,
)


async def test_a_prompt_streams_tool_calls_and_the_bar_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "tools.jsonl", yes=True))
    async with app.run_test(size=SIZE) as pilot:
        watch = await opened(app, pilot)
        bar = app.bar
        assert bar is not None
        empty = bar.composition
        await send(pilot, "make greet say hello, world")
        assert prompt_area(app).text == ""  # Enter sent it and cleared the input
        await run_to_end(app, pilot)

        types = watch.types()
        assert types[0] == "run_start" and types[-1] == "run_end"
        assert "message_update" in types  # the replies streamed
        calls = conversation(app).calls
        assert sorted(calls) == ["bash1", "edit1", "ls1", "read1"]
        assert [calls[name].state for name in ("read1", "edit1", "ls1")] == ["done"] * 3
        assert calls["bash1"].state == "error"  # check.py exits 3 once the edit landed
        assert "exit" in (calls["bash1"].result.text if calls["bash1"].result else "")
        assert (folders.cwd / "src" / "greet.py").read_text() == GREETING.replace(
            '"hello"', '"hello, world"'
        )
        # The second user turn of the script landed as a follow-up, shown as a user row.
        users = [
            event.entry.text
            for event in watch.events
            if isinstance(event, MessageEnd) and event.entry.kind == "user"
        ]
        assert users == ["make greet say hello, world", "and what does ls show?"]
        assert bar.composition is not None and bar.composition != empty
        footer = app.query_one(SessionFooter)
        assert footer.totals.requests == 6
        assert_session_consistent(engine_of(app))
