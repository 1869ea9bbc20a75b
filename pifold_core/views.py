"""Reduced views of single tool results: the tool-call diet and withdrawn peeks (DESIGN §5).

A view changes what one raw tool result shows in the projection, never what is stored: the
entry stays whole in the transcript (and in any later fold's source), and its id brings the
exact text back with ``peek``. Views are only set or cleared by a commit, so they ride a
rewrite that is already paying.

The text of a view depends on the entry alone, so a reopened session renders it again byte
for byte from the log's list of viewed entries.
"""

from __future__ import annotations

from typing import Literal

from pifold_core.entries import Entry
from pifold_core.placeholders import TOOL_NAME

ViewKind = Literal["clipped", "withdrawn"]
"""``clipped``: an old tool result cut to its head; ``withdrawn``: a consumed ephemeral peek."""

HEAD_CHARS = 400
"""Characters of an old tool result kept in view: enough for the command, path or status
line that identifies it."""

HEAD_LINES = 6
"""Lines of an old tool result kept in view at most."""

CLIP_MIN_CHARS = 1_200
"""A result shorter than this is left alone: clipping it would save less than the marker
and the rewrite cost."""


def peek_line(identifier: str) -> str:
    """How to get the exact bytes back."""
    return f'{TOOL_NAME} {{"action":"peek","id":"{identifier}"}}'


def head_of(text: str) -> str:
    """The identifying head of a result: its first lines, at most :data:`HEAD_CHARS`."""
    head = "\n".join(text.splitlines()[:HEAD_LINES])
    if len(head) > HEAD_CHARS:
        head = head[:HEAD_CHARS]
    return head.rstrip()


def clippable(entry: Entry) -> bool:
    """Whether the diet may clip this entry: a tool result long enough to be worth it."""
    return (
        entry.kind == "tool_result"
        and entry.tool_name != TOOL_NAME
        and len(entry.text) >= CLIP_MIN_CHARS
    )


def clipped_text(entry: Entry) -> str:
    """The view of an old tool result: its head and a marker naming the entry id."""
    text = entry.text
    head = head_of(text)
    hidden = len(text) - len(head)
    return (
        f"{head}\n[clipped: {hidden:,} more characters of this {entry.tool_name} result; "
        f"exact text: {peek_line(entry.id)}]"
    )


def withdrawn_text(peeked: str) -> str:
    """The one-line view of a consumed ephemeral peek."""
    return f"[ephemeral copy of {peeked} withdrawn at a commit; peek again: {peek_line(peeked)}]"
