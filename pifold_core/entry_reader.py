"""Reading a released entry back from its line in the session log (issue 12, memory).

The loader :class:`~pifold_core.entry_list.EntryList` calls for an entry it let go: the log's
public :meth:`~pifold_core.journal.Journal.read_entry` reads the line with ``pread`` and
verifies it (checksum, kind, the record's SHA-256 against the entry's digest), and the entry
rebuilt from it must send the same wire bytes as the one that was appended. Any mismatch is a
:class:`~pifold_core.store.StoreObjectCorrupt` naming the entry, never other bytes.
"""

from __future__ import annotations

from pifold_core.canonical import parse_json
from pifold_core.entries import Entry
from pifold_core.entry_list import EntryFacts
from pifold_core.journal import Journal, LogEntryDamaged, LogSpan
from pifold_core.store import StoreObjectCorrupt


def read_released_entry(journal: Journal, facts: EntryFacts) -> Entry:
    """The entry ``facts`` describe, read back from ``journal`` and verified.

    Raises:
        StoreObjectCorrupt: its line is unknown or no longer holds that entry, byte for byte.
    """
    if facts.span is None:
        raise StoreObjectCorrupt(f"entry {facts.id} has no known log line", facts.digest)
    try:
        data = journal.read_entry(LogSpan(*facts.span), facts.digest)
    except LogEntryDamaged as error:
        raise StoreObjectCorrupt(str(error), facts.digest) from None
    record = parse_json(data)
    if not isinstance(record, dict):
        raise StoreObjectCorrupt(f"entry {facts.id}: its log line holds none", facts.digest)
    entry = Entry.from_record(record)
    if entry.wire_digest != facts.wire_digest:
        raise StoreObjectCorrupt(
            f"entry {facts.id} read back from the log sends other bytes", facts.digest
        )
    return entry


__all__ = ["read_released_entry"]
