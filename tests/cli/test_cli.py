"""The pifold command line: demo, replay output, and exit codes for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pifold_agent.bundled_traces import bundled_traces
from pifold_cli.app import app

RUNNER = CliRunner()
REQUIRED_FIELDS = {
    "format",
    "entries",
    "requests",
    "appends",
    "rewrites",
    "unattributed",
    "commits",
    "folds",
    "verified_folds",
    "failed_folds",
    "skipped_lines",
    "window",
    "measurement",
    "clipped",
    "pins",
    "marks_pending",
    "consolidations",
    "commit_sizes",
}


def test_no_arguments_without_a_terminal_says_how_to_run_instead() -> None:
    # With no command pifold opens the app, which needs a terminal (tested in tmux by
    # benchmarks/bench_app_startup.py and in tests/ui/app); piped, it says what to run.
    result = RUNNER.invoke(app, [])
    assert result.exit_code == 2, result.output
    assert "pifold needs a terminal to open the app" in result.output
    assert "Traceback" not in result.output


def test_demo_command_still_replays_the_bundled_session() -> None:
    result = RUNNER.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "pifold demo" in result.output
    assert "unattributed rewrites" in result.output


def test_replay_json_has_the_documented_fields(tmp_path: Path) -> None:
    trace = next(path for path in bundled_traces() if "codex" in str(path))
    window = tmp_path / "window.json"
    result = RUNNER.invoke(
        app,
        [
            "replay",
            str(trace),
            "--json",
            "--state",
            str(tmp_path / "s"),
            "--window-out",
            str(window),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report) >= REQUIRED_FIELDS
    assert set(report["folds"]) == {"tool", "span", "consolidated"}
    assert {"budget", "peak", "mean", "min_after_first_commit"} <= set(report["window"])
    assert report["format"] == "codex"
    assert report["unattributed"] == 0
    assert (tmp_path / "s" / "fold-log.jsonl").exists()
    assert isinstance(json.loads(window.read_text(encoding="utf-8")), list)


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"", "empty"), (b"hello there\nnot a trace\n", "unknown"), (b"[1, 2, 3]", "unknown")],
)
def test_bad_trace_exits_2_with_a_clear_error(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    result = RUNNER.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2
    assert "error" in result.output.lower()
    assert "bad.jsonl" in result.output


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = RUNNER.invoke(app, ["replay", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 2


def test_replay_reads_the_settings_file(tmp_path: Path, isolated_settings: Path) -> None:
    """The user's settings shape the run: here a band that commits far more often."""
    trace = next(path for path in bundled_traces() if "pi-mono" in str(path))
    arguments = ["replay", str(trace), "--json", "--budget", "60000"]
    default = json.loads(RUNNER.invoke(app, arguments).stdout)
    folder = isolated_settings / "pi-fold"
    folder.mkdir()
    (folder / "settings.json").write_text(
        json.dumps(
            {
                "thresholds": {
                    "maxTarget": 0.5,
                    "minTarget": 0.3,
                    "consolidateAfter": 10,
                    "minFoldChars": 8000,
                }
            }
        ),
        encoding="utf-8",
    )
    narrow = json.loads(RUNNER.invoke(app, arguments).stdout)
    assert narrow["commits"] > default["commits"]
    assert narrow["window"]["peak"] <= 0.5 * 60_000 + narrow["window"]["largest_inflow"]
    assert narrow["unattributed"] == 0


def test_replay_refuses_an_invalid_settings_file(tmp_path: Path, isolated_settings: Path) -> None:
    folder = isolated_settings / "pi-fold"
    folder.mkdir()
    (folder / "settings.json").write_text('{"maxTarget": 0.9}', encoding="utf-8")
    trace = tmp_path / "t.jsonl"
    trace.write_text("", encoding="utf-8")
    result = RUNNER.invoke(app, ["replay", str(trace)])
    assert result.exit_code == 2
    assert "maxTarget" in result.output


@pytest.mark.parametrize("command", ["demo", "replay"])
def test_a_budget_under_one_token_exits_2(tmp_path: Path, command: str) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text("", encoding="utf-8")
    arguments = (
        [command, "--budget", "0"] if command == "demo" else [command, str(trace), "--budget", "0"]
    )
    result = RUNNER.invoke(app, arguments)
    assert result.exit_code == 2
    assert "--budget must be from 1,000 to 10,000,000 tokens, got 0" in result.output


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_answers_both_spellings(flag: str) -> None:
    result = RUNNER.invoke(app, [flag])
    assert result.exit_code == 0
    assert "lossless context folding" in result.output
    assert "replay" in result.output


def test_version_prints_the_installed_version() -> None:
    from importlib import metadata

    result = RUNNER.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"pifold {metadata.version('pifold')}\n"
