"""``/fold-status``: the detailed token, band, nesting and audit figures (DESIGN §11)."""

from __future__ import annotations

from pifold_tui.screens.status.figures import ReportStyles
from pifold_tui.screens.status.frame import BarFooter
from pifold_tui.screens.status.report import StatusFigures, status_report
from pifold_tui.screens.status.screen import FoldStatusScreen

__all__ = ["BarFooter", "FoldStatusScreen", "ReportStyles", "StatusFigures", "status_report"]
