"""The settings file's ``memoryResurfacing`` switch: on by default, kept through a save of
the engine's options, and a value that is not true or false refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pifold_agent.memory.resurfacing import resurfacing_enabled
from pifold_core.options import EngineOptions
from pifold_core.settings import SettingsError, SettingsFile, settings_path


def test_on_by_default_and_off_from_the_settings_file() -> None:
    assert resurfacing_enabled()
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"memoryResurfacing": False, "toolFoldThreshold": 0.4}))
    assert not resurfacing_enabled()
    assert resurfacing_enabled(read_settings=False)


def test_a_save_of_the_options_keeps_the_switch(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"memoryResurfacing": False}))
    settings = SettingsFile(path)
    settings.load()
    settings.save(EngineOptions(tool_fold_threshold=0.3))
    assert json.loads(path.read_text())["memoryResurfacing"] is False
    assert settings.host_setting("memoryResurfacing") is False


def test_a_value_that_is_not_a_boolean_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"memoryResurfacing": "no"}))
    with pytest.raises(SettingsError, match="memoryResurfacing must be true or false"):
        SettingsFile(path).load()
