"""The system prompt's project part: AGENTS.md then CLAUDE.md from the repository root down
to the working directory, bounded with a notice, and the memory index; made once when a
session starts and kept, byte for byte, when it is resumed after the files changed."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.memory import store_for
from pifold_agent.memory.context_files import context_files, context_section, memory_index
from pifold_agent.memory.notes import note_from_text
from pifold_agent.run_setup import open_run
from pifold_agent.scripted.provider import ScriptedProvider, load_script
from pifold_agent.sessions.paths import pifold_home
from tests.agent.headless_cases import answer_script, options_in
from tests.core.builders import CharCounter


def make_tree(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("root agents: run make test\n")
    (root / "CLAUDE.md").write_text("root claude\n")
    deep = root / "pkg" / "sub"
    deep.mkdir(parents=True)
    (root / "pkg" / "AGENTS.md").write_text("pkg agents\n")
    return deep


def test_files_from_the_root_down_agents_before_claude(tmp_path: Path) -> None:
    deep = make_tree(tmp_path / "repo")
    names = [path.relative_to(tmp_path / "repo").as_posix() for path in context_files(deep)]
    assert names == ["AGENTS.md", "CLAUDE.md", "pkg/AGENTS.md"]
    section = context_section(deep)
    assert section.index("run make test") < section.index("root claude") < section.index("pkg")


def test_the_users_own_files_come_first(tmp_path: Path) -> None:
    deep = make_tree(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    (home / "AGENTS.md").write_text("user agents: answer in English\n")
    (home / "CLAUDE.md").write_text("user claude\n")
    files = context_files(deep, home)
    assert files[:2] == [(home / "AGENTS.md").resolve(), (home / "CLAUDE.md").resolve()]
    assert len(files) == 5
    section = context_section(deep, home=home)
    assert section.index("answer in English") < section.index("user claude")
    assert section.index("user claude") < section.index("run make test")


def test_the_pifold_home_is_read_by_default(tmp_path: Path) -> None:
    deep = make_tree(tmp_path / "repo")
    (pifold_home() / "AGENTS.md").write_text("from the pifold home\n")
    try:
        assert "from the pifold home" in context_section(deep)
    finally:
        (pifold_home() / "AGENTS.md").unlink()


def test_a_session_inside_the_home_reads_its_files_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)
    (home / "AGENTS.md").write_text("once\n")
    assert context_files(home, home) == [(home / "AGENTS.md").resolve()]


def test_a_section_over_the_bound_is_cut_with_a_notice(tmp_path: Path) -> None:
    deep = make_tree(tmp_path / "repo")
    (tmp_path / "repo" / "CLAUDE.md").write_text("x" * 500)
    section = context_section(deep, limit=100)
    assert "CLAUDE.md cut: 73 of 500 characters shown" in section
    assert "pkg agents" not in section


def test_the_index_lists_titles_and_paths_bounded() -> None:
    notes = [
        note_from_text(f"/memories/n{i}.md", f"paths: src/{i}.py\n# Note {i}\n") for i in range(80)
    ]
    index = memory_index(notes)
    assert "- /memories/n0.md: Note 0 (about src/0.py)" in index
    assert "[... 20 more notes; view /memories to list them]" in index
    assert memory_index([]) == ""


async def test_a_resumed_session_keeps_the_prompt_it_started_with(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / ".git").mkdir()
    (work / "AGENTS.md").write_text("Always run the linter.\n")
    store_for(work).write("/memories/build.md", "paths: Makefile\n# How to build\n")

    async def opened(continuing: bool) -> str:
        options = options_in(tmp_path, continue_session=continuing)
        provider = ScriptedProvider(load_script(answer_script(tmp_path)), CharCounter())
        run = open_run(options, provider, None)
        try:
            await run.agent.run("go")  # a session is written once something is recorded
            return run.agent.system
        finally:
            run.close()

    first = await opened(False)
    assert "Always run the linter." in first
    assert "- /memories/build.md: How to build (about Makefile)" in first
    (work / "AGENTS.md").write_text("Never run the linter.\n")
    store_for(work).write("/memories/new.md", "# Something new\n")
    assert await opened(True) == first
    fresh = await opened(False)
    assert "Never run the linter." in fresh and "Something new" in fresh
