"""The whole app at 80×24, a common terminal size: mid-session and after a commit, dark and
light (``snapshots/``), and a notification that stays clear of the fold bar and the footer.

At this width the bar's suffix and the footer are shortened in their stated orders
(:func:`pifold_tui.fold_bar.suffix.fitted_suffix`, :func:`pifold_tui.app.footer.fit_footer`);
the snapshots show the result as a person would see it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from textual.widgets._toast import Toast

from pifold_tui.app.footer import SessionFooter
from pifold_tui.fold_bar import BAR_COLUMNS, FoldBar
from tests.ui.app.harness import (
    assert_session_consistent,
    engine_of,
    flow_app,
    opened,
    options,
    prepare,
)
from tests.ui.app.test_app_snapshots import (
    capture,
    fixed_ids_and_clock,
    long_turn,
    snapshot_root,
    tools_turn,
)
from tests.ui.harness import THEMES

# The app snapshots' fixtures: fixed ids and clock (autouse) and the session folder.
__all__ = ["fixed_ids_and_clock", "snapshot_root"]

NARROW = (80, 24)
"""The terminal these tests run in."""

theme_parameter = pytest.mark.parametrize("theme", sorted(THEMES))


@theme_parameter
class TestAt80Columns:
    async def test_mid_session(
        self,
        theme: str,
        snapshot_root: Path,
        monkeypatch: pytest.MonkeyPatch,
        svg_snapshot: SnapshotAssertion,
    ) -> None:
        shot = await capture(
            snapshot_root, monkeypatch, theme, "tools.jsonl", tools_turn, size=NARROW
        )
        assert shot == svg_snapshot

    async def test_after_a_commit(
        self,
        theme: str,
        snapshot_root: Path,
        monkeypatch: pytest.MonkeyPatch,
        svg_snapshot: SnapshotAssertion,
    ) -> None:
        shot = await capture(
            snapshot_root, monkeypatch, theme, "long_turn.jsonl", long_turn, 6_000, size=NARROW
        )
        assert shot == svg_snapshot


async def test_the_bar_and_footer_fit_and_a_toast_stays_above_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "long_turn.jsonl", budget=6_000, yes=True))
    # Test apps show no toasts unless asked (``run_test`` turns notifications off).
    async with app.run_test(size=NARROW, notifications=True) as pilot:
        await opened(app, pilot)
        app.say("A notification long enough to reach the right end of the fold bar's row.")
        # The rack is refreshed with call_later: a few turns of the loop mount the toast.
        for _ in range(5):
            await pilot.pause()
        bar = app.query_one(FoldBar)
        toasts = list(app.screen.query(Toast))
        assert toasts, "the notification is not shown"
        for toast in toasts:
            assert toast.region.bottom <= bar.region.y, (toast.region, bar.region)
        bar_row = bar.render_line(0).text
        footer_row = app.query_one(SessionFooter).render_line(0).text
        assert_session_consistent(engine_of(app))
    # The row is the bar and a suffix of whole forms, within the width.
    suffix = bar_row[BAR_COLUMNS + 1 :].rstrip()
    assert len(bar_row) == NARROW[0]
    assert suffix == "not measured yet · commit at 80%"
    assert footer_row.rstrip().endswith("esc abort · ctrl+p commands")
