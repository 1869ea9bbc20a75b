"""The conversation's rows: user messages, notices of loop events, fold rows, and the
widget of any recorded row of the transcript (:func:`row_widget`).

A fold row stands where the model now sees a fold's placeholder instead of the messages
under it; activated (Enter or a click) it asks the app to open the fold editor on that fold.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.events import Click
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from pifold_core.entries import Entry
from pifold_core.status import FoldRow
from pifold_tui.app.conversation.assistant import AssistantMessage, recorded_message
from pifold_tui.app.conversation.render import fold_row_text
from pifold_tui.app.conversation.source import TranscriptRow
from pifold_tui.app.conversation.tool_call import ToolCallView
from pifold_tui.app.messages import FoldEditorRequested


class UserMessage(Static):
    """A message the user (or a ``!command``) sent, or a note the host added."""

    DEFAULT_CSS = """
    UserMessage {
        padding: 0 1; margin: 0 0 1 0; background: $boost;
        border-left: thick $primary;
    }
    UserMessage.note { border-left: thick $secondary; color: $text-muted; }
    """

    def __init__(self, entry: Entry) -> None:
        super().__init__(entry.text, markup=False, classes="row user")
        self.entry_id: str | None = entry.id
        """The recorded entry's id."""
        self.set_class(entry.kind != "user", "note")


class Notice(Static):
    """One line about the run: a commit, a compaction, a retry wait, an error."""

    DEFAULT_CSS = """
    Notice { padding: 0 1; margin: 0 0 1 0; color: $text-muted; }
    Notice.commit { color: $accent; }
    Notice.retry { color: $warning; }
    Notice.error { color: $error; text-style: bold; }
    """

    def __init__(self, text: str, kind: str) -> None:
        super().__init__(text, markup=False, classes=f"row notice {kind}")
        self.entry_id: str | None = None
        """Notices are events, not messages: they have no entry."""
        self.text = text
        """What it says."""


class FoldRowView(Static, can_focus=True):
    """A fold the model sees as its placeholder; Enter or a click opens the fold editor."""

    DEFAULT_CSS = """
    FoldRowView {
        padding: 0 1; color: $text-muted; text-style: italic;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    FoldRowView:focus { background: $boost; color: $text; }
    FoldRowView:hover { color: $text; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open in the fold editor", show=False)
    ]

    def __init__(self, row: FoldRow) -> None:
        super().__init__(fold_row_text(row), markup=False, classes="fold-row")
        self.handle = row.handle
        """The fold's handle."""

    def action_open(self) -> None:
        self.post_message(FoldEditorRequested(self.handle))

    def on_click(self, event: Click) -> None:
        event.stop()
        self.action_open()


class EarlierHint(Static):
    """The top of the conversation when older messages are not mounted."""

    DEFAULT_CSS = """
    EarlierHint { padding: 0 1; color: $text-muted; text-align: center; }
    """

    def __init__(self) -> None:
        super().__init__("", markup=False, id="earlier")
        self.count = 0
        """Older messages not mounted now."""

    def say(self, count: int) -> None:
        self.count = count
        unit = "message" if count == 1 else "messages"
        self.update(f"↑ {count:,} earlier {unit}: scroll up or press home to load them")
        self.display = count > 0

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.LoadRequested())

    class LoadRequested(Message):
        """The user clicked the hint: mount the earlier messages."""


def row_widget(row: TranscriptRow) -> Widget:
    """The widget of one recorded row of the transcript."""
    entry = row.entry
    if entry.kind == "assistant":
        return recorded_message(entry, row.results)
    if entry.kind == "tool_result":  # a result whose call is not in the transcript
        view = ToolCallView(entry.tool_name or "tool", entry.call_id)
        view.show_result(entry)
        message = AssistantMessage(view)
        message.entry_id = entry.id
        message.tool_calls = [view]
        return message
    return UserMessage(entry)


__all__ = ["EarlierHint", "FoldRowView", "Notice", "UserMessage", "row_widget"]
