"""Where the loop writes each message first, and how a restarted agent catches the engine up.

Every message goes to the session file before the engine (:class:`SessionRecorder`), so a
kill between the two writes loses nothing: on resume, :func:`catch_up` appends to the engine
every in-context entry of the session that the engine's log lacks, in session order. A kill
in the middle of a tool batch leaves calls without results; :func:`answer_orphans` gives each
an error result, in the session file and the engine, so every provider accepts the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pifold_agent.loop.messages import EntryFactory, in_context
from pifold_agent.loop.tool_protocol import ToolOutcome
from pifold_core.engine import Engine
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


def catch_up(engine: Engine, recorded: Sequence[Entry]) -> list[Entry]:
    """Append to ``engine`` the in-context entries of ``recorded`` it lacks; returns them.

    The engine may hold entries the session does not (its own pre-commit notice); those are
    left alone. Entries are matched by id, which both sides share.
    """
    known = engine.transcript.index_of
    missing = [entry for entry in recorded if in_context(entry) and entry.id not in known]
    for entry in missing:
        engine.append(entry)
    return missing


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


def answer_orphans(engine: Engine, recorder: SessionRecorder, factory: EntryFactory) -> list[Entry]:
    """Give every unanswered call of the last assistant message an error result."""
    results = []
    for entry in reversed(engine.transcript.entries):
        if entry.kind == "assistant":
            assistant = entry
            break
    else:
        return []
    pending = {call_id for call_id, _ in orphan_calls(engine.transcript.entries)}
    for call in assistant.tool_calls:
        if call.id in pending:
            result = factory.tool_result(call, ToolOutcome(ORPHAN_RESULT, is_error=True))
            recorder.record(result)
            engine.append(result)
            results.append(result)
    return results


__all__ = [
    "ORPHAN_RESULT",
    "MemoryRecorder",
    "SessionRecorder",
    "answer_orphans",
    "catch_up",
    "orphan_calls",
]
