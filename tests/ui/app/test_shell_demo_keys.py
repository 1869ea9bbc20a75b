"""The demo's keys say what is true in every state, and nothing typed is lost (issue 19).

Esc pauses the demo (a recorded session cannot go on after an abort) and F2 plays on; once
the session has played to its end, F2 and Esc say so and how to replay it, and the footer
names Ctrl+Q. A ``!command`` needs no model: it runs, and its output joins the session (after
the current tool batch while the demo plays, at once after it). A message typed with no model
stays in the input and in the history, and the app says what it would take to send it.

The app has the product's prompt (it keeps what is typed) and the shell tests' stand-in for
the conversation (its rendering is tested elsewhere, and costs seconds here); the demo is
unpaced, and its end is reached on the smallest bundled session.
"""

from __future__ import annotations

from pathlib import Path

from pifold_agent.bundled_traces import bundled_trace
from pifold_agent.loop.events import MessageEnd, MessageUpdate
from pifold_tui.app.app import PifoldApp
from pifold_tui.app.demo_controls import (
    DEMO_HINTS,
    ENDED,
    ENDED_HINTS,
    PAUSED,
    PAUSED_HINTS,
    PLAYING,
    STILL_PAUSED,
    DemoControls,
    PauseGate,
)
from pifold_tui.app.footer import SessionFooter
from pifold_tui.app.launch import open_prompt_project, prompt_for
from pifold_tui.app.no_model import UNSENT_IN_DEMO
from tests.ui.app.harness import (
    SIZE,
    assert_session_consistent,
    engine_of,
    opened,
    prompt_area,
    run_to_end,
    send,
)
from tests.ui.app.shell_fixtures import EventLog, demo_loader

SHORT_SESSION = bundled_trace("swe-agent-demo")
"""Thirteen requests: the demo plays it to its end in a few seconds unpaced."""


def demo_app(cwd: Path, trace: Path | None = None) -> PifoldApp:
    return PifoldApp(
        demo_loader(cwd, trace),
        lambda app: EventLog(),
        prompt_for,
        cwd=cwd,
        on_session=open_prompt_project,
    )


def controls_saying(
    said: list[str], hints: list[str], played_through: bool = False
) -> DemoControls:
    return DemoControls(PauseGate(), said.append, hints.append, lambda: played_through)


def test_each_key_says_what_is_true_in_each_state() -> None:
    said: list[str] = []
    hints: list[str] = []
    controls = controls_saying(said, hints)
    assert controls.hints == DEMO_HINTS
    assert controls.pause() == PAUSED and controls.gate.paused
    assert controls.hints == PAUSED_HINTS
    assert controls.pause() == STILL_PAUSED and controls.gate.paused
    assert controls.toggle() == PLAYING and not controls.gate.paused
    assert controls.toggle() == PAUSED
    # The run ends (here while paused): the gate opens, and every key says so from then on.
    assert controls.end("stop", None) == ENDED
    assert not controls.gate.paused
    assert controls.toggle() == ENDED and controls.pause() == ENDED
    assert not controls.gate.paused and controls.hints == ENDED_HINTS
    assert said == [PAUSED, STILL_PAUSED, PLAYING, PAUSED, ENDED, ENDED, ENDED]
    assert hints == [PAUSED_HINTS, PAUSED_HINTS, DEMO_HINTS, PAUSED_HINTS, *[ENDED_HINTS] * 3]
    stopped = controls_saying([], [])
    note = stopped.end("error", "the provider failed")
    assert note.startswith("The demo stopped: the provider failed.")
    assert stopped.toggle() == note
    # A recording that ends on a tool call: the loop asks for one more reply, and there is
    # none; every recorded reply was played, so that is the demo's end.
    assert controls_saying([], [], played_through=True).end("error", "no more") == ENDED


async def test_esc_pauses_f2_plays_on_and_a_shell_command_joins_the_session(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        watch = await opened(app, pilot)
        await watch.until(lambda event: isinstance(event, MessageUpdate))
        await pilot.press("escape")
        assert app.gate is not None and app.gate.paused
        assert app.notes[-1] == PAUSED and app.running  # paused, not aborted
        assert app.query_one(SessionFooter).hints == PAUSED_HINTS
        await pilot.pause(0.2)
        seen = len(watch.events)
        await pilot.pause(0.2)
        assert len(watch.events) == seen  # nothing streams while paused

        await send(pilot, "!echo hello from the shell")
        assert app.notes[-1].startswith("Running `echo hello from the shell`: its output joins")
        assert app.notes[-1].endswith("(the demo is paused: f2 resumes).")
        await send(pilot, "fix the bug please")
        assert app.notes[-1] == UNSENT_IN_DEMO
        prompt = prompt_area(app)
        assert prompt.text == "fix the bug please"  # kept in the input, and in the history
        assert prompt.history.entries[-2:] == ["!echo hello from the shell", "fix the bug please"]

        await pilot.press("f2")
        assert app.notes[-1] == PLAYING and not app.gate.paused
        assert app.query_one(SessionFooter).hints == DEMO_HINTS
        landed = await watch.until(
            lambda event: (
                isinstance(event, MessageEnd)
                and event.entry.kind == "user"
                and event.entry.text.startswith("ran `echo hello from the shell`")
            )
        )
        assert isinstance(landed, MessageEnd) and "hello from the shell" in landed.entry.text
        assert prompt.text == "fix the bug please"  # still there: typing on never lost it
        assert app.bridge is not None and app.bridge.abort()
        await run_to_end(app, pilot)
        assert_session_consistent(engine_of(app))


async def test_once_the_demo_has_ended_every_key_says_so(tmp_path: Path) -> None:
    app = demo_app(tmp_path, SHORT_SESSION)
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        # Unpaced and unrendered, the short session may be over already: wait for the run.
        await run_to_end(app, pilot)
        assert app.notes[-1] == ENDED  # it ends on a call, and the loop asked for one more
        assert app.query_one(SessionFooter).hints == ENDED_HINTS
        await pilot.press("f2")
        assert app.notes[-1] == ENDED and not app.running
        await pilot.press("escape")
        assert app.notes[-1] == ENDED

        session = app.session
        assert session is not None
        before = len(session.recorder.recorded())
        await send(pilot, "!echo after the end")
        assert app.leaving is None
        await pilot.pause()
        shells = [worker for worker in app.workers if worker.group == "shell"]
        for worker in shells:
            await worker.wait()
        await pilot.pause()
        recorded = list(session.recorder.recorded())
        assert len(recorded) == before + 1  # no run: the output is recorded at once
        assert recorded[-1].text.startswith("ran `echo after the end`")
        assert_session_consistent(engine_of(app))
