"""Where the loop writes each message first, and how a restarted agent catches the engine up.

Every message goes to the session file before the engine (:class:`SessionRecorder`), so a
kill between the two writes loses nothing: on resume, the context window's ``catch_up``
appends every in-context entry of the session that the engine's log lacks, in session order
(the engine may hold entries the session does not, its own notice; those stay). A kill
in the middle of a tool batch leaves calls without results; :func:`answer_orphans` gives each
an error result, in the session file and the engine, so every provider accepts the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pifold_agent.loop.messages import EntryFactory, in_context
from pifold_agent.loop.window import ContextWindow
from pifold_agent.tools.protocol import ToolOutcome
from pifold_core.entries import Entry

ORPHAN_RESULT = "error: no result; the agent stopped before this call finished"
"""The result given to a call the agent never answered (killed mid-batch)."""


class SessionRecorder(Protocol):
    """The session file as the loop sees it (the sessions package implements it)."""

    def record(self, entry: Entry) -> None:
        """Append one message durably (flushed) before the engine is told of it."""
        ...

    def recorded(self) -> Sequence[Entry]:
        """Every message recorded in this session, in order (aborted ones included)."""
        ...

    def sync(self) -> None:
        """Make everything recorded durable (fsync); the loop calls it at every turn end."""
        ...


class MemoryRecorder:
    """A session kept in memory: for tests and ``--no-session`` runs."""

    def __init__(self, entries: Sequence[Entry] = ()) -> None:
        self.entries: list[Entry] = list(entries)
        """The recorded messages, in order."""

    def record(self, entry: Entry) -> None:
        self.entries.append(entry)

    def recorded(self) -> Sequence[Entry]:
        return self.entries

    def sync(self) -> None:
        """Nothing to flush: the entries live in this process only."""


def orphan_calls(entries: Sequence[Entry]) -> list[tuple[str, str]]:
    """``(call id, tool name)`` of calls of the last assistant message that have no result."""
    for position in range(len(entries) - 1, -1, -1):
        entry = entries[position]
        if entry.kind == "assistant" and in_context(entry):
            answered = {
                later.call_id for later in entries[position + 1 :] if later.kind == "tool_result"
            }
            return [(call.id, call.name) for call in entry.tool_calls if call.id not in answered]
    return []


def answer_orphans(
    window: ContextWindow, recorder: SessionRecorder, factory: EntryFactory
) -> list[Entry]:
    """Give every unanswered call of the last assistant message an error result."""
    entries = window.entries()
    pending = dict(orphan_calls(entries))
    assistant = next((entry for entry in reversed(entries) if entry.kind == "assistant"), None)
    if assistant is None or not pending:
        return []
    results = []
    for call in assistant.tool_calls:
        if call.id in pending:
            result = factory.tool_result(call, ToolOutcome(ORPHAN_RESULT, is_error=True))
            recorder.record(result)
            window.append(result)
            results.append(result)
    return results


__all__ = [
    "ORPHAN_RESULT",
    "MemoryRecorder",
    "SessionRecorder",
    "answer_orphans",
    "orphan_calls",
]
