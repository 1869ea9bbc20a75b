"""Pilot tests of the prompt's keys: what each one posts or does to the text."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_tui.app.prompt import PromptHistory
from pifold_tui.app.prompt.prompt_area import (
    DEMO_PLACEHOLDER,
    IDLE_HINT,
    RUNNING_HINT,
    RUNNING_PLACEHOLDER,
)
from tests.ui.app.test_prompt_harness import PromptHarness, typed


async def test_enter_sends_the_text_and_clears_the_input(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await typed(pilot, app.prompt, "fix the bug")
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent() == [("send", "fix the bug")]
        assert app.prompt.text == ""


async def test_a_blank_prompt_sends_nothing(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await pilot.press("space", "ctrl+j", "enter")
        await pilot.pause()
        assert app.sent() == []


async def test_shift_enter_and_ctrl_j_insert_newlines_without_sending(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        # ``shift+\r`` is how Textual names Shift+Enter in xterm's modifyOtherKeys form.
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c", "shift+\r", "d")
        await pilot.pause()
        assert app.sent() == []
        assert app.prompt.text == "a\nb\nc\nd"
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent() == [("send", "a\nb\nc\nd")]


@pytest.mark.parametrize("key", ["ctrl+f", "alt+enter"])
async def test_ctrl_f_and_alt_enter_post_a_follow_up(tmp_path: Path, key: str) -> None:
    # Ctrl+F is the fallback every terminal delivers (tmux 3.3 sends Alt+Enter as Enter).
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        app.prompt.running = True
        await typed(pilot, app.prompt, "then run the tests", key)
        await pilot.pause()
        assert app.sent() == [("follow_up", "then run the tests")]
        assert app.prompt.strip.queued[0].kind == "follow_up"
        assert app.prompt.text == ""  # sent, not typed into the input
        assert "ctrl+f follow-up" in app.prompt.hint


async def test_escape_aborts_only_while_a_run_is_going(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await pilot.pause()
        assert app.sent() == []
        app.prompt.running = True
        await pilot.press("escape")
        await pilot.pause()
        assert app.sent() == [("abort", "")]


async def test_escape_first_closes_the_completion_then_aborts(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        app.prompt.running = True
        await pilot.press("/", "f")
        await pilot.pause()
        assert app.prompt.popup.is_open
        await pilot.press("escape")
        await pilot.pause()
        assert not app.prompt.popup.is_open
        assert app.sent() == []
        await pilot.press("escape")
        await pilot.pause()
        assert app.sent() == [("abort", "")]


async def test_bang_posts_a_shell_request_not_a_prompt(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await typed(pilot, app.prompt, "!ls -la", "enter")
        await pilot.pause()
        assert app.sent() == [("shell", "ls -la")]
        await pilot.press("!", "space", "enter")
        await pilot.pause()
        assert app.sent() == [("shell", "ls -la")]  # a bare ! runs nothing
        assert app.prompt.text == "! "


async def test_running_changes_the_hint_and_placeholder(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        assert app.prompt.hint == IDLE_HINT
        app.prompt.running = True
        await pilot.pause()
        assert app.prompt.hint == RUNNING_HINT
        assert app.prompt.input.placeholder == RUNNING_PLACEHOLDER
        app.prompt.open_project(tmp_path, PromptHistory(None), "set ANTHROPIC_API_KEY")
        await pilot.pause()
        assert app.prompt.hint == "set ANTHROPIC_API_KEY"
        assert app.prompt.input.placeholder == DEMO_PLACEHOLDER
        hint_line = app.prompt.query_one("#prompt-hint")
        assert "ANTHROPIC_API_KEY" in str(hint_line.render())


async def test_up_and_down_walk_the_history_and_come_back_to_the_draft(tmp_path: Path) -> None:
    history = PromptHistory(tmp_path / "history.json")
    app = PromptHarness(tmp_path, history)
    async with app.run_test() as pilot:
        for line in ("first", "second", "first"):
            await pilot.press(*line, "enter")
        await pilot.pause()
        assert history.entries == ["second", "first"]  # the repeat moved to the newest
        await typed(pilot, app.prompt, "draft")
        await pilot.press("up")
        assert app.prompt.text == "first"
        await pilot.press("up")
        assert app.prompt.text == "second"
        await pilot.press("up")  # the oldest: stays
        assert app.prompt.text == "second"
        await pilot.press("down")
        assert app.prompt.text == "first"
        await pilot.press("down")
        assert app.prompt.text == "draft"
        await pilot.pause()
        assert not app.prompt.popup.is_open


async def test_up_inside_a_multi_line_text_moves_the_cursor_first(tmp_path: Path) -> None:
    history = PromptHistory(None)
    history.add("older")
    app = PromptHarness(tmp_path, history)
    async with app.run_test() as pilot:
        await pilot.press("a", "ctrl+j", "b")
        await pilot.press("up")
        assert app.prompt.text == "a\nb"
        assert app.prompt.input.cursor_location[0] == 0
        await pilot.press("up")
        assert app.prompt.text == "older"


async def test_a_recalled_command_opens_no_completion(tmp_path: Path) -> None:
    history = PromptHistory(None)
    history.add("/fold")
    app = PromptHarness(tmp_path, history)
    async with app.run_test() as pilot:
        await pilot.press("up")
        await pilot.pause()
        assert app.prompt.text == "/fold"
        assert not app.prompt.popup.is_open
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent() == [("send", "/fold")]


async def test_the_history_survives_a_new_app(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "proj" / "prompt-history.json"
    first = PromptHarness(tmp_path, PromptHistory(path))
    async with first.run_test() as pilot:
        await typed(pilot, first.prompt, "remember me", "enter")
        await pilot.pause()
    app = PromptHarness(tmp_path, PromptHistory(path))
    async with app.run_test() as pilot:
        await pilot.press("up")
        assert app.prompt.text == "remember me"
