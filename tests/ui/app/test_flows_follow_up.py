"""A follow-up queued with Ctrl+F during a run (issue 13): the key every terminal delivers,
where Alt+Enter reaches the app only from terminals that report modifiers on Enter (tmux
3.3 sends a plain Enter for it). The follow-up waits in the strip, and lands when the run
would otherwise stop, not after the current batch as steering does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.app.harness import (
    SIZE,
    assert_session_consistent,
    engine_of,
    flow_app,
    opened,
    options,
    prepare,
    prompt_area,
    release,
    run_to_end,
    send,
)


async def test_ctrl_f_queues_a_follow_up_that_lands_when_the_run_would_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "held_follow_up.jsonl", yes=True))
    async with app.run_test(size=SIZE) as pilot:
        watch = await opened(app, pilot)
        await send(pilot, "wait for it")
        await watch.until_type("tool_execution_start")
        assert "ctrl+f follow-up" in prompt_area(app).hint  # the running hint names it
        await send(pilot, "then say what you read", key="ctrl+f")
        strip = prompt_area(app).strip
        assert [(item.text, item.kind) for item in strip.queued] == [
            ("then say what you read", "follow_up")
        ]
        assert app.notes[-1] == "Queued as a follow-up: it lands when the run would stop."
        release(folders)
        await run_to_end(app, pilot)

        engine = engine_of(app)
        kinds = [entry.kind for entry in engine.view.transcript.entries]
        # After the batch the model answered and would have stopped: then the follow-up.
        texts = [entry.text for entry in engine.view.transcript.entries]
        # The scripted provider queues its own "Continue." between two replies with no
        # user line between them: it comes after the user's follow-up.
        assert kinds == [
            "user",
            "assistant",
            "tool_result",
            "assistant",
            "user",
            "user",
            "assistant",
        ]
        assert texts[3] == "Released; the batch is done."
        assert texts[4:6] == ["then say what you read", "Continue."]
        assert strip.queued == [] and not strip.display
        assert_session_consistent(engine)
