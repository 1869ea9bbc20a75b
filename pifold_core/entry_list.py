"""The transcript's entries, each held whole or by reference (issue 12, memory at scale).

A session of 50,000 entries holds hundreds of megabytes of tool output, almost all of it
folded: the window shows placeholders, not the bytes. So an entry that a fold holds need not
stay in memory. :class:`EntryList` keeps, for every entry, its :class:`EntryFacts` (the id,
kind, call linkage, sizes and digests the indexes and the policy read), and the whole
:class:`~pifold_core.entries.Entry` only while it is needed: entries outside every fold,
and a few recently read ones. A released entry is read back on demand through a loader the
engine installs (the session log's public :meth:`~pifold_core.journal.Journal.read_entry`,
verified against the entry's digest), so reading ``entries[i]`` always gives the exact entry.

Which entries can be released: those whose line in the log is known (the loader reads it).
The loader takes the record from the line as logged, so a tool call's arguments come back in
the key order the provider sent (a canonical record would sort them).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple, overload

from pifold_core.entries import Entry, EntryKind

RECENT_LOADS = 256
"""Released entries kept whole after a read, newest first: a commit or a peek reads a span's
entries several times in a row (brief, source, views), and each read costs a verified
``pread``."""


class EntryFacts(NamedTuple):
    """What the transcript's indexes and the policy need of an entry, without its bytes.

    A named tuple, not a dataclass: a reopen from a checkpoint makes one per folded entry
    (50,000 at 50,000 entries), and a tuple is built four times faster than a frozen
    dataclass, in the same memory."""

    id: str
    """The entry's id."""
    kind: EntryKind
    """``user``, ``assistant``, ``tool_result`` or ``note``."""
    timestamp_ms: int
    """When the host appended it."""
    call_id: str | None
    """For a tool result: the call it answers."""
    tool_name: str | None
    """For a tool result: the tool that produced it."""
    call_ids: tuple[str, ...]
    """For an assistant entry: the ids of its tool calls, in order."""
    size_chars: int
    """:attr:`Entry.size_chars`."""
    digest: str
    """:attr:`Entry.digest`: SHA-256 of its canonical record bytes (what a read verifies)."""
    wire_digest: str
    """:attr:`Entry.wire_digest`."""
    record_length: int
    """Length of its canonical record bytes (a fold's source length needs it)."""
    span: tuple[int, int] | None = None
    """Offset and length of its line in the session log, when known (what a read uses)."""

    @classmethod
    def of(cls, entry: Entry, span: tuple[int, int] | None = None) -> EntryFacts:
        """The facts of a whole entry."""
        return cls(
            id=entry.id,
            kind=entry.kind,
            timestamp_ms=entry.timestamp_ms,
            call_id=entry.call_id,
            tool_name=entry.tool_name,
            call_ids=tuple(call.id for call in entry.tool_calls),
            size_chars=entry.size_chars,
            digest=entry.digest,
            wire_digest=entry.wire_digest,
            record_length=len(entry.record_bytes),
            span=span,
        )

    @property
    def releasable(self) -> bool:
        """Whether the entry can be read back exactly from its log line (see the module)."""
        return self.span is not None


EntryLoader = Callable[[EntryFacts], Entry]
"""Reads a released entry back, verified against its facts; raises when it cannot."""

RecordLoader = Callable[[EntryFacts], bytes]
"""Reads a released entry's canonical record bytes back, verified against its digest (what a
fold's source is hashed from, without rebuilding the entry); raises when it cannot."""


