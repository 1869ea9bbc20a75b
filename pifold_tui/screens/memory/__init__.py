"""``/memory``: the notes of the project and of the user, listed, opened and edited."""

from __future__ import annotations

from pifold_tui.screens.memory.screen import MemoryScreen

__all__ = ["MemoryScreen"]
