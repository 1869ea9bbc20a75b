"""The flow tests' harness: the whole app, as ``pifold`` assembles it, over a real session.

Each flow runs :class:`~pifold_tui.app.app.PifoldApp` with the product's own conversation
and prompt (:mod:`pifold_tui.app.launch`), the real loop, engine, session file and tools, and
the scripted provider playing a small JSON-lines script from ``scripts/``. Everything the
session writes stays in a tmp folder: ``PIFOLD_HOME`` (sessions, prompt history), ``HOME``
and ``XDG_CONFIG_HOME`` (settings) point there, and the working directory is a fresh git
repository with two small files the scripts read, edit and run.

The helpers wait on the loop's events (:class:`EventWatch`), never on a clock, and check the
two promises every driven session must keep: zero unattributed rewrites and every fold
peeking back exactly what it covers (:func:`assert_session_consistent`).
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from textual.pilot import Pilot

from pifold_agent.loop import AgentEvent
from pifold_agent.run_input import HeadlessOptions
from pifold_core.engine import Engine
from pifold_tui.app.app import PifoldApp
from pifold_tui.app.conversation import Conversation
from pifold_tui.app.launch import conversation_for, prompt_for
from pifold_tui.app.prompt import PromptArea, PromptInput
from tests.helpers.sessions import assert_app_session_consistent as assert_session_consistent
from tests.ui.app.shell_fixtures import live_loader

SCRIPTS = Path(__file__).resolve().parent / "scripts"
"""The scripts the flows play (see :mod:`pifold_agent.scripted.provider`)."""

SIZE = (100, 32)
"""The terminal every flow runs in."""

EVENT_WAIT_LIMIT_S = 60.0
"""How long :meth:`EventWatch.until` waits for the next event before failing: not a measure
of speed (nothing asserts a duration), only so that a flow whose event never comes fails
with a traceback instead of hanging the suite."""

GREETING = 'def greet() -> str:\n    return "hello"\n'
"""``src/greet.py`` in the fresh repository (the tools script edits it)."""

CHECK = (
    "import sys\n"
    "sys.path.insert(0, 'src')\n"
    "from greet import greet\n"
    "if greet() != 'hello':\n"
    "    print('greet() changed: ' + greet())\n"
    "    sys.exit(3)\n"
)
"""``src/check.py``: fails (exit 3) once the greeting is edited."""


@dataclass(frozen=True)
class Folders:
    """Where one flow's session lives."""

    home: Path
    """``HOME``, ``PIFOLD_HOME`` and the settings' config home are under it."""
    cwd: Path
    """The working directory: a git repository with ``src/greet.py`` and ``src/check.py``."""


def prepare(root: Path, monkeypatch: pytest.MonkeyPatch, project: str = "project") -> Folders:
    """A fresh home and git repository under ``root``; the environment points at them."""
    home = root / "home"
    cwd = home / project
    (cwd / "src").mkdir(parents=True)
    (cwd / "src" / "greet.py").write_text(GREETING, encoding="utf-8")
    (cwd / "src" / "check.py").write_text(CHECK, encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PIFOLD_HOME", str(home / ".pifold"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for variable in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    git = ["git", "-c", "user.name=flow", "-c", "user.email=flow@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=cwd, check=True)
    subprocess.run([*git, "add", "."], cwd=cwd, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "start"], cwd=cwd, check=True)
    return Folders(home, cwd)


def options(
    folders: Folders, script: str, budget: int = 200_000, **more: object
) -> HeadlessOptions:
    """The command line of ``pifold --provider scripted --script scripts/<script>``."""
    return HeadlessOptions(
        prompt=None,
        provider="scripted",
        script=SCRIPTS / script,
        budget=budget,
        cwd=folders.cwd,
        **more,  # type: ignore[arg-type]
    )


