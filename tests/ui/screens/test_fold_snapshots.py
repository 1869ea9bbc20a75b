"""SVG snapshots of ``/fold`` on the replayed codex session: the preview, what landed and a
refusal, dark and light."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from pifold_core.engine import Engine
from pifold_tui.inspect import InspectApp
from tests.ui.harness import THEMES
from tests.ui.screens.conftest import check_clean

SIZE = (120, 36)


async def screenshot(engine: Engine, theme: str, keys: tuple[str, ...]) -> str:
    app = InspectApp(engine, label="codex-soulpass")
    app.theme = THEMES[theme]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        return app.export_screenshot(title="pifold inspect: /fold")


@pytest.mark.parametrize("theme", sorted(THEMES))
class TestFoldScreen:
    async def test_preview(
        self, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
    ) -> None:
        assert await screenshot(replayed_engine, theme, ("f",)) == svg_snapshot
        check_clean(replayed_engine)

    async def test_landed(
        self, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
    ) -> None:
        commits = replayed_engine.view.commit_count
        assert await screenshot(replayed_engine, theme, ("f", "enter")) == svg_snapshot
        assert replayed_engine.view.commit_count == commits + 1
        check_clean(replayed_engine)

    async def test_nothing_staged(
        self, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
    ) -> None:
        replayed_engine.commit_now()
        assert await screenshot(replayed_engine, theme, ("f", "enter")) == svg_snapshot
        check_clean(replayed_engine)
