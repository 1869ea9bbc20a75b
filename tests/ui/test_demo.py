"""The example app runs, embeds the bar above its footer, and its keys do what they say."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from types import ModuleType

from palettes import PaletteSetting
from pifold_tui import FoldBar

DEMO = Path(__file__).resolve().parents[2] / "examples" / "fold_bar_demo.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fold_bar_demo", DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_demo_keys() -> None:
    demo = _load()

    async def drive() -> None:
        app = demo.FoldBarDemo()
        async with app.run_test(size=(120, 12)) as pilot:
            await pilot.press("p")  # stop the playback so the test decides the steps
            bar = app.query_one(FoldBar)
            footer_row = app.screen.query_one("Footer").region.y
            assert bar.region.y == footer_row - 1
            first = bar.composition
            await pilot.press("space")
            assert bar.composition is not first
            await pilot.press("m")
            assert bar.palette_setting == PaletteSetting("viridis")
            await pilot.press("r")
            assert bar.palette_setting == PaletteSetting("viridis", 1.0, 0.0)
            await pilot.press("t")
            assert not app.current_theme.dark

    asyncio.run(drive())