def flow_app(command_line: HeadlessOptions) -> PifoldApp:
    """The app as ``pifold`` opens it on a live session: the product's conversation and
    prompt, the session opened by :func:`~pifold_tui.app.session_setup.open_live` (the
    approval question is asked unless ``yes`` is set, as with ``--yes``)."""

    loader = live_loader(command_line, ask=not command_line.yes)
    return PifoldApp(loader, conversation_for, prompt_for, cwd=command_line.cwd)


class EventWatch:
    """Every event of the session's agent, and a way to wait for the next of a kind.

    It subscribes after the app's bridge, so when an event is recorded here the app has
    already delivered it (the footer and the bar show it; the widgets have it posted).
    """

    def __init__(self, app: PifoldApp) -> None:
        self.events: list[AgentEvent] = []
        self._arrived = asyncio.Event()
        self._unsubscribe: Callable[[], None] | None = None
        self.follow(app)

    def follow(self, app: PifoldApp) -> None:
        """Watch the app's current agent (call again after ``/resume``, ``/new``, ``/compact``)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        assert app.session is not None
        self._unsubscribe = app.session.agent.subscribe(self._record)

    def _record(self, event: AgentEvent) -> None:
        self.events.append(event)
        self._arrived.set()

    def types(self) -> list[str]:
        return [event.type for event in self.events]

    async def until(self, matches: Callable[[AgentEvent], bool], start: int = 0) -> AgentEvent:
        """The first event from index ``start`` on that ``matches``, waiting for it."""
        while True:
            for event in self.events[start:]:
                if matches(event):
                    return event
            start = len(self.events)
            self._arrived.clear()
            await asyncio.wait_for(self._arrived.wait(), timeout=EVENT_WAIT_LIMIT_S)

    async def until_type(self, kind: str, start: int = 0) -> AgentEvent:
        return await self.until(lambda event: event.type == kind, start)


async def opened(app: PifoldApp, pilot: Pilot[int]) -> EventWatch:
    """Wait until the session is on screen; watch its events from then on."""
    await app.loaded.wait()
    assert app.failure is None, app.failure
    await pilot.pause()
    return EventWatch(app)


def prompt_area(app: PifoldApp) -> PromptArea:
    return app.query_one(PromptArea)


def conversation(app: PifoldApp) -> Conversation:
    return app.query_one(Conversation)


async def type_text(pilot: Pilot[int], text: str) -> None:
    """Put ``text`` in the prompt as typed (the input has focus)."""
    prompt_input = pilot.app.query_one(PromptInput)
    prompt_input.focus()
    prompt_input.insert(text)
    await pilot.pause()


async def send(pilot: Pilot[int], text: str, key: str = "enter") -> None:
    """Type ``text`` in the prompt and press ``key`` (Enter sends, Alt+Enter a follow-up).

    A ``/command`` typed alone opens the completion list, where the first Enter accepts the
    command typed (it is offered first) and the second sends it, as a person would press.
    """
    await type_text(pilot, text)
    await pilot.press(key)
    await pilot.pause()
    area = pilot.app.query_one(PromptArea)
    if text.startswith("/") and area.text:
        assert area.text == text + " ", f"Enter completed {text!r} to {area.text!r}"
        await pilot.press(key)
        await pilot.pause()


async def run_to_end(app: PifoldApp, pilot: Pilot[int]) -> None:
    """Wait until the running turn (if any) has ended and its last events are shown."""
    assert app.bridge is not None
    await app.bridge.wait()
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()


def engine_of(app: PifoldApp) -> Engine:
    assert app.session is not None and app.session.engine is not None
    return app.session.engine


def release(folders: Folders) -> None:
    """Let the held batch of ``held_batch.jsonl`` finish."""
    (folders.cwd / "release").write_text("", encoding="utf-8")


__all__ = [
    "CHECK",
    "GREETING",
    "SCRIPTS",
    "SIZE",
    "EventWatch",
    "Folders",
    "assert_session_consistent",
    "conversation",
    "engine_of",
    "flow_app",
    "opened",
    "options",
    "prepare",
    "prompt_area",
    "release",
    "run_to_end",
    "send",
    "type_text",
]
