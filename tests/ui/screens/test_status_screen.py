"""``/fold-status`` on a real replayed session: every figure, and looking changes nothing."""

from __future__ import annotations

import dataclasses
import io

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from pifold_core.composition import CATEGORY_LABELS, Reading
from pifold_core.engine import Engine
from pifold_core.status import AuditView
from pifold_tui.inspect import InspectApp
from pifold_tui.screens.status import FoldStatusScreen, ReportStyles, StatusFigures, status_report
from pifold_tui.screens.status.figures import byte_size, share, timestamp, tokens
from tests.ui.screens.conftest import check_clean, looked_only, shown_text

SIZE = (120, 70)
"""Tall enough for the whole report."""


def plain(figures: StatusFigures, styles: ReportStyles | None = None) -> str:
    console = Console(width=160, file=io.StringIO(), record=True, color_system=None)
    console.print(status_report(figures, styles or ReportStyles()))
    return console.export_text()


async def test_status_is_the_home_and_shows_every_figure(replayed_engine: Engine) -> None:
    engine = replayed_engine
    before = looked_only(engine)
    status = engine.status()
    app = InspectApp(engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, FoldStatusScreen)
        text = shown_text(app.screen.query_one("#status-report", Static))
        # The budget and the band, exact beside their shares.
        assert f"{status.budget:,}" in text and "100%" in text
        assert f"{status.max_tokens:,}" in text and "80.0%" in text
        assert f"{status.min_tokens:,}" in text and "20.0%" in text
        # The reading's state is named, and the estimate is marked.
        assert "estimated after commit: the provider has not counted" in text
        assert f"~{status.occupancy.estimated_tokens:,}" in text
        # The bar's six categories, folds by kind, depth, marks, pins, storage, audit.
        for label in CATEGORY_LABELS.values():
            assert label in text
        depth = next(line for line in text.splitlines() if line.startswith("nesting depth"))
        assert depth.split()[2] == f"{status.max_depth}" and status.max_depth >= 2
        assert f"{status.total_folds:,}" in text
        assert "pending marks" in text and "/fold lands every one now" in text
        assert f"cap {status.pin_cap_tokens:,}" in text
        assert f"{status.evidence_bytes:,}" in text and f"{status.store_bytes:,}" in text
        assert f"{status.audit.appends:,}" in text and "none, as it must be" in text
        # The band commit's figures are the preview's own.
        band = engine.preview_commit("threshold")
        assert f"~{band.freed_tokens:,}" in text
        assert f"~{band.uncached_tokens:,} tokens uncached" in text
        # Every commit of the session is in the history, the last one in the table too.
        for view in status.commit_history:
            assert f"~{view.tokens_before:,}" in text
        last = status.last_commit
        assert last is not None and f"#{last.number} ({last.cause})" in text
        assert timestamp(last.newest_timestamp_ms) in text
        # Refreshing reads again and still changes nothing.
        await pilot.press("r")
        await pilot.pause()
    check_clean(engine, before)


async def test_escape_on_the_home_screen_stays(read_only_engine: Engine) -> None:
    app = InspectApp(read_only_engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, FoldStatusScreen)
        assert len(app.screen_stack) == 1


def test_unattributed_rewrites_are_a_warning(read_only_engine: Engine) -> None:
    figures = StatusFigures.read(read_only_engine)
    styles = ReportStyles(warning="bold magenta")
    clean = status_report(figures, styles)
    broken_status = dataclasses.replace(
        figures.status, audit=AuditView(requests=10, appends=8, attributed=1, unattributed=1)
    )
    broken = status_report(dataclasses.replace(figures, status=broken_status), styles)
    assert _unattributed_style(clean) != "bold magenta"
    assert _unattributed_style(broken) == "bold magenta"
    assert "a bug, please report it" in plain(dataclasses.replace(figures, status=broken_status))


def _unattributed_style(report: RenderableType) -> str:
    """The style of the unattributed count's cell in the report's figure table."""
    assert isinstance(report, Group)
    tables = [part for part in report.renderables if isinstance(part, Table)]
    labels = list(tables[0].columns[0].cells)
    values = list(tables[0].columns[1].cells)
    for label, value in zip(labels, values, strict=True):
        if isinstance(label, Text) and label.plain == "unattributed rewrites":
            assert isinstance(value, Text)
            return str(value.style)
    raise AssertionError("no unattributed row")


def test_estimates_carry_a_tilde_and_measured_figures_do_not(read_only_engine: Engine) -> None:
    figures = StatusFigures.read(read_only_engine)
    occupancy = figures.status.occupancy
    for reading, marked in ((Reading.MEASURED, False), (Reading.ESTIMATED, True)):
        status = dataclasses.replace(
            figures.status,
            occupancy=dataclasses.replace(occupancy, reading=reading, shown_tokens=21_345),
        )
        text = plain(dataclasses.replace(figures, status=status))
        line = next(line for line in text.splitlines() if line.startswith("occupancy shown"))
        assert ("~21,345" in line) is marked and "21,345" in line


def test_number_formats() -> None:
    assert tokens(1234) == "1,234" and tokens(1234, True) == "~1,234"
    assert share(1, 3) == "33.3%" and share(5, 0) == "–"
    assert byte_size(1023) == "1,023 B" and byte_size(2048) == "2.0 KiB"
    assert byte_size(512 * 1024 * 1024) == "512.0 MiB"
    assert byte_size(3 * 1024**3) == "3.0 GiB"
    assert timestamp(None) == "time unknown"
    assert timestamp(1776791182909) == "2026-04-21 17:06 UTC"
