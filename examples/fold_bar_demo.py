"""A small app that embeds the fold bar above its footer and plays a session through it.

Run from the repository root::

    .venv/bin/python examples/fold_bar_demo.py

Keys: ``space`` next composition, ``p`` pause the playback, ``m`` next colour map,
``r`` reverse the slice, ``t`` switch between dark and light, ``q`` quit.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Footer, Static

from palettes import MAP_NAMES, PaletteSetting
from pifold_core.composition import Category, Composition, FoldCounts, Reading
from pifold_tui import FoldBar

BUDGET = 200_000


def _session() -> list[tuple[str, Composition]]:
    """A session's life in a few steps: growth, a mark, a commit, and the odd state."""

    def step(
        fill: int | None,
        masses: dict[Category, int],
        counts: FoldCounts,
        reading: Reading = Reading.MEASURED,
        stopped: bool = False,
    ) -> Composition:
        return Composition(
            budget=BUDGET,
            fill_tokens=fill,
            max_target=0.8,
            min_target=0.6,
            masses=masses,
            counts=counts,
            reading=reading,
            folding_stopped=stopped,
        )

    raw = Category.RAW
    return [
        (
            "A fresh session, before the provider has counted anything.",
            step(None, {}, FoldCounts(), Reading.NOT_MEASURED),
        ),
        ("The first reply: a sliver of raw conversation.", step(6_000, {raw: 6_000}, FoldCounts())),
        (
            "Tool output piles up; one entry is pinned.",
            step(90_000, {raw: 86_000, Category.PINNED: 4_000}, FoldCounts(pins=1)),
        ),
        (
            "Old tool results are marked to fold at the next commit.",
            step(
                150_000,
                {Category.MARKED: 60_000, raw: 86_000, Category.PINNED: 4_000},
                FoldCounts(marks=4, pins=1),
            ),
        ),
        (
            "The fill reaches the commit target (80 %).",
            step(
                160_000,
                {Category.MARKED: 60_000, raw: 96_000, Category.PINNED: 4_000},
                FoldCounts(marks=4, pins=1),
            ),
        ),
        (
            "A commit folded the marks; the reading predates it.",
            step(
                160_000,
                {Category.TOOL: 6_000, Category.SPAN: 4_000, raw: 96_000, Category.PINNED: 4_000},
                FoldCounts(span=1, tool=4, pins=1),
                Reading.ESTIMATED_AFTER_COMMIT,
            ),
        ),
        (
            "The provider measures again: back inside the band.",
            step(
                112_000,
                {Category.TOOL: 6_000, Category.SPAN: 4_000, raw: 98_000, Category.PINNED: 4_000},
                FoldCounts(span=1, tool=4, pins=1),
            ),
        ),
        (
            "Much later: folds of folds, spans, tools, marks and pins.",
            step(
                68_000,
                {
                    Category.CONSOLIDATED: 10_000,
                    Category.SPAN: 16_000,
                    Category.TOOL: 6_000,
                    Category.MARKED: 12_000,
                    raw: 20_000,
                    Category.PINNED: 4_000,
                },
                FoldCounts(2, 3, 2, 4, 1),
            ),
        ),
        (
            "A replay: no provider count, so the fill is the engine's estimate.",
            step(
                68_000,
                {Category.CONSOLIDATED: 10_000, raw: 58_000},
                FoldCounts(consolidated=2),
                Reading.ESTIMATED,
            ),
        ),
        ("The engine was suspended.", step(68_000, {raw: 68_000}, FoldCounts(), stopped=True)),
        ("The composition could not be computed.", Composition.unavailable(BUDGET, 0.8, 0.6)),
    ]


class FoldBarDemo(App[None]):
    """Plays a scripted session through a :class:`FoldBar`."""

    CSS = """
    #story { padding: 1 2; height: 1fr; }
    #bottom { dock: bottom; height: auto; }
    #bottom > Footer { dock: none; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "next", "Next"),
        Binding("p", "pause", "Pause"),
        Binding("m", "next_map", "Map"),
        Binding("r", "reverse", "Reverse"),
        Binding("t", "toggle_theme", "Dark/light"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._steps = _session()
        self._position = 0
        self._timer: Timer | None = None
        self._paused = False

    def compose(self) -> ComposeResult:
        yield Static(id="story")
        with Vertical(id="bottom"):
            yield FoldBar()
            yield Footer()

    def on_mount(self) -> None:
        self._show()
        self._timer = self.set_interval(2.0, self.action_next)

    def _show(self) -> None:
        story, composition = self._steps[self._position]
        bar = self.query_one(FoldBar)
        bar.composition = composition
        setting = bar.palette_setting
        self.query_one("#story", Static).update(
            f"{story}\n\nPalette: {setting.map_name} from {setting.start:g} to {setting.end:g}"
            f" · theme {self.theme}"
        )

    def action_next(self) -> None:
        self._position = (self._position + 1) % len(self._steps)
        self._show()

    def action_pause(self) -> None:
        if self._timer is None:
            return
        self._paused = not self._paused
        if self._paused:
            self._timer.pause()
        else:
            self._timer.resume()

    def action_next_map(self) -> None:
        bar = self.query_one(FoldBar)
        current = bar.palette_setting
        following = MAP_NAMES[(MAP_NAMES.index(current.map_name) + 1) % len(MAP_NAMES)]
        bar.palette_setting = PaletteSetting(following, current.start, current.end)
        self._show()

    def action_reverse(self) -> None:
        bar = self.query_one(FoldBar)
        bar.palette_setting = bar.palette_setting.reversed
        self._show()

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"
        self._show()


if __name__ == "__main__":
    FoldBarDemo().run()
