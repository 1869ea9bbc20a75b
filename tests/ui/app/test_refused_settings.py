"""A refused settings file does not stop the app: it opens with the defaults, names the file
and its reason, and ``/fold-settings`` can replace it (issue 19)."""

from __future__ import annotations

from pathlib import Path

from pifold_core.options import EngineOptions
from pifold_core.settings import settings_path
from pifold_tui.screens.settings import FoldSettingsScreen
from tests.ui.app.shell_fixtures import (
    assert_session_consistent,
    live_options,
    prompt_of,
    shell_app,
)
from tests.ui.app.test_shell_commands import chatter

SIZE = (100, 30)


async def test_the_app_opens_with_the_defaults_and_names_the_refused_file(
    tmp_path: Path,
) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"thresholds": {"maxTarget": 2}}', encoding="utf-8")
    app = shell_app(live_options(tmp_path, chatter(tmp_path), budget=50_000))
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        assert app.failure is None
        session = app.session
        assert session is not None and session.engine is not None
        assert session.settings_refused is not None
        # The defaults, at the command's own budget.
        assert session.engine.options == EngineOptions(budget=50_000)
        notice = next(note for note in app.notes if "refused" in note)
        assert f"settings file {path} refused: thresholds" in notice
        assert "/fold-settings" in notice
        prompt_of(app).type_line("/fold-settings")
        await pilot.pause()
        assert isinstance(app.screen, FoldSettingsScreen)
        assert "REFUSED" in str(app.screen.query_one("#settings-file").render())
        assert_session_consistent(session.engine)
    assert path.read_text(encoding="utf-8") == '{"thresholds": {"maxTarget": 2}}'


async def test_the_demo_opens_over_a_refused_settings_file(tmp_path: Path) -> None:
    # The demo is the first thing a newcomer opens; a broken settings file left it closed.
    from tests.ui.app.test_shell_demo import demo_app

    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json", encoding="utf-8")
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE):
        await app.loaded.wait()
        assert app.failure is None
        session = app.session
        assert session is not None and session.demo and session.settings_refused is not None
        assert any(f"settings file {path} refused" in note for note in app.notes)
        assert session.engine is not None
        await app.leave().wait()
    assert path.read_text(encoding="utf-8") == "{not json"
