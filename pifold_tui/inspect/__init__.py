"""``pifold inspect``: the fold screens mounted over any session folder."""

from __future__ import annotations

from pifold_tui.inspect.app import READ_ONLY_NOTE, InspectApp
from pifold_tui.screens.catalogue import SCREEN_ACTIONS, ScreenAction

__all__ = ["READ_ONLY_NOTE", "SCREEN_ACTIONS", "InspectApp", "ScreenAction"]
