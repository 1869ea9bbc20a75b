"""A text block while it streams: its complete blocks, then the block still growing.

Textual's ``Markdown`` widget mounts a widget per Markdown block as a stream goes: every new
paragraph was a mount, a stylesheet pass and a second layout once its size settled, so a
delta cost 1.6× a bare Textual list in ``benchmarks/bench_conversation.py`` (issue 23).
Here a streaming block is two ``Static`` widgets rendering Rich's Markdown with the parser
of settled text (:class:`TextMarkdown`): the blocks that are complete, rendered again only
when one more completes, and the last block, rendered again on each delta. A delta mounts
nothing, and however many arrive between two frames, Textual lays the conversation out once
in the next one. When the message is recorded, the assistant message replaces this widget
with a :class:`~pifold_tui.app.conversation.assistant.SettledText` of the whole text, so
what stays on screen is what it always was.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from pifold_tui.app.conversation.markdown_text import TextMarkdown, settled_parser


def last_block_start(text: str) -> int:
    """Where the last top-level Markdown block of ``text`` starts (0 when it has one block or
    none): what comes before it is complete, since a stream only ever adds after it."""
    starts = [
        token.map[0]
        for token in settled_parser().parse(text)
        if token.level == 0 and token.nesting >= 0 and token.map is not None
    ]
    if len(starts) < 2:
        return 0
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[: starts[-1]])


class StreamingText(Vertical):
    """One streaming text block: complete blocks above, the growing block below."""

    DEFAULT_CSS = """
    StreamingText { height: auto; }
    StreamingText > .complete { margin: 0 0 1 0; display: none; }
    StreamingText > .complete.-shown { display: block; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.markdown = ""
        """The block's Markdown so far."""
        self.complete_length = 0
        """How much of :attr:`markdown` is in complete blocks."""
        self.complete = Static("", classes="complete")
        """The complete blocks."""
        self.growing = Static("")
        """The last block, still growing."""

    def compose(self) -> ComposeResult:
        yield self.complete
        yield self.growing

    def add(self, delta: str) -> None:
        """One more piece of the block's text."""
        self.markdown += delta
        open_text = self.markdown[self.complete_length :]
        boundary = last_block_start(open_text)
        if boundary:
            self.complete_length += boundary
            self.complete.update(TextMarkdown(self.markdown[: self.complete_length]))
            self.complete.add_class("-shown")
            open_text = open_text[boundary:]
        self.growing.update(TextMarkdown(open_text))


__all__ = ["StreamingText", "last_block_start"]
