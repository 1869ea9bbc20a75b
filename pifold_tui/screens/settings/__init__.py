"""``/fold-settings``: the seven options as a validated form (DESIGN §9, §11)."""

from __future__ import annotations

from pifold_tui.screens.settings.screen import FoldSettingsScreen

__all__ = ["FoldSettingsScreen"]
