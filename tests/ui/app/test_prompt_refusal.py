"""A paste too large for any request, in the app (Reliability II, defect 8): refused with an
error notification, the text back in the input, nothing recorded, and the session goes on;
the same for a steering message sent during a run."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.loop.events import MessageEnd
from pifold_tui.app.prompt import PromptArea, PromptInput
from tests.ui.app.shell_fixtures import (
    EventLog,
    assert_session_consistent,
    live_options,
    write_script,
)
from tests.ui.app.test_prompt_in_app import GATED_COMMAND, SIZE, app_with_prompt, wait_for

BUDGET = 6_000

PASTE = "a pasted build log line\n" * 4_000
"""About 24,000 tokens: four times the budget."""


async def test_an_oversized_prompt_is_refused_and_kept_in_the_input(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "script.jsonl",
        [
            {
                "assistant": "Looking.",
                "tool_calls": [
                    {"id": "c1", "name": "bash", "arguments": {"command": GATED_COMMAND}}
                ],
            },
            {"assistant": "Done."},
        ],
    )
    app = app_with_prompt(live_options(tmp_path, script, budget=BUDGET, yes=True))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt = app.query_one(PromptArea)
        app.query_one(PromptInput).insert(PASTE)
        await pilot.press("enter")
        await pilot.pause()
        refusals = [note for note in app.notes if note.startswith("message refused")]
        assert len(refusals) == 1 and f"budget is {BUDGET:,}" in refusals[0]
        assert prompt.text == PASTE  # the user's text is kept, to cut down or save
        assert not prompt.running
        assert app.session is not None and app.session.session_file is not None
        assert app.session.session_file.messages() == []

        prompt.input.load_text("")
        await pilot.press(*"look around", "enter")
        await wait_for(pilot, lambda: prompt.running)
        prompt.input.insert(PASTE)  # the same paste, as steering during the run
        await pilot.press("enter")
        await pilot.pause()
        assert len([note for note in app.notes if note.startswith("message refused")]) == 2
        assert prompt.text == PASTE and prompt.strip.queued == []
        (tmp_path / "work" / "gate").write_text("", encoding="utf-8")
        assert app.bridge is not None
        await app.bridge.wait()
        users = [
            event.entry.text
            for event in app.query_one(EventLog).events
            if isinstance(event, MessageEnd) and event.entry.kind == "user"
        ]
        assert users == ["look around"]
        assert app.session.engine is not None
        assert_session_consistent(app.session.engine)
