"""The completion popup: an option list shown over the prompt's input while completing.

It never takes the focus: the input keeps it, so typing goes on narrowing the list, and the
prompt moves the highlight (Up/Down) and accepts (Tab/Enter) by calling this widget's
methods. Each option shows the candidate and, dimmed, its description.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pifold_tui.app.prompt.completion import Candidate, CompletionQuery

LABEL_WIDTH = 18
"""Columns for a command's name before its description starts."""


def option_text(candidate: Candidate) -> Text:
    """One option: the candidate, then its description dimmed in a second column."""
    # One line each: a long description is cut rather than wrapped under the names.
    text = Text(
        candidate.label,
        style="bold" if candidate.detail else "",
        no_wrap=True,
        overflow="ellipsis",
    )
    if candidate.detail:
        text.append(" " * max(1, LABEL_WIDTH - len(candidate.label)))
        text.append(candidate.detail, style="dim")
    return text


class CompletionPopup(OptionList):
    """The candidates for the query being typed."""

    DEFAULT_CSS = """
    CompletionPopup {
        display: none;
        height: auto;
        max-height: 10;
        margin: 0 1;
        border: round $primary 60%;
        background: $surface;
        padding: 0;
    }
    CompletionPopup.-open { display: block; }
    """

    can_focus = False

    def __init__(self) -> None:
        super().__init__(id="completion")
        self.candidates: list[Candidate] = []
        """What the options stand for, in their order."""
        self.query_shown: CompletionQuery | None = None
        """The query the candidates answer (``None`` while closed)."""

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def show(self, query: CompletionQuery, candidates: Sequence[Candidate]) -> None:
        """Offer ``candidates`` for ``query`` (closes when there are none)."""
        if not candidates:
            self.close()
            return
        self.query_shown = query
        self.candidates = list(candidates)
        self.clear_options()
        self.add_options([Option(option_text(candidate)) for candidate in self.candidates])
        self.highlighted = 0
        self.border_title = "commands" if query.kind == "command" else "files"
        self.border_subtitle = "tab accept · esc dismiss"
        self.add_class("-open")

    def close(self) -> None:
        """Hide it and forget the candidates."""
        self.remove_class("-open")
        self.query_shown = None
        self.candidates = []
        self.clear_options()

    def move(self, step: int) -> None:
        """Move the highlight by ``step`` (wrapping round)."""
        if not self.candidates:
            return
        current = self.highlighted if self.highlighted is not None else 0
        self.highlighted = (current + step) % len(self.candidates)

    @property
    def chosen(self) -> Candidate | None:
        """The highlighted candidate."""
        if self.highlighted is None or not 0 <= self.highlighted < len(self.candidates):
            return None
        return self.candidates[self.highlighted]


__all__ = ["CompletionPopup"]
