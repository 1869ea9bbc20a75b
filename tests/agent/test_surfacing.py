"""The settings file's ``surfacing`` switch: off by default, on from the file, kept through a
save of the engine's options, and a value that is not true or false refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pifold_agent.surfacing import surfacing_enabled
from pifold_core.options import EngineOptions
from pifold_core.settings import SettingsError, SettingsFile, settings_path


def test_off_by_default_and_on_from_the_settings_file() -> None:
    assert not surfacing_enabled()
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"surfacing": True, "toolFoldThreshold": 0.4}))
    assert surfacing_enabled()
    assert not surfacing_enabled(read_settings=False)


def test_a_refused_file_leaves_it_off() -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"surfacing": True, "toolFoldThreshold": "high"}))
    assert not surfacing_enabled()


def test_a_save_of_the_options_keeps_the_switch(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"surfacing": True}))
    settings = SettingsFile(path)
    settings.load()
    settings.save(EngineOptions(tool_fold_threshold=0.3))
    assert json.loads(path.read_text())["surfacing"] is True
    assert settings.host_setting("surfacing") is True


def test_a_value_that_is_not_a_boolean_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"surfacing": "on"}))
    with pytest.raises(SettingsError, match="surfacing must be true or false"):
        SettingsFile(path).load()
