"""Where the conversation reads the transcript and the folds from (never from its own DOM).

The shell passes a :class:`TranscriptSource` (the session recorder: every message recorded,
in order) and, while the session folds, a :class:`FoldSource` (the engine). The conversation
shows one row per message, except tool results: each is shown inside its call's widget, in
the assistant message that made the call, so a row here is a message that is not a tool
result, together with the results of its calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pifold_core.entries import Entry
from pifold_core.status import FoldRow


class TranscriptSource(Protocol):
    """The session's messages (``SessionRecorder.recorded`` satisfies it)."""

    def recorded(self) -> Sequence[Entry]:
        """Every message recorded in this session, in order."""
        ...


class FoldSource(Protocol):
    """The folds of the session's window (``Engine.fold_rows`` satisfies it)."""

    def fold_rows(self) -> list[FoldRow]:
        """Every fold in transcript order with its depth, parent and state."""
        ...


@dataclass(frozen=True, slots=True)
class TranscriptRow:
    """One message of the conversation and the tool results that answer its calls."""

    entry: Entry
    """A user, assistant or note message."""
    results: dict[str, Entry] = field(default_factory=dict)
    """Tool results by the call id they answer (an assistant's calls only)."""


def transcript_rows(entries: Sequence[Entry]) -> list[TranscriptRow]:
    """The rows of ``entries``: each tool result goes with the latest call it answers; a
    result whose call is not in ``entries`` is a row of its own."""
    rows: list[TranscriptRow] = []
    owner: dict[str, TranscriptRow] = {}
    for entry in entries:
        if entry.kind == "tool_result" and entry.call_id in owner:
            owner[entry.call_id].results[entry.call_id] = entry
            continue
        row = TranscriptRow(entry)
        rows.append(row)
        for call in entry.tool_calls:
            owner[call.id] = row
    return rows


def shown_folds(rows: Sequence[FoldRow]) -> list[FoldRow]:
    """The folds that stand in the window as their placeholder: collapsed, and not inside a
    collapsed ancestor (those are hidden with it)."""
    return [row for row in rows if row.state == "collapsed"]


__all__ = [
    "FoldSource",
    "TranscriptRow",
    "TranscriptSource",
    "shown_folds",
    "transcript_rows",
]
