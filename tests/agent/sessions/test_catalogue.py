"""Finding sessions: PIFOLD_HOME, --continue (latest_for), --resume (find), listing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pifold_agent.sessions import (
    SessionError,
    SessionFile,
    find,
    latest_for,
    list_sessions,
    open_session,
    pifold_home,
)
from pifold_core.entries import Entry, TextBlock


def made(cwd: Path, text: str, modified_s: int, sessions_dir: Path | None = None) -> SessionFile:
    session = SessionFile.create(cwd, sessions_dir=sessions_dir)
    session.record(Entry("d0000001", "user", 1, (TextBlock(text),)))
    session.close()
    os.utime(session.path, (modified_s, modified_s))
    return session


def test_pifold_home_places_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIFOLD_HOME", str(tmp_path / "home"))
    assert pifold_home() == tmp_path / "home"
    session = made(tmp_path, "hello", 1_000)
    assert session.path.is_relative_to(tmp_path / "home" / "sessions")


def test_latest_for_is_the_newest_modified_session_of_that_directory(tmp_path: Path) -> None:
    store = tmp_path / "sessions"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    older = made(tmp_path / "a", "first", 1_000, store)
    newer = made(tmp_path / "a", "second", 2_000, store)
    made(tmp_path / "b", "elsewhere", 3_000, store)
    latest = latest_for(tmp_path / "a", store)
    assert latest is not None and latest.id == newer.id != older.id
    assert latest_for(tmp_path / "c", store) is None
    listed = list_sessions(tmp_path / "a", store)
    assert [summary.first_message for summary in listed] == ["second", "first"]
    assert len(list_sessions(None, store)) == 3


def test_find_by_prefix_prefers_this_directory_and_names_ambiguity(tmp_path: Path) -> None:
    store = tmp_path / "sessions"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    here = made(tmp_path / "a", "here", 1_000, store)
    there = made(tmp_path / "b", "there", 1_000, store)
    assert find(here.id[:8], tmp_path / "a", store).id == here.id
    assert find(there.id[:8], tmp_path / "a", store).id == there.id  # across projects
    with pytest.raises(SessionError, match="no session id starts with 'zzzz'"):
        find("zzzz", tmp_path / "a", store)


def test_an_ambiguous_prefix_names_the_matches(tmp_path: Path) -> None:
    store = tmp_path / "sessions"
    for number in (1, 2):
        session = SessionFile.create(tmp_path, sessions_dir=store)
        session.header["id"] = f"abc{number}0000-0000-4000-8000-000000000000"
        session.record(Entry("d0000001", "user", 1, (TextBlock("x"),)))
        session.close()
    with pytest.raises(
        SessionError, match=r"'abc' matches 2 sessions: abc[12]0000-.*, abc[12]0000-"
    ):
        find("abc", tmp_path, store)
    assert find("ABC2", tmp_path, store).id.startswith("abc2")


def test_open_session_takes_a_path_or_an_id(tmp_path: Path) -> None:
    store = tmp_path / "sessions"
    session = made(tmp_path, "x", 1_000, store)
    assert open_session(str(session.path), tmp_path, store).id == session.id
    assert open_session(session.id[:6], tmp_path, store).id == session.id
    with pytest.raises(SessionError, match="no session file at"):
        open_session(str(tmp_path / "missing.jsonl"), tmp_path, store)
    with pytest.raises(SessionError, match="must not be empty"):
        find("  ", tmp_path, store)


def test_a_file_that_is_not_a_session_is_left_out_of_lists(tmp_path: Path) -> None:
    store = tmp_path / "sessions"
    session = made(tmp_path, "x", 1_000, store)
    (session.path.parent / "junk.jsonl").write_text("")
    assert [summary.id for summary in list_sessions(tmp_path, store)] == [session.id]
