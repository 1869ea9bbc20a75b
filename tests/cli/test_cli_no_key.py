"""Every way a new user starts pifold with no API key (issue 13): each says clearly on
stderr what happens or what to set, exits non-zero where it fails, never with a traceback.
The app itself needs a terminal; here stdin is not one, so the paths that open it end at
that refusal once every key check has passed (the app's side: tests/ui/app)."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pifold_cli.app import app

RUNNER = CliRunner()
TERMINAL_REFUSAL = "error: pifold needs a terminal to open the app"


@pytest.fixture(autouse=True)
def no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("PIFOLD_HOME", str(tmp_path / "pifold-home"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(
    ("arguments", "code", "stderr_starts", "stderr_has"),
    [
        (["-p", "x"], 2, "error: pifold -p needs a model to talk to", "ANTHROPIC_API_KEY"),
        # Resume and continue open the session to look at: they reach the terminal check.
        (["--resume", "abc"], 2, TERMINAL_REFUSAL, "pifold -p"),
        (["--continue"], 2, TERMINAL_REFUSAL, "pifold demo"),
        (["--model", "nonexistent"], 2, "error: model 'nonexistent' is not in", "--provider"),
        (["--model", "claude-sonnet-4-5"], 2, "error: this needs a model", "ANTHROPIC_API_KEY"),
        (["--provider", "openai"], 2, "error: this needs a model", "OPENAI_API_KEY is not set"),
        ([], 2, TERMINAL_REFUSAL, "pifold demo"),
    ],
)
def test_each_start_with_no_key_says_what_to_do(
    arguments: list[str], code: int, stderr_starts: str, stderr_has: str
) -> None:
    result = RUNNER.invoke(app, arguments)
    assert result.exit_code == code, result.output
    assert result.stderr.startswith(stderr_starts), result.stderr
    assert stderr_has in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert result.stdout == ""  # a refusal is not output


def test_the_app_refusal_names_the_app_not_the_headless_run() -> None:
    result = RUNNER.invoke(app, ["--model", "claude-sonnet-4-5"])
    assert "pifold -p needs" not in result.stderr
    assert "pifold with no option opens the demo" in result.stderr


def test_version_and_help_work_with_no_key() -> None:
    version = RUNNER.invoke(app, ["--version"])
    assert version.exit_code == 0
    assert version.stdout == f"pifold {metadata.version('pifold')}\n"
    helped = RUNNER.invoke(app, ["-h"], terminal_width=80)
    assert helped.exit_code == 0
    flat = " ".join(helped.stdout.replace("│", " ").split())
    # --yes says what it approves, not only what it does for --continue.
    assert "write, edit and bash run without asking for approval" in flat
