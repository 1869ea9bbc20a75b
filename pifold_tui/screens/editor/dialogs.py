"""The editor's two dialogs: confirm a planned action, and write a pending mark's brief."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Label, Static, TextArea

from pifold_core.briefs import MAX_BRIEF_CHARS
from pifold_tui.screens.editor.actions import ActionPlan

DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 84; height: auto; max-height: 90%;
    border: thick $primary; background: $surface; padding: 1 2;
}}
{name} .dialog-title {{ text-style: bold; }}
{name} .moves-bytes {{ color: $warning; text-style: bold; }}
{name} .moves-nothing {{ color: $success; }}
{name} Horizontal {{ height: auto; margin-top: 1; }}
{name} Button {{ margin-right: 2; }}
"""


class ConfirmAction(ModalScreen[bool]):
    """Shows what an action will do and cost; Enter runs it, Escape leaves it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "answer(True)", "Run"),
        Binding("escape", "answer(False)", "Cancel"),
    ]
    DEFAULT_CSS = DIALOG_CSS.format(name="ConfirmAction")

    def __init__(self, plan: ActionPlan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.plan.title, classes="dialog-title")
            yield Label(
                self.plan.verdict,
                classes="moves-bytes" if self.plan.moves_bytes else "moves-nothing",
                id="verdict",
            )
            yield Static("\n".join(f"• {line}" for line in self.plan.lines), id="plan-lines")
            with Horizontal():
                yield Button("Run", variant="primary", id="run")
                yield Button("Cancel", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        # Buttons are for the mouse: a focused button would take Enter for itself (so Enter
        # on Cancel would cancel) and hide the dialog's own Enter from the footer.
        for button in self.query(Button):
            button.can_focus = False

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "run")


class BriefEditor(ModalScreen[str | None]):
    """A text area for a pending mark's brief; Ctrl+S keeps it, Escape leaves it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "keep", "Keep brief", priority=True),
        Binding("escape", "leave", "Cancel"),
    ]
    DEFAULT_CSS = (
        DIALOG_CSS.format(name="BriefEditor")
        + """
    BriefEditor TextArea { height: 12; }
    BriefEditor #brief-count { color: $text-muted; }
    BriefEditor #brief-count.-over { color: $error; }
    """
    )

    def __init__(self, mark_id: str, text: str) -> None:
        super().__init__()
        self.mark_id = mark_id
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"brief for {self.mark_id}", classes="dialog-title")
            yield Label(
                "moves no bytes: the brief enters the window with its fold, at the next commit",
                classes="moves-nothing",
            )
            yield TextArea(self.text, id="brief-text", soft_wrap=True)
            yield Label("", id="brief-count")
            with Horizontal():
                yield Button("Keep", variant="primary", id="keep")
                yield Button("Cancel", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        self._count()
        self.query_one(TextArea).focus()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._count()

    def _count(self) -> None:
        length = len(self.query_one(TextArea).text.strip())
        label = self.query_one("#brief-count", Label)
        label.update(f"{length:,} of at most {MAX_BRIEF_CHARS:,} characters")
        label.set_class(length > MAX_BRIEF_CHARS, "-over")

    def action_keep(self) -> None:
        # Length and emptiness are the engine's to refuse, so its message is the one shown.
        self.dismiss(self.query_one(TextArea).text)

    def action_leave(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "keep":
            self.action_keep()
        else:
            self.action_leave()
