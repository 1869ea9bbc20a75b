"""An assistant message: streamed Markdown text, collapsed thinking, and its tool calls.

Live, the message is built from the loop's deltas as they arrive: each text block is a
:class:`StreamingText` (its complete blocks, then the block still growing; a delta mounts
nothing), each thinking block a collapsed ``Collapsible``, each tool call a
:class:`ToolCallView`. When the message is recorded, the streamed blocks are checked
against the entry: when they agree the widgets stay; otherwise (a provider that numbered its
blocks differently) the message is rebuilt from the entry, which is what was recorded.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from pifold_core.blocks import TextBlock, ThinkingBlock, ToolCallBlock
from pifold_core.entries import Entry
from pifold_tui.app.conversation.markdown_text import StreamingText, TextMarkdown
from pifold_tui.app.conversation.tool_call import ToolCallView

THINKING_TITLE = "thinking"
"""The title of a collapsed thinking block."""

ABORTED = "aborted: kept in the session, never sent again"
"""Under the partial text of a reply the user aborted."""


class ThinkingView(Collapsible):
    """A thinking block, collapsed by default."""

    DEFAULT_CSS = """
    ThinkingView { border: none; padding: 0; margin: 0; background: transparent; }
    ThinkingView > CollapsibleTitle { color: $text-muted; text-style: italic; }
    ThinkingView > Contents { padding: 0 0 0 2; color: $text-muted; height: auto; }
    """

    def __init__(self, text: str = "") -> None:
        self.text = text
        """The thinking so far."""
        self.body = Static(text, markup=False)
        super().__init__(self.body, title=THINKING_TITLE, collapsed=True)

    def add(self, delta: str) -> None:
        self.text += delta
        self.body.update(self.text)


class SettledText(Static):
    """A text block once complete: one widget rendering the Markdown (a long session mounts
    hundreds of these, and every mounted widget costs each layout of the conversation)."""

    DEFAULT_CSS = """
    SettledText { margin: 0 0 1 0; }
    SettledText:last-child { margin: 0; }
    """

    def __init__(self, markdown: str) -> None:
        super().__init__(TextMarkdown(markdown), classes="settled-text")
        self.markdown = markdown
        """The block's Markdown source."""


class TextMessage(Static):
    """A recorded assistant message that is one text block: one widget, where a message
    with thinking or tool calls is a container of one widget per block. Most replies are
    text alone, and each widget a row adds costs every layout of the conversation; it looks
    as the container with one :class:`SettledText` does."""

    DEFAULT_CSS = """
    TextMessage { padding: 0 1; margin: 0 0 1 0; }
    """

    def __init__(self, entry: Entry) -> None:
        super().__init__(TextMarkdown(entry.text), classes="row assistant")
        self.entry_id: str | None = entry.id
        """The recorded entry's id."""
        self.markdown = entry.text
        """The message's Markdown source."""
        self.tool_calls: list[ToolCallView] = []
        """None: a message with calls is an :class:`AssistantMessage`."""


def is_text_only(entry: Entry, stop_reason: str | None) -> bool:
    """Whether a recorded message is shown as a :class:`TextMessage`: one non-empty text
    block and nothing else, not aborted (an aborted reply carries its note)."""
    blocks = entry.content
    return (
        len(blocks) == 1
        and isinstance(blocks[0], TextBlock)
        and bool(blocks[0].text)
        and stop_reason != "aborted"
    )


