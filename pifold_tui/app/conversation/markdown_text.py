"""Markdown for a model's words: HTML in a reply is shown as the text it is.

CommonMark passes raw HTML through to the renderer, and a terminal renderer has nothing to
draw for it: Rich and Textual both drop ``html_block`` and ``html_inline`` tokens. A reply
shaped like ``<tools>…</tools>`` or ``<tool_call>…</tool_call>`` (what a small local model
writes when its server leaves a call unparsed) therefore rendered as a blank row. A model's
reply is never HTML meant to be interpreted, so the parser here runs with ``html`` off, for
streaming and settled text alike: a tag is plain text, exactly as written, and code spans
and fences are unchanged.

**Streaming** (issue 23). A text block streams as :class:`StreamingText`: two ``Static``
widgets rendering Rich's Markdown with this parser, the top-level blocks that are complete
(rendered again only when one more completes) and the last block (rendered again on each
delta). Textual's ``Markdown`` widget, used before, mounted a widget per block as the stream
went; here a delta mounts nothing, and however many arrive between two frames, Textual lays
the conversation out once in the next one. When the message is recorded, the assistant
message replaces it with a ``SettledText`` of the whole text, so what stays on screen is
what it always was, and the stream already looks like it.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from rich.markdown import Markdown as RichMarkdown
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static


def settled_parser() -> MarkdownIt:
    """The parser of settled text: Rich's own configuration, HTML off."""
    return MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")


class TextMarkdown(RichMarkdown):
    """Rich's Markdown renderable, with HTML shown as text."""

    def __init__(self, markup: str) -> None:
        # Rich parses in its constructor with HTML on and takes no parser: give it nothing to
        # parse, then parse once with ours (``markup`` and ``parsed`` are what it renders).
        super().__init__("")
        self.markup = markup
        self.parsed = settled_parser().parse(markup)


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


__all__ = ["StreamingText", "TextMarkdown", "last_block_start", "settled_parser"]
