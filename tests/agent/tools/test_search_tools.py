"""grep and find: the pure-Python search (always), ripgrep and fd when installed, and the
gitignore matcher."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pifold_agent.tools import FindTool, GrepTool
from pifold_agent.tools.gitignore import is_ignored, parse_gitignore, walk
from tests.agent.tools.helpers import run


def project(root: Path) -> Path:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src.txt").write_text("sorted after src/ in the walk\n")
    (root / "build").mkdir()
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\n/top.txt\n")
    (root / "src" / ".gitignore").write_text("generated_*.py\n")
    (root / "src" / "main.py").write_text("import os\n\ndef main():\n    return TODO_value\n")
    (root / "src" / "pkg" / "util.py").write_text("# todo: tidy\nTODO = 1\n")
    (root / "src" / "generated_x.py").write_text("TODO generated\n")
    (root / "build" / "out.py").write_text("TODO built\n")
    (root / "debug.log").write_text("TODO log\n")
    (root / "keep.log").write_text("TODO kept\n")
    (root / "top.txt").write_text("TODO top\n")
    (root / ".env").write_text("TODO hidden\n")
    (root / ".git" / "config").write_text("TODO git\n")
    (root / "blob.bin").write_bytes(b"TODO\0binary")
    return root


def python_grep() -> GrepTool:
    return GrepTool(use_ripgrep=False)


def test_gitignore_rules() -> None:
    rules = parse_gitignore("*.log\n!keep.log\nbuild/\n/only_top\ndocs/**/draft.md\n", "")
    assert is_ignored(rules, "a/b.log", False) and not is_ignored(rules, "keep.log", False)
    assert is_ignored(rules, "x/build", True) and not is_ignored(rules, "x/build", False)
    assert is_ignored(rules, "only_top", False) and not is_ignored(rules, "a/only_top", False)
    assert is_ignored(rules, "docs/a/b/draft.md", False) and is_ignored(
        rules, "docs/draft.md", False
    )
    nested = parse_gitignore("*.tmp\n", "sub")
    assert is_ignored(nested, "sub/x.tmp", False) and not is_ignored(nested, "x.tmp", False)


def test_walk_honours_every_gitignore_and_skips_git(tmp_path: Path) -> None:
    files = [relative for relative, is_folder in walk(project(tmp_path)) if not is_folder]
    assert files == [
        ".env",
        ".gitignore",
        "blob.bin",
        "keep.log",
        "src/.gitignore",
        "src/main.py",
        "src/pkg/util.py",
        "src.txt",
    ]


async def test_grep_formats_matches_with_paths_relative_to_the_folder(tmp_path: Path) -> None:
    outcome = await run(python_grep(), project(tmp_path), pattern="TODO")
    assert outcome.text == (
        ".env:1: TODO hidden\nkeep.log:1: TODO kept\nsrc/main.py:4:     return TODO_value\n"
        "src/pkg/util.py:2: TODO = 1"
    )


async def test_grep_options_context_case_literal_glob_and_a_file(tmp_path: Path) -> None:
    root = project(tmp_path)
    context = await run(python_grep(), root, pattern="def main", path="src", context=1)
    assert context.text == "main.py-2- \nmain.py:3: def main():\nmain.py-4-     return TODO_value"
    folded = await run(python_grep(), root, pattern="todo", ignoreCase=True, glob="*.py")
    # An explicit glob selects ignored files too (ripgrep's --glob, which Pi passes through).
    assert folded.text.split("\n") == [
        "src/generated_x.py:1: TODO generated",
        "src/main.py:4:     return TODO_value",
        "src/pkg/util.py:1: # todo: tidy",
        "src/pkg/util.py:2: TODO = 1",
    ]
    literal = await run(python_grep(), root, pattern="TODO = (", literal=True)
    assert literal.text == "No matches found"
    single = await run(python_grep(), root, pattern="tidy", path="src/pkg/util.py")
    assert single.text == "util.py:1: # todo: tidy"


async def test_grep_limits_and_notices(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("\n".join(f"hit {n} " + "w" * 600 for n in range(5)))
    outcome = await run(python_grep(), tmp_path, pattern="hit", limit=2)
    lines, notice = outcome.text.rsplit("\n\n", 1)
    assert lines.split("\n")[0] == "many.txt:1: hit 0 " + "w" * 494 + "... [truncated]"
    assert notice == (
        "[2 matches limit reached. Use limit=4 for more, or refine pattern. "
        "Some lines truncated to 500 chars. Use read tool to see full lines]"
    )


async def test_grep_errors(tmp_path: Path) -> None:
    bad = await run(python_grep(), tmp_path, pattern="(")
    assert bad.is_error and bad.text.startswith("grep: invalid pattern '('")
    missing = await run(python_grep(), tmp_path, pattern="x", path="nowhere")
    assert missing.is_error and missing.text == "Path not found: nowhere"


async def test_find_by_name_and_by_path_with_limits(tmp_path: Path) -> None:
    root = project(tmp_path)
    tool = FindTool(use_fd=False)
    assert (await run(tool, root, pattern="*.py")).text == "src/main.py\nsrc/pkg/util.py"
    assert (await run(tool, root, pattern="src/**/*.py")).text == "src/main.py\nsrc/pkg/util.py"
    assert (await run(tool, root, pattern="pkg")).text == "src/pkg/"
    limited = await run(tool, root, pattern="*", limit=3)
    assert limited.text == (
        ".env\n.gitignore\nblob.bin\n\n"
        "[3 results limit reached. Use limit=6 for more, or refine pattern]"
    )
    assert (await run(tool, root, pattern="*.rs")).text == "No files found matching pattern"
    assert (await run(tool, root, pattern="*", path="keep.log")).text == "Not a directory: keep.log"


needs_ripgrep = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
needs_fd = pytest.mark.skipif(
    shutil.which("fd") is None and shutil.which("fdfind") is None, reason="fd is not installed"
)


@needs_ripgrep
async def test_ripgrep_and_the_python_search_agree(tmp_path: Path) -> None:
    root = project(tmp_path)
    for arguments in (
        {"pattern": "TODO"},
        {"pattern": "def main", "context": 1, "path": "src"},
        {"pattern": "todo", "ignoreCase": True, "glob": "*.py"},
        {"pattern": "TODO", "limit": 2},
        {"pattern": "TODO", "limit": 3, "context": 2},
        {"pattern": "tidy", "path": "src/pkg/util.py"},
        {"pattern": "nothing here"},
    ):
        fast = await run(GrepTool(), root, **arguments)
        slow = await run(python_grep(), root, **arguments)
        assert fast.text == slow.text, arguments


@needs_fd
async def test_fd_and_the_python_walk_agree(tmp_path: Path) -> None:
    root = project(tmp_path)
    for arguments in (
        {"pattern": "*.py"},
        {"pattern": "pkg"},
        {"pattern": "src/**/*.py"},
        {"pattern": "*", "limit": 3},
        {"pattern": "*.log", "path": "."},
        {"pattern": "src*"},
    ):
        fast = await run(FindTool(), root, **arguments)
        slow = await run(FindTool(use_fd=False), root, **arguments)
        assert fast.text == slow.text, arguments


async def test_a_nul_in_a_pattern_is_a_clear_refusal(tmp_path: Path) -> None:
    for tool in (GrepTool(), python_grep()):
        outcome = await run(tool, tmp_path, pattern="a\x00b")
        assert (
            outcome.text == "grep: the pattern or glob holds a NUL character (ripgrep takes none)"
        )
    for finder in (FindTool(), FindTool(use_fd=False)):
        found = await run(finder, tmp_path, pattern="a\x00b")
        assert found.text == "find: the pattern holds a NUL character, which no file name can"
