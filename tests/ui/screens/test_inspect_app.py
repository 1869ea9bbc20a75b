"""``pifold inspect``: the app, its keys and palette, its layout, and how it opens a folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Footer, Static
from typer.testing import CliRunner

from pifold_cli.app import app as cli_app
from pifold_cli.inspect_command import InspectError, open_for_inspection
from pifold_core.engine import LOG_NAME, Engine
from pifold_core.settings import SettingsFile
from pifold_tui import FoldBar
from pifold_tui.inspect import READ_ONLY_NOTE, SCREEN_ACTIONS, InspectApp
from pifold_tui.screens.editor import FoldEditorScreen
from pifold_tui.screens.fold import FoldScreen
from pifold_tui.screens.settings import FoldSettingsScreen
from pifold_tui.screens.status import BarFooter, FoldStatusScreen
from tests.ui.screens.conftest import check_clean, looked_only, shown_text

SIZE = (120, 40)


async def test_keys_open_each_screen_and_the_bar_sits_above_the_footer(
    read_only_engine: Engine,
) -> None:
    before = looked_only(read_only_engine)
    app = InspectApp(read_only_engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key, kind in (("f", FoldScreen), ("s", FoldStatusScreen), ("f", FoldScreen)):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, kind)
            bar = app.screen.query_one(FoldBar).region
            footer = app.screen.query_one(Footer).region
            assert bar.height == 1 and bar.y + 1 == footer.y == SIZE[1] - 1
            assert bar.width == footer.width == SIZE[0]
        # One screen over the home at a time: f, s, f leaves the home and one /fold.
        assert len(app.screen_stack) == 2
        await pilot.press("f")  # already showing: nothing stacks
        await pilot.pause()
        assert len(app.screen_stack) == 2
    check_clean(read_only_engine, before)


async def test_part_two_screens_open_by_key_read_only_as_the_app(
    read_only_engine: Engine, tmp_path: Path
) -> None:
    before = looked_only(read_only_engine)
    settings = SettingsFile(tmp_path / "settings.json")
    app = InspectApp(read_only_engine, settings)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key, kind in (("e", FoldEditorScreen), ("o", FoldSettingsScreen)):
            await pilot.press("s", key)
            await pilot.pause()
            assert isinstance(app.screen, kind)
            assert app.screen.read_only  # the app's read-only reaches every screen
            bar = app.screen.query_one(BarFooter).bar.region
            assert bar.y + 1 == app.screen.query_one(Footer).region.y
        assert isinstance(app.screen, FoldSettingsScreen) and app.screen.settings is settings
    assert not (tmp_path / "settings.json").exists()  # looking saved nothing
    check_clean(read_only_engine, before)


async def test_the_palette_is_fed_from_the_actions_table(read_only_engine: Engine) -> None:
    app = InspectApp(read_only_engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        titles = [command.title for command in app.get_system_commands(app.screen)]
        for action in SCREEN_ACTIONS:
            assert action.palette_title in titles
        # Opening /fold from the palette, by typing part of its name.
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"fold now")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, FoldScreen)


async def test_read_only_app_says_so(read_only_engine: Engine) -> None:
    app = InspectApp(read_only_engine)
    assert app.read_only  # the engine was opened read-only, so the app is too
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert READ_ONLY_NOTE in shown_text(app.screen.query_one("#status-note", Static))


def test_a_locked_folder_opens_read_only_with_a_note(replayed_engine: Engine) -> None:
    # replayed_engine holds the writer's lock, as a running session would.
    before = looked_only(replayed_engine)
    inspection = open_for_inspection(replayed_engine.state_dir)
    try:
        assert inspection.read_only
        assert inspection.note is not None and "Opened read-only because" in inspection.note
        assert "already open for writing" in inspection.note
        app = InspectApp(inspection.engine, read_only=inspection.read_only, note=inspection.note)
        assert app.read_only and app.note == inspection.note
    finally:
        inspection.engine.close()
    check_clean(replayed_engine, before)


def test_read_only_is_honoured_and_a_free_folder_opens_writable(session_folder: Path) -> None:
    asked = open_for_inspection(session_folder, read_only=True)
    try:
        assert asked.read_only and asked.note is None
    finally:
        asked.engine.close()
    free = open_for_inspection(session_folder)
    try:
        assert not free.read_only and free.note is None
    finally:
        free.engine.close()


def test_folders_that_hold_no_session_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InspectError, match="is not a folder"):
        open_for_inspection(tmp_path / "missing")
    with pytest.raises(InspectError, match=f"holds no pifold session: there is no {LOG_NAME}"):
        open_for_inspection(tmp_path)
    assert list(tmp_path.iterdir()) == []  # inspecting never creates a session


def test_a_corrupt_log_is_a_clear_refusal(session_folder: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged"
    shutil.copytree(session_folder, damaged)
    log = damaged / LOG_NAME
    lines = log.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b'"c":"', b'"c":"0')  # a bad checksum before the last line
    log.write_bytes(b"".join(lines))
    with pytest.raises(InspectError, match="cannot open the session in"):
        open_for_inspection(damaged, read_only=True)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["inspect", "{missing}"], "is not a folder"),
        (["inspect", "{empty}"], "holds no pifold session"),
        (["inspect", "{empty}", "--read-only"], "holds no pifold session"),
        (["replay", "{missing}", "--inspect", "--json"], "not with --json"),
    ],
)
def test_cli_failures_are_messages_and_exit_2(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    folders = {"missing": str(tmp_path / "missing"), "empty": str(tmp_path)}
    result = CliRunner().invoke(cli_app, [argument.format(**folders) for argument in arguments])
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())
    assert "Traceback" not in result.output + result.stderr
    assert isinstance(result.exception, SystemExit)
