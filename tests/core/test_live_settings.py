"""A settings change reaches the running engine and survives a reopen (DESIGN §9)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pifold_core.engine import Engine, EngineError
from pifold_core.settings import SettingsError, SettingsFile
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, assert_lossless


def _session() -> SessionBuilder:
    session = SessionBuilder()
    for number in range(4):
        session.chapter(f"Chapter {number}: src/m{number}.py", [[1500, 800], [1200]], seed=number)
    session.user("next?")
    session.assistant("Waiting.")
    return session


def test_a_saved_change_reaches_the_running_engine(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(budget=1_000_000), CharCounter())
    settings = SettingsFile(tmp_path / "settings.json", base=engine.options)
    settings.subscribe(engine.apply_options)
    drive(engine, _session().entries)
    assert engine.view.commit_count == 0  # a million tokens: nothing to do yet
    before = engine.view.projection.digests()
    # The user narrows the budget in /fold-settings: applied at once, no byte moved by it.
    settings.save(replace(engine.options, budget=5_000))
    assert engine.options.budget == 5_000
    assert engine.view.projection.digests() == before
    # The next request commits under the new band, attributed like any commit.
    request = engine.prepare_request()
    assert request.commit is not None
    assert request.record.classification == "attributed"
    assert_clean_audit(engine)
    assert_lossless(engine)
    engine.close()
    reopened = Engine.open(tmp_path / "state", None, CharCounter())
    try:
        assert reopened.options.budget == 5_000
        assert reopened.view.projection.digests() == request.digests
        assert reopened.view.audit_counts.unattributed == 0
    finally:
        reopened.close()


def test_an_edit_on_disk_is_picked_up_by_polling(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(budget=50_000), CharCounter())
    path = tmp_path / "settings.json"
    settings = SettingsFile(path, base=engine.options)
    settings.subscribe(engine.apply_options)
    settings.load()
    path.write_text(json.dumps({"toolFoldThreshold": 0.25}), encoding="utf-8")
    result = settings.reload_if_changed()
    assert result.changed
    assert engine.options.tool_fold_threshold == 0.25
    assert engine.options.budget == 50_000  # the file does not set it: the session's stays


def test_a_refused_file_leaves_the_engine_alone(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(budget=50_000), CharCounter())
    path = tmp_path / "settings.json"
    settings = SettingsFile(path, base=engine.options)
    settings.subscribe(engine.apply_options)
    settings.load()
    log_before = engine._state.journal.path.read_bytes()
    path.write_text(
        json.dumps(
            {
                "thresholds": {
                    "maxTarget": 0.3,
                    "minTarget": 0.5,
                    "consolidateAfter": 10,
                    "minFoldChars": 8000,
                }
            }
        ),
        encoding="utf-8",
    )
    result = settings.reload_if_changed()
    assert not result.changed
    assert isinstance(result.error, SettingsError)
    assert "minTarget" in str(result.error)
    assert engine.options.thresholds.max_target == 0.8
    assert engine._state.journal.path.read_bytes() == log_before


def test_apply_options_refuses_what_is_not_options(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(), CharCounter())
    log_before = engine._state.journal.path.read_bytes()
    with pytest.raises(EngineError, match="EngineOptions"):
        engine.apply_options({"budget": 3})  # type: ignore[arg-type]
    # Options equal to the ones in force write nothing either.
    engine.apply_options(replace(engine.options))
    assert engine._state.journal.path.read_bytes() == log_before
