"""SVG snapshots of ``/fold-editor`` on the replayed session, dark and light (``snapshots/``)."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from pifold_core.engine import Engine
from pifold_tui.screens.editor import FoldEditorScreen
from tests.ui.harness import THEMES
from tests.ui.screens.editor_fixtures import SCREEN_SIZE, ScreenHost, wait_for_source


@pytest.mark.parametrize("theme", sorted(THEMES))
class TestFoldEditorScreen:
    async def test_map_and_source(
        self, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
    ) -> None:
        app = ScreenHost(FoldEditorScreen(replayed_engine), THEMES[theme])
        async with app.run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            # The newest consolidated fold opened in the tree, a raw entry selected.
            await pilot.press("down", "down", "right", "end", "up", "up")
            await wait_for_source(pilot)
            assert app.export_screenshot(title="fold-editor") == svg_snapshot

    async def test_commit_plan(
        self, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
    ) -> None:
        app = ScreenHost(FoldEditorScreen(replayed_engine), THEMES[theme])
        async with app.run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            await pilot.press("c")
            await wait_for_source(pilot)
            assert app.export_screenshot(title="fold-editor") == svg_snapshot

    async def test_search_hits(
        self, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
    ) -> None:
        """``/``, a query and Enter: the hits of a search over folded history (issue 21)."""
        app = ScreenHost(FoldEditorScreen(replayed_engine), THEMES[theme])
        async with app.run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            await pilot.press("slash", *"apply_patch", "enter")
            await app.workers.wait_for_complete()
            await wait_for_source(pilot)
            assert app.export_screenshot(title="fold-editor") == svg_snapshot


@pytest.mark.parametrize("theme", sorted(THEMES))
@pytest.mark.parametrize("columns", [80, 120])
async def test_map_at_common_widths(
    columns: int, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
) -> None:
    """At 80 and 120 columns the map keeps its id, tokens and state columns under a header
    that never wraps, and the key footer shows only whole keys (issue 19)."""
    app = ScreenHost(FoldEditorScreen(replayed_engine), THEMES[theme])
    async with app.run_test(size=(columns, 30)) as pilot:
        await pilot.pause()
        await pilot.press("end")
        await wait_for_source(pilot)
        assert app.export_screenshot(title="fold-editor") == svg_snapshot
