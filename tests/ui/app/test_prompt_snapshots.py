"""SVG snapshots of the prompt with its completion popup open, dark and light
(``snapshots/test_prompt_snapshots/``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from tests.ui.app.test_prompt_completion import git_repository
from tests.ui.app.test_prompt_harness import PromptHarness, typed
from tests.ui.harness import THEMES

SNAPSHOT_SIZE = (80, 16)


@pytest.mark.parametrize("theme", sorted(THEMES))
class TestPromptSnapshots:
    async def test_commands(self, theme: str, svg_snapshot: SnapshotAssertion) -> None:
        app = PromptHarness(Path("/nonexistent"), theme=THEMES[theme])
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await pilot.press("/", "f", "down")
            await pilot.pause()
            assert app.prompt.popup.is_open
            assert app.export_screenshot(title="prompt") == svg_snapshot

    async def test_paths_while_steering(
        self, theme: str, tmp_path: Path, svg_snapshot: SnapshotAssertion
    ) -> None:
        app = PromptHarness(git_repository(tmp_path / "repo"), theme=THEMES[theme])
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            app.prompt.running = True
            await typed(pilot, app.prompt, "prefer the small fix", "enter")
            await typed(pilot, app.prompt, "and look at @src/")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.prompt.popup.is_open and app.prompt.strip.queued
            assert app.export_screenshot(title="prompt") == svg_snapshot
