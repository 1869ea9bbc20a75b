"""What may follow a tool batch: host notes appended right after its results.

A :class:`BatchFollower` (the memory's resurfacing, :mod:`pifold_agent.memory.resurfacing`;
the note after a repeated call, :mod:`pifold_agent.loop.repeats`; :class:`Followers` asks
several in order) is asked once per finished batch, before the next request, and returns
note entries; the loop records each as it records every message (session file first, engine
second), so a note is an append like any other: it changes no byte already sent, and it is
in the session log, so a resumed session knows it was shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pifold_agent.loop.events import AgentEvent
from pifold_agent.loop.messages import EntryFactory
from pifold_agent.tools.protocol import Tool
from pifold_core.entries import Entry, ToolCallBlock

if TYPE_CHECKING:
    from pifold_agent.loop.window import ContextWindow


@dataclass(frozen=True, slots=True)
class FinishedBatch:
    """One tool batch whose results are all recorded."""

    calls: Sequence[ToolCallBlock]
    """The calls, in the assistant's order."""
    results: Sequence[Entry]
    """Their results as recorded, in the same order."""
    tools: Mapping[str, Tool]
    """The agent's tools by name (a tool's ``footprint`` says which files a call touched)."""
    cwd: Path
    """The working directory the calls ran in."""
    window: ContextWindow
    """The context the next request is built from."""
    factory: EntryFactory
    """Where a note's id and timestamp come from."""
    emit: Callable[[AgentEvent], None]
    """Hands an event to the agent's listeners."""


class BatchFollower(Protocol):
    """Something that may append notes after a tool batch."""

    def after_batch(self, batch: FinishedBatch) -> Sequence[Entry]:
        """The notes to append after ``batch``'s results, in order (often none)."""
        ...


class Followers:
    """Several followers asked in order; their notes follow the batch in that order."""

    def __init__(self, *followers: BatchFollower) -> None:
        self.followers = followers
        """The followers, in the order they are asked."""

    def after_batch(self, batch: FinishedBatch) -> Sequence[Entry]:
        return [note for follower in self.followers for note in follower.after_batch(batch)]


__all__ = ["BatchFollower", "FinishedBatch", "Followers"]
