"""What issue 13 names, checked against what the app registers and opens: the eleven slash
commands, each saying whether it runs during a run, and with a key a new session in the
current directory (no request is sent: the SDK client opens no connection until asked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_agent.run_input import HeadlessOptions
from pifold_tui.app.approval_screen import ModalApprover
from pifold_tui.app.launch import choose_loader
from pifold_tui.app.no_model import NoModelProvider
from pifold_tui.app.session_setup import close_quietly
from pifold_tui.app.slash import build_registry

DURING_A_RUN = {
    # What only reads the state: the figures, the map (read-only then), the facts, help.
    "fold-status": True,
    "fold-editor": True,
    "session": True,
    "help": True,
    "quit": True,
    # The memory notes live outside the window: editing one changes no byte the model saw.
    "memory": True,
    # What changes the window or the session waits for the run to end.
    "fold": False,
    "fold-settings": False,
    "compact": False,
    "model": False,
    "new": False,
    "resume": False,
}


def test_the_registry_holds_the_issues_commands_each_saying_if_it_runs_during_a_run() -> None:
    registry = build_registry()
    assert {command.name: command.available_during_run for command in registry} == DURING_A_RUN
    assert all(command.description for command in registry)


def test_with_a_key_the_app_opens_a_new_session_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-never-sent")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("PIFOLD_HOME", str(tmp_path / "pifold-home"))
    cwd = tmp_path / "project"
    cwd.mkdir()
    loader = choose_loader(HeadlessOptions(None, cwd=cwd), {"ANTHROPIC_API_KEY": "k"})
    assert not isinstance(loader, str)
    launch = loader(ModalApprover(lambda *arguments, **named: None))
    session = launch.session
    try:
        assert not session.demo and not isinstance(session.provider, NoModelProvider)
        assert session.provider.name == "anthropic"
        assert session.cwd == cwd.resolve()
        assert session.session_file is not None
        assert session.session_file.path.is_relative_to(tmp_path / "pifold-home")
        assert list(session.recorder.recorded()) == []  # a new session, nothing in it yet
        assert launch.opening is None  # nothing is sent until the user types
    finally:
        close_quietly(session)
