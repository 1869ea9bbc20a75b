"""The bridge: a message sent during a run is steering and lands after the current tool
batch, a follow-up lands when the run would stop (the palette: ``test_slash_palette.py``)."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.loop.events import MessageEnd
from pifold_tui.app.messages import FoldEditorRequested
from pifold_tui.screens.editor import FoldEditorScreen
from tests.ui.app.shell_fixtures import (
    assert_session_consistent,
    live_options,
    log_of,
    prompt_of,
    shell_app,
    write_script,
)

SIZE = (100, 30)


async def test_steering_lands_after_the_batch_and_a_follow_up_after_the_stop(
    tmp_path: Path,
) -> None:
    script = write_script(
        tmp_path / "steer.jsonl",
        [
            {
                "assistant": "Waiting a moment.",
                "tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "sleep 1"}}],
            },
            {"assistant": "Steered."},
            {"assistant": "Followed up."},
        ],
    )
    app = shell_app(live_options(tmp_path, script))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt_of(app).type_line("wait, then answer")
        for _ in range(300):
            await pilot.pause(0.01)
            if "tool_execution_start" in log_of(app).types():
                break
        prompt_of(app).type_line("also check the lexer")
        prompt_of(app).type_line("and then summarise", "follow_up")
        await pilot.pause()
        assert app.notes[-2] == "Queued: it lands after the current tool batch."
        assert app.notes[-1] == "Queued as a follow-up: it lands when the run would stop."
        assert app.bridge is not None
        await app.bridge.wait()
        await pilot.pause()
        engine = app.session.engine  # type: ignore[union-attr]
        assert engine is not None
        shown = [
            (entry.kind, entry.text)
            for entry in engine.view.transcript.entries
            if entry.kind in ("user", "tool_result")
        ]
        # The scripted provider adds its own "Continue." between two replies that had no
        # user message between them in the script; ours comes first.
        assert shown == [
            ("user", "wait, then answer"),
            ("tool_result", "(no output)"),
            ("user", "also check the lexer"),
            ("user", "and then summarise"),
            ("user", "Continue."),
        ]
        users = [
            event.entry.text
            for event in log_of(app).events
            if isinstance(event, MessageEnd) and event.entry.kind == "user"
        ]
        assert users == [text for kind, text in shown if kind == "user"]
        assert log_of(app).types().count("run_start") == 1  # one run, all of it
        assert_session_consistent(engine)


async def test_a_fold_row_opens_the_editor_on_its_fold(tmp_path: Path) -> None:
    from tests.ui.app.test_shell import long_turn

    app = shell_app(live_options(tmp_path, long_turn(tmp_path), budget=10_000))  # room for runway
    async with app.run_test(size=(120, 36)) as pilot:
        await app.loaded.wait()
        prompt_of(app).type_line("count")
        await pilot.pause()
        assert app.bridge is not None
        await app.bridge.wait()
        engine = app.session.engine  # type: ignore[union-attr]
        assert engine is not None and engine.view.forest.folds
        handle = next(iter(engine.view.forest.folds))
        prompt_of(app).post_message(FoldEditorRequested(handle))
        for _ in range(200):
            await pilot.pause(0.01)
            screen = app.screen
            if isinstance(screen, FoldEditorScreen):
                selected = screen.window_map.selected
                if selected is not None and selected.handle == handle:
                    break
        else:
            raise AssertionError(f"the editor never selected {handle}")
        assert not screen.read_only  # no run is going: every action is offered
        await pilot.press("escape")
        await pilot.pause()
        prompt_of(app).post_message(FoldEditorRequested("fold-000000000000"))
        for _ in range(200):
            await pilot.pause(0.01)
            if app.notes and app.notes[-1].startswith("fold-000000000000"):
                break
        assert app.notes[-1] == "fold-000000000000 is not a fold of this window."