class AssistantMessage(Vertical):
    """One assistant message, streaming or recorded."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; padding: 0 1; margin: 0 0 1 0; }
    AssistantMessage > .aborted { color: $warning; }
    """

    def __init__(self, *children: Widget) -> None:
        super().__init__(*children, classes="row assistant")
        self.entry_id: str | None = None
        """The recorded entry's id (``None`` while it streams)."""
        self.parts: dict[int, Widget] = {}
        """The streamed blocks' widgets by the block index the deltas name."""
        self.texts: dict[int, str] = {}
        """The streamed text and thinking by block index."""
        self.tool_calls: list[ToolCallView] = []
        """Its tool calls in the message's order."""

    async def add_delta(self, kind: str, index: int, delta: str) -> ToolCallView | None:
        """One streamed piece; returns the tool call's view when a tool call began."""
        self.texts[index] = self.texts.get(index, "") + delta
        part = self.parts.get(index)
        created: ToolCallView | None = None
        if part is None:
            part = self.part_for(kind)
            self.parts[index] = part
            await self.mount(part)
            if isinstance(part, ToolCallView):
                self.tool_calls.append(part)
                created = part
        if isinstance(part, StreamingText | ThinkingView):
            part.add(delta)
        elif isinstance(part, ToolCallView):
            part.stream_arguments(delta)
        return created

    @staticmethod
    def part_for(kind: str) -> Widget:
        if kind == "thinking":
            return ThinkingView()
        if kind == "tool_call":
            return ToolCallView()
        return StreamingText()

    async def finish(
        self, entry: Entry, stop_reason: str | None, results: Mapping[str, Entry] | None = None
    ) -> list[ToolCallView]:
        """The message as recorded; returns its tool calls' views (settled with their ids)."""
        self.entry_id = entry.id
        streamed = [
            (self.texts[index], type(part))
            for index, part in sorted(self.parts.items())
            if not isinstance(part, ToolCallView)
        ]
        readable = [
            (block.text, StreamingText if isinstance(block, TextBlock) else ThinkingView)
            for block in entry.content
            if isinstance(block, TextBlock | ThinkingBlock)
        ]
        if streamed != readable or len(self.tool_calls) > len(entry.tool_calls):
            await self.remove_children()
            self.parts.clear()
            widgets, self.tool_calls = widgets_for(entry)
            await self.mount_all(widgets)
        else:
            # The streamed blocks become settled text, one widget each: a long session
            # keeps many messages mounted and every layout walks every widget.
            for index, part in sorted(self.parts.items()):
                if isinstance(part, StreamingText):
                    settled = SettledText(self.texts[index])
                    await self.mount(settled, after=part)
                    await part.remove()
                    self.parts[index] = settled
            missing = entry.tool_calls[len(self.tool_calls) :]
            added = [ToolCallView(call.name, call.id) for call in missing]
            self.tool_calls.extend(added)
            await self.mount_all(added)
        for view, call in zip(self.tool_calls, entry.tool_calls, strict=True):
            view.settle(call.id, call.name, call.arguments)
            if results is not None and call.id in results:
                view.show_result(results[call.id])
        if stop_reason == "aborted":
            await self.mount(aborted_note())
        return list(self.tool_calls)

    @property
    def empty(self) -> bool:
        """Whether it shows nothing (a failed request records a message with no blocks)."""
        return not self.children


def aborted_note() -> Static:
    """What an aborted reply says under its partial text."""
    return Static(ABORTED, markup=False, classes="aborted")


def widgets_for(entry: Entry) -> tuple[list[Widget], list[ToolCallView]]:
    """Widgets for a recorded message's blocks in order, and its tool calls' views."""
    widgets: list[Widget] = []
    calls: list[ToolCallView] = []
    for block in entry.content:
        if isinstance(block, TextBlock) and block.text:
            widgets.append(SettledText(block.text))
        elif isinstance(block, ThinkingBlock) and block.text:
            widgets.append(ThinkingView(block.text))
        elif isinstance(block, ToolCallBlock):
            view = ToolCallView(block.name, block.id)
            calls.append(view)
            widgets.append(view)
    return widgets, calls


async def settled_row(
    streaming: AssistantMessage, entry: Entry, stop_reason: str | None
) -> Widget | None:
    """The row showing ``entry`` once the message that streamed it is recorded (mounted in
    its place when it is a :class:`TextMessage`), or ``None`` when it shows nothing."""
    parent = streaming.parent
    if is_text_only(entry, stop_reason) and isinstance(parent, Widget):
        # What was recorded, in one widget, where the streamed blocks stood.
        row = TextMessage(entry)
        await parent.mount(row, after=streaming)
        await streaming.remove()
        return row
    await streaming.finish(entry, stop_reason)
    if streaming.empty:
        await streaming.remove()
        return None
    return streaming


def recorded_message(entry: Entry, results: Mapping[str, Entry]) -> Widget:
    """A recorded assistant message with its calls' results, ready to mount."""
    stop_reason = entry.extra.get("stop_reason")
    if is_text_only(entry, stop_reason if isinstance(stop_reason, str) else None):
        return TextMessage(entry)
    widgets, calls = widgets_for(entry)
    if entry.extra.get("stop_reason") == "aborted":
        widgets.append(aborted_note())
    message = AssistantMessage(*widgets)
    message.entry_id = entry.id
    message.tool_calls = calls
    for view, call in zip(calls, entry.tool_calls, strict=True):
        view.settle(call.id, call.name, call.arguments)
        if call.id in results:
            view.show_result(results[call.id])
    return message


__all__ = [
    "ABORTED",
    "THINKING_TITLE",
    "AssistantMessage",
    "SettledText",
    "TextMessage",
    "ThinkingView",
    "is_text_only",
    "recorded_message",
    "settled_row",
]
