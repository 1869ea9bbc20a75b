"""``/fold-status`` at 80 columns: each figure on one line, numbers aligned down the report,
its action stacked under it, and the commit history whole, without a cut header."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.text import Text
from syrupy.assertion import SnapshotAssertion
from textual.widgets import Static

from pifold_core.engine import Engine
from pifold_tui.inspect import InspectApp
from pifold_tui.screens.status import FoldStatusScreen, ReportStyles, StatusFigures, status_report
from pifold_tui.screens.status.history import short_timestamp
from pifold_tui.screens.status.rows import WIDE_COLUMNS, FigureRows
from tests.ui.harness import THEMES
from tests.ui.screens.conftest import check_clean, looked_only, shown_text
from tests.ui.screens.test_status_snapshots import LABEL

NARROW = 76
"""The report's width in an 80-column terminal (the body's padding and a scrollbar off)."""


def rendered(figures: StatusFigures, width: int | None) -> list[str]:
    console = Console(width=width or 160, file=io.StringIO(), record=True, color_system=None)
    console.print(status_report(figures, ReportStyles(), width))
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_the_narrow_report_fits_and_stacks_each_action(read_only_engine: Engine) -> None:
    figures = StatusFigures.read(read_only_engine)
    lines = rendered(figures, NARROW)
    assert all(len(line.rstrip()) <= NARROW for line in lines)
    status = figures.status
    budget_line = lines.index(next(line for line in lines if line.startswith("serving budget")))
    assert lines[budget_line].split() == ["serving", "budget", f"{status.budget:,}", "100%"]
    assert lines[budget_line + 1].strip() == "providerInputBudget in the session's options"
    assert lines[budget_line + 1].startswith("  ")
    # Long labels are shortened; the full ones stay in the wide layout.
    fires = next(line for line in lines if line.startswith("fires at (maxTarget)"))
    assert f"{status.max_tokens:,}" in fires and "80.0%" in fires
    wide = rendered(figures, None)
    assert any(line.startswith("commit fires at (maxTarget)") for line in wide)
    # The shares are right-aligned in one column, down the whole report.
    table = lines[: lines.index("Commits")]
    with_share = [line for line in table if line[:1] != " " and line.rstrip().endswith("%")]
    assert len(with_share) > 10
    assert len({len(line.rstrip()) for line in with_share}) == 1


def test_the_narrow_history_keeps_every_commit_and_figure(read_only_engine: Engine) -> None:
    figures = StatusFigures.read(read_only_engine)
    lines = rendered(figures, NARROW)
    header = next(line for line in lines if line.startswith("# request"))
    assert header.split() == [
        "#",
        "request",
        "when",
        "cause",
        "before",
        "after",
        "freed",
        "folds",
        "marks",
        "clipped",
    ]
    start = lines.index(header)
    history = figures.status.commit_history
    for view, line in zip(history, lines[start + 1 :], strict=False):
        cells = line.split()
        assert cells[0] == str(view.number) and cells[1] == f"{view.request:,}"
        assert " ".join(cells[2:4]) == short_timestamp(view.newest_timestamp_ms)
        assert cells[4] == view.cause and cells[5] == f"~{view.tokens_before:,}"
        assert cells[-3:] == [str(view.folds_made), str(view.marks_applied), str(view.clipped)]


def test_the_layout_follows_the_width() -> None:
    rows = FigureRows()
    rows.add_heading(Text("Window"))
    rows.add("serving budget", "24,000", "100%", "what a request may carry", short_label="budget")
    console = Console(width=60, file=io.StringIO(), record=True, color_system=None)
    console.print(rows.render(60))
    assert [line.rstrip() for line in console.export_text().splitlines()] == [
        "Window",
        "budget  24,000  100%",
        "  what a request may carry",
    ]
    console = Console(width=WIDE_COLUMNS, file=io.StringIO(), record=True, color_system=None)
    console.print(rows.render(WIDE_COLUMNS))
    assert console.export_text().splitlines()[1].split() == [
        "serving",
        "budget",
        "24,000",
        "100%",
        "what",
        "a",
        "request",
        "may",
        "carry",
    ]
    assert short_timestamp(1776791182909) == "04-21 17:06" and short_timestamp(None) == "?"


async def test_the_screen_switches_layout_when_the_terminal_narrows(
    read_only_engine: Engine,
) -> None:
    app = InspectApp(read_only_engine)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, FoldStatusScreen)
        report = app.screen.query_one("#status-report", Static)
        assert "commit fires at (maxTarget)" in shown_text(report)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        text = shown_text(report, width=NARROW)
        assert "commit fires at" not in text and "fires at (maxTarget)" in text


@pytest.mark.parametrize("theme", sorted(THEMES))
class TestStatusAt80Columns:
    async def test_replayed_session(
        self, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
    ) -> None:
        before = looked_only(replayed_engine)
        app = InspectApp(replayed_engine, label=LABEL)
        app.theme = THEMES[theme]
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            assert app.export_screenshot(title="pifold inspect: /fold-status") == svg_snapshot
        check_clean(replayed_engine, before)
