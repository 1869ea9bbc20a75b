"""A resurfaced memory note shows in the conversation as one notice, not as a user message;
a note written by the memory tool is told the same way."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.loop.events import MemoryEvent, MessageEnd
from pifold_core.entries import text_entry
from pifold_tui.app.conversation.rows import Notice, UserMessage
from tests.ui.app.test_conversation_support import ConversationHarness, EventSource

SIZE = (100, 30)


async def test_memory_events_are_notices(tmp_path: Path) -> None:
    source = EventSource()
    harness = ConversationHarness(source, None)
    note = text_entry(
        "n1", "note", "[memory] A note about src/a.py ...", 1, extra={"memory": {"path": "/m"}}
    )
    async with harness.run_test(size=SIZE) as pilot:
        harness.feed(source, MemoryEvent("written", "/memories/a.md", "v1"))
        harness.feed(source, MemoryEvent("resurfaced", "/memories/a.md", "v1", ("src/a.py",)))
        harness.feed(source, MessageEnd(note))
        await pilot.pause()
        assert [notice.text for notice in harness.conversation.query(Notice)] == [
            "memory: /memories/a.md written",
            "memory: /memories/a.md came back (about src/a.py)",
        ]
        assert not list(harness.conversation.query(UserMessage))
