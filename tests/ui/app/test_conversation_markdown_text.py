"""A reply shaped like HTML or XML is shown as the text it is, never as a blank row."""

from __future__ import annotations

from rich.console import Console
from textual.app import App, ComposeResult
from textual.geometry import Region

from pifold_core.blocks import TextBlock
from pifold_core.entries import Entry
from pifold_tui.app.conversation.assistant import AssistantMessage, SettledText
from pifold_tui.app.conversation.markdown_text import StreamingText, TextMarkdown

TOOLS_REPLY = '<tools>\n{"name": "read", "arguments": {"path": "main.py"}}\n</tools>'


def rendered(markdown: str, width: int = 64) -> str:
    console = Console(width=width, record=True, color_system=None, legacy_windows=False)
    console.print(TextMarkdown(markdown))
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def test_an_html_block_is_its_text() -> None:
    assert rendered(TOOLS_REPLY) == (
        '<tools> {"name": "read", "arguments": {"path": "main.py"}}\n</tools>'
    )


def test_inline_tags_stay_and_markdown_still_renders() -> None:
    text = "Use <b>bold</b>, **strong** and `<x>`.\n\n```\n<div>\n```"
    assert rendered(text) == "Use <b>bold</b>, strong and <x>.\n\n\n <div>\n"


class OneMessage(App[None]):
    def compose(self) -> ComposeResult:
        yield AssistantMessage()


async def test_a_streamed_tool_call_reply_shows_its_text_then_settles() -> None:
    app = OneMessage()
    async with app.run_test(size=(80, 12)) as pilot:
        message = app.query_one(AssistantMessage)
        await message.add_delta("text", 0, TOOLS_REPLY[:30])
        await message.add_delta("text", 0, TOOLS_REPLY[30:])
        await pilot.pause(0.2)
        streaming = message.query_one(StreamingText)
        lines = streaming.render_lines(Region(0, 0, *streaming.size))
        shown = "\n".join(line.text for line in lines)
        assert "<tools>" in shown and '"path": "main.py"' in shown
        entry = Entry(id="a1", kind="assistant", timestamp_ms=0, content=(TextBlock(TOOLS_REPLY),))
        await message.finish(entry, "stop")
        await pilot.pause(0.2)
        settled = message.query_one(SettledText)
        assert settled.markdown == TOOLS_REPLY and settled.region.height == 1  # one line at 78
