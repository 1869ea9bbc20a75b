"""One tool call: a collapsible row keyed by its call id, with arguments, progress and result.

The header says the tool, what the call is about and where it is (streaming, running, done,
failed). Expanded, it shows the arguments, the tool's partial output while it runs, and the
result: an edit's unified diff coloured, an error in the error style, a long result cut
after :data:`~pifold_tui.app.conversation.render.RESULT_LINES` lines with a "more" line that
shows the rest.
"""

from __future__ import annotations

import json
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.events import Click
from textual.widgets import Collapsible, Static

from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry
from pifold_tui.app.conversation.render import diff_text, tool_header, truncated


class ResultView(Static, can_focus=True):
    """A tool's result text, cut to its first lines until the user asks for all of it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "show_all", "More", show=False)]

    def __init__(self) -> None:
        super().__init__("", markup=False, classes="tool-result")
        self.text = ""
        """The whole result."""
        self.complete = False
        """Whether the whole result is shown (the user asked for more)."""

    def show(self, text: str, is_error: bool) -> None:
        """Show ``text`` (cut when long), styled as an error when ``is_error``."""
        self.text = text
        self.set_class(is_error, "error")
        self.paint()

    @property
    def hidden_lines(self) -> int:
        """Lines not shown now."""
        return 0 if self.complete else truncated(self.text).hidden_lines

    def paint(self) -> None:
        if self.complete:
            self.update(self.text)
            return
        cut = truncated(self.text)
        self.update(cut.shown + ("\n" + cut.more_label if cut.hidden_lines else ""))

    def action_show_all(self) -> None:
        """The "more" affordance: the whole result."""
        if not self.complete and truncated(self.text).hidden_lines:
            self.complete = True
            self.paint()

    def on_click(self, event: Click) -> None:
        event.stop()
        self.action_show_all()


class ToolCallView(Collapsible):
    """A tool call of an assistant message (collapsed until the user opens it)."""

    DEFAULT_CSS = """
    ToolCallView { border: none; padding: 0; margin: 0; background: transparent; }
    /* The whole row's width, not its text's: a title whose width followed its text was
       sometimes drawn cut at the streaming title's width after it changed. */
    ToolCallView > CollapsibleTitle { width: 1fr; }
    ToolCallView > Contents { padding: 0 0 0 2; height: auto; }
    ToolCallView.error > CollapsibleTitle { color: $error; }
    ToolCallView .tool-arguments { color: $text-muted; }
    ToolCallView .tool-progress { color: $text-muted; max-height: 8; }
    ToolCallView .tool-result.error { color: $error; }
    """

    def __init__(self, name: str = "tool", call_id: str | None = None) -> None:
        self.arguments_view = Static("", markup=False, classes="tool-arguments")
        self.progress_view = Static("", markup=False, classes="tool-progress")
        self.diff_view = Static("", classes="tool-diff")
        self.result_view = ResultView()
        # The parts are mounted when the call is first opened: a long session has many
        # calls, and every mounted widget costs each layout of the conversation.
        super().__init__(title=tool_header(name, None, "streaming"), collapsed=True)
        self.filled = False
        """Whether the parts are mounted (the call was opened once)."""
        self.tool_name = name
        """The tool's name ("tool" while the call is still streaming)."""
        self.call_id = call_id
        """The call's id: the conversation finds the call by it (``None`` while streaming)."""
        self.arguments: JsonValue = None
        self.state = "streaming"
        """``streaming``, ``running``, ``done`` or ``error``."""
        self.partial_arguments = ""
        """The arguments' JSON as streamed so far."""
        self.progress = ""
        """The tool's partial output while it runs."""
        self.result: Entry | None = None
        """The result, once recorded."""
        for part in (self.progress_view, self.diff_view):
            part.display = False

    def on_mount(self) -> None:
        self.repaint()

    async def on_collapsible_expanded(self, message: Collapsible.Expanded) -> None:
        if message.collapsible is not self or self.filled:
            return
        self.filled = True
        parts = (self.arguments_view, self.progress_view, self.diff_view, self.result_view)
        await self.query_one(Collapsible.Contents).mount_all(parts)

    def repaint(self) -> None:
        """Title and contents from the call's state."""
        self.title = tool_header(self.tool_name, self.arguments, self.state)
        self.set_class(self.state == "error", "error")
        if self.arguments is not None:
            self.arguments_view.update(json.dumps(self.arguments, indent=2, ensure_ascii=False))
        else:
            self.arguments_view.update(self.partial_arguments)

    def stream_arguments(self, delta: str) -> None:
        """More of the arguments' JSON, as the model writes it."""
        self.partial_arguments += delta
        self.arguments_view.update(self.partial_arguments)

    def settle(self, call_id: str, name: str, arguments: JsonValue) -> None:
        """The call as recorded: its id, tool and arguments."""
        self.call_id, self.tool_name, self.arguments = call_id, name, arguments
        if self.state == "streaming":
            self.state = "running" if self.result is None else self.state
        self.repaint()

    def start(self) -> None:
        """The tool began to run."""
        if self.result is None:
            self.state = "running"
        self.repaint()

    def add_progress(self, text: str) -> None:
        """Partial output of the running tool (the last lines are kept in view)."""
        self.progress = text if not self.progress else self.progress + text
        self.progress_view.display = True
        self.progress_view.update("\n".join(self.progress.splitlines()[-8:]))

    def show_result(self, entry: Entry) -> None:
        """The call's recorded result: its text, its diff for an edit, error or not."""
        self.result = entry
        self.state = "error" if entry.is_error else "done"
        self.progress_view.display = False
        details = entry.extra.get("details")
        diff = details.get("diff") if isinstance(details, dict) else None
        if isinstance(diff, str) and diff:
            self.diff_view.update(diff_text(diff))
            self.diff_view.display = True
        self.result_view.show(entry.text, entry.is_error)
        self.repaint()


__all__ = ["ResultView", "ToolCallView"]
