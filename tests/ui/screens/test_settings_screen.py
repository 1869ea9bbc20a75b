"""Pilot tests of ``/fold-settings`` on a real replayed session: validation as you type,
the palette's live preview, saving (atomic, applied live), leaving, refused files on disk
and read-only sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from palettes import PaletteSetting
from pifold_core.engine import Engine
from pifold_core.options import EngineOptions
from pifold_core.settings import SettingsFile, settings_path
from pifold_tui.fold_bar import FoldBar
from pifold_tui.screens.settings import FoldSettingsScreen
from pifold_tui.screens.settings.slider import MapChooser, PositionSlider
from pifold_tui.screens.status.frame import BarFooter
from tests.core.engine_checks import unchanged
from tests.ui.screens.editor_fixtures import SCREEN_SIZE, ScreenHost, assert_host_clean

BUDGET = 60_000
"""The replayed session's budget, the settings file's base."""


def settings_file(tmp_path: Path) -> SettingsFile:
    return SettingsFile(
        tmp_path / "config" / "pi-fold" / "settings.json", EngineOptions(budget=BUDGET)
    )


def form(pilot: Pilot[None]) -> FoldSettingsScreen:
    screen = pilot.app.screen
    assert isinstance(screen, FoldSettingsScreen)
    return screen


def verdict_text(pilot: Pilot[None]) -> str:
    return str(form(pilot).query_one("#settings-verdict").render())


async def type_into(pilot: Pilot[None], key: str, text: str) -> None:
    field = form(pilot).query_one(f"#field-{key.replace('.', '-')}", Input)
    field.focus()
    field.value = ""
    await pilot.press(*text)


def bar_cells(bar: FoldBar) -> list[str]:
    """The bar's painted segments' colours, to see a repaint."""
    return [str(segment.style) for segment in bar.render_line(0)]


async def test_a_refused_value_shows_its_rule_and_is_never_saved(
    replayed_engine: Engine, tmp_path: Path
) -> None:
    engine = replayed_engine
    entries = len(engine.view.transcript)
    settings = settings_file(tmp_path)
    with unchanged(engine):
        async with ScreenHost(FoldSettingsScreen(engine, settings)).run_test(
            size=SCREEN_SIZE
        ) as pilot:
            await pilot.pause()
            assert form(pilot).verdict.valid
            await type_into(pilot, "thresholds.minTarget", "0.9")
            rule = (
                "thresholds break the rule 0 < minTarget < maxTarget < 1: "
                "minTarget 0.9 is not below maxTarget 0.8"
            )
            assert verdict_text(pilot) == f"refused: {rule}"
            field = form(pilot).query_one("#field-thresholds-minTarget", Input)
            assert field.has_class("-invalid")
            # Never clamped: the form holds what was typed, and Save refuses it.
            assert field.value == "0.9"
            await pilot.press("ctrl+s")
            assert verdict_text(pilot) == f"refused, not saved: {rule}"
            await type_into(pilot, "toolFoldThreshold", "abc")
            await type_into(pilot, "thresholds.minTarget", "0.2")
            assert verdict_text(pilot) == "refused: toolFoldThreshold must be a number, got 'abc'"
            await type_into(pilot, "toolFoldThreshold", "1")
            assert "toolFoldThreshold must lie in [0, 1)" in verdict_text(pilot)
            await type_into(pilot, "toolFoldThreshold", "0.5")
            assert form(pilot).verdict.valid and not field.has_class("-invalid")
    assert not settings.path.exists()
    assert_host_clean(engine, entries)


async def test_palette_steps_repaint_the_preview_then_save_applies_live(
    replayed_engine: Engine, tmp_path: Path
) -> None:
    engine = replayed_engine
    entries = len(engine.view.transcript)
    settings = settings_file(tmp_path)
    heard: list[EngineOptions] = []
    settings.subscribe(heard.append)
    async with ScreenHost(FoldSettingsScreen(engine, settings)).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        preview = form(pilot).query_one("#preview-bar", FoldBar)
        painted = bar_cells(preview)
        form(pilot).query_one("#palette-start", PositionSlider).focus()
        await pilot.press("right")
        assert preview.palette_setting == PaletteSetting("batlow", 0.05, 1.0)
        assert bar_cells(preview) != painted
        painted = bar_cells(preview)
        await pilot.press("shift+right")
        assert preview.palette_setting.start == pytest.approx(0.06)
        assert bar_cells(preview) != painted
        form(pilot).query_one(MapChooser).focus()
        await pilot.press("right")
        assert preview.palette_setting.map_name == "viridis"
        form(pilot).query_one("#palette-end", PositionSlider).focus()
        await pilot.press("home")
        # start 0.06 and end 0: previewed, but too narrow to tell the categories apart.
        assert preview.palette_setting == PaletteSetting("viridis", 0.06, 0.0)
        assert "palette viridis 0.06 → 0 is too narrow" in verdict_text(pilot)
        form(pilot).query_one("#palette-start", PositionSlider).focus()
        await pilot.press("end")
        # start 1 and end 0: a reversed slice, which is allowed.
        assert preview.palette_setting == PaletteSetting("viridis", 1.0, 0.0)
        session_bar = form(pilot).query_one(BarFooter).bar
        assert session_bar.palette_setting == PaletteSetting()  # unchanged until saved
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert verdict_text(pilot).startswith("saved to ")
        assert session_bar.palette_setting == PaletteSetting("viridis", 1.0, 0.0)
    saved = json.loads(settings.path.read_text())
    assert saved["palette"] == {"map": "viridis", "start": 1.0, "end": 0.0}
    assert "providerInputBudget" not in saved  # the base's budget is not pinned in the file
    assert engine.options.palette.map_name == "viridis" and engine.options.palette.end == 0.0
    assert heard and heard[-1] == engine.options
    assert [path.name for path in settings.path.parent.iterdir()] == ["settings.json"]
    engine._state.journal.sync()
    reopened = Engine.open(engine.state_dir, read_only=True)  # logged: a restart keeps it
    assert reopened.options == engine.options
    reopened.close()
    assert_host_clean(engine, entries)


async def test_equal_palette_ends_are_refused_with_the_rule(
    replayed_engine: Engine, tmp_path: Path
) -> None:
    engine = replayed_engine
    settings = settings_file(tmp_path)
    with unchanged(engine):
        async with ScreenHost(FoldSettingsScreen(engine, settings)).run_test(
            size=SCREEN_SIZE
        ) as pilot:
            await pilot.pause()
            form(pilot).query_one("#palette-end", PositionSlider).focus()
            await pilot.press("home")
            assert verdict_text(pilot) == (
                "refused: palette breaks the rule start != end (both are 0)"
            )
            assert form(pilot).query_one("#row-palette-end").has_class("-invalid")
            await pilot.press("ctrl+s")
    assert not settings.path.exists()


async def test_escape_leaves_without_saving(replayed_engine: Engine, tmp_path: Path) -> None:
    engine = replayed_engine
    settings = settings_file(tmp_path)
    with unchanged(engine):
        async with ScreenHost(FoldSettingsScreen(engine, settings)).run_test(
            size=SCREEN_SIZE
        ) as pilot:
            await pilot.pause()
            await type_into(pilot, "thresholds.maxTarget", "0.7")
            assert form(pilot).verdict.valid
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(pilot.app.screen, FoldSettingsScreen)
    assert not settings.path.exists()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"thresholds": {"maxTarget": 0.5}}', "thresholds is set whole: missing"),
        (b"{not json", "invalid JSON"),
    ],
)
async def test_a_refused_file_on_disk_is_shown_and_only_replaced_on_a_second_save(
    replayed_engine: Engine, tmp_path: Path, content: bytes, reason: str
) -> None:
    engine = replayed_engine
    settings = settings_file(tmp_path)
    settings.path.parent.mkdir(parents=True)
    settings.path.write_bytes(content)
    async with ScreenHost(FoldSettingsScreen(engine, settings)).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        file_line = form(pilot).query_one("#settings-file")
        assert reason in str(file_line.render())
        assert file_line.has_class("-refused")
        await pilot.press("ctrl+s")
        assert "Save again to replace it" in verdict_text(pilot)
        assert settings.path.read_bytes() == content
        await pilot.press("ctrl+s")
        assert verdict_text(pilot).startswith("saved to ")
        assert "the refused file is kept as settings.json.refused-" in verdict_text(pilot)
    assert json.loads(settings.path.read_text())["thresholds"]["maxTarget"] == 0.8
    # What the user wrote is not lost: the refused file is kept beside the new one.
    kept = [path for path in settings.path.parent.iterdir() if path != settings.path]
    assert [path.name.startswith("settings.json.refused-") for path in kept] == [True]
    assert kept[0].read_bytes() == content


async def test_an_unreadable_file_is_shown_with_its_reason(
    replayed_engine: Engine, tmp_path: Path
) -> None:
    engine = replayed_engine
    settings = settings_file(tmp_path)
    settings.path.mkdir(parents=True)  # a directory where the file should be
    with unchanged(engine):
        async with ScreenHost(FoldSettingsScreen(engine, settings)).run_test(
            size=SCREEN_SIZE
        ) as pilot:
            await pilot.pause()
            assert "cannot read" in str(form(pilot).query_one("#settings-file").render())
    assert settings.path.is_dir()


async def test_read_only_refuses_save(replayed_engine: Engine, tmp_path: Path) -> None:
    engine = replayed_engine
    entries = len(engine.view.transcript)
    settings = settings_file(tmp_path)
    with unchanged(engine):
        async with ScreenHost(FoldSettingsScreen(engine, settings, read_only=True)).run_test(
            size=SCREEN_SIZE
        ) as pilot:
            await pilot.pause()
            await type_into(pilot, "thresholds.maxTarget", "0.7")
            await pilot.press("ctrl+s")
            assert verdict_text(pilot) == (
                "refused: this session is open read-only; nothing was saved"
            )
    assert not settings.path.exists()
    assert_host_clean(engine, entries)


async def test_save_honours_xdg_config_home(
    replayed_engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = replayed_engine
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    settings = SettingsFile(base=EngineOptions(budget=BUDGET))
    assert settings.path == settings_path() == tmp_path / "xdg" / "pi-fold" / "settings.json"
    async with ScreenHost(FoldSettingsScreen(engine, settings)).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        await type_into(pilot, "thresholds.consolidateAfter", "6")
        await pilot.press("ctrl+s")
    assert json.loads(settings.path.read_text())["thresholds"]["consolidateAfter"] == 6
    assert engine.options.thresholds.consolidate_after == 6


async def test_save_keeps_the_session_budget_when_the_file_does_not_set_one(
    replayed_engine: Engine, tmp_path: Path
) -> None:
    engine = replayed_engine
    # The file's base is the default budget, not the 60,000 the session runs at.
    settings = SettingsFile(tmp_path / "config" / "pi-fold" / "settings.json")
    assert settings.base.budget != BUDGET
    async with ScreenHost(FoldSettingsScreen(engine, settings)).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        budget = form(pilot).query_one("#field-providerInputBudget", Input)
        assert budget.value == str(BUDGET)
        form(pilot).query_one(MapChooser).focus()
        await pilot.press("left", "ctrl+s")
        assert verdict_text(pilot).startswith("saved to ")
        assert engine.options.budget == BUDGET  # the palette's Save left the budget alone
        assert "providerInputBudget" not in json.loads(settings.path.read_text())
        await type_into(pilot, "providerInputBudget", "70000")
        await pilot.press("ctrl+s")
    assert engine.options.palette.map_name == "cividis"
    assert engine.options.budget == 70_000
    assert json.loads(settings.path.read_text())["providerInputBudget"] == 70_000


async def test_it_opens_on_the_first_field_and_the_preview_follows_the_form(
    replayed_engine: Engine, tmp_path: Path
) -> None:
    """The form has the keys at once; the preview takes the band as typed while the
    session's bar keeps the saved one until Save, and the preview's label says which."""
    engine = replayed_engine
    entries = len(engine.view.transcript)
    settings = settings_file(tmp_path)
    async with ScreenHost(FoldSettingsScreen(engine, settings)).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        first = form(pilot).query_one("#field-thresholds-maxTarget", Input)
        assert pilot.app.focused is first
        label = form(pilot).query_one("#preview-label")
        assert str(label.render()).startswith("preview: the bar with these settings, as saved")
        await type_into(pilot, "thresholds.maxTarget", "0.7")
        await pilot.pause()
        preview = form(pilot).query_one("#preview-bar", FoldBar).composition
        session = form(pilot).query_one(BarFooter).query_one(FoldBar).composition
        assert preview is not None and session is not None
        assert preview.max_target == 0.7 and session.max_target == 0.8
        assert "not saved: the session's bar below keeps the saved settings" in str(label.render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        session = form(pilot).query_one(BarFooter).query_one(FoldBar).composition
        assert session is not None and session.max_target == 0.7
        assert engine.options.thresholds.max_target == 0.7
        assert str(label.render()).startswith("preview: the bar with these settings, as saved")
    assert_host_clean(engine, entries)
