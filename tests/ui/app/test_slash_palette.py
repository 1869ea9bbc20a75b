"""The command palette offers the registry's slash commands and runs the one picked."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList

from pifold_tui.screens.status import FoldStatusScreen
from tests.ui.app.shell_fixtures import live_options, shell_app, write_script

SIZE = (100, 30)


async def test_the_palette_runs_a_slash_command(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.jsonl", [{"assistant": "Seen."}])
    app = shell_app(live_options(tmp_path, script))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"/fold-stat")
        for _ in range(200):
            await pilot.pause(0.02)
            hits = app.screen.query(OptionList)
            if hits and hits.first().option_count:
                first = hits.first().get_option_at_index(0)
                if "/fold-status" in str(first.prompt):
                    break
        else:
            raise AssertionError("the palette never offered /fold-status")
        await pilot.press("enter")
        for _ in range(100):
            await pilot.pause(0.02)
            if isinstance(app.screen, FoldStatusScreen):
                break
        assert isinstance(app.screen, FoldStatusScreen)
