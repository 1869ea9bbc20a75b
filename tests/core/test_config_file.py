"""Configuration files are never trusted to be files (Reliability II, defect 13).

A FIFO or a device where ``settings.json`` should be hung start-up and ``pifold settings
show``; a file any user could write was read without a word. Each case here goes through the
settings file, ``pifold settings show`` and the models table.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pifold_agent.providers.models import ModelsFileError, load_models
from pifold_cli.app import app
from pifold_core.config_file import MAX_CONFIG_BYTES, read_config_file
from pifold_core.settings import SettingsError, SettingsFile
from tests.core.fifo_feeder import fed_fifo

RUNNER = CliRunner()

GOOD = b'{"preCommitNotice": true}\n'


def test_a_fifo_is_refused_unopened(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    with fed_fifo(path, GOOD) as fed:
        with pytest.raises(SettingsError, match="FIFO"):
            SettingsFile(path).load()
        result = RUNNER.invoke(app, ["settings", "show", "--file", str(path)])
        assert result.exit_code == 2 and "FIFO" in result.stderr
        assert fed == []  # nobody opened it to read


def test_a_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    # /dev/null, not /dev/zero: without the check, /dev/zero is read until memory runs out.
    path = tmp_path / "settings.json"
    path.symlink_to("/dev/null")
    with pytest.raises(SettingsError, match="a device, not a regular file"):
        SettingsFile(path).load()
    models = tmp_path / "models.json"
    models.symlink_to("/dev/null")
    with pytest.raises(ModelsFileError, match="a device"):
        load_models(models)


def test_a_models_fifo_is_refused_unopened(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    with fed_fifo(path, b'{"models": {}}') as fed:
        with pytest.raises(ModelsFileError, match="FIFO"):
            load_models(path)
        assert fed == []


def test_the_size_read_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b"{}" + b" " * MAX_CONFIG_BYTES)  # valid JSON, a megabyte of spaces
    with pytest.raises(SettingsError, match="larger than"):
        SettingsFile(path).load()
    models = tmp_path / "models.json"
    models.write_bytes(b'{"models": {}}' + b" " * MAX_CONFIG_BYTES)
    with pytest.raises(ModelsFileError, match="larger than"):
        load_models(models)


def test_a_models_file_that_is_not_utf8_or_too_deep_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_bytes(b'{"models": {"caf\xe9": {}}}')
    with pytest.raises(ModelsFileError, match="not UTF-8"):
        load_models(path)
    path.write_bytes(b"[" * 100_000)
    with pytest.raises(ModelsFileError, match=f"{path}: not valid JSON"):
        load_models(path)


@pytest.mark.parametrize(("mode", "said"), [(0o666, "every user"), (0o620, "its group")])
def test_a_file_others_may_write_is_read_with_a_warning(
    tmp_path: Path, mode: int, said: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(GOOD)
    os.chmod(path, mode)
    settings = SettingsFile(path)
    assert settings.load().pre_commit_notice
    assert settings.warning is not None
    assert said in settings.warning and f"chmod go-w {path}" in settings.warning
    result = RUNNER.invoke(app, ["settings", "show", "--file", str(path)])
    assert result.exit_code == 0
    assert result.stderr.startswith("warning: settings file") and said in result.stderr
    os.chmod(path, 0o600)
    settings.load()
    assert settings.warning is None


def test_a_private_file_reads_as_before(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(GOOD)
    os.chmod(path, 0o600)
    found = read_config_file(path)
    assert found is not None and found.data == GOOD and found.warning is None
    assert read_config_file(tmp_path / "missing.json") is None
