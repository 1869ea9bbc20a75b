"""A reply shaped like HTML or XML is shown as the text it is, never as a blank row."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widget import Widget

from pifold_core.blocks import TextBlock, ToolCallBlock
from pifold_core.entries import Entry
from pifold_tui.app.conversation.assistant import (
    AssistantMessage,
    SettledText,
    TextMessage,
    recorded_message,
)
from pifold_tui.app.conversation.markdown_text import RenderedOnce, StreamingText, TextMarkdown

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


class CountedMarkdown(TextMarkdown):
    """Markdown that counts how often it is drawn."""

    draws = 0

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.draws += 1
        yield from super().__rich_console__(console, options)


def drawn(renderable: RenderableType, console: Console) -> str:
    console.print(renderable)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def test_the_complete_blocks_are_drawn_once_per_width() -> None:
    markdown = CountedMarkdown("Some **bold** words.\n\n- one\n- two\n")
    once = RenderedOnce(markdown)
    console = Console(width=40, record=True, color_system=None, legacy_windows=False)
    assert drawn(once, console) == drawn(once, console) == "Some bold words.\n\n • one\n • two"
    assert markdown.draws == 1
    narrow = Console(width=12, record=True, color_system=None, legacy_windows=False)
    assert drawn(once, narrow) == "Some bold\nwords.\n\n • one\n • two"
    assert markdown.draws == 2


class TwoForms(App[None]):
    """A text-only reply as recorded, beside the container form it replaces."""

    def __init__(self, entry: Entry) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        yield recorded_message(self.entry, {})
        yield AssistantMessage(SettledText(self.entry.text))


async def test_a_text_only_reply_is_one_widget_that_looks_like_the_container() -> None:
    text = "The fix is in `parse_header`.\n\n- done\n- tested"
    entry = Entry(id="a1", kind="assistant", timestamp_ms=0, content=(TextBlock(text),))
    app = TwoForms(entry)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        one, container = app.screen.children
        assert isinstance(one, TextMessage) and not one.children and one.entry_id == "a1"

        def shown(widget: Widget) -> list[str]:
            return [strip.text for strip in app.screen._compositor.render_strips()][
                widget.region.y : widget.region.bottom
            ]

        assert one.region.size == container.region.size
        assert shown(one) == shown(container)
        assert shown(one)[0] == " The fix is in parse_header.".ljust(60)
    called = Entry(
        id="a2",
        kind="assistant",
        timestamp_ms=0,
        content=(TextBlock(text), ToolCallBlock("c1", "read", {"path": "a.py"})),
    )
    assert isinstance(recorded_message(called, {}), AssistantMessage)
