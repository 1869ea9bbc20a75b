"""A streaming text block keeps its complete Markdown blocks apart from the one still growing,
never cuts a block in two, and settles to exactly the recorded text (issue 23)."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.geometry import Region

from pifold_core.blocks import TextBlock
from pifold_core.entries import Entry
from pifold_tui.app.conversation.assistant import AssistantMessage, SettledText
from pifold_tui.app.conversation.markdown_text import (
    StreamingText,
    last_block_start,
    settled_parser,
)

BLOCKS = (
    "A paragraph with **bold** and `code`.\n",
    "A paragraph\nover two lines.\n",
    "- one\n- two\n",
    "- loose\n\n- list\n",
    "```python\ndef f():\n\n    return 1\n```\n",
    "# A heading\n",
    "> quoted\n> text\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n",
)
"""Kinds of top-level block a reply holds (a fence with a blank line inside among them)."""


def top_level_blocks(text: str) -> list[tuple[str, int]]:
    """Each top-level block's opening token type and first line."""
    return [
        (token.type, token.map[0])
        for token in settled_parser().parse(text)
        if token.level == 0 and token.nesting >= 0 and token.map is not None
    ]


replies = st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=6).map("\n".join)


@given(reply=replies, cut=st.floats(min_value=0, max_value=1))
def test_the_complete_part_is_whole_blocks_and_the_rest_one_block(reply: str, cut: float) -> None:
    shown = reply[: round(cut * len(reply))]
    start = last_block_start(shown)
    blocks = top_level_blocks(shown)
    if len(blocks) < 2:
        assert start == 0
        return
    assert top_level_blocks(shown[:start]) == blocks[:-1]
    assert len(top_level_blocks(shown[start:])) == 1


class OneMessage(App[None]):
    def compose(self) -> ComposeResult:
        yield AssistantMessage()


async def test_a_reply_streams_in_pieces_then_settles_to_the_recorded_text() -> None:
    reply = "\n".join(BLOCKS)
    app = OneMessage()
    async with app.run_test(size=(80, 60)) as pilot:
        message = app.query_one(AssistantMessage)
        seen_complete: list[str] = []
        for start in range(0, len(reply), 7):
            await message.add_delta("text", 0, reply[start : start + 7])
            streaming = message.query_one(StreamingText)
            if start % 21 == 0:
                await pilot.pause()  # a frame after some deltas, not all
            seen_complete.append(streaming.markdown[: streaming.complete_length])
        await pilot.pause()
        assert streaming.markdown == reply
        seen_complete.append(streaming.markdown[: streaming.complete_length])
        # The complete part only grows, by whole blocks: every block but the last.
        assert all(
            later.startswith(earlier) for earlier, later in itertools.pairwise(seen_complete)
        )
        assert top_level_blocks(seen_complete[-1]) == top_level_blocks(reply)[:-1]
        streamed = [strip.text for strip in streaming.render_lines(Region(0, 0, *streaming.size))]
        entry = Entry(id="a1", kind="assistant", timestamp_ms=0, content=(TextBlock(reply),))
        await message.finish(entry, "stop")
        await pilot.pause()
        assert not message.query(StreamingText)
        settled = message.query_one(SettledText)
        assert settled.markdown == reply
        # The stream showed what the settled text shows, the complete blocks then the last
        # one (where the two parts meet, they can stand one blank line further apart).
        lines = [strip.text for strip in settled.render_lines(Region(0, 0, *settled.size))]
        assert [line for line in streamed if line.strip()] == [
            line for line in lines if line.strip()
        ]
        assert lines[0].rstrip() == "A paragraph with bold and code."
        assert [line.strip() for line in lines[-4:-1]] == ["a  b", "────", "1  2"]
