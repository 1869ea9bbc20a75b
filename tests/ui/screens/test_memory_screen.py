"""``/memory``: the notes listed (project, then user), one opened and edited, saved atomically;
a refused save says why and changes nothing; unsaved edits are never dropped silently. SVG
snapshots dark and light."""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from textual.widgets import Label, OptionList, TextArea

from pifold_agent.memory.store import MAX_NOTE_BYTES, MemoryStore
from pifold_tui.app.slash import COMMANDS
from pifold_tui.screens.memory import MemoryScreen
from tests.ui.harness import THEMES
from tests.ui.screens.editor_fixtures import ScreenHost

SIZE = (120, 30)


def make_store(root: Path) -> MemoryStore:
    store = MemoryStore(root / "project", root / "user")
    store.write("/memories/build.md", "paths: Makefile, src/build/\n# How to build\nrun make -j4\n")
    store.write("/memories/parser.md", "paths: src/parser.py\n# Parser\nmagic number 4242\n")
    store.write("/memories/user/style.md", "# Style\nShort names, no abbreviations.\n")
    return store


def status(app: ScreenHost) -> str:
    return str(app.screen.query_one("#memory-status", Label).render())


async def test_open_edit_and_save_a_note(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    app = ScreenHost(MemoryScreen(store))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        listing = app.screen.query_one("#memory-list", OptionList)
        assert listing.option_count == 3
        listing.focus()
        await pilot.press("down", "enter")
        editor = app.screen.query_one("#memory-text", TextArea)
        assert editor.text.startswith("paths: src/parser.py")
        editor.move_cursor(editor.document.end)
        await pilot.press(*"never change it", "ctrl+s")
        await pilot.pause()
        assert store.read("/memories/parser.md").text.endswith("magic number 4242\nnever change it")
        assert "saved /memories/parser.md" in status(app)


async def test_a_refused_save_changes_nothing_and_edits_are_not_dropped(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    app = ScreenHost(MemoryScreen(store))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        editor = app.screen.query_one("#memory-text", TextArea)
        editor.load_text("x" * (MAX_NOTE_BYTES + 1))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "not saved" in status(app) and "at most" in status(app)
        assert store.read("/memories/build.md").text.startswith("paths: Makefile")
        listing = app.screen.query_one("#memory-list", OptionList)
        listing.focus()
        await pilot.press("down", "enter")
        assert "unsaved edits" in status(app)
        assert editor.text == "x" * (MAX_NOTE_BYTES + 1)  # still there
        await pilot.press("escape")
        assert isinstance(app.screen, MemoryScreen)  # not left with unsaved edits
        await pilot.press("ctrl+d", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, MemoryScreen)


def test_memory_is_a_slash_command() -> None:
    assert "memory" in [command.name for command in COMMANDS]


@pytest.mark.parametrize("theme", sorted(THEMES))
async def test_snapshot(
    theme: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, svg_snapshot: SnapshotAssertion
) -> None:
    monkeypatch.chdir(tmp_path)  # relative folders: the title is the same on every machine
    app = ScreenHost(MemoryScreen(make_store(Path("."))), THEMES[theme])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.export_screenshot(title="memory") == svg_snapshot
