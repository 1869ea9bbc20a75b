"""``/fold-editor``: the interactive map of the window (DESIGN §11)."""

from __future__ import annotations

from pifold_tui.screens.editor.screen import FoldEditorScreen

__all__ = ["FoldEditorScreen"]
