"""The fold bar as a Textual widget: a thin shell around the pure renderer.

The widget only decides which colours apply and when to repaint. On a truecolor terminal it
asks :mod:`palettes` for the palette made for its own resolved background (so the 4.5:1
guarantee refers to what is really behind the text); elsewhere it takes the theme's colours
from its component classes, which users may restyle in TCSS.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from textual.color import Color
from textual.geometry import Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.theme import Theme
from textual.widget import Widget

from palettes import PaletteSetting, palette_for
from pifold_core.composition import CATEGORY_ORDER, Composition
from pifold_tui.fold_bar.layout import BAR_COLUMNS
from pifold_tui.fold_bar.paint import BarColours, render_bar

CATEGORY_COMPONENTS: tuple[str, ...] = tuple(
    f"fold-bar--{category.value}" for category in CATEGORY_ORDER
)
"""Component classes giving each category's colour when the theme's colours are used."""


def _rich_name(style: Style, fallback: str) -> str:
    return style.color.name if style.color is not None else fallback


def _opaque_hex(colour: Color | None) -> str | None:
    """``#RRGGBB`` of a resolved colour, or ``None`` if it has no RGB value of its own."""
    if colour is None or colour.ansi is not None or colour.a < 1.0:
        return None
    red, green, blue = colour.rgb
    return f"#{red:02X}{green:02X}{blue:02X}"


class FoldBar(Widget):
    """One row showing what fills the context window, and how close a commit is.

    Set :attr:`composition` whenever the engine produces a new one and
    :attr:`palette_setting` to change the colour map; the bar repaints on either, and on
    every theme change.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *CATEGORY_COMPONENTS,
        "fold-bar--track",
        "fold-bar--muted",
    }
    """
    Colours used when the terminal cannot show the palette (no truecolor, or an ANSI theme).
    Only ``color`` is read.

    | Class | Description |
    | :- | :- |
    | `fold-bar--consolidated` … `fold-bar--pinned` | Each category's fill and label. |
    | `fold-bar--track` | The empty part of the bar. |
    | `fold-bar--muted` | Target marks on the track, separators and notes. |
    """

    DEFAULT_CSS = """
    FoldBar {
        height: 1;
        width: 1fr;
    }
    FoldBar > .fold-bar--consolidated { color: $primary; }
    FoldBar > .fold-bar--span { color: $secondary; }
    FoldBar > .fold-bar--tool { color: $accent; }
    FoldBar > .fold-bar--marked { color: $success; }
    FoldBar > .fold-bar--raw { color: $foreground 70%; }
    FoldBar > .fold-bar--pinned { color: $error; }
    FoldBar > .fold-bar--track { color: $panel; }
    FoldBar > .fold-bar--muted { color: $text-muted; }
    """

    composition: reactive[Composition | None] = reactive(None)
    """What the bar shows; ``None`` until the engine has produced a composition."""
    palette_setting: reactive[PaletteSetting] = reactive(PaletteSetting)
    """The colour map and the slice of it the six categories span."""

    def __init__(
        self,
        composition: Composition | None = None,
        *,
        palette_setting: PaletteSetting | None = None,
        truecolor: bool | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        """Create a fold bar.

        Args:
            composition: The initial composition, if one exists.
            palette_setting: The colour map setting (batlow over its full range if omitted).
            truecolor: Force the palette (``True``) or the theme's colours (``False``);
                ``None`` follows the terminal.
            name: The name of the widget.
            id: The ID of the widget in the DOM.
            classes: The CSS classes of the widget.
            disabled: Whether the widget is disabled.
        """
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._truecolor_override = truecolor
        self.set_reactive(FoldBar.composition, composition)
        if palette_setting is not None:
            self.set_reactive(FoldBar.palette_setting, palette_setting)

    def on_mount(self) -> None:
        # The signal fires after the new theme's CSS is applied, so the resolved background
        # read in the next render is already the new one (watching App.theme would not be).
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: Theme) -> None:
        self.refresh()

    def uses_palette(self) -> bool:
        """Whether the bar paints with the palette rather than with the theme's colours."""
        if _opaque_hex(self.visual_style.background) is None:
            return False
        if self._truecolor_override is not None:
            return self._truecolor_override
        return self.app.console.color_system == "truecolor"

    def bar_colours(self) -> BarColours:
        """The colours the bar would paint with right now."""
        visual = self.visual_style
        background = _opaque_hex(visual.background)
        foreground = _opaque_hex(visual.foreground) or "default"
        if background is not None and self.uses_palette():
            return BarColours.from_palette(
                palette_for(self.palette_setting, background), foreground
            )
        return self._theme_colours(background or "default", foreground)

    def _theme_colours(self, background: str, foreground: str) -> BarColours:
        categories = tuple(
            _rich_name(self.get_component_rich_style(component), foreground)
            for component in CATEGORY_COMPONENTS
        )
        muted = _rich_name(self.get_component_rich_style("fold-bar--muted"), foreground)
        track = _rich_name(self.get_component_rich_style("fold-bar--track"), background)
        return BarColours(
            categories=categories,
            # Without the palette there is no tuned deeper tone; the background notched
            # into the fill keeps the mark in the fill's own context and uncoloured.
            deeper_tones=(background,) * len(categories),
            track=track,
            muted_ink=muted,
            text=foreground,
            muted_text=muted,
            background=background,
        )

    def render_line(self, y: int) -> Strip:
        """The bar on the first row; any further rows (if CSS makes the widget taller)
        stay blank."""
        width = self.size.width
        base = self.visual_style.rich_style
        if y != 0:
            return Strip.blank(width, base)
        segments = render_bar(self.composition, self.bar_colours(), width)
        return Strip(segments).adjust_cell_length(width, base).simplify()

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """At least the bar itself; a narrow container gets a shorter suffix."""
        return BAR_COLUMNS
