"""Two small controls for the palette: a map chooser and a position slider.

Both are one focusable row, stepped by the arrow keys (a keypress away, as the seeds ask) or
set by a click, and both post ``Changed`` on every step so the preview bar repaints at once.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

TRACK_CELLS = 41
"""Cells of the slider's track: one per 0.025 of the map."""

STEP = 0.05
"""A plain arrow key's step."""

FINE_STEP = 0.01
"""A shifted arrow key's step."""


class MapChooser(Widget, can_focus=True):
    """``◂ batlow ▸``: left and right choose the previous or next map."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous map", show=False),
        Binding("right", "step(1)", "Next map", show=False),
    ]
    DEFAULT_CSS = """
    MapChooser { height: 1; width: 1fr; }
    MapChooser:focus { background: $primary 30%; text-style: bold; }
    """

    value: reactive[str] = reactive("")
    """The map chosen."""

    class Changed(Message):
        def __init__(self, chooser: MapChooser, value: str) -> None:
            super().__init__()
            self.chooser = chooser
            self.value = value

    def __init__(self, names: tuple[str, ...], value: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names = names
        self.set_reactive(MapChooser.value, value)

    def render(self) -> Text:
        return Text.assemble("◂ ", (self.value, "bold"), " ▸   ", ("←/→ choose", "dim"))

    def action_step(self, direction: int) -> None:
        position = self.names.index(self.value) if self.value in self.names else 0
        self.value = self.names[(position + direction) % len(self.names)]
        self.post_message(self.Changed(self, self.value))

    def on_click(self, event: events.Click) -> None:
        self.action_step(-1 if event.x < 2 else 1)


class PositionSlider(Widget, can_focus=True):
    """A position in [0, 1]: arrows step by 0.05 (shift: 0.01), Home and End jump, a click
    on the track sets it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Lower", show=False),
        Binding("right", "step(1)", "Higher", show=False),
        Binding("shift+left", "fine(-1)", "Lower a little", show=False),
        Binding("shift+right", "fine(1)", "Higher a little", show=False),
        Binding("home", "set(0)", "To 0", show=False),
        Binding("end", "set(1)", "To 1", show=False),
    ]
    DEFAULT_CSS = """
    PositionSlider { height: 1; width: 1fr; }
    PositionSlider:focus { background: $primary 30%; }
    """

    value: reactive[float] = reactive(0.0)
    """The position, always in [0, 1]."""

    class Changed(Message):
        def __init__(self, slider: PositionSlider, value: float) -> None:
            super().__init__()
            self.slider = slider
            self.value = value

    def __init__(self, value: float, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.set_reactive(PositionSlider.value, value)

    def render(self) -> Text:
        knob = round(self.value * (TRACK_CELLS - 1))
        track = "─" * knob + "●" + "─" * (TRACK_CELLS - 1 - knob)
        return Text.assemble(track, f"  {self.value:.2f}")

    def _move_to(self, value: float) -> None:
        # Rounded to the step grid so repeated steps never drift (0.1 + 0.2 != 0.3).
        value = round(min(1.0, max(0.0, value)), 2)
        if value != self.value:
            self.value = value
            self.post_message(self.Changed(self, value))

    def action_step(self, direction: int) -> None:
        self._move_to(self.value + direction * STEP)

    def action_fine(self, direction: int) -> None:
        self._move_to(self.value + direction * FINE_STEP)

    def action_set(self, value: float) -> None:
        self._move_to(value)

    def on_click(self, event: events.Click) -> None:
        if 0 <= event.x < TRACK_CELLS:
            self._move_to(event.x / (TRACK_CELLS - 1))
