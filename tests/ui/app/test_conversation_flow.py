"""Pilot tests of the conversation fed the events of real scripted runs."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.loop.events import CommitDone, ErrorEvent, MessageEnd, MessageUpdate, RetryWait
from pifold_tui.app.conversation.assistant import (
    AssistantMessage,
    SettledText,
    TextMessage,
    ThinkingView,
)
from pifold_tui.app.conversation.conversation import NEW_MESSAGES
from pifold_tui.app.conversation.markdown_text import StreamingText
from pifold_tui.app.conversation.rows import FoldRowView, Notice, UserMessage
from tests.ui.app.test_conversation_support import (
    ConversationHarness,
    EventSource,
    failing_session,
    folding_session,
    tool_session,
)

SIZE = (90, 30)


def markdown_sources(harness: ConversationHarness) -> list[str]:
    """The Markdown of every text block shown, streaming or settled, in order."""
    return [
        widget.markdown
        for widget in harness.conversation.query("SettledText, StreamingText, TextMessage")
        if isinstance(widget, SettledText | StreamingText | TextMessage)
    ]


async def test_streaming_text_arrives_in_pieces_then_settles_as_recorded(tmp_path: Path) -> None:
    session = await tool_session(tmp_path)
    source = EventSource()
    harness = ConversationHarness(source, session.engine)
    first_text = next(
        index
        for index, event in enumerate(session.events)
        if isinstance(event, MessageUpdate) and event.kind == "text"
    )
    async with harness.run_test(size=SIZE) as pilot:
        for event in session.events[: first_text + 3]:
            harness.feed(source, event)
        await pilot.pause()
        partial = markdown_sources(harness)
        assert len(partial) == 1
        assert "I will **write** the file".startswith(partial[0]) and partial[0]
        thinking = harness.conversation.query_one(ThinkingView)
        assert thinking.collapsed and thinking.text.startswith("The user wants")
        for event in session.events[first_text + 3 :]:
            harness.feed(source, event)
        await pilot.pause()
        assert markdown_sources(harness) == [
            "I will **write** the file, then edit it.",
            "Now the typo, a missing file, and the count.",
            "Done: notes.txt says hello world, and I counted to forty.",
        ]
        rows = harness.conversation.rows()
        # The last reply is text alone: one widget; the others hold tool calls.
        assert [type(row) for row in rows] == [UserMessage] + [AssistantMessage] * 2 + [TextMessage]
        assert harness.conversation.following


async def test_a_tool_call_expands_and_shows_its_result(tmp_path: Path) -> None:
    session = await tool_session(tmp_path)
    source = EventSource()
    harness = ConversationHarness(source, session.engine)
    async with harness.run_test(size=SIZE) as pilot:
        for event in session.events:
            harness.feed(source, event)
        await pilot.pause()
        calls = harness.conversation.calls
        assert sorted(calls) == ["b1", "e1", "r1", "w1"]
        write = calls["w1"]
        assert write.collapsed and not write.result_view.region.height
        # Closed, a call is one widget drawing its row; nothing else of it is mounted.
        assert write.details is None and not write.children
        assert str(write.render()) == "▶ ✓ write notes.txt"
        harness.conversation.scroll_home(animate=False)
        await pilot.pause()
        # Under load the screen's map can lag the scroll by a frame (the click then lands
        # on the message); a user clicks what is drawn, so the click waits for the row to be
        # where it is drawn, and fails if it never is.
        for _ in range(40):
            if pilot.app.get_widget_at(*write.region.offset)[0] is write:
                break
            await pilot.pause(0.05)
        await pilot.click(write)
        await pilot.pause()
        assert not write.collapsed
        assert write.title == "✓ write notes.txt"
        assert str(write.render()) == "▼ ✓ write notes.txt"
        # Opened, its parts are mounted right under the row, in the same message.
        assert write.details is not None and write.parent is not None
        siblings = list(write.parent.children)
        assert siblings[siblings.index(write) + 1] is write.details
        assert write.result_view.region.height >= 1
        assert str(write.result_view.render()) == "Successfully wrote 11 bytes to notes.txt"

        edit = calls["e1"]
        assert edit.diff_view.display
        diff = str(edit.diff_view.render())
        assert "-helo world\n+hello world" in diff

        count = calls["b1"].result_view
        assert count.hidden_lines == 40 - 12
        assert str(count.render()).endswith("… 28 more lines (enter shows all)")
        count.action_show_all()
        assert count.hidden_lines == 0 and str(count.render()).splitlines()[-1] == "40"

        # Enter on the focused row closes it: the parts stay mounted, hidden.
        write.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert write.collapsed and not write.details.display
        assert str(write.render()) == "▶ ✓ write notes.txt"
        assert not write.result_view.region.height


async def test_an_error_result_is_styled_as_an_error(tmp_path: Path) -> None:
    session = await tool_session(tmp_path)
    source = EventSource()
    harness = ConversationHarness(source, session.engine)
    async with harness.run_test(size=SIZE) as pilot:
        for event in session.events:
            harness.feed(source, event)
        await pilot.pause()
        failed = harness.conversation.calls["r1"]
        assert failed.state == "error" and failed.title.startswith("✗ read missing.txt")
        assert failed.has_class("error") and failed.result_view.has_class("error")
        assert "missing.txt" in failed.result_view.text
        fine = harness.conversation.calls["w1"]
        assert not fine.has_class("error") and not fine.result_view.has_class("error")
        failed.collapsed = False  # its parts are mounted, and so styled, once opened
        await pilot.pause()
        error_colour = harness.get_css_variables()["error"]
        assert failed.result_view.styles.color.hex.lower() == error_colour.lower()[:7]


async def test_a_commit_shows_its_notice_and_a_fold_row_opens_the_editor(tmp_path: Path) -> None:
    session = await folding_session(tmp_path)
    commit = next(event for event in session.events if isinstance(event, CommitDone))
    source = EventSource()
    harness = ConversationHarness(source, session.engine)
    async with harness.run_test(size=SIZE) as pilot:
        for event in session.events:
            harness.feed(source, event)
        await pilot.pause()
        notices = list(harness.conversation.query(Notice))
        collapsed = [row for row in session.engine.fold_rows() if row.state == "collapsed"]
        # The notice counts Folds as the bar does (the folds shown), what was built apart.
        assert commit.shown == len(collapsed) == session.engine.composition().counts.folds
        assert commit.prefix == session.engine.view.prefix_tokens > 0  # the agent's prompt
        assert [notice.text for notice in notices] == [
            f"commit {commit.number}: ~{commit.tokens_before:,} → ~{commit.tokens_after:,} "
            f"tokens (fixed prefix ~{commit.prefix:,}) · {commit.shown} "
            f"Fold{'' if commit.shown == 1 else 's'} "
            f"({commit.folds} built, {commit.consolidated} consolidated at once)"
        ]
        views = list(harness.conversation.query(FoldRowView))
        assert [view.handle for view in views] == [row.handle for row in collapsed]
        harness.conversation.scroll_home(animate=False)
        await pilot.pause()
        views[0].focus()
        await pilot.press("enter")
        await pilot.click(views[0])
        await pilot.pause()
        assert harness.requested == [collapsed[0].handle, collapsed[0].handle]


async def test_scrolling_up_stops_the_follow_and_end_resumes_it(tmp_path: Path) -> None:
    session = await folding_session(tmp_path)
    source = EventSource()
    harness = ConversationHarness(source, session.engine)
    ends = [index for index, event in enumerate(session.events) if isinstance(event, MessageEnd)]
    half = ends[len(ends) // 2] + 1
    async with harness.run_test(size=(90, 16)) as pilot:
        conversation = harness.conversation
        for event in session.events[:half]:
            harness.feed(source, event)
        await pilot.pause()
        assert conversation.following and conversation.scroll_y == conversation.max_scroll_y
        assert not conversation.hint.display
        conversation.focus()
        await pilot.press("up", "up", "up")
        await pilot.pause()
        held = conversation.scroll_y
        assert not conversation.following and held < conversation.max_scroll_y
        for event in session.events[half:]:
            harness.feed(source, event)
        await pilot.pause()
        assert conversation.scroll_y == held
        assert conversation.hint.display and str(conversation.hint.render()) == NEW_MESSAGES
        await pilot.press("end")
        await pilot.pause()
        assert conversation.following and not conversation.hint.display
        assert conversation.scroll_y == conversation.max_scroll_y


def entry_ids(harness: ConversationHarness) -> list[str]:
    return [
        row.entry_id  # type: ignore[attr-defined]
        for row in harness.conversation.rows()
        if getattr(row, "entry_id", None) is not None
    ]


async def test_pruning_keeps_at_most_the_limit_and_scrolling_back_restores(
    tmp_path: Path,
) -> None:
    session = await folding_session(tmp_path)
    source = EventSource()
    harness = ConversationHarness(source, session.engine, limit=4)
    async with harness.run_test(size=SIZE) as pilot:
        conversation = harness.conversation
        for event in session.events:
            harness.feed(source, event)
            if isinstance(event, MessageEnd):
                await pilot.pause()
                assert len(conversation.rows()) <= 4
        await pilot.pause()
        recorded = [entry.id for entry in session.recorder.entries if entry.kind != "tool_result"]
        newest = entry_ids(harness)
        assert newest == recorded[-len(newest) :] and len(newest) < len(recorded)
        assert conversation.earlier.count == len(recorded) - len(newest)
        for _ in range(len(recorded)):  # each Home loads one batch at most
            if not conversation.earlier.count:
                break
            await pilot.press("home")
            await pilot.pause()
        assert entry_ids(harness) == recorded
        assert conversation.calls["read-0"].result is not None
        await pilot.press("end")
        await pilot.pause()
        assert len(conversation.rows()) <= 4 and entry_ids(harness) == recorded[-4:]


async def test_a_restored_session_renders_its_history_from_the_source(tmp_path: Path) -> None:
    session = await tool_session(tmp_path)
    live_source = EventSource()
    live = ConversationHarness(live_source, session.engine)
    async with live.run_test(size=SIZE) as pilot:
        for event in session.events:
            live.feed(live_source, event)
        await pilot.pause()
        shown_live = (entry_ids(live), markdown_sources(live), sorted(live.conversation.calls))
        results_live = {
            call: view.result_view.text for call, view in live.conversation.calls.items()
        }
    restored = ConversationHarness(session.recorder, session.engine)
    async with restored.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = (
            entry_ids(restored),
            markdown_sources(restored),
            sorted(restored.conversation.calls),
        )
        assert shown == shown_live
        results = {
            call: view.result_view.text for call, view in restored.conversation.calls.items()
        }
        assert results == results_live
        assert restored.conversation.calls["r1"].has_class("error")


async def test_retry_waits_and_errors_are_shown(tmp_path: Path) -> None:
    session = await failing_session(tmp_path)
    wait = next(event for event in session.events if isinstance(event, RetryWait))
    failure = next(event for event in session.events if isinstance(event, ErrorEvent))
    source = EventSource()
    harness = ConversationHarness(source, session.engine)
    async with harness.run_test(size=SIZE) as pilot:
        for event in session.events:
            harness.feed(source, event)
        await pilot.pause()
        notices = list(harness.conversation.query(Notice))
        assert [(notice.text, notice.has_class("error")) for notice in notices] == [
            (f"retry 1 in {wait.delay_s:.1f} s: {wait.error}", False),
            (f"error: {failure.message}", True),
        ]
        assert "overloaded, try again" in wait.error and "invalid x-api-key" in failure.message
        # The failed request's empty reply shows nothing; the user's message stays.
        assert [type(row) for row in harness.conversation.rows()] == [UserMessage, Notice, Notice]
