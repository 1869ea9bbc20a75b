"""The steering strip: a message sent during a run shows until the loop records it."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.loop.events import MessageEnd, RunEnd, RunStart
from pifold_core.entries import text_entry
from pifold_tui.app.messages import AgentEventPosted
from pifold_tui.app.prompt import SteeringStrip
from tests.ui.app.test_prompt_harness import PromptHarness, typed


def user_landed(entry_id: str, text: str) -> AgentEventPosted:
    return AgentEventPosted(MessageEnd(text_entry(entry_id, "user", text)))


def strip_texts(app: PromptHarness) -> list[tuple[str, str]]:
    return [(item.kind, item.text) for item in app.prompt.strip.queued]


async def test_a_message_sent_during_a_run_shows_until_its_user_entry_lands(
    tmp_path: Path,
) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await pilot.pause()  # the strip is mounted just after the first frame
        strip = app.prompt.query_one(SteeringStrip)
        assert not strip.display
        app.prompt.post_message(AgentEventPosted(RunStart("build it")))
        app.prompt.running = True
        await typed(pilot, app.prompt, "use ruff", "enter")
        await typed(pilot, app.prompt, "and then test", "alt+enter")
        await pilot.pause()
        assert app.sent() == [("send", "use ruff"), ("follow_up", "and then test")]
        assert strip_texts(app) == [("steering", "use ruff"), ("follow_up", "and then test")]
        assert strip.display
        rendered = str(strip.render())
        assert "steering" in rendered and "use ruff" in rendered and "follow-up" in rendered

        # An assistant entry with the same text is not the message landing.
        assistant = text_entry("a1", "assistant", "use ruff")
        app.prompt.post_message(AgentEventPosted(MessageEnd(assistant)))
        app.prompt.post_message(user_landed("u2", "something else"))
        await pilot.pause()
        assert strip_texts(app) == [("steering", "use ruff"), ("follow_up", "and then test")]

        app.prompt.post_message(user_landed("u3", "use ruff"))
        await pilot.pause()
        assert strip_texts(app) == [("follow_up", "and then test")]
        app.prompt.post_message(user_landed("u4", "and then test"))
        app.prompt.post_message(AgentEventPosted(RunEnd("stop", "ok")))
        await pilot.pause()
        assert strip_texts(app) == []
        assert not strip.display


async def test_nothing_is_queued_when_idle_or_for_commands_and_shell(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        await typed(pilot, app.prompt, "start", "enter")
        app.prompt.running = True
        await typed(pilot, app.prompt, "/fold-status", "escape", "enter")
        await typed(pilot, app.prompt, "!git status", "enter")
        await pilot.pause()
        assert [kind for kind, _ in app.sent()] == ["send", "send", "shell"]
        assert strip_texts(app) == []


async def test_the_demo_queues_nothing_it_would_refuse(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.open_project(tmp_path, prompt.history, "Demo: quit and set a key")
        prompt.running = True
        await typed(pilot, app.prompt, "hello", "enter")
        await pilot.pause()
        assert app.sent() == [("send", "hello")]
        assert strip_texts(app) == []


async def test_messages_delivered_together_land_together(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        app.prompt.running = True
        for text in ("one", "two", "three"):
            await typed(pilot, app.prompt, text, "enter")
        await pilot.pause()
        app.prompt.post_message(user_landed("u1", "one\n\ntwo"))
        await pilot.pause()
        assert strip_texts(app) == [("steering", "three")]


async def test_two_identical_messages_land_one_at_a_time(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        app.prompt.running = True
        for text in ("again", "again"):
            await typed(pilot, app.prompt, text, "enter")
        await pilot.pause()
        app.prompt.post_message(user_landed("u1", "again"))
        await pilot.pause()
        assert strip_texts(app) == [("steering", "again")]


async def test_another_session_forgets_what_waited_for_the_old_one(tmp_path: Path) -> None:
    app = PromptHarness(tmp_path)
    async with app.run_test() as pilot:
        app.prompt.running = True
        await typed(pilot, app.prompt, "for the old agent", "enter")
        await pilot.pause()
        assert strip_texts(app) == [("steering", "for the old agent")]
        app.prompt.running = False
        app.prompt.open_project(tmp_path, app.prompt.history)
        await pilot.pause()
        assert strip_texts(app) == []
        assert not app.prompt.strip.display
