"""The prompt history file: per project, private, de-duplicated, atomic, and a bad file is
reported and left alone."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.sessions import list_sessions, project_directory
from pifold_tui.app.prompt import PromptHistory, history_file_for
from tests.ui.app.test_prompt_harness import PromptHarness, typed


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_file_lives_in_the_project_session_folder_private(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    cwd = tmp_path / "proj"
    cwd.mkdir()
    path = history_file_for(cwd, sessions)
    assert path.parent == project_directory(cwd, sessions)
    history = PromptHistory(path)
    history.add("hello")
    assert mode_of(path) == 0o600
    assert mode_of(path.parent) == 0o700
    assert json.loads(path.read_text(encoding="utf-8")) == {"version": 1, "entries": ["hello"]}
    assert list_sessions(cwd, sessions) == []  # never taken for a session
    assert [item.name for item in path.parent.iterdir()] == [path.name]  # no temporary left


def test_a_history_of_another_project_is_another_file(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert history_file_for(one, tmp_path) != history_file_for(two, tmp_path)


def test_the_limit_drops_the_oldest(tmp_path: Path) -> None:
    history = PromptHistory(tmp_path / "h.json", limit=3)
    for text in ("a", "b", "c", "d"):
        history.add(text)
    assert history.entries == ["b", "c", "d"]
    assert PromptHistory(tmp_path / "h.json", limit=3).entries == ["b", "c", "d"]


def test_blank_text_is_not_remembered(tmp_path: Path) -> None:
    history = PromptHistory(tmp_path / "h.json")
    history.add("  \n ")
    assert history.entries == []
    assert not (tmp_path / "h.json").exists()


def test_a_file_that_is_not_a_history_is_reported_and_never_overwritten(
    tmp_path: Path,
) -> None:
    for body in (b"{not json", b'{"version": 2, "entries": []}', b'{"entries": [1]}', b"\xff"):
        path = tmp_path / "h.json"
        path.write_bytes(body)
        history = PromptHistory(path)
        assert history.problem is not None and str(path) in history.problem
        history.add("new")
        assert history.entries == ["new"]  # still usable in memory
        assert path.read_bytes() == body


def test_a_failed_write_keeps_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "h.json"
    history = PromptHistory(path)
    history.add("kept")
    before = path.read_bytes()

    def failing_fsync(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="No space"):
        history.add("lost")
    assert path.read_bytes() == before
    assert [item.name for item in tmp_path.iterdir()] == ["h.json"]  # temporary removed


@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=30))
def test_entries_are_unique_in_order_of_their_last_sending(sent: list[str]) -> None:
    history = PromptHistory(None)
    for text in sent:
        history.add(text)
    expected = [text for index, text in enumerate(sent) if text not in sent[index + 1 :]]
    assert history.entries == expected


@given(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=8), st.data())
def test_walking_back_and_forth_returns_to_the_draft(sent: list[str], data: st.DataObject) -> None:
    history = PromptHistory(None)
    for text in sent:
        history.add(text)
    steps = data.draw(st.integers(1, len(history.entries) + 2))
    seen = [history.previous("my draft") for _ in range(steps)]
    walked = [text for text in seen if text is not None]
    assert walked == list(reversed(history.entries))[: len(walked)]
    for _ in range(len(walked) - 1):
        assert history.next() is not None
    assert history.next() == "my draft"
    assert not history.browsing


async def test_the_prompt_says_when_the_history_cannot_be_saved_and_still_sends(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "not-a-folder"
    app = PromptHarness(tmp_path, PromptHistory(blocker / "prompt-history.json"))
    blocker.write_text("", encoding="utf-8")  # where the folder should be, a file appears
    async with app.run_test() as pilot:
        await typed(pilot, app.prompt, "hello", "enter")
        await pilot.pause()
        assert app.sent() == [("send", "hello")]
        assert app.prompt.text == ""
        assert any("could not be saved" in note for note in app.notes), app.notes


async def test_opening_a_project_with_an_unreadable_history_says_so(tmp_path: Path) -> None:
    path = tmp_path / "prompt-history.json"
    path.write_text("[broken", encoding="utf-8")
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        app.prompt.open_project(tmp_path, PromptHistory(path))
        await pilot.pause()
        assert any("is not JSON" in note and str(path) in note for note in app.notes)
    app = PromptHarness(tmp_path, PromptHistory(path))  # given from the start: said at mount
    async with app.run_test() as pilot:
        await pilot.pause()
        assert any("is not JSON" in note for note in app.notes)
    assert path.read_text(encoding="utf-8") == "[broken"
