"""The shell with the real loop, engine and session (scripted provider, tmp folders): a prompt
runs and the bar and footer move; slash commands refused during a run; Esc aborts and the
session stays consistent; /fold commits; !command adds its note."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.sessions import SessionFile
from pifold_tui.app.footer import SessionFooter
from tests.core.engine_checks import assert_clean_audit, assert_lossless
from tests.ui.app.shell_fixtures import live_options, log_of, prompt_of, shell_app, write_script

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
        result = next(entry for entry in engine.transcript.entries if entry.kind == "tool_result")
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
