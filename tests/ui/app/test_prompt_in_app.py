"""The real prompt inside the real app (scripted provider, real loop, engine and session in
tmp folders): typed steering shows in the strip and leaves it when it lands after the batch,
Esc aborts once, the history is the project's file, ``@`` completes the session's folder."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from pifold_agent.loop import AgentEvent
from pifold_agent.loop.events import MessageEnd, RunEnd, ToolExecutionEnd
from pifold_agent.run_input import HeadlessOptions
from pifold_tui.app.app import PifoldApp
from pifold_tui.app.launch import open_prompt_project, prompt_for
from pifold_tui.app.prompt import PromptArea, history_file_for
from tests.ui.app.shell_fixtures import (
    EventLog,
    assert_session_consistent,
    live_loader,
    live_options,
    write_script,
)

SIZE = (100, 30)

GATED_COMMAND = "for i in $(seq 600); do [ -f gate ] && break; sleep 0.05; done; echo hi"
"""A bash call that ends once a file called ``gate`` appears (30 s at most)."""


def app_with_prompt(options: HeadlessOptions) -> PifoldApp:
    """The app over a live scripted session, with the real prompt and the shell's event log
    standing in for the conversation."""

    return PifoldApp(
        live_loader(options),
        lambda app: EventLog(),
        prompt_for,
        cwd=options.cwd,
        on_session=open_prompt_project,
    )


def events_of(app: PifoldApp) -> list[AgentEvent]:
    return list(app.query_one(EventLog).events)


async def wait_for(pilot: Pilot[int], condition: Callable[[], bool], rounds: int = 400) -> None:
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("the condition never held")


async def test_typed_steering_shows_until_it_lands_after_the_batch(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "script.jsonl",
        [
            {
                "assistant": "Looking.",
                "tool_calls": [
                    # The tool waits for the test to open the gate, whatever the load.
                    {"id": "c1", "name": "bash", "arguments": {"command": GATED_COMMAND}}
                ],
            },
            {"assistant": "Done, and I used ruff."},
        ],
    )
    options = live_options(tmp_path, script)
    app = app_with_prompt(options)
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt = app.query_one(PromptArea)
        await pilot.press(*"echo something", "enter")
        await wait_for(pilot, lambda: prompt.running)
        await pilot.press(*"use ruff", "enter")
        await pilot.pause()
        assert [(item.kind, item.text) for item in prompt.strip.queued] == [
            ("steering", "use ruff")
        ]
        assert prompt.strip.display
        # Still waiting while the tool runs: it lands only after the batch.
        await pilot.pause(0.1)
        assert not any(isinstance(event, ToolExecutionEnd) for event in events_of(app))
        assert prompt.strip.queued
        (options.cwd / "gate").write_text("", encoding="utf-8")
        assert app.bridge is not None
        await app.bridge.wait()
        await wait_for(pilot, lambda: not prompt.strip.queued)
        assert not prompt.strip.display
        events = events_of(app)
        landed = [
            index
            for index, event in enumerate(events)
            if isinstance(event, MessageEnd)
            and event.entry.kind == "user"
            and event.entry.text == "use ruff"
        ]
        batch_end = next(i for i, e in enumerate(events) if isinstance(e, ToolExecutionEnd))
        assert landed and landed[0] > batch_end
        assert isinstance(events[-1], RunEnd) and not prompt.running
        assert app.session is not None and app.session.engine is not None
        assert_session_consistent(app.session.engine)

        history = history_file_for(options.cwd, options.sessions_dir)
        assert stat.S_IMODE(history.stat().st_mode) == 0o600
        assert prompt.history.entries == ["echo something", "use ruff"]


async def test_escape_in_the_prompt_aborts_the_run_once(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "slow.jsonl",
        [
            {
                "assistant": "Building.",
                "tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "sleep 60"}}],
            },
            {"assistant": "never reached"},
        ],
    )
    app = app_with_prompt(live_options(tmp_path, script))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt = app.query_one(PromptArea)
        await pilot.press(*"build it", "enter")
        await wait_for(pilot, lambda: prompt.running)
        assert prompt.input.has_focus
        await pilot.press("escape")
        assert app.bridge is not None
        await app.bridge.wait()
        await pilot.pause()
        assert [note for note in app.notes if note.startswith("Aborted")] == [
            "Aborted: the session keeps what happened."
        ]
        end = events_of(app)[-1]
        assert isinstance(end, RunEnd) and end.outcome == "aborted"
        assert not prompt.running
        assert app.session is not None and app.session.engine is not None
        assert_session_consistent(app.session.engine)


async def test_at_completes_the_session_folder(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.jsonl", [{"assistant": "Seen."}])
    options = live_options(tmp_path, script)
    (options.cwd / "notes.md").write_text("", encoding="utf-8")
    (options.cwd / ".gitignore").write_text("*.tmp\n", encoding="utf-8")
    (options.cwd / "scratch.tmp").write_text("", encoding="utf-8")
    app = app_with_prompt(options)
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt = app.query_one(PromptArea)
        await pilot.press("@")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [candidate.label for candidate in prompt.popup.candidates] == [
            ".gitignore",
            "notes.md",
        ]
