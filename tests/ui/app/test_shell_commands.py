"""The session commands: /new and /resume reopen with the same bar and transcript, /compact
hands the context to native compaction, /model refuses what the table lacks, and the demo
refuses what needs a model."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.native_window import NativeWindow
from pifold_agent.sessions import SessionFile
from pifold_core.canonical import JsonValue
from pifold_tui.app.app import PifoldApp
from pifold_tui.app.info_screens import ChoiceScreen, InfoScreen
from tests.ui.app.shell_fixtures import (
    assert_session_consistent,
    live_options,
    log_of,
    prompt_of,
    shell_app,
    write_script,
)

SIZE = (100, 30)


def chatter(tmp_path: Path, replies: int = 2, output_lines: int = 0) -> Path:
    lines: list[dict[str, JsonValue]] = []
    for index in range(replies):
        if output_lines:
            # Lines of 40 characters: under folding each result is cut at 31.5 KB (the
            # evidence threshold less the notice's room), about 8,000 tokens by Pi's
            # estimate, so four put /compact's cut inside the turn, past its start.
            command = f"yes {index:039d} | head -n {output_lines}"
            lines.append(
                {
                    "assistant": f"Counting {index}.",
                    "tool_calls": [
                        {"id": f"c{index}", "name": "bash", "arguments": {"command": command}}
                    ],
                }
            )
        lines.append({"assistant": f"Answer {index}."})
    # A cut inside the one long turn summarises twice: the history, then the turn's start.
    lines.append({"summary": "The user counted numbers; nothing else happened."})
    lines.append({"summary": "The turn so far counted twice."})
    return write_script(tmp_path / "chatter.jsonl", lines)


async def run_prompt(app: object, pilot: object, text: str) -> None:
    prompt_of(app).type_line(text)  # type: ignore[arg-type]
    await pilot.pause()  # type: ignore[attr-defined]
    bridge = app.bridge  # type: ignore[attr-defined]
    assert bridge is not None
    await bridge.wait()
    await pilot.pause()  # type: ignore[attr-defined]


async def shown(app: PifoldApp, pilot: object, count: int) -> None:
    """Until the app has shown ``count`` sessions."""
    for _ in range(500):
        await pilot.pause(0.01)  # type: ignore[attr-defined]
        if app.sessions_shown >= count:
            return
    raise AssertionError(f"only {app.sessions_shown} sessions shown, waited for {count}")


async def test_new_then_resume_reopens_the_same_bar_and_transcript(tmp_path: Path) -> None:
    app = shell_app(live_options(tmp_path, chatter(tmp_path, replies=4), budget=6_000))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        await run_prompt(app, pilot, "first question")
        first = app.session
        assert first is not None and first.session_file is not None
        first_id = first.session_file.id
        transcript = [entry.record_bytes for entry in first.recorder.recorded()]
        bar = app.bar
        assert bar is not None
        composition = bar.composition

        prompt_of(app).type_line("/new")
        await shown(app, pilot, 2)
        second = app.session
        assert second is not None and second.session_file is not None
        assert second.session_file.id != first_id
        assert list(second.recorder.recorded()) == []
        assert app.bar is not None and app.bar.composition != composition

        prompt_of(app).type_line("/resume")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        assert [key for key, _ in app.screen.choices] == [first_id]
        await pilot.press("escape")

        prompt_of(app).type_line(f"/resume {first_id[:8]}")
        await shown(app, pilot, 3)
        resumed = app.session
        assert resumed is not None and resumed.session_file is not None
        assert resumed.session_file.id == first_id
        assert [entry.record_bytes for entry in resumed.recorder.recorded()] == transcript
        assert app.bar is not None and app.bar.composition == composition
        assert resumed.engine is not None
        assert_session_consistent(resumed.engine)

        prompt_of(app).type_line("/resume nosuchid")
        await pilot.pause(0.2)
        assert app.session is resumed
        assert "no session id starts with 'nosuchid'" in app.notes[-1]


async def test_compact_summarises_and_switches_to_native_compaction(tmp_path: Path) -> None:
    app = shell_app(live_options(tmp_path, chatter(tmp_path, replies=4, output_lines=2_000)))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        await run_prompt(app, pilot, "count for me")
        session = app.session
        assert session is not None and session.engine is not None
        assert_session_consistent(session.engine)
        prompt_of(app).type_line("/compact")
        for _ in range(500):
            await pilot.pause(0.01)
            if app.notes[-1].startswith(("Compacted", "/compact: nothing")):
                break
        assert session.engine is None and app.bar is None
        assert isinstance(session.agent.window, NativeWindow)
        assert "compaction" in log_of(app).types()
        assert app.notes[-1].startswith("Compacted: the history is summarised")
        assert session.session_file is not None
        path = session.session_file.path
        latest = session.session_file.latest_compaction()
        assert latest is not None
        assert latest.summary.startswith("The user counted numbers")
        for command in ("/fold", "/fold-status", "/fold-settings"):
            prompt_of(app).type_line(command)
            await pilot.pause()
            assert app.notes[-1] == f"{command}: folding is off in this session (/compact)."
    reopened = SessionFile.open(path)
    assert reopened.latest_compaction() is not None
    reopened.close()


async def test_model_lists_the_table_and_refuses_an_unknown_model(tmp_path: Path) -> None:
    app = shell_app(live_options(tmp_path, chatter(tmp_path)))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt_of(app).type_line("/model gpt-none")
        await pilot.pause()
        assert app.notes[-1] == "no model 'gpt-none' for scripted; models: none"
        assert app.session is not None and app.session.model == "scripted"
        prompt_of(app).type_line("/model")
        await pilot.pause()
        assert isinstance(app.screen, InfoScreen)
        assert app.screen.title_text == "/model · scripted"


async def test_a_failed_compaction_changes_nothing(tmp_path: Path) -> None:
    script = chatter(tmp_path, replies=4, output_lines=2_000)
    lines = script.read_text().splitlines()
    script.write_text("\n".join(line for line in lines if '"summary"' not in line) + "\n")
    app = shell_app(live_options(tmp_path, script))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        await run_prompt(app, pilot, "count for me")
        session = app.session
        assert session is not None and session.session_file is not None
        prompt_of(app).type_line("/compact")
        for _ in range(500):
            await pilot.pause(0.01)
            if "folding continues" in app.notes[-1]:
                break
        assert "the script has no more summaries to play; folding continues" in app.notes[-1]
        assert session.engine is not None and app.bar is not None
        assert session.session_file.latest_compaction() is None
        assert_session_consistent(session.engine)
