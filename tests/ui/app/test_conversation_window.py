"""Pilot tests of the conversation's window: pruning in batches and following the tail.

The rows are plain user messages fed through an :class:`EventSource`, as the session
recorder delivers them; no engine is involved (the window does not read folds), so there
is no wire to audit here.
"""

from __future__ import annotations

from textual.widget import Widget

from pifold_tui.app.conversation.conversation import PRUNE_SHARE
from pifold_tui.app.conversation.rows import UserMessage
from tests.ui.app.test_conversation_support import (
    ConversationHarness,
    EventSource,
    user_message,
)

SIZE = (60, 12)


async def test_pruning_removes_a_share_of_the_window_once_it_is_over_the_limit() -> None:
    source = EventSource()
    harness = ConversationHarness(source, None, limit=10)
    async with harness.run_test(size=SIZE) as pilot:
        conversation = harness.conversation
        for number in range(10):
            harness.feed(source, user_message(number))
        await pilot.pause()
        assert len(conversation.rows()) == 10 and conversation.earlier.count == 0
        harness.feed(source, user_message(10))
        await pilot.pause()
        # Over the limit by one: the oldest rows go together, a fifth of the window more.
        pruned = 1 + 10 // PRUNE_SHARE
        assert len(conversation.rows()) == 11 - pruned
        assert conversation.earlier.count == pruned
        harness.feed(source, user_message(11))
        await pilot.pause()
        assert len(conversation.rows()) == 12 - pruned  # under the limit: nothing removed
        shown = [row.entry_id for row in conversation.rows() if isinstance(row, UserMessage)]
        assert shown == [f"u{number}" for number in range(pruned, 12)]
        await pilot.press("home")
        await pilot.pause()
        assert len(conversation.rows()) == 12 and conversation.earlier.count == 0


async def test_the_first_frame_that_places_a_new_row_shows_it() -> None:
    source = EventSource()
    harness = ConversationHarness(source, None, limit=50)
    async with harness.run_test(size=SIZE) as pilot:
        conversation = harness.conversation
        for number in range(20):
            harness.feed(source, user_message(number))
        await pilot.pause()
        assert conversation.following and conversation.max_scroll_y > 0
        placed: list[bool] = []

        def frame(_screen: object) -> None:
            row = conversation.shown.get("u20")
            if isinstance(row, Widget) and row.region.height and not placed:
                placed.append(conversation.content_region.contains_region(row.region))

        harness.screen.screen_layout_refresh_signal.subscribe(harness.screen, frame)
        harness.feed(source, user_message(20))
        await pilot.pause()
        # Scrolling after the refresh would draw the row below the screen first.
        assert placed == [True]
        assert conversation.scroll_y == conversation.max_scroll_y


async def test_rows_that_fit_the_screen_start_at_its_top() -> None:
    source = EventSource()
    harness = ConversationHarness(source, None, limit=50)
    async with harness.run_test(size=SIZE) as pilot:
        conversation = harness.conversation
        for number in range(2):
            harness.feed(source, user_message(number))
            await pilot.pause()
        first = conversation.rows()[0]
        assert conversation.max_scroll_y == 0 and conversation.scroll_y == 0
        assert first.region.y == conversation.content_region.y


async def test_rows_that_shrink_to_fit_go_back_to_the_top() -> None:
    source = EventSource()
    harness = ConversationHarness(source, None, limit=50)
    async with harness.run_test(size=SIZE) as pilot:
        conversation = harness.conversation
        for number in range(8):
            harness.feed(source, user_message(number))
            await pilot.pause()
        assert conversation.max_scroll_y > 0 and conversation.is_anchored
        for row in conversation.rows()[2:]:
            row.display = False
        await pilot.pause()
        # Anchored content that fits would be drawn below the top: it is not.
        assert conversation.max_scroll_y == 0 and conversation.scroll_y == 0
        assert conversation.rows()[0].region.y == conversation.content_region.y
        harness.feed(source, user_message(8))
        await pilot.pause()
        assert conversation.following and conversation.scroll_y == conversation.max_scroll_y


async def test_a_user_who_scrolled_up_is_not_moved_and_end_follows_again() -> None:
    source = EventSource()
    harness = ConversationHarness(source, None, limit=50)
    async with harness.run_test(size=SIZE) as pilot:
        conversation = harness.conversation
        for number in range(20):
            harness.feed(source, user_message(number))
        await pilot.pause()
        conversation.focus()
        await pilot.press("up", "up")
        await pilot.pause()
        held = conversation.scroll_y
        assert not conversation.following and held < conversation.max_scroll_y
        for number in range(20, 25):
            harness.feed(source, user_message(number))
        await pilot.pause()
        assert conversation.scroll_y == held and conversation.hint.display
        await pilot.press("end")
        await pilot.pause()
        harness.feed(source, user_message(25))
        await pilot.pause()
        assert conversation.following and not conversation.hint.display
        assert conversation.scroll_y == conversation.max_scroll_y
        last = conversation.shown["u25"]
        assert conversation.content_region.contains_region(last.region)
