"""``pifold inspect``: the fold screens mounted over any session folder."""

from __future__ import annotations

from pifold_tui.inspect.actions import SCREEN_ACTIONS, ScreenAction
from pifold_tui.inspect.app import READ_ONLY_NOTE, InspectApp

__all__ = ["READ_ONLY_NOTE", "SCREEN_ACTIONS", "InspectApp", "ScreenAction"]
