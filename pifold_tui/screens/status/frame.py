"""The bottom of every fold screen: the fold bar directly above the footer (DESIGN §10).

Two widgets docked to one edge overlap, so the bar and the footer share one container
docked to the bottom (tui-aesthetics §1.4, layout B); the footer inside it is undocked.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Footer

from palettes import PaletteSetting
from pifold_core.engine import Engine
from pifold_tui.fold_bar import FoldBar
from pifold_tui.screens.status.figures import ReportStyles

COMPACT_FOOTER_BELOW = 100
"""Narrower than this, the key footer drops its padding so every screen's keys fit 80
columns (``q Quit`` was cut by the palette key there)."""


def palette_of(engine: Engine) -> PaletteSetting:
    """The bar colours the session's options choose."""
    palette = engine.options.palette
    return PaletteSetting(palette.map_name, palette.start, palette.end)


class BarFooter(Vertical):
    """The fold bar over the footer; :meth:`show` repaints the bar from the engine."""

    DEFAULT_CSS = """
    BarFooter {
        dock: bottom;
        height: auto;
    }
    BarFooter > Footer {
        dock: none;
    }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        """The engine whose window the bar shows."""

    def compose(self) -> ComposeResult:
        yield FoldBar(self.engine.composition(), palette_setting=palette_of(self.engine))
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one(Footer).compact = event.size.width < COMPACT_FOOTER_BELOW

    @property
    def bar(self) -> FoldBar:
        """The fold bar."""
        return self.query_one(FoldBar)

    def show(self) -> None:
        """Repaint the bar from the engine's composition now (after a commit, say)."""
        self.bar.palette_setting = palette_of(self.engine)
        self.bar.composition = self.engine.composition()

    def report_styles(self) -> ReportStyles:
        """Report colours from the running theme, with the bar's own category colours (so
        a label matches its segment of the bar)."""
        variables = self.app.theme_variables
        foreground = variables.get("foreground", "default")
        return ReportStyles(
            text=foreground,
            muted="dim",
            heading="bold",
            warning=f"bold {variables.get('error', 'red')}",
            good=foreground,
            categories=self.bar.bar_colours().categories,
        )
