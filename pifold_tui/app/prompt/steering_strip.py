"""The steering strip: messages sent during a run, shown above the input until they land.

A steering message lands after the current tool batch, a follow-up when the run would
otherwise stop; either way the loop then records it as a user entry, and the prompt, which
sees every loop event, removes the row whose text that entry carries (the oldest first,
since the queues deliver in order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rich.text import Text
from textual.widgets import Static

QueuedKind = Literal["steering", "follow_up"]

PREVIEW_CHARACTERS = 70
"""A queued message is shown on one line, cut to this many characters."""


@dataclass(frozen=True, slots=True)
class QueuedMessage:
    """One message waiting to land."""

    text: str
    """Exactly as sent."""
    kind: QueuedKind
    """Steering or a follow-up."""


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARACTERS else flat[: PREVIEW_CHARACTERS - 1] + "…"


class SteeringStrip(Static):
    """The queued messages, one line each, hidden when there are none."""

    DEFAULT_CSS = """
    SteeringStrip { display: none; height: auto; padding: 0 2; color: $text-muted; }
    SteeringStrip.-queued { display: block; }
    """

    def __init__(self) -> None:
        super().__init__("", id="steering-strip")
        self.queued: list[QueuedMessage] = []
        """Waiting to land, oldest first."""

    def add(self, text: str, kind: QueuedKind) -> None:
        """Show ``text`` until it lands."""
        self.queued.append(QueuedMessage(text, kind))
        self._show()

    def land(self, entry_text: str) -> bool:
        """A user entry with ``entry_text`` was recorded: remove the oldest queued message
        it carries (several queued messages delivered together arrive joined in one entry,
        so each one the entry contains is removed). Returns whether any was."""
        exact = next((item for item in self.queued if item.text == entry_text), None)
        landed = (
            [exact]
            if exact is not None
            else [item for item in self.queued if item.text.strip() in entry_text]
        )
        if not landed:
            return False
        for item in landed:
            self.queued.remove(item)
        self._show()
        return True

    def withdraw(self, text: str) -> bool:
        """Remove the newest queued message that is exactly ``text`` (it was refused, so it
        will never land); returns whether there was one."""
        for item in reversed(self.queued):
            if item.text == text:
                self.queued.remove(item)
                self._show()
                return True
        return False

    def clear(self) -> None:
        """Forget every queued message (the session they were sent to is gone)."""
        self.queued.clear()
        self._show()

    def _show(self) -> None:
        text = Text()
        for position, item in enumerate(self.queued):
            if position:
                text.append("\n")
            if item.kind == "steering":
                text.append("↳ steering ", style="bold")
                text.append("(after this tool batch) ", style="dim")
            else:
                text.append("⏭ follow-up ", style="bold")
                text.append("(when the run would stop) ", style="dim")
            text.append(_preview(item.text))
        self.update(text)
        self.set_class(bool(self.queued), "-queued")


__all__ = ["QueuedKind", "QueuedMessage", "SteeringStrip"]
