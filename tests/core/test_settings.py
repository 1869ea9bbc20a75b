"""The settings file: where it lives, how it is read and written, who hears of changes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pifold_core.options import EngineOptions, PaletteOption
from pifold_core.settings import SettingsError, SettingsFile, settings_path

GOOD = {"preCommitNotice": True, "palette": {"map": "viridis", "start": 0.2, "end": 0.9}}


def _write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")


def _rewrite(path: Path, value: Any) -> None:
    """Change the file as an editor would, making sure the signature moves."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    _write(path, value)
    os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


def test_settings_path_honours_an_absolute_xdg_config_home(tmp_path: Path) -> None:
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path / "home")}
    assert settings_path(environ) == tmp_path / "xdg" / "pi-fold" / "settings.json"


@pytest.mark.parametrize("xdg", [None, "", "relative/config"])
def test_settings_path_falls_back_to_home_config(tmp_path: Path, xdg: str | None) -> None:
    environ = {"HOME": str(tmp_path / "home")}
    if xdg is not None:
        environ["XDG_CONFIG_HOME"] = xdg
    assert settings_path(environ) == tmp_path / "home" / ".config" / "pi-fold" / "settings.json"


def test_a_missing_file_gives_the_base(tmp_path: Path) -> None:
    base = EngineOptions(budget=70_000)
    settings = SettingsFile(tmp_path / "none" / "settings.json", base=base)
    assert settings.load() == base
    assert not settings.found and settings.names == frozenset()
    with pytest.raises(SettingsError, match="no such file"):
        settings.load(missing_ok=False)


