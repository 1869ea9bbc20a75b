"""What the shell's Pilot tests share: a real session over the scripted provider in a tmp
folder, and two simple stand-ins for the conversation and the prompt (the tests' own, so the
shell is tested apart from those widgets)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from textual.widget import Widget
from textual.widgets import Static

from pifold_agent.loop import AgentEvent
from pifold_agent.loop.approval import Approver
from pifold_agent.run_input import HeadlessOptions
from pifold_core.canonical import JsonValue
from pifold_core.engine import Engine
from pifold_core.tokens import TiktokenCounter
from pifold_tui.app.app import Launch, PifoldApp
from pifold_tui.app.messages import AgentEventPosted, PromptMode, PromptSubmitted
from pifold_tui.app.session_setup import open_live
from tests.core.engine_checks import assert_clean_audit, assert_lossless, durable_state


class EventLog(Static):
    """Stands in for the conversation: keeps every loop event it is posted."""

    def __init__(self) -> None:
        super().__init__("", id="event-log")
        self.events: list[AgentEvent] = []

    def on_agent_event_posted(self, message: AgentEventPosted) -> None:
        self.events.append(message.event)

    def types(self) -> list[str]:
        return [event.type for event in self.events]


class StubPrompt(Static):
    """Stands in for the prompt: posts what a test types; remembers ``running``."""

    def __init__(self) -> None:
        super().__init__("prompt", id="stub-prompt")
        self.running = False
        self.events: list[AgentEvent] = []

    def type_line(self, text: str, mode: PromptMode = "send") -> None:
        self.post_message(PromptSubmitted(text, mode))

    def on_agent_event_posted(self, message: AgentEventPosted) -> None:
        self.events.append(message.event)


def write_script(path: Path, lines: Sequence[dict[str, JsonValue]], **header: JsonValue) -> Path:
    """A scripted-provider script file: the header, then one JSON object per line."""
    head: dict[str, JsonValue] = {"script": "pifold", "version": 1, "tools": "execute", **header}
    body = [json.dumps(head)] + [json.dumps(line) for line in lines]
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    return path


def live_options(
    tmp_path: Path, script: Path, budget: int = 200_000, **more: object
) -> HeadlessOptions:
    """Options of a scripted live session in ``tmp_path`` (sessions under it too)."""
    cwd = tmp_path / "work"
    cwd.mkdir(exist_ok=True)
    return HeadlessOptions(
        prompt=None,
        provider="scripted",
        script=script,
        budget=budget,
        cwd=cwd,
        sessions_dir=tmp_path / "sessions",
        **more,  # type: ignore[arg-type]
    )


def shell_app(options: HeadlessOptions, ask: bool = False) -> PifoldApp:
    """The app over a live scripted session, with the tests' stand-in widgets; ``ask``
    gives the agent the app's approver (otherwise nothing is asked, as with ``--yes``)."""

    def load(approver: Approver) -> Launch:
        return Launch(open_live(options, approver if ask else None))

    return PifoldApp(load, lambda app: EventLog(), lambda app: StubPrompt(), cwd=options.cwd)


def log_of(app: PifoldApp) -> EventLog:
    return app.query_one(EventLog)


def prompt_of(app: PifoldApp) -> StubPrompt:
    return app.query_one(StubPrompt)


def widget_types(widgets: Sequence[Widget]) -> list[str]:
    return [type(widget).__name__ for widget in widgets]


def assert_session_consistent(engine: Engine) -> None:
    """The cache invariant held (zero unattributed rewrites), every fold peeks back exactly
    what it covers, and a read-only reopen beside the live engine rebuilds the same state
    (with the app's own tokenizer, so the token figures compare)."""
    assert_clean_audit(engine)
    assert_lossless(engine)
    engine.journal.sync()
    reopened = Engine.open(
        engine.state_dir, None, TiktokenCounter(), engine.meter.host_measures, read_only=True
    )
    try:
        assert reopened.torn_tail is None
        live, rebuilt = durable_state(engine), durable_state(reopened)
        for key, value in live.items():
            assert rebuilt[key] == value, f"{key} differs after reopen"
    finally:
        reopened.close()
