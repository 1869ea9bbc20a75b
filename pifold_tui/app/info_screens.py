"""Two small dialogs the slash commands show: a page of facts, and a choice from a list.

``/help``, ``/session`` and ``/model`` show an :class:`InfoScreen`; ``/resume`` without an
id picks a session with a :class:`ChoiceScreen`. Neither shows anything to the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, OptionList, Static
from textual.widgets.option_list import Option

DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 100; height: auto; max-height: 90%;
    border: thick $primary; background: $surface; padding: 1 2;
}}
{name} .dialog-title {{ text-style: bold; margin-bottom: 1; }}
{name} VerticalScroll {{ height: auto; max-height: 30; }}
{name} OptionList {{ height: auto; max-height: 20; }}
"""


class InfoScreen(ModalScreen[None]):
    """A title and lines of text; Escape, Enter or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("enter", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]
    DEFAULT_CSS = DIALOG_CSS.format(name="InfoScreen")

    def __init__(self, title: str, lines: Sequence[str]) -> None:
        super().__init__()
        self.title_text = title
        """The dialog's title."""
        self.lines = list(lines)
        """What it says, one line each."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="dialog-title", markup=False)
            with VerticalScroll():
                yield Static("\n".join(self.lines), id="info-body", markup=False)
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


class ChoiceScreen(ModalScreen[str | None]):
    """Pick one of several values: Enter chooses (dismissed with its key), Escape leaves."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Cancel")]
    DEFAULT_CSS = DIALOG_CSS.format(name="ChoiceScreen")

    def __init__(self, title: str, choices: Sequence[tuple[str, str]]) -> None:
        """Create the dialog.

        Args:
            title: What is being chosen.
            choices: ``(key, label)`` pairs; the key is what the dialog is dismissed with.
        """
        super().__init__()
        self.title_text = title
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="dialog-title", markup=False)
            yield OptionList(*(Option(label, id=key) for key, label in self.choices))
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["ChoiceScreen", "InfoScreen"]
