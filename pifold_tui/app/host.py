"""What the app is to the modules it hands work to: what it shows, and what they may ask of it.

:class:`~pifold_tui.app.app.PifoldApp` imports the slash commands (:mod:`pifold_tui.app.slash`),
typed input (:mod:`pifold_tui.app.typed`) and leaving (:mod:`pifold_tui.app.leaving`); they
name the Protocols here instead of the app's class, so none of them imports ``app.py`` back
(the project's modules form no cycle: import-linter checks it). Each Protocol lists only
what its module uses; ``PifoldApp`` is the one class that has them all, and strict mypy
checks that it does wherever the app hands itself over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from textual.notifications import SeverityLevel
from textual.screen import Screen, ScreenResultCallbackType
from textual.widget import Widget
from textual.worker import Worker
from textual.worker_manager import WorkerManager

if TYPE_CHECKING:
    from pifold_agent.loop import AgentEvent
    from pifold_agent.loop.approval import Approver
    from pifold_tui.app.bridge import AgentBridge
    from pifold_tui.app.commands import CommandRegistry
    from pifold_tui.app.demo_controls import PauseGate
    from pifold_tui.app.footer import SessionFooter
    from pifold_tui.app.session_setup import AppSession

ScreenResult = TypeVar("ScreenResult")
Result = TypeVar("Result")


@dataclass
class Launch:
    """What the app opens: a session, the demo's pause gate, and a prompt to run at once."""

    session: AppSession
    gate: PauseGate | None = None
    """The demo's pause gate (``None`` in a live session)."""
    opening: str | None = None
    """A prompt to run as soon as the session is shown (the demo's first message)."""


Loader = Callable[["Approver"], Launch]
"""Opens the session, given the approver the app would ask through (a loader started with
``--yes`` or playing the demo gives the agent none)."""


class Notifier(Protocol):
    """Tells the user something in a notification."""

    def say(self, text: str, severity: SeverityLevel = "information", timeout: float = 6) -> None:
        """Tell the user ``text`` (the app also keeps it in its notes)."""
        ...


class SlashHost(Notifier, Protocol):
    """What a slash command asks of the app."""

    @property
    def registry(self) -> CommandRegistry[SlashHost]:
        """Every slash command (completion, the palette and ``/help`` read it)."""
        ...

    @property
    def session(self) -> AppSession | None:
        """The open session; ``None`` until it is open."""
        ...

    @property
    def running(self) -> bool:
        """Whether the agent is working."""
        ...

    @property
    def footer(self) -> SessionFooter:
        """The footer (``/model`` names the new model there)."""
        ...

    def open_screen(self, screen: Screen[Any]) -> None:
        """Push a fold screen; the bar and the fold rows follow the window when it closes."""
        ...

    def push_screen(
        self,
        screen: Screen[ScreenResult],
        callback: ScreenResultCallbackType[ScreenResult] | None = None,
    ) -> object:
        """Push a screen of the app (a page of facts, a choice)."""
        ...

    def deliver(self, event: AgentEvent) -> None:
        """One event of the loop (``/compact`` reports through it)."""
        ...

    async def session_changed(self) -> None:
        """The session's agent or window changed (``/compact``)."""
        ...

    async def show_session(self, launch: Launch) -> None:
        """Show another session (``/new``, ``/resume``)."""
        ...

    async def run_slash(self, line: str) -> None:
        """Run one ``/command`` line (the palette's hits run through it)."""
        ...

    async def action_quit(self) -> None:
        """Leave cleanly (``/quit``)."""
        ...


class TypedHost(Notifier, Protocol):
    """What a typed message or ``!command`` asks of the app."""

    @property
    def session(self) -> AppSession | None:
        """The open session; ``None`` until it is open."""
        ...

    @property
    def bridge(self) -> AgentBridge | None:
        """The agent's bridge, once a session is shown."""
        ...

    @property
    def gate(self) -> PauseGate | None:
        """The demo's pause gate."""
        ...

    @property
    def prompt_widget(self) -> Widget | None:
        """The prompt (a refused message is given back to it)."""
        ...

    @property
    def leaving(self) -> Worker[None] | None:
        """The worker leaving the app, once the user asked to leave."""
        ...

    @property
    def running(self) -> bool:
        """Whether the agent is working."""
        ...

    def run_worker(
        self, work: Coroutine[Any, Any, Result], name: str | None = "", group: str = "default"
    ) -> Worker[Result]:
        """Run ``work`` in a worker of ``group``."""
        ...


class LeavingHost(Protocol):
    """What leaving asks of the app."""

    @property
    def loaded(self) -> asyncio.Event:
        """Set once the session is shown (or failed to open)."""
        ...

    @property
    def bridge(self) -> AgentBridge | None:
        """The agent's bridge, once a session is shown."""
        ...

    @property
    def failure(self) -> str | None:
        """Why the session could not be opened."""
        ...

    @property
    def workers(self) -> WorkerManager:
        """The app's workers (a ``!command`` runs in one)."""
        ...

    def listeners(self) -> Sequence[Widget]:
        """The widgets that show the loop's events."""
        ...

    def close_session(self) -> None:
        """Close the open session."""
        ...

    def exit(self, result: int | None = None) -> None:
        """Exit the app with ``result``."""
        ...


__all__ = ["Launch", "LeavingHost", "Loader", "Notifier", "SlashHost", "TypedHost"]
