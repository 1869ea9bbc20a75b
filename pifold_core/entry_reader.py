"""Reading a released entry back from its line in the session log (issue 12, memory).

The loader :class:`~pifold_core.entry_list.EntryList` calls for an entry it let go: its line
is read with ``pread`` and verified as the log's own reader does
(:func:`~pifold_core.journal.parse_line`: JSON, checksum), it must be an entry record, and
the entry rebuilt from it must hash to the entry's digest and send the same wire bytes as
the one that was appended. Any mismatch is a :class:`~pifold_core.store.StoreObjectCorrupt`
naming the entry, never other bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from pifold_core.entries import Entry
from pifold_core.entry_list import EntryFacts, EntryList
from pifold_core.journal import Journal, LogEntryDamaged, LogSpan, parse_line
from pifold_core.store import StoreObjectCorrupt


def read_released_entry(journal: Journal, facts: EntryFacts) -> Entry:
    """The entry ``facts`` describe, read back from ``journal`` and verified.

    The record is taken from the line as the log wrote it (wire form: a tool call's
    arguments keep the key order the provider sent, which a canonical record would sort),
    after the line's checksum is verified; the entry rebuilt from it must hash to the
    entry's digest and send the same wire bytes.

    Raises:
        StoreObjectCorrupt: its line is unknown or no longer holds that entry, byte for byte.
    """
    if facts.span is None:
        raise StoreObjectCorrupt(f"entry {facts.id} has no known log line", facts.digest)
    span = LogSpan(*facts.span)
    try:
        descriptor = os.open(journal.path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            data = os.pread(descriptor, span.length + 1, span.offset)
        finally:
            os.close(descriptor)
    except OSError as error:
        raise StoreObjectCorrupt(f"entry {facts.id}: {error}", facts.digest) from None
    record = parse_line(data[:-1]) if data.endswith(b"\n") else None
    body = record.body.get("record") if record is not None and record.kind == "entry" else None
    if len(data) != span.length + 1 or not isinstance(body, dict):
        raise StoreObjectCorrupt(
            f"entry {facts.id}: {span.describe()} is not its sound log line", facts.digest
        )
    entry = Entry.from_record(body)
    if entry.digest != facts.digest or entry.wire_digest != facts.wire_digest:
        raise StoreObjectCorrupt(
            f"entry {facts.id}: {span.describe()} holds another entry than the one appended",
            facts.digest,
        )
    return entry


def read_released_record(journal: Journal, facts: EntryFacts) -> bytes:
    """The canonical record bytes of the entry ``facts`` describe, read back from its line in
    ``journal`` and verified against its digest (:meth:`Journal.read_entry`).

    What hashing a fold's source needs of a released entry: its bytes, not the entry, so no
    entry is rebuilt (a consolidated fold reads each entry it spans this way, once).

    Raises:
        StoreObjectCorrupt: its line is unknown, unreadable or no longer holds that entry.
    """
    if facts.span is None:
        raise StoreObjectCorrupt(f"entry {facts.id} has no known log line", facts.digest)
    try:
        return journal.read_entry(LogSpan(*facts.span), facts.digest)
    except (LogEntryDamaged, OSError) as error:
        raise StoreObjectCorrupt(f"entry {facts.id}: {error}", facts.digest) from None


def attach_readers(entries: EntryList, journal: Callable[[], Journal]) -> None:
    """Install both readers on ``entries``, each reading the session log ``journal()``
    names at the time of the read (an engine attaches its log after it is made)."""
    entries.loader = lambda facts: read_released_entry(journal(), facts)
    entries.record_loader = lambda facts: read_released_record(journal(), facts)


__all__ = ["attach_readers", "read_released_entry", "read_released_record"]
