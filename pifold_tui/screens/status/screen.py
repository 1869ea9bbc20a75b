"""``/fold-status``: the detailed figures behind the fold bar, as a Textual screen.

A thin widget over the pure report (:mod:`pifold_tui.screens.status.report`). It needs
nothing but an engine and only reads it: opening it, scrolling it or refreshing it appends
nothing and writes nothing (DESIGN §11: looking is free).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Static

from pifold_core.engine import Engine
from pifold_tui.screens.status.frame import BarFooter
from pifold_tui.screens.status.report import StatusFigures, status_report

REPORT_MARGIN = 4
"""The body's padding (one cell each side) and the vertical scrollbar (two)."""


class FoldStatusScreen(Screen[None]):
    """Every figure a user needs to trust the window, exact beside its percentage."""

    DEFAULT_CSS = """
    FoldStatusScreen #status-title {
        height: 1;
        padding: 0 1;
        text-style: bold;
        background: $panel;
    }
    FoldStatusScreen #status-body {
        padding: 0 1;
    }
    FoldStatusScreen #status-note {
        color: $text-warning;
        text-style: bold;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("r", "reload", "Refresh"),
    ]

    def __init__(self, engine: Engine, note: str | None = None, label: str | None = None) -> None:
        """Create the screen.

        Args:
            engine: The session to report on; only its reading API is used.
            note: A line shown under the title (why the session is read-only, say).
            label: How the title names the session (its state folder if omitted).
        """
        super().__init__()
        self.engine = engine
        """The session shown."""
        self.note = note
        """A line shown under the title, if any."""
        self.label = label if label is not None else str(engine.state_dir)
        """How the title names the session."""
        self.figures: StatusFigures | None = None
        """The figures on screen, read when the screen was shown or refreshed."""

    def compose(self) -> ComposeResult:
        yield Static(f"/fold-status · {self.label}", id="status-title", markup=False)
        with VerticalScroll(id="status-body"):
            if self.note:
                yield Static(self.note, id="status-note", markup=False)
            yield Static(id="status-report")
        yield BarFooter(self.engine)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self.action_reload()

    def on_screen_resume(self) -> None:
        # Another screen may have committed while this one was covered.
        self.action_reload()

    def _theme_changed(self, theme: Theme) -> None:
        self.show_figures()

    def action_reload(self) -> None:
        """Read the figures again and repaint the report and the bar."""
        self.figures = StatusFigures.read(self.engine)
        self.query_one(BarFooter).show()
        self.show_figures()

    def on_resize(self) -> None:
        # The report's layout depends on the width (a narrow stack below 110 columns).
        self.show_figures()

    def report_width(self) -> int:
        """The cells the report is laid out for: the screen less the body's padding and a
        scrollbar's width (taken as always there, so the layout does not flip when the
        scrollbar comes and goes)."""
        return max(1, self.size.width - REPORT_MARGIN)

    def show_figures(self) -> None:
        """Render the figures read last in the running theme's colours, for the width."""
        if self.figures is None:
            return
        styles = self.query_one(BarFooter).report_styles()
        report = status_report(self.figures, styles, self.report_width())
        self.query_one("#status-report", Static).update(report)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The bottom screen of an app has nothing to go back to: no "Back" in its footer.
        if action == "close":
            return bool(self.app.screen_stack) and self.app.screen_stack[0] is not self
        return True

    def action_close(self) -> None:
        """Back to the screen below; the bottom screen of an app stays."""
        if len(self.app.screen_stack) > 1 and self.app.screen_stack[0] is not self:
            self.dismiss()
