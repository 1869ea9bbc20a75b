"""The shell with the real loop, engine and session (scripted provider, tmp folders): a prompt
runs and the bar and footer move; slash commands refused during a run; Esc aborts and the
session stays consistent; /fold commits; !command adds its note."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from pifold_agent.loop.batch import ABORTED_RESULT
from pifold_agent.loop.events import RunEnd
from pifold_agent.sessions import SessionFile
from pifold_core.canonical import JsonValue
from pifold_tui.app.bridge import shell_note
from pifold_tui.app.footer import SessionFooter
from pifold_tui.app.info_screens import InfoScreen
from pifold_tui.app.messages import ShellRequested
from pifold_tui.screens.fold import FoldScreen
from pifold_tui.screens.status import FoldStatusScreen
from tests.core.engine_checks import assert_clean_audit, assert_lossless
from tests.ui.app.shell_fixtures import (
    assert_session_consistent,
    live_options,
    log_of,
    prompt_of,
    shell_app,
    write_script,
)

SIZE = (100, 30)


async def test_a_prompt_runs_tools_stream_and_the_bar_and_footer_move(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "script.jsonl",
        [
            {
                "assistant": "Let me look.",
                "tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "echo hi"}}],
            },
            {"assistant": "It printed hi."},
        ],
    )
    app = shell_app(live_options(tmp_path, script))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        assert app.failure is None and app.session is not None
        bar = app.bar
        assert bar is not None
        before = bar.composition
        prompt_of(app).type_line("what does echo say?")
        await pilot.pause()
        assert app.bridge is not None and app.bridge.worker is not None
        await app.bridge.wait()
        await pilot.pause()

        types = log_of(app).types()
        assert types[0] == "run_start" and types[-1] == "run_end"
        assert "message_update" in types and "tool_execution_end" in types
        assert prompt_of(app).events == log_of(app).events  # both shown every event
        assert not prompt_of(app).running
        assert bar.composition is not None and bar.composition != before
        footer = app.query_one(SessionFooter)
        assert footer.totals.requests == 2 and footer.totals.input_tokens > 0
        engine = app.session.engine
        assert engine is not None
        result = next(
            entry for entry in engine.view.transcript.entries if entry.kind == "tool_result"
        )
        assert result.text.strip() == "hi"
        assert_clean_audit(engine)
        assert_lossless(engine)
        session_path = app.session.session_file.path  # type: ignore[union-attr]
        await pilot.press("ctrl+q")
    recorded = SessionFile.open(session_path).messages()
    assert [entry.kind for entry in recorded] == [
        "user",
        "assistant",
        "tool_result",
        "assistant",
    ]


def long_turn(tmp_path: Path, steps: int = 8) -> Path:
    """A long agentic turn: ``steps`` bash calls with sizeable output, then an answer."""
    lines: list[dict[str, JsonValue]] = [
        {
            "assistant": f"step {index}",
            "tool_calls": [
                {
                    "id": f"c{index}",
                    "name": "bash",
                    "arguments": {"command": f"seq {index * 1000} {index * 1000 + 300}"},
                }
            ],
        }
        for index in range(steps)
    ]
    lines.append({"assistant": "done"})
    return write_script(tmp_path / "long.jsonl", lines)


async def test_fold_commits_from_the_app_and_the_bar_repaints(tmp_path: Path) -> None:
    app = shell_app(live_options(tmp_path, long_turn(tmp_path), budget=10_000))  # room for runway
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt_of(app).type_line("count")
        await pilot.pause()
        assert app.bridge is not None
        await app.bridge.wait()
        await pilot.pause()
        engine = app.session.engine  # type: ignore[union-attr]
        assert engine is not None
        # Commits inside the long turn reached the conversation as events.
        assert "commit" in log_of(app).types()
        commits = engine.view.commit_count
        bar = app.bar
        assert bar is not None
        shown = bar.composition
        prompt_of(app).type_line("/fold")
        await pilot.pause()
        assert isinstance(app.screen, FoldScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert engine.view.commit_count == commits + 1
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, FoldScreen)
        assert bar.composition is not None and bar.composition != shown
        assert_clean_audit(engine)
        assert_lossless(engine)
        assert_session_consistent(engine)


async def test_a_refused_command_during_a_run_then_esc_aborts_consistently(
    tmp_path: Path,
) -> None:
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
    app = shell_app(live_options(tmp_path, script))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt_of(app).type_line("build it")
        for _ in range(200):
            await pilot.pause(0.01)
            if "tool_execution_start" in log_of(app).types():
                break
        assert app.running and prompt_of(app).running
        engine = app.session.engine  # type: ignore[union-attr]
        assert engine is not None
        commits = engine.view.commit_count
        prompt_of(app).type_line("/fold")
        prompt_of(app).type_line("/fold-status")  # available during a run
        await pilot.pause()
        assert any("/fold is not available while the agent works" in note for note in app.notes)
        assert engine.view.commit_count == commits
        assert isinstance(app.screen, FoldStatusScreen)
        await pilot.press("escape")  # closes the status screen
        await pilot.pause()
        await pilot.press("escape")  # aborts the run
        assert app.bridge is not None
        await app.bridge.wait()
        await pilot.pause()
        assert not app.running and not prompt_of(app).running
        end = log_of(app).events[-1]
        assert isinstance(end, RunEnd) and end.outcome == "aborted"
        result = next(
            entry for entry in engine.view.transcript.entries if entry.kind == "tool_result"
        )
        assert result.text == ABORTED_RESULT
        assert_session_consistent(engine)


async def test_a_shell_command_adds_its_note_as_a_user_message(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.jsonl", [{"assistant": "Seen."}])
    app = shell_app(live_options(tmp_path, script))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt_of(app).post_message(ShellRequested("echo out; exit 3"))
        for _ in range(300):
            await pilot.pause(0.01)
            if "message_end" in log_of(app).types():
                break
        engine = app.session.engine  # type: ignore[union-attr]
        assert engine is not None
        note = engine.view.transcript.entries[-1]
        assert note.kind == "user"
        assert note.text == "ran `echo out; exit 3`\n```\nout\n```\nexit status 3"
        assert_clean_audit(engine)


async def test_unknown_commands_and_plain_help(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.jsonl", [{"assistant": "Seen."}])
    app = shell_app(live_options(tmp_path, script))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt_of(app).type_line("/nonsense now")
        await pilot.pause()
        assert app.notes[-1].startswith("unknown command /nonsense; commands: /fold-status")
        prompt_of(app).type_line("/help")
        await pilot.pause()
        assert isinstance(app.screen, InfoScreen)
        body = str(app.screen.query_one("#info-body", Static).render())
        for command in app.registry:
            assert command.slash in body
        assert (
            "/fold-settings  The seven folding options and the bar's palette  (not during a run)"
            in body
        )
        assert "Ctrl+F (or Alt+Enter) a follow-up" in body  # the key every terminal sends
        await pilot.press("escape")
        prompt_of(app).type_line("/session")
        await pilot.pause()
        assert isinstance(app.screen, InfoScreen)
        facts = str(app.screen.query_one("#info-body", Static).render())
        assert app.session is not None and app.session.session_file is not None
        assert f"id            {app.session.session_file.id}" in facts
        assert "context       folding engine" in facts


def test_shell_note_fences_past_any_backticks_in_the_output() -> None:
    assert shell_note("cat x", "a ``` b\n", 0) == "ran `cat x`\n````\na ``` b\n````\nexit status 0"
    assert shell_note("true", "", None).endswith("exit status unknown")
