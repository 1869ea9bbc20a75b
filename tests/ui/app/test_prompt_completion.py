"""``/`` completion from the command registry and ``@`` completion of paths (gitignore
respected): the popup's contents, accepting with Tab or Enter, dismissing with Esc."""

from __future__ import annotations

import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_agent.tools import gitignore
from pifold_tui.app.prompt import PathIndex, query_at
from pifold_tui.app.prompt.completion import command_candidates, path_candidates
from tests.ui.app.test_prompt_harness import PromptHarness, command_registry, typed


def git_repository(root: Path) -> Path:
    """A small git repository whose ``.gitignore`` hides a build folder, logs and a secret."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("build/\n*.log\nsecret.txt\n", encoding="utf-8")
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "engine.py").write_text("", encoding="utf-8")
    (root / "src" / "app.py").write_text("", encoding="utf-8")
    (root / "src" / "debug.log").write_text("", encoding="utf-8")
    (root / "build").mkdir()
    (root / "build" / "app.py").write_text("", encoding="utf-8")
    (root / "secret.txt").write_text("", encoding="utf-8")
    (root / "README.md").write_text("", encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / ".gitignore").write_text("draft.md\n", encoding="utf-8")
    (root / "docs" / "draft.md").write_text("", encoding="utf-8")
    (root / "docs" / "guide.md").write_text("", encoding="utf-8")
    return root


def labels(app: PromptHarness) -> list[str]:
    return [candidate.label for candidate in app.prompt.popup.candidates]


async def test_slash_lists_the_registry_with_descriptions_and_run_availability(
    tmp_path: Path,
) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await pilot.press("/")
        await pilot.pause()
        popup = app.prompt.popup
        assert popup.is_open
        assert labels(app) == ["/fold-status", "/fold", "/fold-editor", "/help", "/quit"]
        details = {candidate.label: candidate.detail for candidate in popup.candidates}
        assert details["/fold-status"] == "Show the fold status screen"
        assert details["/fold"] == "Fold the window now (not during a run)"
        await pilot.press("f", "o", "l", "d", "-")
        await pilot.pause()
        assert labels(app) == ["/fold-status", "/fold-editor"]
        await pilot.press("x")
        await pilot.pause()
        assert not popup.is_open  # nothing matches


async def test_tab_and_enter_accept_the_highlighted_command(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await pilot.press("/", "f", "down", "tab")
        await pilot.pause()
        assert app.prompt.text == "/fold "
        assert not app.prompt.popup.is_open
        assert app.sent() == []
        await pilot.press("ctrl+a")  # nothing special: the text area's own key
        app.prompt.input.clear()
        await pilot.press("/", "h", "enter")
        await pilot.pause()
        assert app.prompt.text == "/help "
        assert app.sent() == []  # Enter accepted; the next Enter sends
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent() == [("send", "/help ")]


async def test_up_wraps_to_the_last_command(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await pilot.press("/", "up", "tab")
        await pilot.pause()
        assert app.prompt.text == "/quit "


async def test_escape_dismisses_and_typing_reopens(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await pilot.press("/", "f", "escape")
        await pilot.pause()
        assert not app.prompt.popup.is_open
        assert app.prompt.text == "/f"
        await pilot.press("o")
        await pilot.pause()
        assert labels(app) == ["/fold-status", "/fold", "/fold-editor"]


async def test_at_completes_paths_and_never_offers_ignored_ones(tmp_path: Path) -> None:
    root = git_repository(tmp_path / "repo")
    app = PromptHarness(root)
    async with app.run_test() as pilot:
        await typed(pilot, app.prompt, "look at @")
        await app.workers.wait_for_complete()
        await pilot.pause()
        offered = labels(app)
        assert offered[:4] == [".gitignore", "README.md", "docs/", "src/"]
        assert not any(
            path.startswith("build") or path.endswith((".log", "secret.txt", "draft.md"))
            for path in offered
        )
        assert ".git/" not in offered
        await typed(pilot, app.prompt, "app")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert labels(app) == ["src/app.py"]  # build/app.py is ignored
        await pilot.press("tab")
        await pilot.pause()
        assert app.prompt.text == "look at @src/app.py "
        assert not app.prompt.popup.is_open


async def test_accepting_a_folder_lists_its_entries_next(tmp_path: Path) -> None:
    root = git_repository(tmp_path / "repo")
    app = PromptHarness(root)
    async with app.run_test() as pilot:
        await pilot.press("@", "s", "r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert labels(app)[0] == "src/"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.prompt.text == "@src/"
        assert labels(app) == ["src/app.py", "src/pkg/"]
        assert app.sent() == []


async def test_moving_the_cursor_out_of_the_word_closes_the_popup(tmp_path: Path) -> None:
    root = git_repository(tmp_path / "repo")
    app = PromptHarness(root)
    async with app.run_test() as pilot:
        await typed(pilot, app.prompt, "see @READ")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert labels(app) == ["README.md"]
        await pilot.press("home")
        await pilot.pause()
        assert not app.prompt.popup.is_open


def test_the_walk_is_bounded(tmp_path: Path) -> None:
    for number in range(30):
        (tmp_path / f"file{number:02d}.txt").write_text("", encoding="utf-8")
    index = PathIndex(tmp_path, scan_limit=10)
    assert len(index.paths()) == 10 and index.truncated
    assert [c.label for c in path_candidates(index, "file", limit=3)] == [
        "file00.txt",
        "file01.txt",
        "file02.txt",
    ]
    assert not PathIndex(tmp_path, scan_limit=30).truncated


def test_a_command_is_only_the_first_word_of_the_message() -> None:
    assert query_at("/fo", 0, 3) is not None
    assert query_at("read /etc/hosts", 0, 15) is None
    assert query_at("/fold now", 0, 9) is None
    assert query_at("text\n/fold", 1, 5) is None
    assert [c.label for c in command_candidates(command_registry(), "q")] == ["/quit"]


words = st.text(alphabet="ab/@ .\n", max_size=20)


@given(text=words, data=st.data())
def test_a_query_spans_the_word_the_cursor_is_in(text: str, data: st.DataObject) -> None:
    lines = text.split("\n")
    row = data.draw(st.integers(0, len(lines) - 1))
    column = data.draw(st.integers(0, len(lines[row])))
    query = query_at(text, row, column)
    if query is None:
        return
    line = lines[query.row]
    assert query.row == row and query.start <= column <= query.end <= len(line)
    span = line[query.start : query.end]
    assert span[0] == ("/" if query.kind == "command" else "@")
    assert not any(character.isspace() for character in span)
    assert line[query.start + 1 : column] == query.fragment
    assert query.end == len(line) or line[query.end].isspace()


async def test_a_click_on_an_option_accepts_it(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await pilot.press("/", "f")
        await pilot.pause()
        popup = app.prompt.popup
        # The second option (/fold), one row under the popup's top border.
        assert await pilot.click(popup, offset=(4, 2))
        await pilot.pause()
        assert app.prompt.text == "/fold "
        assert app.prompt.input.has_focus
        assert not popup.is_open


async def test_a_command_typed_in_full_is_offered_first_and_enter_runs_it(
    tmp_path: Path,
) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await pilot.press("/", "f", "o", "l", "d")
        await pilot.pause()
        assert labels(app) == ["/fold", "/fold-status", "/fold-editor"]
        await pilot.press("tab")
        await pilot.pause()
        assert app.prompt.text == "/fold "
        assert app.sent() == []
        app.prompt.input.clear()
        await pilot.press("/", "h", "e", "l", "p", "enter")
        await pilot.pause()
        assert app.sent() == [("send", "/help")]
        assert app.prompt.text == "" and not app.prompt.popup.is_open
        await pilot.press("/", "f", "o", "l", "d", "down", "enter")  # another one chosen
        await pilot.pause()
        assert app.prompt.text == "/fold-status "
        assert app.sent() == [("send", "/help")]


def test_keystrokes_asking_at_once_share_one_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("", encoding="utf-8")
    walks: list[Path] = []
    real_walk = gitignore.walk

    def counted_walk(root: Path) -> Iterator[tuple[str, bool]]:
        walks.append(root)
        time.sleep(0.05)  # long enough for the other threads to arrive during the walk
        yield from real_walk(root)

    monkeypatch.setattr(gitignore, "walk", counted_walk)
    index = PathIndex(tmp_path)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: index.paths(), range(4)))
    assert walks == [tmp_path]
    assert results == [["a.txt"]] * 4


names = st.sampled_from(["app", "build", "notes", "main", "debug"])
extensions = st.sampled_from([".py", ".log", ".md"])
relative_files = st.lists(names, min_size=1, max_size=3).flatmap(
    lambda parts: extensions.map(lambda extension: "/".join(parts) + extension)
)


@settings(max_examples=40, deadline=None)
@given(
    files=st.lists(relative_files, min_size=1, max_size=8, unique=True),
    fragment=st.sampled_from(["", "a", "app", "build", "main/", "notes/de", ".log", "b"]),
)
def test_offered_paths_are_the_unignored_ones_containing_the_fragment(
    files: list[str], fragment: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / ".gitignore").write_text("*.log\n/build/\n", encoding="utf-8")
        made: list[str] = []
        for relative in files:
            target = root / relative
            if any(parent.is_file() for parent in target.parents) or target.is_dir():
                continue  # a name already taken by a file (or a folder) of another example
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("", encoding="utf-8")
            made.append(relative)
        offered = [candidate.label for candidate in path_candidates(PathIndex(root), fragment)]
        assert len(offered) == len(set(offered))
        for path in offered:
            assert not path.endswith(".log") and not path.startswith("build/")
            assert fragment.lower() in path.lower()
        visible = {
            path for path in made if not path.endswith(".log") and not path.startswith("build/")
        }
        if not fragment.endswith("/"):
            expected = {path for path in visible if fragment.lower() in path.lower()}
            assert expected <= set(offered)
