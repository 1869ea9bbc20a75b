"""While a request has nothing back, one line says how long; the first token removes it."""

from __future__ import annotations

from pifold_agent.loop.events import MessageStart, MessageUpdate, ServerWaiting
from pifold_tui.app.conversation.rows import Notice
from tests.ui.app.test_conversation_support import ConversationHarness, EventSource


async def test_one_waiting_line_updates_in_place_and_goes_at_the_first_token() -> None:
    source = EventSource()
    harness = ConversationHarness(source)
    async with harness.run_test(size=(100, 20)) as pilot:
        harness.feed(source, MessageStart("assistant"))
        for seconds in (5, 10, 15):
            harness.feed(source, ServerWaiting(seconds))
        await pilot.pause()
        notices = list(harness.conversation.query(Notice))
        assert [str(notice.render()) for notice in notices] == [
            "waiting for the server: 15 s without a first token (a local server reads the "
            "whole prompt first)"
        ]
        harness.feed(source, MessageUpdate("text", 0, "Hello"))
        await pilot.pause()
        assert not list(harness.conversation.query(Notice))
