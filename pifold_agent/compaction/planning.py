"""Pure planning of one native compaction: where to cut, what to summarise, what to keep.

Everything here is deterministic and does no I/O, so the agent (which then asks a provider
for the summary) and the benchmark's ``native`` arm (which assumes a summary length and
bills the calls) run exactly the same algorithm (pi-host §4.3).

The inputs are the entries of the current branch, the token count of each (the agent uses
Pi's characters / 4 estimate, the benchmark its tokenizer) and ``start``, the boundary: the
previous compaction's first kept entry, or 0. Starting there and not just after the previous
compaction is Pi's later fix: with the older boundary, what one compaction had kept was
neither summarised nor kept by the next.

The cut:

* walking back from the newest entry, sum the tokens until the total reaches
  ``keep_recent_tokens``; the cut is the nearest entry at or after that point that may open
  a window (anything but a tool result, which must stay with its call);
* when no such entry exists (the newest tool results alone pass the budget, which happens
  when the check runs after a tool batch and before the next assistant message), the cut
  steps back to the assistant entry that made those calls, keeping call and results together.
  Pi, which checks only once an assistant message exists, would keep everything instead;
* when the whole window fits in the budget, or the cut lands on the boundary, there is
  nothing to compact.

A cut on anything but a user-role entry splits a turn, provided the turn began after the
boundary: the history up to the turn's start and the turn's prefix up to the cut are then
summarised separately.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pifold_agent.tools.registry import MODIFYING_TOOLS, READ_TOOLS
from pifold_core.entries import Entry, EntryKind

TURN_START_KINDS: tuple[EntryKind, ...] = ("user", "note")
"""Entries that begin a turn: a user message, or host text sent as one (Pi's bash
executions, custom messages and branch summaries all reach the model as user messages)."""


class PlanningError(ValueError):
    """The planner was handed inconsistent input; the message says what."""


@dataclass(frozen=True, slots=True)
class FileOperations:
    """The files the summarised messages touched, carried from one compaction to the next."""

    read: frozenset[str] = frozenset()
    """Files read and never modified."""
    modified: frozenset[str] = frozenset()
    """Files written or edited."""


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """What one compaction summarises and keeps, as indices into the branch's entries."""

    start: int
    """The boundary: the first entry this compaction may summarise."""
    first_kept: int
    """The cut: the first entry kept verbatim (Pi's ``firstKeptEntryId``)."""
    turn_start: int | None
    """Where the turn that the cut splits began, or None when the cut splits no turn."""
    history: tuple[Entry, ...]
    """The entries summarised as history: from the boundary to the turn's start (split
    turn) or to the cut."""
    turn_prefix: tuple[Entry, ...]
    """A split turn's entries before the cut, summarised on their own; empty otherwise."""
    kept: tuple[Entry, ...]
    """The entries kept verbatim after the summary."""
    previous_summary: str | None
    """The previous compaction's summary, carried into the history summary; None when there
    was none or there is no history to summarise (Pi then writes a fixed line instead)."""
    file_operations: FileOperations
    """The files read and modified, the previous compaction's included."""

    @property
    def is_split_turn(self) -> bool:
        """Whether the cut falls inside a turn (two summarisation calls)."""
        return self.turn_start is not None

    @property
    def first_kept_entry_id(self) -> str:
        """The id of the first kept entry."""
        return self.kept[0].id


def find_cut_point(
    kinds: Sequence[EntryKind], tokens: Sequence[int], start: int, keep_recent_tokens: int
) -> int | None:
    """The index of the first entry to keep, or None when nothing can be summarised."""
    if len(kinds) != len(tokens):
        raise PlanningError(f"{len(kinds)} entries but {len(tokens)} token counts")
    if not 0 <= start <= len(kinds):
        raise PlanningError(f"boundary {start} is outside the {len(kinds)} entries")
    total = 0
    index = len(kinds)
    while index > start:
        index -= 1
        total += tokens[index]
        if total >= keep_recent_tokens:
            break
    else:
        return None  # the whole window fits in the kept budget
    forward = index
    while forward < len(kinds) and kinds[forward] == "tool_result":
        forward += 1
    if forward < len(kinds):
        index = forward
    else:
        while index > start and kinds[index] == "tool_result":
            index -= 1
    if index <= start:
        return None
    return index


def find_turn_start(kinds: Sequence[EntryKind], cut: int, start: int) -> int | None:
    """Where the turn the cut falls inside began, or None when the cut splits no turn (it is
    a turn's start itself, or the turn began before the boundary)."""
    if kinds[cut] in TURN_START_KINDS:
        return None
    for index in range(cut - 1, start - 1, -1):
        if kinds[index] in TURN_START_KINDS:
            return index
    return None


def file_operations(entries: Iterable[Entry], previous: FileOperations) -> FileOperations:
    """The ``path`` of every read, write and edit call in ``entries``, merged with
    ``previous``; a file both read and modified counts as modified."""
    read = set(previous.read)
    modified = set(previous.modified)
    for entry in entries:
        for call in entry.tool_calls:
            arguments = call.arguments
            path = arguments.get("path") if isinstance(arguments, dict) else None
            if not isinstance(path, str) or not path:
                continue
            if call.name in MODIFYING_TOOLS:
                modified.add(path)
            elif call.name in READ_TOOLS:
                read.add(path)
    return FileOperations(frozenset(read - modified), frozenset(modified))


def plan_compaction(
    entries: Sequence[Entry],
    tokens: Sequence[int],
    start: int = 0,
    keep_recent_tokens: int = 20_000,
    previous_summary: str | None = None,
    previous_files: FileOperations | None = None,
) -> CompactionPlan | None:
    """Plan a compaction of ``entries[start:]``, or None when there is nothing to summarise."""
    kinds = [entry.kind for entry in entries]
    cut = find_cut_point(kinds, tokens, start, keep_recent_tokens)
    if cut is None:
        return None
    turn_start = find_turn_start(kinds, cut, start)
    history_end = cut if turn_start is None else turn_start
    history = tuple(entries[start:history_end])
    turn_prefix = tuple(entries[turn_start:cut]) if turn_start is not None else ()
    summarised = (*history, *turn_prefix)
    return CompactionPlan(
        start=start,
        first_kept=cut,
        turn_start=turn_start,
        history=history,
        turn_prefix=turn_prefix,
        kept=tuple(entries[cut:]),
        previous_summary=previous_summary if history else None,
        file_operations=file_operations(summarised, previous_files or FileOperations()),
    )


__all__ = [
    "TURN_START_KINDS",
    "CompactionPlan",
    "FileOperations",
    "PlanningError",
    "file_operations",
    "find_cut_point",
    "find_turn_start",
    "plan_compaction",
]
