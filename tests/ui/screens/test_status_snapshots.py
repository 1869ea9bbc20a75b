"""SVG snapshot of ``/fold-status`` on the replayed codex session, dark and light."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from pifold_core.engine import Engine
from pifold_tui.inspect import InspectApp
from tests.ui.harness import THEMES
from tests.ui.screens.conftest import check_clean, looked_only

LABEL = "codex-soulpass, replayed at a 60,000-token budget"
"""How the title names the session (its temporary folder would change every run)."""


@pytest.mark.parametrize("theme", sorted(THEMES))
class TestStatusScreen:
    async def test_replayed_session(
        self, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
    ) -> None:
        before = looked_only(replayed_engine)
        app = InspectApp(replayed_engine, label=LABEL)
        app.theme = THEMES[theme]
        async with app.run_test(size=(120, 64)) as pilot:
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            assert app.export_screenshot(title="pifold inspect: /fold-status") == svg_snapshot
        check_clean(replayed_engine, before)
