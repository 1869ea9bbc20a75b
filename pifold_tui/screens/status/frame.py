"""The bottom of every fold screen: the fold bar directly above the footer (DESIGN §10).

Two widgets docked to one edge overlap, so the bar and the footer share one container
docked to the bottom (tui-aesthetics §1.4, layout B); the footer inside it is undocked.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from palettes import PaletteSetting
from pifold_core.engine import Engine
from pifold_tui.fold_bar import FoldBar
from pifold_tui.screens.status.figures import ReportStyles

COMPACT_FOOTER_BELOW = 100
"""Narrower than this, the key footer drops its padding so every screen's keys fit 80
columns (``q Quit`` was cut by the palette key there)."""


WAY_OUT = ("escape", "q")
"""Keys a narrow footer keeps before any other: how to leave the screen or the app."""


class FittedFooter(Footer):
    """Textual's key footer, showing only the keys that fit whole.

    Textual's own footer lays every key in a row and cuts the row at the edge, inside a word
    when it falls there (issue 19: the editor read ``r Re-cu`` at 80 columns). This one
    shows keys in their order while they fit beside the command palette's key and leaves
    out the rest whole; a key left out still works, and the command palette lists every
    key."""

    def __init__(self) -> None:
        super().__init__()
        self._recompose_due = False
        """A recompose is scheduled and has not read the keys yet."""
        self._composed: tuple[object, ...] | None = None
        """The keys the footer was last composed with (``None``: not composed yet)."""

    def compose(self) -> ComposeResult:
        # Textual's keys start compact and are then bound to the footer's own setting, so
        # each key restyled twice per recompose (11.5 % of opening the fold editor on a long
        # session, issue 23): each key starts with the footer's setting instead. The palette
        # key is never bound, so it keeps Textual's default.
        if self._bindings_ready:
            # From here the keys are read: a publish before this needed no other recompose.
            self._recompose_due = False
            self._composed = self._keys()
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # Textual recomposes the footer (every key a new widget, styled and laid out) at each
        # publish of the screen's bindings: each focus move and binding refresh, three or
        # four times as the fold editor opens, about a quarter of its opening (issue 23).
        # Most publish the keys already shown, and a recompose already scheduled reads the
        # keys as they are when it composes.
        if self._recompose_due:
            return
        if self._composed is not None and screen is self.screen and self._keys() == self._composed:
            return
        super().bindings_changed(screen)
        self._recompose_due = screen.app.app_focus and self.is_attached and screen is self.screen

    def _keys(self) -> tuple[object, ...]:
        """What :meth:`Footer.compose` makes its keys from, as it reads it."""
        active = self.screen.active_bindings
        shown = tuple(
            (binding.key, binding.action, binding.description, enabled, tooltip)
            for (_, binding, enabled, tooltip) in active.values()
            if binding.show
        )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        palette_key = None if palette is None else palette[1:]
        return (shown, palette_key, self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE)

    async def recompose(self) -> None:
        # Fitted before the next frame is drawn, so no frame ever shows a key cut.
        await super().recompose()
        self.fit_keys()

    def on_resize(self, event: events.Resize) -> None:
        self.fit_keys()

    def fit_keys(self) -> None:
        """Show the keys that fit whole and hide the others: the way out (Escape, ``q``)
        first, then the rest in their order."""
        keys = list(self.query_children(FooterKey))
        docked = [key for key in keys if key.has_class("-command-palette")]
        room = self.size.width - sum(_width(key) for key in docked)
        shown = set()
        ranked = sorted(
            (key for key in keys if key not in docked), key=lambda key: key.key not in WAY_OUT
        )
        for key in ranked:
            width = _width(key)
            if width > room:
                break  # the rest stay hidden, so no later key jumps a gap
            room -= width
            shown.add(key)
        for key in keys:
            key.display = key in docked or key in shown


def _width(key: FooterKey) -> int:
    """Cells a key takes in the footer's row: its text, padding, border and margins (known
    from its styles once mounted, before any layout). The text is measured as
    :meth:`FooterKey.render` lays it out, without rendering it (a render styles the text)."""
    text = cell_len(key.key_display)
    if key.description:
        key_padding = key.get_component_styles("footer-key--key").padding
        description_padding = key.get_component_styles("footer-key--description").padding
        text += key_padding.left + key_padding.right + description_padding.left
        text += cell_len(key.description) + description_padding.right
    margin = key.styles.margin
    return text + key.styles.gutter.width + margin.left + margin.right


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
        yield FittedFooter()

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
