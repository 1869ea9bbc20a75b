"""How a tool argument names a path (pifold_agent.tools.arguments)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_agent.tools.arguments import ToolInputError, resolve_path


def test_a_home_folder_of_an_unknown_user_is_a_clear_refusal(tmp_path: Path) -> None:
    with pytest.raises(ToolInputError, match="home folder of an unknown user"):
        resolve_path("~no-such-user-9f3/notes.md", tmp_path)


def test_a_quoted_mention_and_a_relative_path_resolve_under_the_folder(tmp_path: Path) -> None:
    assert resolve_path('@"my notes.md"', tmp_path) == tmp_path / "my notes.md"
    assert resolve_path("src/a.py", tmp_path) == tmp_path / "src" / "a.py"


def test_a_nul_in_a_path_is_a_clear_refusal(tmp_path: Path) -> None:
    with pytest.raises(ToolInputError, match="holds a NUL character"):
        resolve_path("a\x00b.txt", tmp_path)
