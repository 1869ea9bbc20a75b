"""The one table of the fold screens: ``pifold inspect``'s keys, footer and palette, and the
terminal app's fold commands, come from it.

Each screen is reachable by its key and from the command palette (``ctrl+p``), and both are
built from :data:`SCREEN_ACTIONS`, so a screen is added in one place (Harlequin keeps its
actions the same way). The slash name is the command the terminal app answers to: its rows
of ``pifold_tui.app.slash.COMMANDS`` are made from this table too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True, slots=True)
class ScreenAction:
    """One screen the app opens."""

    name: str
    """The screen's name in the app (``status``, ``fold``, ...)."""
    command: str
    """The slash command it answers to (``/fold-status``)."""
    key: str
    """The key that opens it from any screen."""
    title: str
    """Its short name, in the footer and the palette."""
    help: str
    """One line saying what it is for, in the palette."""
    slash_help: str
    """One line saying what the slash command does, in the terminal app's completion,
    palette and ``/help``."""
    during_run: bool
    """Whether the terminal app opens it while the agent works (otherwise it is refused,
    saying so)."""

    @property
    def slash_name(self) -> str:
        """The slash command without its slash (``fold-status``)."""
        return self.command.removeprefix("/")

    @property
    def binding(self) -> Binding:
        """The app binding that opens it."""
        return Binding(self.key, f"open({self.name!r})", self.title)

    @property
    def palette_title(self) -> str:
        """How the palette lists it: the slash command, then the title."""
        return f"{self.command}  {self.title}"


STATUS = ScreenAction(
    "status",
    "/fold-status",
    "s",
    "Status",
    "Every figure behind the bar: budget, occupancy, band, folds, marks, pins, audit",
    slash_help="Every figure behind the bar: budget, band, folds, audit",
    during_run=True,
)
FOLD = ScreenAction(
    "fold",
    "/fold",
    "f",
    "Fold now",
    "Preview the commit of every pending mark, then confirm or cancel",
    slash_help="Commit every pending mark now (preview, then confirm)",
    during_run=False,
)

EDITOR = ScreenAction(
    "editor",
    "/fold-editor",
    "e",
    "Editor",
    "The map of the window: peek any source, pin, unmark, re-cut, brief, expand, refold",
    slash_help="The map of the window: peek, pin, unmark, re-cut, expand (read-only during a run)",
    during_run=True,
)
SETTINGS = ScreenAction(
    "settings",
    "/fold-settings",
    "o",
    "Settings",
    "The seven options, validated as you type; the bar's palette with a live preview",
    slash_help="The seven folding options and the bar's palette",
    during_run=False,
)

SCREEN_ACTIONS: tuple[ScreenAction, ...] = (STATUS, FOLD, EDITOR, SETTINGS)
"""Every screen of the app, in footer order."""


def find_action(name: str, actions: Sequence[ScreenAction] = SCREEN_ACTIONS) -> ScreenAction:
    """The action named ``name``; a ``KeyError`` naming it and the known names otherwise."""
    for action in actions:
        if action.name == name:
            return action
    known = ", ".join(action.name for action in actions)
    raise KeyError(f"no screen named {name!r}; screens: {known}")


__all__ = [
    "EDITOR",
    "FOLD",
    "SCREEN_ACTIONS",
    "SETTINGS",
    "STATUS",
    "ScreenAction",
    "find_action",
]
