"""One tool call: a row keyed by its call id that opens to its arguments, progress and result.

The row is one widget drawing :func:`~pifold_tui.app.conversation.render.tool_call_row`: the
tool, what the call is about and where it is (streaming, running, done, failed). Opened
(a click or Enter), the arguments, the tool's partial output while it runs, and the result
show under it: an edit's unified diff coloured, an error in the error style, a long result
cut after :data:`~pifold_tui.app.conversation.render.RESULT_LINES` lines with a "more" line
that shows the rest. Those parts are a second widget, mounted under the row in the same
message the first time the call is opened: most calls are never opened, and every mounted
widget costs each layout of the conversation (issue 23 item 4).
"""

from __future__ import annotations

import json
from typing import ClassVar

from textual.app import RenderResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Click
from textual.widget import Widget
from textual.widgets import Static

from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry
from pifold_tui.app.conversation.render import diff_text, tool_call_row, tool_header, truncated


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


class ToolCallDetails(Vertical):
    """What an open tool call shows under its row: its arguments, the running tool's output,
    an edit's diff and the result."""

    DEFAULT_CSS = """
    ToolCallDetails { width: 1fr; height: auto; padding: 0 0 0 2; }
    ToolCallDetails .tool-arguments { color: $text-muted; }
    ToolCallDetails .tool-progress { color: $text-muted; max-height: 8; }
    ToolCallDetails .tool-result.error { color: $error; }
    """


class ToolCallView(Widget, can_focus=True):
    """A tool call of an assistant message: one row, closed until the user opens it."""

    ALLOW_SELECT = False
    # Drawn as Textual's collapsible title was (the row this widget replaces).
    DEFAULT_CSS = """
    ToolCallView {
        width: 1fr;
        height: auto;
        padding: 0 1;
        text-style: $block-cursor-blurred-text-style;
        color: $block-cursor-blurred-foreground;
        pointer: pointer;
        &:hover { background: $block-hover-background; color: $foreground; }
        &:focus {
            text-style: $block-cursor-text-style;
            background: $block-cursor-background;
            color: $block-cursor-foreground;
        }
        &.error { color: $error; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_call", "Open or close", show=False)
    ]

    def __init__(self, name: str = "tool", call_id: str | None = None) -> None:
        super().__init__()
        self.arguments_view = Static("", markup=False, classes="tool-arguments")
        self.progress_view = Static("", markup=False, classes="tool-progress")
        self.diff_view = Static("", classes="tool-diff")
        self.result_view = ResultView()
        self.details: ToolCallDetails | None = None
        """The parts under the row, once the call was opened (mounted then, not before)."""
        self.open = False
        """Whether the parts are shown under the row."""
        self.tool_name = name
        """The tool's name ("tool" while the call is still streaming)."""
        self.call_id = call_id
        """The call's id: the conversation finds the call by it (``None`` while streaming)."""
        self.arguments: JsonValue = None
        self.state = "streaming"
        """``streaming``, ``running``, ``done`` or ``error``."""
        self.title = tool_header(name, None, "streaming")
        """The row's header (the tool, what the call is about, where it is)."""
        self.partial_arguments = ""
        """The arguments' JSON as streamed so far."""
        self.progress = ""
        """The tool's partial output while it runs."""
        self.result: Entry | None = None
        """The result, once recorded."""
        for part in (self.progress_view, self.diff_view):
            part.display = False

    @property
    def collapsed(self) -> bool:
        """Whether the call shows its row alone (setting it opens or closes the call)."""
        return not self.open

    @collapsed.setter
    def collapsed(self, collapsed: bool) -> None:
        if collapsed == self.collapsed:
            return
        self.open = not collapsed
        self.paint_row()
        if self.is_mounted:
            self.place_details()

    def on_mount(self) -> None:
        self.repaint()
        self.place_details()

    def action_toggle_call(self) -> None:
        """Enter: open or close the call."""
        self.collapsed = not self.collapsed

    def on_click(self, event: Click) -> None:
        event.stop()
        self.action_toggle_call()

    def place_details(self) -> None:
        """Show the parts under the row when the call is open (mounting them the first
        time), hide them when it is closed. They belong to the message, as the row does: a
        row is only ever removed with its message, so they go together."""
        if self.details is None:
            parent = self.parent
            if self.collapsed or not isinstance(parent, Widget):
                return
            parts = (self.arguments_view, self.progress_view, self.diff_view, self.result_view)
            self.details = ToolCallDetails(*parts)
            parent.mount(self.details, after=self)
        self.details.display = self.open
        if self.open:
            self.call_after_refresh(self.details.scroll_visible)

    def render(self) -> RenderResult:
        # The header as repaint() last set it: every change of the call goes through it.
        return tool_call_row(self.title, self.open)

    def paint_row(self) -> None:
        """Draw the row again (its height too: a long header wraps on a narrow screen)."""
        if self.is_mounted:
            self.refresh(layout=True)

    def repaint(self) -> None:
        """Title and contents from the call's state."""
        self.title = tool_header(self.tool_name, self.arguments, self.state)
        self.set_class(self.state == "error", "error")
        self.paint_row()
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


__all__ = ["ResultView", "ToolCallDetails", "ToolCallView"]
