"""The messages the app's parts exchange (Textual messages, bubbling to the app).

The agent loop never imports the UI: the bridge turns each loop event into an
:class:`AgentEventPosted` and posts it to the app, and the widgets ask for things by posting
the other messages here. No widget reaches into the loop's state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from textual.message import Message

if TYPE_CHECKING:
    # Only a type here: the app's first frame must not wait for the loop to import.
    from pifold_agent.loop.events import AgentEvent

PromptMode = Literal["send", "steer", "follow_up"]
"""``send`` starts a run (or, during a run, is queued as steering); ``follow_up`` waits for
the run to end."""


class AgentEventPosted(Message):
    """One event of the agent loop, as it happened."""

    def __init__(self, event: AgentEvent) -> None:
        super().__init__()
        self.event = event
        """The loop's own event object (see :mod:`pifold_agent.loop.events`)."""


class PromptSubmitted(Message):
    """The user sent what the prompt holds."""

    def __init__(self, text: str, mode: PromptMode) -> None:
        super().__init__()
        self.text = text
        """The message, exactly as typed (a leading ``/`` or ``!`` included)."""
        self.mode = mode
        """How it is to be delivered."""


class AbortRequested(Message):
    """The user asked to stop the running turn (Escape)."""


class ShellRequested(Message):
    """The user typed ``!command``: run it and add its output to the conversation."""

    def __init__(self, command: str) -> None:
        super().__init__()
        self.command = command
        """The shell command, without the leading ``!``."""


class FoldEditorRequested(Message):
    """Open the fold editor, on one fold when ``handle`` names it."""

    def __init__(self, handle: str | None = None) -> None:
        super().__init__()
        self.handle = handle
        """A fold handle (``fold-…``) to select, or ``None`` for the editor's own start."""
