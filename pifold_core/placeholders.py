"""What the model sees in place of a fold (DESIGN §3).

A placeholder is built from its fold alone: handle, kind, brief, what the fold holds and one
line saying how to get the exact source back. It never names a neighbouring fold, so making
a fold can never rewrite another fold's placeholder.
"""

from __future__ import annotations

from pifold_core.canonical import JsonValue

TOOL_NAME = "pi_fold_context"
"""The tool the model calls to peek or expand a fold."""

KIND_NAMES = {"tool": "tool results", "span": "span", "consolidated": "consolidated"}


def handle_line(handle: str) -> str:
    """The one line that tells the model how to recover the exact source."""
    return (
        f'Exact source: {TOOL_NAME} {{"action":"peek","id":"{handle}"}}; '
        f'restore in place: {{"action":"expand","id":"{handle}"}}'
    )


def fold_placeholder(
    handle: str,
    kind: str,
    brief: str,
    entry_count: int,
    tool_call_count: int,
    source_bytes: int,
) -> str:
    """The full placeholder text of a fold."""
    holds = f"{entry_count} entries"
    if tool_call_count:
        holds += f", {tool_call_count} tool calls"
    holds += f", {source_bytes:,} bytes"
    return "\n".join(
        [
            f"[folded {KIND_NAMES.get(kind, kind)} {handle} · {holds}]",
            brief,
            handle_line(handle),
        ]
    )


def sibling_result_placeholder(handle: str, position: int, total: int) -> str:
    """The text of the 2nd..Nth result of a folded batch: the first result carries the brief."""
    return (
        f"[result {position} of {total} folded in {handle}; its brief is on result 1 of this "
        f"batch] {handle_line(handle)}"
    )


def note_message(text: str) -> dict[str, JsonValue]:
    """A note as a wire message: user-role text."""
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def tool_result_message(
    call_id: str, tool_name: str, is_error: bool, text: str
) -> dict[str, JsonValue]:
    """A tool result wire message whose content is replaced, keeping the call linkage."""
    return {
        "role": "tool",
        "call_id": call_id,
        "name": tool_name,
        "is_error": is_error,
        "content": [{"type": "text", "text": text}],
    }
