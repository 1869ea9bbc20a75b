"""The append-only transcript and its units: tool batches, closed units, chapters, fresh tail.

DESIGN §2. Every structure here is maintained incrementally, so appending an entry costs
work proportional to the entry, never to the length of the session.

* A **unit** is the smallest thing a span fold may start or stop at: one tool batch (an
  assistant message that calls tools plus the results that follow it), or any other single
  entry.
* A unit is **sealed** once an entry that cannot belong to it arrives, and **closed** once it
  is sealed and a later assistant message exists (the model has moved past it).
* A **chapter** starts at each user message.
* The **fresh tail** starts at the newest closed unit: it and everything after it (the
  current, unfinished batch included) is never folded automatically.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from pifold_core.entries import Entry
from pifold_core.entry_list import EntryFacts, EntryList
from pifold_core.journal import LogSpan


class TranscriptError(ValueError):
    """An entry cannot be appended (duplicate id, ...); nothing was changed."""


@dataclass(slots=True)
class Unit:
    """One tool batch or one single entry."""

    start: int
    """Index of the unit's first entry."""
    end: int
    """Index one past its last entry."""
    chapter: int
    """Index of the chapter the unit belongs to."""
    pending_calls: set[str] = field(default_factory=set)
    """Call ids of a batch whose results have not landed yet."""
    sealed: bool = False
    """No further entry can join this unit."""
    closed: bool = False
    """Sealed, and a later assistant message exists."""

    @property
    def is_batch(self) -> bool:
        return self.end - self.start > 1 or bool(self.pending_calls)


