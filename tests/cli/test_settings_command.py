"""``pifold settings show`` and ``pifold settings check``: output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pifold_cli.settings_command import settings_app
from pifold_core.options import OPTION_NAMES, EngineOptions
from pifold_core.settings import HOST_SETTINGS

RUNNER = CliRunner()


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {
                "preCommitNotice": True,
                "blacklistAutoFoldTools": ["bash"],
                "memoryResurfacing": False,
            }
        ),
        encoding="utf-8",
    )
    return path


def test_show_prints_the_merged_options_and_their_sources(settings_file: Path) -> None:
    wide = {"COLUMNS": "200"}  # one line per option (the 80-column layout is tested below)
    result = RUNNER.invoke(settings_app, ["show", "--file", str(settings_file)], env=wide)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"settings file: {settings_file}"
    rows = {line.split()[0]: line for line in lines[1:] if line.startswith("  ")}
    assert list(rows) == [*OPTION_NAMES, *HOST_SETTINGS]
    assert rows["preCommitNotice"].endswith("true  (file)")
    assert rows["memoryResurfacing"].endswith("false  (file)")
    assert '["bash"]  (file)' in rows["blacklistAutoFoldTools"]
    assert '"maxTarget": 0.8' in rows["thresholds"] and rows["thresholds"].endswith("(default)")
    assert "a session takes its model's budget" in result.stdout


def test_show_fits_an_80_column_terminal(tmp_path: Path) -> None:
    missing = tmp_path / "absent.json"
    result = RUNNER.invoke(settings_app, ["show", "--file", str(missing)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # Every line but the file's path (printed whole, however long) fits.
    assert max(len(line) for line in lines[1:]) <= 80, result.stdout
    assert lines[1] == "(not found: every option is the default)"
    rows = {line.split()[0]: line for line in lines[2:] if line.startswith("  ") and line[2] != " "}
    assert list(rows) == [*OPTION_NAMES, *HOST_SETTINGS]
    assert rows["thresholds"] == "  thresholds              (default)"
    assert rows["memoryResurfacing"].endswith("true  (default)")
    # The value that did not fit follows under the name, whole.
    below = " ".join(line.strip() for line in lines if line.startswith("      "))
    assert json.loads(below) == {
        "maxTarget": 0.8,
        "minTarget": 0.2,
        "consolidateAfter": 10,
        "minFoldChars": 8000,
    }


def test_show_json_is_one_object_that_loads_back(settings_file: Path) -> None:
    result = RUNNER.invoke(settings_app, ["show", "--json", "--file", str(settings_file)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["file"] == str(settings_file)
    assert report["found"] is True
    assert report["fromFile"] == ["blacklistAutoFoldTools", "preCommitNotice", "memoryResurfacing"]
    assert report["agent"] == {**HOST_SETTINGS, "memoryResurfacing": False}
    expected = EngineOptions.from_settings(
        {"preCommitNotice": True, "blacklistAutoFoldTools": ["bash"]}
    )
    assert EngineOptions.from_settings(report["options"]) == expected


def test_show_reads_the_xdg_file_by_default(tmp_path: Path) -> None:
    path = tmp_path / "xdg" / "pi-fold" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"toolFoldThreshold": 0}', encoding="utf-8")
    environment = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path / "home")}
    result = RUNNER.invoke(settings_app, ["show", "--json"], env=environment)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["file"] == str(path)
    assert report["options"]["toolFoldThreshold"] == 0.0


def test_show_without_a_file_prints_the_defaults(tmp_path: Path) -> None:
    missing = tmp_path / "absent.json"
    result = RUNNER.invoke(settings_app, ["show", "--file", str(missing)])
    assert result.exit_code == 0, result.output
    assert "not found: every option is the default" in result.stdout
    result = RUNNER.invoke(settings_app, ["show", "--json", "--file", str(missing)])
    report = json.loads(result.stdout)
    assert report["found"] is False and report["fromFile"] == []
    assert report["options"] == EngineOptions().to_settings()
    assert report["agent"] == HOST_SETTINGS


def test_show_refuses_a_bad_file_with_exit_2_and_the_reason_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"minTarget": 0.3}', encoding="utf-8")
    result = RUNNER.invoke(settings_app, ["show", "--file", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert str(path) in result.stderr
    assert "unknown option 'minTarget'" in result.stderr


def test_check_accepts_a_valid_file(settings_file: Path) -> None:
    result = RUNNER.invoke(settings_app, ["check", str(settings_file)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == (
        f"{settings_file}: valid (sets blacklistAutoFoldTools, preCommitNotice, memoryResurfacing)"
    )


def test_check_accepts_an_empty_object(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{}", encoding="utf-8")
    result = RUNNER.invoke(settings_app, ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert "sets no option" in result.stdout


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "no such file"),
        ("{", "invalid JSON"),
        ("[]", "top level must be an object"),
        ('{"noticeLeadShare": 0.7}', "notice inside the band"),
        ('{"palette": {"map": "rainbow", "start": 0, "end": 1}}', "palette.map"),
        ('{"preCommitNotice": 1}', "preCommitNotice must be true or false"),
        ('{"memoryResurfacing": "no"}', "memoryResurfacing must be true or false"),
    ],
)
def test_check_refuses_with_exit_2_naming_the_reason(
    tmp_path: Path, content: str | None, reason: str
) -> None:
    path = tmp_path / "settings.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = RUNNER.invoke(settings_app, ["check", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert reason in result.stderr
    assert str(path) in result.stderr


def test_settings_is_a_pifold_command(settings_file: Path) -> None:
    from pifold_cli.app import app

    result = RUNNER.invoke(app, ["settings", "check", str(settings_file)])
    assert result.exit_code == 0, result.output
    assert "valid" in result.stdout


def test_show_lists_the_agents_own_switches(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"surfacing": true}', encoding="utf-8")
    result = RUNNER.invoke(settings_app, ["show", "--file", str(path)])
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line}
    assert rows["surfacing"] == ["true", "(file)"]
    assert rows["memoryResurfacing"] == ["true", "(default)"]
    result = RUNNER.invoke(settings_app, ["show", "--json", "--file", str(path)])
    report = json.loads(result.stdout)
    assert report["agent"] == {"memoryResurfacing": True, "surfacing": True}
    assert report["fromFile"] == ["surfacing"]
