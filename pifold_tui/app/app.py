"""``PifoldApp``: the terminal agent app (issue 13, DESIGN §10–§11).

The screen is the conversation, the prompt under it, then the fold bar docked directly above
the footer (model, session tokens and cost, working directory). The first frame has the
prompt and the footer only; the session (its provider, SDK, tokenizer, engine) is opened by
a worker right after it, so nothing heavy is imported before the app can be seen.

The loop reaches the UI through its events only: the bridge hands each one to
:meth:`PifoldApp.deliver`, which updates the footer and the bar and posts an
``AgentEventPosted`` message to the conversation and the prompt (the app has no handler of
its own for that message, so the copies that bubble back up end there). The widgets ask for
things with the messages of :mod:`pifold_tui.app.messages`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker

from pifold_tui.app.approval_screen import ModalApprover
from pifold_tui.app.commands import CommandRegistry
from pifold_tui.app.demo_controls import DemoControls, PauseGate
from pifold_tui.app.footer import SessionFooter
from pifold_tui.app.host import Launch, Loader, SlashHost
from pifold_tui.app.leaving import leave_cleanly
from pifold_tui.app.main_screen import MainScreen
from pifold_tui.app.messages import (
    AbortRequested,
    AgentEventPosted,
    FoldEditorRequested,
    PromptSubmitted,
    ShellRequested,
)
from pifold_tui.app.slash import build_registry, run_line
from pifold_tui.app.slash_palette import SlashCommandProvider
from pifold_tui.app.typed import run_shell_command, send_message

if TYPE_CHECKING:
    from pifold_agent.loop import AgentEvent
    from pifold_tui.app.bridge import AgentBridge
    from pifold_tui.app.session_setup import AppSession
    from pifold_tui.fold_bar import FoldBar

HINTS = "esc abort · ctrl+p commands · /help"
"""The keys the footer names in a live session."""

FIRST_FRAME_MARKER = "ctrl+p commands"
"""Text the first interactive frame always shows (the startup benchmark waits for it)."""


WidgetFactory = Callable[["PifoldApp"], Widget]
"""Makes the conversation or the prompt for the app (tests give simple ones of their own)."""


class PifoldApp(App[int]):
    """The conversation, the prompt, the fold bar and the footer over one agent session."""

    TITLE = "pifold"
    CSS = """
    #conversation-area { height: 1fr; }
    #loading { height: 1fr; padding: 1 2; color: $text-muted; }
    #bottom { dock: bottom; height: auto; }
    /* Toasts stand above the bar and the footer (Textual's rack leaves one row, for a
       footer alone), so a notification never hides the bar's right end. */
    ToastRack { margin-bottom: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f2", "pause", "Pause", priority=True),
        Binding("escape", "abort", "Abort", show=False),
    ]
    COMMANDS = App.COMMANDS | {SlashCommandProvider}

    def __init__(
        self,
        loader: Loader,
        conversation: WidgetFactory,
        prompt: WidgetFactory,
        cwd: Path | None = None,
        on_session: Callable[[PifoldApp, AppSession], None] | None = None,
    ) -> None:
        """Create the app.

        Args:
            loader: Opens the session (in a worker, after the first frame).
            conversation: Makes the conversation once the session is open.
            prompt: Makes the prompt (in the first frame).
            cwd: Where the app was started.
            on_session: Called each time a session is shown (``/new``, ``/resume`` too).
        """
        super().__init__()
        self.loader = loader
        self.on_session = on_session
        self.conversation_factory = conversation
        self.prompt_factory = prompt
        self.cwd = (cwd or Path.cwd()).resolve()
        """Where the app was started (the footer shows it until the session says)."""
        self.registry: CommandRegistry[SlashHost] = build_registry()
        """Every slash command: completion, the palette and ``/help`` read it."""
        self.approver = ModalApprover(self.push_screen)
        """Asks the user before write, edit and bash (unless ``--yes``)."""
        self.session: AppSession | None = None
        """The open session; ``None`` until the worker has opened it."""
        self.bridge: AgentBridge | None = None
        self.gate: PauseGate | None = None
        """The demo's pause gate."""
        self.demo: DemoControls | None = None
        """The demo's keys (F2, Esc) over its gate; ``None`` in a live session."""
        self.loaded = asyncio.Event()
        """Set once the session is shown (or failed to open)."""
        self.sessions_shown = 0
        """How many sessions have been shown, the first included (``/new`` and ``/resume``
        add one each once the new session is on screen)."""
        self.failure: str | None = None
        """Why the session could not be opened (the app then shows it and offers to quit)."""
        self.leaving: Worker[None] | None = None
        """The worker leaving the app (:meth:`leave`), once the user asked to leave: a
        session that finishes opening then is closed, not shown."""
        self.notes: list[str] = []
        """Everything the app told the user in a notification, in order."""
        self.conversation_widget: Widget | None = None
        """The conversation, once the session is shown."""
        self.prompt_widget: Widget | None = None
        """The prompt."""

    # -- layout -------------------------------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        """Textual's screen with its layout bookkeeping corrected for the conversation's
        stream layout (:mod:`pifold_tui.app.main_screen`)."""
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        with Vertical(id="conversation-area"):
            yield Static("pifold · opening the session…", id="loading", markup=False)
        self.prompt_widget = self.prompt_factory(self)
        yield self.prompt_widget
        with Vertical(id="bottom"):
            yield SessionFooter("…", self.cwd, None, HINTS)

    @property
    def footer(self) -> SessionFooter:
        return self.query_one(SessionFooter)

    @property
    def bar(self) -> FoldBar | None:
        """The fold bar, once the session is shown (none after ``/compact``)."""
        from pifold_tui.fold_bar import FoldBar

        bars = self.query(FoldBar)
        return bars.first() if bars else None

    def on_mount(self) -> None:
        # After the first frame is on screen: the session's imports (the SDKs, tiktoken, the
        # engine) would otherwise compete with drawing it.
        self.call_after_refresh(self._start_opening)

    def _start_opening(self) -> None:
        self.run_worker(self._open(), name="open session", exit_on_error=False)

    async def _open(self) -> None:
        try:
            launch = await asyncio.to_thread(self.loader, self.approver)
        except Exception as error:  # any failure is shown to the user; the app stays usable
            # Said on stderr by whoever started the app, once the terminal is back.
            self.failure = str(error) or type(error).__name__
            self.loaded.set()
            self.exit(2)
            return
        if self.leaving is not None:  # the user quit while it opened: close it unseen
            from pifold_tui.app.session_setup import close_quietly

            close_quietly(launch.session)
            self.loaded.set()
            return
        await self.show_session(launch)
        if launch.opening is not None and self.bridge is not None and self.leaving is None:
            self.bridge.start(launch.opening)

    async def show_session(self, launch: Launch) -> None:
        """Show ``launch``'s session: its conversation, the bar and the footer's figures."""
        from pifold_tui.app.bridge import AgentBridge
        from pifold_tui.app.no_model import connect_hint_of

        self.session, self.gate = launch.session, launch.gate
        played, gate = launch.session.played_through or (lambda: False), launch.gate
        footer = self.footer
        self.demo = (
            None if gate is None else DemoControls(gate, self.say, footer.show_hints, played)
        )
        if self.bridge is None:
            self.bridge = AgentBridge(self, launch.session.agent, self.deliver)
        else:
            self.bridge.replace_agent(launch.session.agent)
        area = self.query_one("#conversation-area", Vertical)
        await area.remove_children()
        self.conversation_widget = self.conversation_factory(self)
        await area.mount(self.conversation_widget)
        await self._mount_bar()
        self.footer.open(launch.session, HINTS if self.demo is None else self.demo.hints)
        if self.on_session is not None:
            self.on_session(self, launch.session)
        hint = connect_hint_of(launch.session)
        if hint is not None:
            self.say(hint, timeout=12)
        for notice in launch.session.notices:  # said once, as the session is shown
            self.say(notice, severity="warning", timeout=12)
        if launch.session.settings_refused is not None:
            from pifold_core.refused_settings import refused_notice

            self.say(refused_notice(launch.session.settings_refused), "warning", timeout=20)
        self.sessions_shown += 1
        self.loaded.set()

    async def _mount_bar(self) -> None:
        from pifold_tui.fold_bar import FoldBar
        from pifold_tui.screens.status.frame import palette_of

        existing = self.bar
        if existing is not None:
            await existing.remove()
        session = self.session
        if session is None or session.engine is None:
            return
        bar = FoldBar(session.engine.composition(), palette_setting=palette_of(session.engine))
        await self.query_one("#bottom", Vertical).mount(bar, before=self.footer)

    def refresh_bar(self, _result: object = None) -> None:
        """Repaint the bar from the engine (after a request, a commit, any fold screen)."""
        bar = self.bar
        session = self.session
        if bar is None or session is None or session.engine is None:
            return
        from pifold_tui.screens.status.frame import palette_of

        bar.palette_setting = palette_of(session.engine)
        bar.composition = session.engine.composition()

    # -- the loop's events --------------------------------------------------------------------

    def deliver(self, event: AgentEvent) -> None:
        """One event of the loop: the footer and bar first, then the widgets that show it."""
        from pifold_agent.loop.events import (
            CommitDone,
            CompactionDone,
            MessageEnd,
            RunEnd,
            RunStart,
        )

        if isinstance(event, MessageEnd):
            if event.entry.kind == "assistant":
                bill = None if self.session is None else self.session.bill
                self.footer.record(event.entry, None if bill is None else bill.comparison())
            self.refresh_bar()
        elif isinstance(event, CommitDone | CompactionDone | RunEnd):
            self.refresh_bar()
        if isinstance(event, RunStart | RunEnd):
            self.set_running(isinstance(event, RunStart))
        if isinstance(event, RunEnd) and self.demo is not None and self.leaving is None:
            self.demo.end(event.outcome, event.error)
        for widget in self.listeners():
            widget.post_message(AgentEventPosted(event))

    def listeners(self) -> list[Widget]:
        """The widgets that show the loop's events: the conversation and the prompt."""
        return [
            widget
            for widget in (self.conversation_widget, self.prompt_widget)
            if widget is not None and widget.is_attached
        ]

    def set_running(self, running: bool) -> None:
        """Tell the prompt whether a run is going (its hints and Esc depend on it)."""
        if self.prompt_widget is not None and hasattr(self.prompt_widget, "running"):
            self.prompt_widget.running = running

    @property
    def running(self) -> bool:
        return self.bridge is not None and self.bridge.running

    # -- what the widgets ask for -------------------------------------------------------------

    async def on_prompt_submitted(self, message: PromptSubmitted) -> None:
        message.stop()
        if message.text.startswith("/"):
            await self.run_slash(message.text)
        else:
            send_message(self, message.text, message.mode)

    async def run_slash(self, line: str) -> None:
        """Run one ``/command`` line, or say why not."""
        await run_line(self, line)

    def on_abort_requested(self, message: AbortRequested) -> None:
        message.stop()
        self.action_abort()

    def action_abort(self) -> None:
        """Esc: stop the running turn (the session is left consistent); in the demo, pause
        it (:mod:`pifold_tui.app.demo_controls` says why)."""
        if self.demo is not None:
            if self.running or self.demo.ended is not None:
                self.demo.pause()
        elif self.bridge is not None and self.bridge.abort():
            self.say("Aborted: the session keeps what happened.")

    def on_shell_requested(self, message: ShellRequested) -> None:
        message.stop()
        run_shell_command(self, message.command)

    def on_fold_editor_requested(self, message: FoldEditorRequested) -> None:
        message.stop()
        from pifold_tui.app.slash import open_fold_editor

        open_fold_editor(self, message.handle)

    def action_pause(self) -> None:
        """F2, the demo's pause key: hold or resume the stream, or say why nothing plays."""
        if not self.loaded.is_set():
            self.say("The session is still opening.")
        elif self.demo is not None:
            self.demo.toggle()

    # -- screens ------------------------------------------------------------------------------

    def open_screen(self, screen: Screen[Any]) -> None:
        """Push a fold screen; the bar and the fold rows follow the window when it closes."""
        self.push_screen(screen, callback=self.projection_changed)

    def projection_changed(self, _result: object = None) -> None:
        """A fold screen closed: the bar repaints and the conversation re-places its fold
        rows (the model's verbs land as commits, which the conversation follows itself)."""
        from pifold_tui.app.conversation import Conversation

        self.refresh_bar()
        if isinstance(self.conversation_widget, Conversation):
            self.conversation_widget.call_later(self.conversation_widget.place_folds)

    async def session_changed(self) -> None:
        """The session's agent or window changed (``/compact``): follow it."""
        session = self.session
        if session is None or self.bridge is None:
            return
        self.bridge.replace_agent(session.agent)
        await self._mount_bar()

    def say(self, text: str, severity: SeverityLevel = "information", timeout: float = 6) -> None:
        """Tell the user ``text`` in a notification (and keep it in :attr:`notes`)."""
        self.notes.append(text)
        self.notify(text, severity=severity, timeout=timeout, markup=False)

    async def action_quit(self) -> None:
        """Ctrl+Q and ``/quit``: :meth:`leave`."""
        self.leave()

    def leave(self) -> Worker[None]:
        """Leave cleanly (:mod:`pifold_tui.app.leaving`), in a worker returned (the same one
        to a second call) while the app keeps drawing."""
        if self.leaving is None:
            self.leaving = self.run_worker(
                leave_cleanly(self), name="leave", group="leave", exit_on_error=False
            )
        return self.leaving

    def close_session(self) -> None:
        """Close the open session at exit (its engine, its file, the demo's folder)."""
        if self.session is not None:
            from pifold_tui.app.session_setup import close_quietly

            close_quietly(self.session)
            self.session = None


__all__ = [
    "FIRST_FRAME_MARKER",
    "HINTS",
    "Launch",
    "Loader",
    "PifoldApp",
    "WidgetFactory",
]
