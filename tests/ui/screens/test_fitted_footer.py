"""The fold screens' key footer is built again only when the keys it shows change (issue 23):
Textual rebuilt it at every publish of the screen's bindings, three or four times as the
fold editor opened, for the same keys."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from pifold_tui.screens.status.frame import FittedFooter


class CountingFooter(FittedFooter):
    """The real footer, counting the times it is composed."""

    def __init__(self) -> None:
        super().__init__()
        self.compositions = 0
        """Times :meth:`compose` ran with the screen's bindings ready."""

    def compose(self) -> ComposeResult:
        composed = list(super().compose())
        if composed:
            self.compositions += 1
        yield from composed


class Pane(Widget, can_focus=True):
    """A focusable widget with a key of its own, shown only while it has focus."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("o", "open", "Open pane")]

    def action_open(self) -> None:
        """Nothing: the key only has to be bound."""


class Keys(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Back"),
        Binding("p", "pin", "Pin"),
    ]

    def compose(self) -> ComposeResult:
        yield Input(id="field")
        yield Pane(id="pane")
        yield CountingFooter()

    def action_leave(self) -> None:
        """Nothing: the key only has to be bound."""

    def action_pin(self) -> None:
        """Nothing: the key only has to be bound."""


class Host(App[None]):
    def on_mount(self) -> None:
        self.push_screen(Keys())


def shown_keys(footer: FittedFooter) -> set[str]:
    return {key.key for key in footer.query(FooterKey) if key.display}


async def test_the_footer_is_rebuilt_only_when_its_keys_change() -> None:
    async with Host().run_test(size=(100, 10)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        footer = screen.query_one(CountingFooter)
        screen.query_one("#pane").focus()
        await pilot.pause()
        assert {"escape", "p", "o"} <= shown_keys(footer)
        built = footer.compositions

        # Bindings published again and again, the keys the same: nothing is rebuilt.
        for _ in range(3):
            screen.refresh_bindings()
            await pilot.pause()
        assert footer.compositions == built
        assert {"escape", "p", "o"} <= shown_keys(footer)

        # The field takes the focus: the pane's key goes (and ``p``, which the field types),
        # so the footer is rebuilt, once.
        screen.query_one("#field").focus()
        await pilot.pause()
        assert footer.compositions == built + 1
        assert "escape" in shown_keys(footer) and not {"o", "p"} & shown_keys(footer)
