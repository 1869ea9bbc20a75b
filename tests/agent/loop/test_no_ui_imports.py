"""The engine and the agent loop never import the UI (issue 13: the approval question
carries a future the UI resolves; the loop talks to the UI through its events only).

Read from the source, every ``import`` statement counted, the ones inside functions too
(a lazy import would not show in ``sys.modules`` until its function ran)."""

from __future__ import annotations

import ast
from pathlib import Path

import pifold_agent.loop
import pifold_core

UI_PACKAGES = ("textual", "rich", "pifold_tui")
"""What neither may import."""


def imported_names(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def sources(package: Path) -> list[Path]:
    return sorted(package.rglob("*.py"))


def test_the_engine_and_the_loop_import_nothing_of_the_ui() -> None:
    checked = 0
    for package in (Path(pifold_core.__file__).parent, Path(pifold_agent.loop.__file__).parent):
        for path in sources(package):
            checked += 1
            for name in imported_names(path):
                assert name.split(".")[0] not in UI_PACKAGES, f"{path} imports {name}"
    assert checked >= 20  # both packages were found and read


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    source = tmp_path / "lazy.py"
    source.write_text("def later():\n    from pifold_tui.app import app\n", encoding="utf-8")
    assert imported_names(source) == ["pifold_tui.app"]