class EntryList(Sequence[Entry]):
    """Entries in transcript order; each either whole in memory or released to its facts."""

    def __init__(self) -> None:
        self._whole: list[Entry | None] = []
        self.facts: list[EntryFacts | None] = []
        """Per entry: its facts once computed (every released entry has them)."""
        self.loader: EntryLoader | None = None
        """How a released entry is read back (the engine installs the log's reader)."""
        self.record_loader: RecordLoader | None = None
        """How a released entry's record bytes are read back (the engine installs it)."""
        self._recent: OrderedDict[int, Entry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._whole)

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> list[Entry]: ...

    def __getitem__(self, index: int | slice) -> Entry | list[Entry]:
        if isinstance(index, slice):
            return [self._entry(position) for position in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"entry index {index} out of range")
        return self._entry(index)

    def __iter__(self) -> Iterator[Entry]:
        for position in range(len(self)):
            yield self._entry(position)

    def _entry(self, index: int) -> Entry:
        whole = self._whole[index]
        if whole is not None:
            return whole
        # Taken out and put back rather than looked up and moved: the fold editor's pane
        # peeks from a worker thread, and another thread may evict the entry in between.
        recent = self._recent.pop(index, None)
        if recent is not None:
            self._recent[index] = recent
            return recent
        facts = self.facts[index]
        if facts is None or self.loader is None:
            raise LookupError(f"entry {index} was released and no loader can read it back")
        entry = self.loader(facts)
        self._recent[index] = entry
        if len(self._recent) > RECENT_LOADS:
            self._recent.popitem(last=False)
        return entry

    def facts_of(self, index: int) -> EntryFacts:
        """Entry ``index``'s facts, computed from the whole entry when not kept yet."""
        facts = self.facts[index]
        if facts is None:
            whole = self._whole[index]
            assert whole is not None  # a released entry always has its facts
            facts = EntryFacts.of(whole)
            self.facts[index] = facts
        return facts

    def is_whole(self, index: int) -> bool:
        """Whether entry ``index`` is held in memory (not released)."""
        return self._whole[index] is not None

    def held_whole(self) -> int:
        """How many entries are held in memory (not released): what the memory bound is
        stated in (the window's raw entries, the fresh tail, and what no fold holds)."""
        return sum(1 for whole in self._whole if whole is not None)

    def record_bytes(self, index: int) -> bytes:
        """Entry ``index``'s canonical record bytes (:attr:`Entry.record_bytes`).

        A released entry's are read back through :attr:`record_loader` (one verified read
        of its line, no entry rebuilt, nothing kept: a consolidated fold reads each of its
        entries once, to hash its source); a recently read one is taken from memory.
        """
        whole = self._whole[index]
        if whole is None:
            whole = self._recent.get(index)
        if whole is not None:
            return whole.record_bytes
        facts = self.facts[index]
        if facts is None or self.record_loader is None:
            raise LookupError(f"entry {index} was released and no loader can read it back")
        return self.record_loader(facts)

    # -- changes ---------------------------------------------------------------------------

    def append(self, entry: Entry) -> None:
        self._whole.append(entry)
        self.facts.append(None)

    def append_released(self, facts: EntryFacts) -> None:
        """Append an entry known only by its facts (a checkpoint's folded entry)."""
        self._whole.append(None)
        self.facts.append(facts)

    def source_digest(self, start: int, end: int) -> tuple[str, int]:
        """SHA-256 and length of the fold source of ``[start, end)`` (the canonical JSON
        list of the records, :func:`pifold_core.folds.source_of`), hashed one record at a
        time: neither the source nor a released entry is ever held whole for it."""
        hasher = hashlib.sha256(b"[")
        # The brackets and a comma between each two records.
        length = 2 + (end - start - 1)
        for index in range(start, end):
            if index > start:
                hasher.update(b",")
            data = self.record_bytes(index)
            hasher.update(data)
            length += len(data)
        hasher.update(b"]")
        return hasher.hexdigest(), length

    def release(self, index: int, span: tuple[int, int]) -> bool:
        """Let entry ``index`` go, keeping its facts and ``span`` (its line in the log,
        durable: a fold that holds it has landed); ``False`` when it was released already.

        Its bytes are read back on demand from then on (:meth:`__getitem__`,
        :meth:`record_bytes`), verified against the digest kept in its facts.
        """
        whole = self._whole[index]
        if whole is None:
            return False
        self.facts[index] = EntryFacts.of(whole, span)
        self._whole[index] = None
        return True

    def pop(self) -> Entry:
        """Take the last entry back (an append whose log write failed)."""
        entry = self._entry(len(self) - 1)
        self._whole.pop()
        self.facts.pop()
        self._recent.pop(len(self._whole), None)
        return entry


__all__ = ["RECENT_LOADS", "EntryFacts", "EntryList", "EntryLoader", "RecordLoader"]
