"""The approval question in the app: asked before bash, answered with keys; a denial runs
nothing; "allow for this session" stops the asking; ``--yes`` never asks; Esc during the
question withdraws it and the session stays consistent."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.loop.approval import DECLINED_RESULT
from pifold_agent.loop.batch import ABORTED_RESULT
from pifold_core.canonical import JsonValue
from pifold_tui.app.app import PifoldApp
from pifold_tui.app.approval_screen import ApprovalScreen
from tests.ui.app.shell_fixtures import (
    assert_session_consistent,
    live_options,
    prompt_of,
    shell_app,
    write_script,
)

SIZE = (100, 30)


def two_commands(tmp_path: Path) -> Path:
    calls: list[dict[str, JsonValue]] = [
        {
            "assistant": f"Writing {name}.",
            "tool_calls": [
                {"id": name, "name": "bash", "arguments": {"command": f"echo {name} > {name}.txt"}}
            ],
        }
        for name in ("first", "second")
    ]
    return write_script(tmp_path / "two.jsonl", [*calls, {"assistant": "Both done."}])


async def wait_for_question(
    app: PifoldApp, pilot: object, call_id: str = "first"
) -> ApprovalScreen:
    for _ in range(300):
        await pilot.pause(0.01)  # type: ignore[attr-defined]
        screen = app.screen
        if (
            isinstance(screen, ApprovalScreen)
            and screen.request.call_id == call_id
            and screen.query("#approval-summary")
        ):
            return screen
    raise AssertionError("no approval question was asked")


async def finish(app: PifoldApp, pilot: object) -> None:
    assert app.bridge is not None
    await app.bridge.wait()
    await pilot.pause()  # type: ignore[attr-defined]


async def test_deny_then_allow_once_each_asked_and_answered(tmp_path: Path) -> None:
    options = live_options(tmp_path, two_commands(tmp_path))
    app = shell_app(options, ask=True)
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt_of(app).type_line("write two files")
        question = await wait_for_question(app, pilot)
        assert question.request.summary == "run: echo first > first.txt"
        assert "echo first > first.txt" in str(question.query_one("#approval-summary").render())
        await pilot.press("n")
        question = await wait_for_question(app, pilot, "second")
        await pilot.press("y")
        await finish(app, pilot)
        assert not (options.cwd / "first.txt").exists()
        assert (options.cwd / "second.txt").read_text() == "second\n"
        engine = app.session.engine  # type: ignore[union-attr]
        assert engine is not None
        results = [
            entry.text for entry in engine.view.transcript.entries if entry.kind == "tool_result"
        ]
        assert results[0] == DECLINED_RESULT
        assert [request.call_id for request in app.approver.asked] == ["first", "second"]
        assert_session_consistent(engine)


async def test_allow_for_the_session_asks_once(tmp_path: Path) -> None:
    options = live_options(tmp_path, two_commands(tmp_path))
    app = shell_app(options, ask=True)
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt_of(app).type_line("write two files")
        await wait_for_question(app, pilot)
        await pilot.press("a")
        await finish(app, pilot)
        assert [request.call_id for request in app.approver.asked] == ["first"]
        assert (options.cwd / "first.txt").exists() and (options.cwd / "second.txt").exists()


async def test_yes_never_asks(tmp_path: Path) -> None:
    options = live_options(tmp_path, two_commands(tmp_path))
    app = shell_app(options, ask=False)
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt_of(app).type_line("write two files")
        await finish(app, pilot)
        assert app.approver.asked == []
        assert (options.cwd / "second.txt").exists()


async def test_abort_while_asking_withdraws_the_question(tmp_path: Path) -> None:
    options = live_options(tmp_path, two_commands(tmp_path))
    app = shell_app(options, ask=True)
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        prompt_of(app).type_line("write two files")
        question = await wait_for_question(app, pilot)
        app.action_abort()
        await finish(app, pilot)
        assert question.answer.cancelled()
        assert not isinstance(app.screen, ApprovalScreen)
        engine = app.session.engine  # type: ignore[union-attr]
        assert engine is not None
        results = [
            entry.text for entry in engine.view.transcript.entries if entry.kind == "tool_result"
        ]
        assert results == [ABORTED_RESULT]
        assert not (options.cwd / "first.txt").exists()
        assert_session_consistent(engine)
