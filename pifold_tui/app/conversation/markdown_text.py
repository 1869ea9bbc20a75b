"""Markdown for a model's words: HTML in a reply is shown as the text it is.

CommonMark passes raw HTML through to the renderer, and a terminal renderer has nothing to
draw for it: Rich and Textual both drop ``html_block`` and ``html_inline`` tokens. A reply
shaped like ``<tools>…</tools>`` or ``<tool_call>…</tool_call>`` (what a small local model
writes when its server leaves a call unparsed) therefore rendered as a blank row. A model's
reply is never HTML meant to be interpreted, so the parser here runs with ``html`` off, for
streaming and settled text alike: a tag is plain text, exactly as written, and code spans
and fences are unchanged.

**Streaming** (issue 23). A text block streams as :class:`StreamingText`, one widget: a
delta only adds to its text and asks for a layout, so however many arrive between two
frames, the text is parsed and rendered once, in the next frame. It renders the top-level
blocks that are complete (rendered once per width, and again only when one more completes:
:class:`RenderedOnce`) above the block still growing (rendered each frame). Textual's
``Markdown`` widget, used before, mounted a widget per block as the stream went. When the
message is recorded, the assistant message replaces it with one widget of the whole text,
so what stays on screen is what it always was, and the stream already looks like it.

Each conversation layout walks every mounted widget, so widgets are few here; and the
parser is built once (Rich's ``Markdown`` builds one per renderable, about 2 ms).
"""

from __future__ import annotations

from functools import cache

from markdown_it import MarkdownIt
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.text import Text
from textual.widget import Widget


@cache
def settled_parser() -> MarkdownIt:
    """The parser of settled text: Rich's own configuration, HTML off (one, shared: parsing
    keeps no state in it, and building it costs more than parsing a reply)."""
    return MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")


class TextMarkdown(RichMarkdown):
    """Rich's Markdown renderable, with HTML shown as text."""

    def __init__(self, markup: str) -> None:
        # Rich's constructor builds a parser with HTML on and parses with it: set what it
        # sets (with Rich's defaults), parsed once with ours; ``markup`` and ``parsed`` are
        # what it renders.
        self.markup = markup
        self.parsed = settled_parser().parse(markup)
        self.code_theme = "monokai"
        self.justify = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer = None
        self.inline_code_theme = self.code_theme


class RenderedOnce:
    """A renderable drawn once per console and width, then replayed: the complete blocks of
    a streaming text, unchanged from frame to frame while the last block grows."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        """What is drawn."""
        self.drawn: dict[tuple[int, int], list[Segment]] = {}
        """Its segments by console and width."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = (id(console), options.max_width)
        segments = self.drawn.get(key)
        if segments is None:
            segments = self.drawn[key] = list(console.render(self.renderable, options))
        yield from segments


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


class StreamingText(Widget):
    """One streaming text block: its complete blocks, then the block still growing."""

    DEFAULT_CSS = """
    StreamingText { height: auto; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.markdown = ""
        """The block's Markdown so far."""
        self.complete_length = 0
        """How much of :attr:`markdown` is in complete blocks (as of the last frame)."""
        self.complete: RenderedOnce | None = None
        """The complete blocks, drawn once (``None`` while there are none)."""
        self.shown: tuple[str, Group] | None = None
        """The text last rendered and what it rendered to."""

    def add(self, delta: str) -> None:
        """One more piece of the block's text (drawn with the next frame)."""
        self.markdown += delta
        self.refresh(layout=True)

    def open_text(self) -> str:
        """The block still growing, once the blocks completed since the last call are moved
        to the complete part."""
        open_text = self.markdown[self.complete_length :]
        boundary = last_block_start(open_text)
        if boundary:
            self.complete_length += boundary
            self.complete = RenderedOnce(TextMarkdown(self.markdown[: self.complete_length]))
            open_text = open_text[boundary:]
        return open_text

    def render(self) -> Group:
        # Textual asks again within a frame (measuring, then drawing): the text is parsed
        # once per change, not per call.
        if self.shown is None or self.shown[0] != self.markdown:
            growing = TextMarkdown(self.open_text())
            # A blank line between the parts, as between two settled blocks.
            parts = (growing,) if self.complete is None else (self.complete, Text(""), growing)
            self.shown = (self.markdown, Group(*parts))
        return self.shown[1]


__all__ = ["RenderedOnce", "StreamingText", "TextMarkdown", "last_block_start", "settled_parser"]
