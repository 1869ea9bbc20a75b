"""Markdown for a model's words: HTML in a reply is shown as the text it is.

CommonMark passes raw HTML through to the renderer, and a terminal renderer has nothing to
draw for it: Rich and Textual both drop ``html_block`` and ``html_inline`` tokens. A reply
shaped like ``<tools>…</tools>`` or ``<tool_call>…</tool_call>`` (what a small local model
writes when its server leaves a call unparsed) therefore rendered as a blank row. A model's
reply is never HTML meant to be interpreted, so the parser here runs with ``html`` off, for
streaming and settled text alike: a tag is plain text, exactly as written, and code spans
and fences are unchanged.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from rich.markdown import Markdown as RichMarkdown


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


__all__ = ["TextMarkdown", "settled_parser"]
