"""SVG snapshots of the conversation alone, dark and light (stored in ``snapshots/``).

The tool session is a real scripted run (its texts do not depend on the clock or the tmp
folder). Fold handles are digests of the folded bytes, which hold the entries' timestamps,
so the fold-row snapshot places a fixed fold (a :class:`FixedFolds` source) over the run's
first message instead of the engine's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from pifold_agent.loop.events import CommitDone
from pifold_core.status import FoldRow
from pifold_tui.app.conversation.tool_call import ToolCallView
from tests.ui.app.test_conversation_support import (
    ConversationHarness,
    EventSource,
    tool_session,
)
from tests.ui.harness import THEMES

SIZE = (90, 34)

theme_parameter = pytest.mark.parametrize("theme", sorted(THEMES))


class FixedFolds:
    """One collapsed fold over the given entry (a deterministic handle for the picture)."""

    def __init__(self, start_id: str, end_id: str) -> None:
        self.rows = [
            FoldRow(
                handle="fold-0123456789ab",
                kind="span",
                depth=0,
                parent=None,
                start_id=start_id,
                end_id=end_id,
                entries=3,
                source_bytes=4_096,
                state="collapsed",
                staged_refold=False,
                brief_line='User asked "Create notes.txt"; wrote it',
            )
        ]

    def fold_rows(self) -> list[FoldRow]:
        return self.rows


@theme_parameter
async def test_tool_calls_expanded(
    theme: str, tmp_path: Path, svg_snapshot: SnapshotAssertion
) -> None:
    session = await tool_session(tmp_path)
    source = EventSource()
    harness = ConversationHarness(source, None, theme=THEMES[theme])
    async with harness.run_test(size=SIZE) as pilot:
        for event in session.events:
            harness.feed(source, event)
        await pilot.pause()
        for call in ("e1", "r1"):
            harness.conversation.calls[call].collapsed = False
        await pilot.pause()
        harness.conversation.scroll_to_widget(
            harness.conversation.calls["w1"], top=True, animate=False, immediate=True
        )
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        assert harness.export_screenshot(title="conversation") == svg_snapshot


@theme_parameter
async def test_fold_row_and_commit_notice(
    theme: str, tmp_path: Path, svg_snapshot: SnapshotAssertion
) -> None:
    session = await tool_session(tmp_path)
    entries = session.recorder.entries
    folds = FixedFolds(entries[0].id, entries[2].id)
    harness = ConversationHarness(session.recorder, folds, theme=THEMES[theme])
    async with harness.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await harness.conversation.show_event(CommitDone(1, "threshold", 81_204, 19_880, 12, 10, 3))
        await pilot.pause()
        assert not any(
            isinstance(call, ToolCallView) and not call.collapsed
            for call in harness.conversation.calls.values()
        )
        await pilot.wait_for_scheduled_animations()
        assert harness.export_screenshot(title="conversation") == svg_snapshot