def test_a_good_file_is_merged_over_the_base(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    _write(path, GOOD)
    settings = SettingsFile(path, base=EngineOptions(budget=70_000))
    options = settings.load()
    assert options.budget == 70_000
    assert options.pre_commit_notice is True
    assert options.palette == PaletteOption("viridis", 0.2, 0.9)
    assert settings.found and settings.names == {"preCommitNotice", "palette"}


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "invalid JSON"),
        ('{"preCommitNotice": true, "preCommitNotice": false}', "appears twice"),
        ('{"noticeLeadShare": NaN}', "NaN is not a JSON number"),
        ("[1, 2]", "top level must be an object"),
        ('"batlow"', "top level must be an object"),
        ('{"maxTarget": 0.7}', "unknown option 'maxTarget'"),
        ('{"toolFoldThreshold": 1}', "toolFoldThreshold must lie in [0, 1)"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_a_refused_file_names_the_file_and_the_reason(
    tmp_path: Path, content: str | bytes, reason: str
) -> None:
    path = tmp_path / "settings.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    settings = SettingsFile(path)
    with pytest.raises(SettingsError) as caught:
        settings.load()
    assert str(path) in str(caught.value)
    assert reason in caught.value.reason
    assert caught.value.path == path
    assert settings.options == EngineOptions()
    assert settings.error is caught.value


def test_an_unreadable_path_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.mkdir()
    with pytest.raises(SettingsError, match="cannot read"):
        SettingsFile(path).load()


def test_save_writes_pretty_json_that_loads_back(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "settings.json"
    options = EngineOptions.from_settings({**GOOD, "blacklistAutoFoldTools": ["bash"]})
    SettingsFile(path).save(options)
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and '\n  "thresholds": {\n' in text
    written = json.loads(text)
    assert written == {
        name: value
        for name, value in options.to_settings().items()
        if name != "providerInputBudget"
    }
    assert SettingsFile(path).load() == options
    assert sorted(os.listdir(path.parent)) == ["settings.json"]


def test_save_writes_the_budget_only_when_it_is_the_users_choice(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    descriptor = EngineOptions(budget=128_000)
    settings = SettingsFile(path, base=descriptor)
    settings.save(EngineOptions.from_settings(GOOD, base=descriptor))
    # Saving the palette must not pin this model's budget for the next model.
    assert "providerInputBudget" not in json.loads(path.read_text(encoding="utf-8"))
    assert SettingsFile(path, base=EngineOptions(budget=32_000)).load().budget == 32_000
    settings.save(EngineOptions.from_settings({"providerInputBudget": 90_000}, base=descriptor))
    assert json.loads(path.read_text(encoding="utf-8"))["providerInputBudget"] == 90_000
    # Once the file sets it, it keeps setting it, even back to the descriptor's value.
    settings.save(descriptor)
    assert json.loads(path.read_text(encoding="utf-8"))["providerInputBudget"] == 128_000


def test_save_keeps_the_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    _write(path, {})
    path.chmod(0o640)
    SettingsFile(path).save(EngineOptions())
    assert path.stat().st_mode & 0o777 == 0o640


def test_a_save_removes_the_temporary_file_a_killed_save_left(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    _write(path, GOOD)
    leftover = tmp_path / ".settings.json.k1ll3d.tmp"
    leftover.write_text('{"half": ')
    other = tmp_path / ".other.json.x.tmp"  # not ours: left alone
    other.write_text("{}")
    SettingsFile(path).save(EngineOptions())
    assert sorted(os.listdir(tmp_path)) == [".other.json.x.tmp", "settings.json"]


def test_a_crash_before_the_rename_leaves_the_old_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "settings.json"
    _write(path, GOOD)
    before = path.read_bytes()

    def crash(source: object, target: object) -> None:
        raise OSError(5, "simulated crash before the rename")

    monkeypatch.setattr(os, "replace", crash)
    settings = SettingsFile(path)
    heard: list[EngineOptions] = []
    settings.subscribe(heard.append)
    with pytest.raises(SettingsError, match="cannot write"):
        settings.save(EngineOptions(budget=5_000))
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["settings.json"]
    assert heard == []


def test_a_partial_temporary_file_from_a_killed_writer_is_harmless(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    SettingsFile(path).save(EngineOptions.from_settings(GOOD))
    # What a writer killed mid-write leaves behind: half a temporary file beside the real one.
    (tmp_path / ".settings.json.k1ll3d.tmp").write_text('{"preCommitNotice": fal', "utf-8")
    settings = SettingsFile(path)
    assert settings.load() == EngineOptions.from_settings(GOOD)
    settings.save(EngineOptions())
    assert settings.load() == EngineOptions()


def test_listeners_hear_of_a_save_until_they_unsubscribe(tmp_path: Path) -> None:
    settings = SettingsFile(tmp_path / "settings.json")
    first: list[EngineOptions] = []
    second: list[EngineOptions] = []
    stop_first = settings.subscribe(first.append)
    settings.subscribe(second.append)
    noticed = EngineOptions.from_settings({"preCommitNotice": True})
    settings.save(noticed)
    stop_first()
    stop_first()  # a second call is harmless
    settings.save(EngineOptions())
    assert first == [noticed]
    assert second == [noticed, EngineOptions()]
    assert settings.options == EngineOptions()


def test_reload_notices_an_external_change(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = SettingsFile(path)
    settings.save(EngineOptions())
    heard: list[EngineOptions] = []
    settings.subscribe(heard.append)
    # Our own write is not a change.
    assert settings.reload_if_changed().changed is False
    _rewrite(path, GOOD)
    result = settings.reload_if_changed()
    assert result.changed and result.error is None
    assert heard == [EngineOptions.from_settings(GOOD)] == [settings.options]
    # Unchanged on disk: nothing read, nobody told.
    assert settings.reload_if_changed().changed is False
    # Changed bytes, same options: nobody told.
    _rewrite(path, {**GOOD, "toolFoldThreshold": 0.5})
    assert settings.reload_if_changed().changed is False
    assert len(heard) == 1
    # Deleted: back to the base, and that is a change.
    path.unlink()
    assert settings.reload_if_changed().changed is True
    assert heard[-1] == EngineOptions()


def test_a_refused_change_tells_nobody_and_keeps_the_last_good_options(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    _write(path, GOOD)
    settings = SettingsFile(path)
    good = settings.load()
    heard: list[EngineOptions] = []
    settings.subscribe(heard.append)
    _rewrite(path, {"thresholds": {"maxTarget": 0.2, "minTarget": 0.8}})
    result = settings.reload_if_changed()
    assert not result.changed and result.options == good == settings.options
    assert result.error is not None and "thresholds is set whole" in result.error.reason
    assert settings.error is result.error
    assert heard == []
    # The same refused file is not read and reported again on every poll.
    assert settings.reload_if_changed().error is None
    # Fixed: read again, and the listeners hear of it.
    _rewrite(path, {"preCommitNotice": False})
    result = settings.reload_if_changed()
    assert result.changed and settings.error is None
    assert heard == [EngineOptions()]
