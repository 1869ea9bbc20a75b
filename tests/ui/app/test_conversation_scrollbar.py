"""The conversation's scrollbar draws the thumb where the conversation is scrolled.

Textual moves a scrollbar's thumb only while the bar is shown. Content that shrinks to fit
the screen hides the bar and brings the scroll back to the top in the same layout, so the
thumb kept the old offset and was drawn that far down once the content grew again: a frame
of the tools session overflowing by one row while it streamed left the expanded edit's
snapshot with its thumb most of a row low, in about half of the CI runs.
"""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widget import Widget

from pifold_tui.app.conversation.conversation import Conversation
from tests.ui.app.test_conversation_support import (
    ConversationHarness,
    EventSource,
    user_message,
)

SIZE = (60, 12)
"""A screen the eight rows overflow and two rows fit."""


def scrollbar_rows(conversation: Conversation) -> list[str]:
    """What a click on each row of the vertical scrollbar does, top to bottom, as drawn:
    ``scroll_up`` above the thumb, ``grab`` on it, ``scroll_down`` below it."""
    bar = conversation.vertical_scrollbar
    actions: list[str] = []
    for strip in bar.render_lines(bar.size.region):
        segment = next(iter(strip))
        assert segment.style is not None
        actions.append(str(segment.style.meta["@mouse.down"]))
    assert len(actions) == bar.size.height
    return actions


async def overflowing(
    harness: ConversationHarness, source: EventSource, pilot: Pilot[None]
) -> list[Widget]:
    for number in range(8):
        harness.feed(source, user_message(number))
        await pilot.pause()
    conversation = harness.conversation
    assert conversation.max_scroll_y > 0
    return conversation.rows()


async def test_the_thumb_is_at_the_top_after_the_content_shrank_to_fit_and_grew_again() -> None:
    source = EventSource()
    harness = ConversationHarness(source, None, limit=50)
    async with harness.run_test(size=SIZE) as pilot:
        rows = await overflowing(harness, source, pilot)
        conversation = harness.conversation
        # Scrolled part-way, not anchored: the layout that fits the content clamps the
        # scroll to the top (an anchored one is moved there by the conversation itself).
        conversation.anchor(False)
        conversation.scroll_to(y=2, animate=False, immediate=True)
        await pilot.pause()
        assert conversation.scroll_y == 2 and conversation.vertical_scrollbar.position == 2
        for row in rows[2:]:
            row.display = False
        await pilot.pause()
        assert conversation.max_scroll_y == 0 and conversation.scroll_y == 0
        assert not conversation.show_vertical_scrollbar
        for row in rows[2:]:
            row.display = True
        await pilot.pause()
        assert conversation.show_vertical_scrollbar and conversation.scroll_y == 0
        assert conversation.vertical_scrollbar.position == 0
        drawn = scrollbar_rows(conversation)
        assert drawn[0] == "grab" and "scroll_up" not in drawn, drawn  # thumb at the top


async def test_the_thumb_follows_every_scroll_while_the_bar_is_shown() -> None:
    source = EventSource()
    harness = ConversationHarness(source, None, limit=50)
    async with harness.run_test(size=SIZE) as pilot:
        await overflowing(harness, source, pilot)
        conversation = harness.conversation
        conversation.anchor(False)
        for target in (0, 3, conversation.max_scroll_y, 1):
            conversation.scroll_to(y=target, animate=False, immediate=True)
            await pilot.pause()
            assert conversation.vertical_scrollbar.position == conversation.scroll_y == target
