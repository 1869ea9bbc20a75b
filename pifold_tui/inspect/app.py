"""``pifold inspect``: the fold screens over one session folder (issue 11).

The app needs nothing but an engine: the status screen is its home, the other screens open
by key or from the command palette, and each carries the fold bar directly above the
footer. Opened read-only, every action that would change the state is refused by the
screen that offers it; the status screen says why the session is read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from pifold_core.engine import Engine
from pifold_core.settings import SettingsFile
from pifold_tui.screens.catalogue import SCREEN_ACTIONS, ScreenAction, find_action
from pifold_tui.screens.editor import FoldEditorScreen
from pifold_tui.screens.fold import FoldScreen
from pifold_tui.screens.settings import FoldSettingsScreen
from pifold_tui.screens.status import FoldStatusScreen

READ_ONLY_NOTE = "Read-only: every action that would change this session is refused."
"""The note a read-only session's status screen shows when no other reason is given."""


class InspectApp(App[None]):
    """The fold screens over one engine."""

    TITLE = "pifold inspect"

    BINDINGS: ClassVar[list[BindingType]] = [
        *(action.binding for action in SCREEN_ACTIONS),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self,
        engine: Engine,
        settings: SettingsFile | None = None,
        read_only: bool = False,
        note: str | None = None,
        label: str | None = None,
    ) -> None:
        """Create the app.

        Args:
            engine: The session to inspect.
            settings: The user's settings file (for the settings screen).
            read_only: Refuse every action that would change the session.
            note: Why the session is open read-only (a running session holds it, say).
            label: How titles name the session (its state folder if omitted).
        """
        super().__init__()
        self.engine = engine
        """The session inspected."""
        self.settings = settings if settings is not None else SettingsFile()
        """The user's settings file."""
        self.read_only = read_only or engine.view.read_only
        """Every action that would change the session is refused (asked for, or the engine
        was opened read-only)."""
        self.note = note if note is not None else (READ_ONLY_NOTE if self.read_only else None)
        """Shown on the status screen: why the session is read-only."""
        self.factories: dict[str, Callable[[], Screen[Any]]] = {
            "status": lambda: FoldStatusScreen(self.engine, self.note, label),
            "fold": lambda: FoldScreen(self.engine, self.read_only),
            "editor": lambda: FoldEditorScreen(self.engine, self.read_only),
            "settings": lambda: FoldSettingsScreen(self.engine, self.settings, self.read_only),
        }
        """How each screen of :data:`SCREEN_ACTIONS` is made."""
        self.screen_types: dict[str, type[Screen[Any]]] = {
            "status": FoldStatusScreen,
            "fold": FoldScreen,
            "editor": FoldEditorScreen,
            "settings": FoldSettingsScreen,
        }
        """The class of each screen, to tell which one is showing."""

    @property
    def actions(self) -> tuple[ScreenAction, ...]:
        """The screens this app can open (every one it has a factory for)."""
        return tuple(action for action in SCREEN_ACTIONS if action.name in self.factories)

    def get_default_screen(self) -> Screen[Any]:
        return self.factories["status"]()

    def action_open(self, name: str) -> None:
        """Show the screen named ``name``: the status screen is the home the others sit on."""
        action = find_action(name, self.actions)
        if isinstance(self.screen, self.screen_types[action.name]):
            return
        if action.name == "status":
            self.pop_to_home()
            return
        screen = self.factories[action.name]()
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)  # one screen over the home at a time
        else:
            self.push_screen(screen)

    def pop_to_home(self) -> None:
        """Close every screen over the status screen."""
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette: every screen of the actions table, then Textual's own commands."""
        for action in self.actions:
            yield SystemCommand(
                action.palette_title,
                action.help,
                lambda name=action.name: self.action_open(name),
            )
        yield from super().get_system_commands(screen)


__all__ = ["READ_ONLY_NOTE", "InspectApp"]
