"""``/fold``: commit every staged mark now, after a preview (DESIGN §11)."""

from __future__ import annotations

from pifold_tui.screens.fold.report import FoldPreview, Landed, landed_report, preview_report
from pifold_tui.screens.fold.screen import FoldScreen

__all__ = ["FoldPreview", "FoldScreen", "Landed", "landed_report", "preview_report"]
