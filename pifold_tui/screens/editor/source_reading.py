"""What the side pane reads, in its worker thread: one verified slice of a row's source.

The exact form reads only the slice shown (:meth:`Engine.peek_range`): of a fold, the parts
the four kilobytes overlap, each verified against its digest, so the first slice of a
2,000-entry fold reads a handful of entries instead of all of them (issue 23). The readable
form indents the whole source, so it reads it all, in chunks of the same bounded peek.

**Sharing the interpreter.** The worker and the UI thread take turns at one interpreter
lock. Work in Python code hands it over every few milliseconds, but a C call that holds it
(parsing or indenting a whole source's JSON at once) keeps a key waiting until it returns.
So the readable form is read a chunk at a time and parsed and indented a record at a time,
the worker sleeping briefly between them (:data:`TURN_SECONDS`) and stopping as soon as its
load is superseded (``wanted`` turns false), never finishing work no one will see.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from pifold_core.engine import Engine

SLICE_BYTES = 4 * 1024
"""Bytes (or, in the readable form, characters) shown at once: large sources page, and a
slice highlights in a few milliseconds."""

CHUNK_BYTES = 64 * 1024
"""Bytes of a source the readable form reads per bounded peek, yielding between chunks."""

RECORDS_PER_TURN = 4
"""Records the readable form indents between two turns given to the UI thread."""

TURN_SECONDS = 0.001
"""How long the worker sleeps at each turn. A bare ``sleep(0)`` hands the lock over only if
the UI thread is already waiting for it; a millisecond lets a key that arrives meanwhile run
alone. Measured at 3,000 entries, both variants in one run under load: a key's UI-thread CPU
while the readable form of a 2,000-entry fold loads, p99 14.8 ms with ``sleep(0)`` every 16
records, 9.6 ms with this (idle: 8.6 and 11.5); the read takes longer in wall time, not CPU."""


class Superseded(Exception):
    """The load this read was for is no longer wanted (a newer rest, page or form)."""


@dataclass(frozen=True, slots=True)
class SourceSlice:
    """One slice of a verified source, ready to show."""

    identifier: str
    """The entry id or fold handle peeked."""
    text: str
    """The slice as text."""
    offset: int
    """Where the slice starts: a byte offset (exact) or a character offset (readable)."""
    total: int
    """Size of the whole source in the same unit."""
    digest: str
    """The digest the slice was verified against (:attr:`pifold_core.fold_range.SourceRange.
    digest`: a fold's own, or the SHA-256 of the whole source)."""
    readable: bool
    """Indented JSON rather than the exact bytes."""
    end: int
    """Where the slice ends, in the same unit as :attr:`offset`."""
    entries_read: int = 1
    """Entries whose bytes were read and verified for it."""
    entries_total: int = 1
    """Entries the source holds."""

    @property
    def header(self) -> str:
        unit = "characters" if self.readable else "bytes"
        form = "readable form (v: exact bytes)" if self.readable else "exact bytes (v: readable)"
        span = f"{unit} {self.offset:,}–{self.end:,} of {self.total:,}"
        paging = "  [ ] page" if self.total > SLICE_BYTES else ""
        verified = f"sha256 {self.digest[:16]}… verified"
        if self.entries_read < self.entries_total:
            # Only the parts under the slice were read, each checked against its digest.
            verified += f" ({self.entries_read:,} of {self.entries_total:,} entries read)"
        return f"{self.identifier} · {verified} · {span} · {form}{paging}"


def always() -> bool:
    """A read no one supersedes."""
    return True


def read_slice(
    engine: Engine,
    identifier: str,
    offset: int,
    readable: bool,
    wanted: Callable[[], bool] = always,
) -> SourceSlice:
    """The slice of ``identifier``'s source at ``offset``; raises what :meth:`Engine.peek`
    does, or :class:`Superseded` once ``wanted()`` is false (checked between chunks)."""
    if not readable:
        found = engine.peek_range(identifier, offset, SLICE_BYTES)
        front, back = whole_characters(found.data, offset, found.total_bytes)
        # A slice shows whole characters only: one cut at its end is left to the next slice,
        # which starts where this one ends, so scrolling on joins them without a seam.
        data = found.data[front : len(found.data) - back]
        text = data.decode("utf-8", errors="replace")
        end = offset + front + len(data)
        return SourceSlice(
            identifier,
            text,
            offset + front,
            found.total_bytes,
            found.digest,
            False,
            end,
            found.entries_read,
            found.entries_total,
        )
    source, digest, entries = read_whole(engine, identifier, wanted)
    pretty = indented(source, wanted)
    text = pretty[offset : offset + SLICE_BYTES]
    return SourceSlice(
        identifier, text, offset, len(pretty), digest, True, offset + len(text), entries, entries
    )


def whole_characters(data: bytes, offset: int, total: int) -> tuple[int, int]:
    """How many bytes to skip at the front of ``data`` (the source's bytes from ``offset``)
    and to leave off its end so that it holds whole UTF-8 characters: a slice's edges are
    byte offsets, and a character of two to four bytes may straddle one. The source's own
    first and last bytes are never cut."""
    front = 0
    if offset > 0:
        while front < min(3, len(data)) and data[front] & 0xC0 == 0x80:  # a continuation byte
            front += 1
    back = 0
    if offset + len(data) < total:
        last = len(data) - 1
        while last > front and len(data) - last < 4 and data[last] & 0xC0 == 0x80:
            last -= 1
        lead = data[last] if last >= front and data else 0
        needed = 4 if lead >= 0xF0 else 3 if lead >= 0xE0 else 2 if lead >= 0xC0 else 1
        if len(data) - last < needed:
            back = len(data) - last
    return front, back


def read_whole(
    engine: Engine, identifier: str, wanted: Callable[[], bool]
) -> tuple[bytes, str, int]:
    """The whole verified source, its digest and its entry count, read a chunk at a time."""
    first = engine.peek_range(identifier, 0, CHUNK_BYTES)
    pieces, offset = [first.data], len(first.data)
    while offset < first.total_bytes:
        give_way(wanted)
        found = engine.peek_range(identifier, offset, CHUNK_BYTES)
        pieces.append(found.data)
        offset += len(found.data)
    return b"".join(pieces), first.digest, first.entries_total


def indented(source: bytes, wanted: Callable[[], bool]) -> str:
    """``json.dumps(json.loads(source), indent=2, ensure_ascii=False)``, a record at a time
    when the source is a list (a fold's is), yielding between records."""
    text = source.decode("utf-8")
    if not text.startswith("[") or text == "[]":
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    decoder = json.JSONDecoder()
    records: list[str] = []
    position = 1
    try:
        while True:
            value, position = decoder.raw_decode(text, position)
            # An element one level down: its own indented form, each line two spaces further
            # in (a JSON string never holds a raw newline: every newline is a line break).
            element = json.dumps(value, indent=2, ensure_ascii=False)
            records.append("  " + element.replace("\n", "\n  "))
            if text[position] == "]" and position == len(text) - 1:
                break
            if text[position] != ",":
                raise ValueError("not a canonical list")
            position += 1
            if len(records) % RECORDS_PER_TURN == 0:
                give_way(wanted)
    except (ValueError, IndexError):
        # Not the canonical list a fold's source is: indent it whole, or fail as that fails.
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    return "[\n" + ",\n".join(records) + "\n]"


def give_way(wanted: Callable[[], bool]) -> None:
    """Let the UI thread take the interpreter, and stop if the load is superseded."""
    time.sleep(TURN_SECONDS)
    if not wanted():
        raise Superseded


__all__ = ["SLICE_BYTES", "SourceSlice", "Superseded", "indented", "read_slice"]