class Transcript:
    """Entries in order, with the unit structure kept up to date on every append."""

    def __init__(self) -> None:
        self.entries = EntryList()
        """Every entry, in the order the host appended them; a folded one may be held by
        reference only and is read back on access (:mod:`pifold_core.entry_list`)."""
        self.index_of: dict[str, int] = {}
        """Entry id to position."""
        self.units: list[Unit] = []
        """Units in order; they tile the transcript."""
        self.unit_of: list[int] = []
        """For each entry, the index of its unit."""
        self.chapter_starts: list[int] = []
        """Entry index of every user message."""
        self.call_site: dict[str, int] = {}
        """Call id to the index of the assistant entry that made the call."""
        self.result_sites: dict[str, list[int]] = {}
        """Call id to the indices of the results answering it."""
        self.closed_through: int = 0
        """Units before this index are all closed."""
        self._undo: tuple[int, bool] | None = None
        """What :meth:`undo_append` needs: ``closed_through`` and whether the last unit was
        sealed, as they were before the latest append."""

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __getitem__(self, index: int) -> Entry:
        return self.entries[index]

    def check_append(self, entry: Entry) -> None:
        """Raise :class:`TranscriptError` if ``entry`` cannot be appended."""
        if entry.id in self.index_of:
            raise TranscriptError(f"entry id {entry.id!r} is already in the transcript")
        if entry.kind == "assistant":
            for call in entry.tool_calls:
                if call.id in self.call_site:
                    raise TranscriptError(
                        f"assistant {entry.id}: tool call id {call.id!r} was already used"
                    )

    def append(self, entry: Entry) -> None:
        """Append one entry and update units, chapters and closure."""
        self.check_append(entry)
        index = len(self.entries)
        self._undo = (self.closed_through, bool(self.units) and self.units[-1].sealed)
        self.entries.append(entry)
        self.index_of[entry.id] = index
        if entry.kind == "user":
            self.chapter_starts.append(index)
        chapter = len(self.chapter_starts) - 1

        last = self.units[-1] if self.units else None
        joins_batch = (
            last is not None
            and not last.sealed
            and entry.kind == "tool_result"
            and entry.call_id in last.pending_calls
        )
        if joins_batch and last is not None:
            last.end = index + 1
            last.pending_calls.discard(str(entry.call_id))
        else:
            if last is not None:
                last.sealed = True
            unit = Unit(start=index, end=index + 1, chapter=chapter)
            if entry.kind == "assistant":
                unit.pending_calls = {call.id for call in entry.tool_calls}
            self.units.append(unit)
        self.unit_of.append(len(self.units) - 1)

        if entry.kind == "assistant":
            for call in entry.tool_calls:
                self.call_site[call.id] = index
            self._close_units_before(len(self.units) - 1)
        elif entry.kind == "tool_result" and entry.call_id is not None:
            self.result_sites.setdefault(entry.call_id, []).append(index)

    def undo_append(self) -> Entry:
        """Take back the latest :meth:`append` exactly (its log write failed); once only."""
        if self._undo is None or not self.entries:
            raise TranscriptError("there is no append to undo")
        closed_through, was_sealed = self._undo
        self._undo = None
        entry = self.entries.pop()
        index = len(self.entries)
        del self.index_of[entry.id]
        unit = self.units[self.unit_of.pop()]
        if unit.start == index:
            self.units.pop()
            if self.units:
                self.units[-1].sealed = was_sealed
        else:
            unit.end = index
            unit.pending_calls.add(str(entry.call_id))
        if entry.kind == "user":
            self.chapter_starts.pop()
        if entry.kind == "assistant":
            for call in entry.tool_calls:
                del self.call_site[call.id]
        elif entry.kind == "tool_result" and entry.call_id is not None:
            sites = self.result_sites[entry.call_id]
            sites.pop()
            if not sites:
                del self.result_sites[entry.call_id]
        for position in range(closed_through, self.closed_through):
            self.units[position].closed = False
        self.closed_through = closed_through
        return entry

    def _close_units_before(self, limit: int) -> None:
        """A new assistant message closes every sealed unit before it."""
        position = self.closed_through
        while position < limit and self.units[position].sealed:
            self.units[position].closed = True
            position += 1
        self.closed_through = position

    # -- derived positions ----------------------------------------------------------------

    @property
    def fresh_start(self) -> int:
        """Entry index where the fresh tail begins (DESIGN §2).

        The newest closed unit and everything after it stay raw during automatic folding.
        """
        if self.closed_through == 0:
            return 0
        return self.units[self.closed_through - 1].start

    @property
    def eligible_units(self) -> int:
        """Units before this index are closed and outside the fresh tail."""
        return max(0, self.closed_through - 1)

    def chapter_of(self, index: int) -> int:
        """Chapter number of entry ``index`` (-1 before the first user message)."""
        return bisect.bisect_right(self.chapter_starts, index) - 1

    def unit_aligned(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` starts and ends on unit boundaries."""
        if not 0 <= start < end <= len(self.entries):
            return False
        first = self.units[self.unit_of[start]]
        last = self.units[self.unit_of[end - 1]]
        return first.start == start and last.end == end

    def split_call(self, start: int, end: int) -> str | None:
        """The first call id that ``[start, end)`` would separate from a result, if any.

        Read from the indexes and the entries' facts, so a span of released entries is
        checked without reading any of them back."""
        return self.split_call_among(range(start, end), start, end)

    def split_call_among(self, indices: Iterable[int], start: int, end: int) -> str | None:
        """:meth:`split_call` of ``[start, end)``, looking only at the entries ``indices``:
        the caller knows the others cannot link outside (they lie in folds that keep every
        call with its results), so the check follows the entries named, not the span."""
        for index in indices:
            for call_id in self._call_ids(index):
                for site in self.result_sites.get(call_id, ()):
                    if not start <= site < end:
                        return call_id
            answered = self._answered_call(index)
            if answered is not None:
                call_site = self.call_site.get(answered)
                if call_site is not None and not start <= call_site < end:
                    return answered
        return None

    def call_ids(self, index: int) -> tuple[str, ...]:
        """The ids of entry ``index``'s tool calls, without reading a released entry back."""
        return self._call_ids(index)

    def _call_ids(self, index: int) -> tuple[str, ...]:
        if self.entries.is_whole(index):
            return tuple(call.id for call in self.entries[index].tool_calls)
        return self.entries.facts_of(index).call_ids

    def _answered_call(self, index: int) -> str | None:
        if self.entries.is_whole(index):
            entry = self.entries[index]
            return entry.call_id if entry.kind == "tool_result" else None
        facts = self.entries.facts_of(index)
        return facts.call_id if facts.kind == "tool_result" else None

    def size_chars(self, start: int, end: int) -> int:
        """Characters of content in ``[start, end)``."""
        entries = self.entries
        return sum(
            entries[index].size_chars
            if entries.is_whole(index)
            else entries.facts_of(index).size_chars
            for index in range(start, end)
        )

    def kind_of(self, index: int) -> str:
        """Entry ``index``'s kind, without reading a released entry back."""
        if self.entries.is_whole(index):
            return self.entries[index].kind
        return self.entries.facts_of(index).kind

    def id_of(self, index: int) -> str:
        """Entry ``index``'s id, without reading a released entry back."""
        if self.entries.is_whole(index):
            return self.entries[index].id
        return self.entries.facts_of(index).id

    def release_span(self, start: int, end: int, lines: Mapping[str, LogSpan]) -> int:
        """Let the entries of ``[start, end)`` go from memory, each whose log line ``lines``
        knows (by entry id); the count released.

        Called for a fold once it has landed: the window shows its placeholder, and what
        the indexes and the policy read stays in each entry's facts. Work follows the span.
        """
        released = 0
        for index in range(start, end):
            if not self.entries.is_whole(index):
                continue
            line = lines.get(self.entries[index].id)
            if line is not None and self.entries.release(index, (line.offset, line.length)):
                released += 1
        return released

    def results_of_tools(self, names: frozenset[str] | set[str]) -> list[int]:
        """Indices of the tool results of the tools ``names``, in order (from the facts of a
        released entry, so nothing is read back)."""
        if not names:
            return []
        found: list[int] = []
        for index in range(len(self.entries)):
            if self.entries.is_whole(index):
                entry = self.entries[index]
                kind, tool = entry.kind, entry.tool_name
            else:
                facts = self.entries.facts_of(index)
                kind, tool = facts.kind, facts.tool_name
            if kind == "tool_result" and tool in names:
                found.append(index)
        return found

    # -- restoring from a checkpoint ----------------------------------------------------------

    def restore(
        self, entries: list[Entry | EntryFacts], units: list[Unit], closed_through: int
    ) -> None:
        """Take the state a checkpoint kept (:mod:`pifold_core.checkpoint`) into this
        empty transcript: the entries (whole, or released to their facts), the units as they
        stood and the closure; the indexes are derived from them."""
        if self.entries or self.units:
            raise TranscriptError("a transcript is restored only when empty")
        for index, item in enumerate(entries):
            if isinstance(item, Entry):
                self.entries.append(item)
                facts = None
            else:
                self.entries.append_released(item)
                facts = item
            identifier = item.id
            kind = item.kind
            self.index_of[identifier] = index
            if kind == "user":
                self.chapter_starts.append(index)
            call_ids = facts.call_ids if facts is not None else self._call_ids(index)
            for call_id in call_ids:
                self.call_site[call_id] = index
            answered = facts.call_id if facts is not None else self._answered_call(index)
            if kind == "tool_result" and answered is not None:
                self.result_sites.setdefault(answered, []).append(index)
        self.units = units
        self.unit_of = [0] * len(entries)
        for position, unit in enumerate(units):
            self.unit_of[unit.start : unit.end] = [position] * (unit.end - unit.start)
        self.closed_through = closed_through
