"""SVG snapshots of ``/fold-settings`` on the replayed session, dark and light (``snapshots/``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from textual.pilot import Pilot
from textual.widgets import Input

from pifold_core.engine import Engine
from pifold_core.options import EngineOptions
from pifold_core.settings import SettingsFile
from pifold_tui.screens.settings import FoldSettingsScreen
from tests.ui.harness import THEMES
from tests.ui.screens.editor_fixtures import ScreenHost

SNAPSHOT_SIZE = (110, 42)

MISSING_FILE = Path("/config/pi-fold/settings.json")
"""A fixed path that does not exist, so the screenshot reads the same on every machine."""


def host(engine: Engine, theme: str) -> ScreenHost:
    settings = SettingsFile(MISSING_FILE, EngineOptions(budget=engine.options.budget))
    return ScreenHost(FoldSettingsScreen(engine, settings), THEMES[theme])


def still_cursors(pilot: Pilot[None]) -> None:
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False


@pytest.mark.parametrize("theme", sorted(THEMES))
class TestFoldSettingsScreen:
    async def test_form(
        self, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
    ) -> None:
        app = host(replayed_engine, theme)
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await pilot.pause()
            still_cursors(pilot)
            screen = pilot.app.screen
            screen.query_one("#palette-start").focus()
            await pilot.press("right", "right")
            screen.query_one("#palette-end").focus()
            await pilot.press("left")
            await pilot.pause()
            assert app.export_screenshot(title="fold-settings") == svg_snapshot

    async def test_refused_value(
        self, theme: str, replayed_engine: Engine, svg_snapshot: SnapshotAssertion
    ) -> None:
        app = host(replayed_engine, theme)
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await pilot.pause()
            still_cursors(pilot)
            field = pilot.app.screen.query_one("#field-noticeLeadShare", Input)
            field.focus()
            field.value = "0.7"
            await pilot.pause()
            assert app.export_screenshot(title="fold-settings") == svg_snapshot
