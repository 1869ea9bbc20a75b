"""Test helpers live once (issue 20: ``assert_session_consistent``, ``write_script``,
``_shown_raw`` and the app set-up were copied from folder to folder): no two helper
functions of ``tests/`` have the same body, unless it is a line or two."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

SMALLEST_COPY = 25
"""Syntax nodes a body needs before a second copy counts (a two-line helper, such as one
building a message, is cheaper to read in place than to import)."""


def helper_bodies(source: str, where: str) -> dict[str, list[str]]:
    """Each module-level helper's body (its docstring left out), as a syntax dump, with
    where it is; ``test_`` functions are not helpers."""
    found: dict[str, list[str]] = defaultdict(list)
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if node.name.startswith("test_"):
            continue
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        module = ast.Module(body=body, type_ignores=[])
        if sum(1 for _ in ast.walk(module)) >= SMALLEST_COPY:
            found[ast.dump(module)].append(f"{where}:{node.lineno} {node.name}")
    return found


def copies(sources: dict[str, str]) -> list[list[str]]:
    """The groups of helpers that share one body, across ``sources`` (name to text)."""
    everywhere: dict[str, list[str]] = defaultdict(list)
    for where, source in sources.items():
        for body, places in helper_bodies(source, where).items():
            everywhere[body].extend(places)
    return [places for places in everywhere.values() if len(places) > 1]


def test_no_helper_of_the_tests_is_copied() -> None:
    sources = {
        str(path.relative_to(TESTS)): path.read_text(encoding="utf-8")
        for path in sorted(TESTS.rglob("*.py"))
    }
    assert len(sources) > 100  # the tests were found
    assert copies(sources) == []


def test_a_copy_is_found_under_another_name_and_docstring() -> None:
    helper = (
        "def {name}(engine, index):\n"
        '    """{doc}"""\n'
        "    item = engine.view.projection.items[engine.view.projection.item_index_at(index)]\n"
        "    return item.fold is None and item.digest == engine.entries[index].digest\n"
    )
    first = helper.format(name="_shown_raw", doc="Shown whole.")
    second = helper.format(name="raw", doc="Another word.")
    small = "def user(n):\n    return n\n"
    found = copies({"a.py": first + small, "b.py": second + small})
    assert found == [["a.py:1 _shown_raw", "b.py:1 raw"]]
