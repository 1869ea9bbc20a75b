"""What the shell's Pilot tests share: a real session over the scripted provider in a tmp
folder, and two simple stand-ins for the conversation and the prompt (the tests' own, so the
shell is tested apart from those widgets); and the two loaders every app test opens a
session with (:func:`live_loader`, :func:`demo_loader`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual.widget import Widget
from textual.widgets import Static

from pifold_agent.loop import AgentEvent
from pifold_agent.loop.approval import Approver
from pifold_agent.run_input import HeadlessOptions
from pifold_core.canonical import JsonValue
from pifold_tui.app.app import Launch, Loader, PifoldApp
from pifold_tui.app.demo import open_demo
from pifold_tui.app.messages import AgentEventPosted, PromptMode, PromptSubmitted
from pifold_tui.app.session_setup import open_live
from tests.helpers.scripts import write_script as script_file
from tests.helpers.sessions import assert_app_session_consistent


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
    """A script whose tool calls run for real (``tools: execute`` unless ``header`` says)."""
    return script_file(path, lines, **{"tools": "execute", **header})


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


def live_loader(options: HeadlessOptions, ask: bool = False) -> Loader:
    """Opens the live session ``options`` name; ``ask`` gives the agent the app's approver
    (otherwise nothing is asked, as with ``--yes``)."""

    def load(approver: Approver) -> Launch:
        return Launch(open_live(options, approver if ask else None))

    return load


def demo_loader(cwd: Path, trace: Path | None = None) -> Loader:
    """Opens the demo in ``cwd`` (of ``trace``, or the bundled one), unpaced: the first
    commit comes in seconds rather than the demo's minute."""

    def load(approver: Approver) -> Launch:
        session, gate, opening = open_demo(cwd, text_delay_s=0, call_delay_s=0, trace=trace)
        return Launch(session, gate, opening)

    return load


def stub_app(loader: Loader, cwd: Path) -> PifoldApp:
    """The app over what ``loader`` opens, with the tests' stand-in widgets."""
    return PifoldApp(loader, lambda app: EventLog(), lambda app: StubPrompt(), cwd=cwd)


def shell_app(options: HeadlessOptions, ask: bool = False) -> PifoldApp:
    """The app over a live scripted session, with the tests' stand-in widgets."""
    return stub_app(live_loader(options, ask), options.cwd)


def log_of(app: PifoldApp) -> EventLog:
    return app.query_one(EventLog)


def prompt_of(app: PifoldApp) -> StubPrompt:
    return app.query_one(StubPrompt)


def widget_types(widgets: Sequence[Widget]) -> list[str]:
    return [type(widget).__name__ for widget in widgets]


assert_session_consistent = assert_app_session_consistent
"""The checks at the end of every shell test (:mod:`tests.helpers.sessions`)."""
