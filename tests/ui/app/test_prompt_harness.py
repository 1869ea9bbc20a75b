"""The prompt's test harness: an app holding one ``PromptArea`` over a registry of real
commands, recording every message the prompt posts (no tests of its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.message import Message
from textual.pilot import Pilot

from pifold_tui.app.commands import Command, CommandRegistry
from pifold_tui.app.messages import AbortRequested, PromptSubmitted, ShellRequested
from pifold_tui.app.prompt import PromptArea, PromptHistory

ran: list[str] = []


def record_run(app: object, arguments: str) -> None:
    """A command's body: remembers that it ran (the prompt never runs commands itself)."""
    ran.append(arguments)


def command_registry() -> CommandRegistry[object]:
    """Real commands, some refused during a run."""
    registry: CommandRegistry[object] = CommandRegistry()
    for name, description, during_run in (
        ("fold-status", "Show the fold status screen", True),
        ("fold", "Fold the window now", False),
        ("fold-editor", "Browse and peek folds", True),
        ("help", "List the commands", True),
        ("quit", "Leave pifold", True),
    ):
        registry.register(Command(name, description, during_run, record_run))
    return registry


async def typed(pilot: Pilot[None], prompt: PromptArea, text: str, *keys: str) -> None:
    """Put ``text`` in the input as if typed (in one edit: the tests of single keys press
    them), then press ``keys``."""
    prompt.input.insert(text)
    await pilot.pause()
    await pilot.press(*keys)


class PromptHarness(App[None]):
    """One prompt at the bottom of the screen; what it posts lands in :attr:`posted`."""

    CSS = "Screen { align-vertical: bottom; }"

    def __init__(
        self,
        cwd: Path,
        history: PromptHistory | None = None,
        theme: str = "textual-dark",
    ) -> None:
        super().__init__()
        self.cwd = cwd
        self.history = history
        self.theme_name = theme
        self.posted: list[Message] = []
        self.notes: list[str] = []
        """Every notification's text, in order."""

    def compose(self) -> ComposeResult:
        yield PromptArea(command_registry(), self.cwd, self.history)

    def on_mount(self) -> None:
        self.theme = self.theme_name
        self.prompt.input.cursor_blink = False

    def notify(self, message: str, **options: Any) -> None:
        self.notes.append(message)
        super().notify(message, **options)

    @property
    def prompt(self) -> PromptArea:
        return self.query_one(PromptArea)

    def on_prompt_submitted(self, message: PromptSubmitted) -> None:
        self.posted.append(message)

    def on_shell_requested(self, message: ShellRequested) -> None:
        self.posted.append(message)

    def on_abort_requested(self, message: AbortRequested) -> None:
        self.posted.append(message)

    def sent(self) -> list[tuple[str, str]]:
        """What was posted, as ``(kind, text)``: ``send``/``follow_up``, ``shell``, ``abort``."""
        described: list[tuple[str, str]] = []
        for message in self.posted:
            if isinstance(message, PromptSubmitted):
                described.append((message.mode, message.text))
            elif isinstance(message, ShellRequested):
                described.append(("shell", message.command))
            else:
                described.append(("abort", ""))
        return described
