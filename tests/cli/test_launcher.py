"""The console script: ``pifold`` alone goes straight to the app; anything else is the CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pifold_cli import launcher


def test_no_arguments_without_a_terminal_refuses_without_loading_the_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["pifold"])
    with pytest.raises(SystemExit) as leaving:
        launcher.main()
    assert leaving.value.code == 2
    assert "pifold needs a terminal to open the app" in capsys.readouterr().err


def test_the_first_frame_path_imports_no_agent_engine_or_sdk() -> None:
    probe = (
        "import sys; import pifold_tui.app.launch, pifold_tui.app.prompt; "
        "heavy = ['pifold_cli.app', 'pifold_agent.loop.agent', 'pifold_core.engine', "
        "'tiktoken', 'anthropic', 'openai', 'numpy']; "
        "print([name for name in heavy if name in sys.modules])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    assert loaded.strip() == "[]"


def test_arguments_go_to_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["pifold", "--version"])
    with pytest.raises(SystemExit) as leaving:
        launcher.main()
    assert leaving.value.code in (0, None)
    assert capsys.readouterr().out.startswith("pifold ")
