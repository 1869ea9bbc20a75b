"""The checkpoint's body, compressed piece by piece so a write costs what changed (issue 12).

A checkpoint's state (:mod:`pifold_core.checkpoint_state`) is mostly three lists that only
grow: the entries (a folded one kept as its facts), the folds (each with its brief) and the
units (since issue 23: at 50,000 entries encoding 33,000 units whole was a fifth of a write).
Encoding and compressing them whole made every write cost time proportional to the
session: at 50,000 entries about a second, added to the commit that wrote it. Yet an entry
released to its facts never changes again, and neither does a fold record. So the lists are
cut into chunks (:data:`ENTRY_CHUNK` entries or units, :data:`FOLD_CHUNK` folds), and a
chunk whose members are all final (released entries, closed units, any fold) is encoded and
compressed once and its compressed bytes reused by every later write; only the open chunks
and the rest of the state are encoded again.

How compressed pieces can be joined: the body is a raw DEFLATE stream (format 3 of
:mod:`pifold_core.checkpoint`). Each piece comes from its own compressor, flushed with
``Z_FULL_FLUSH``: it ends on a byte boundary and none of its back-references reach before
its own start, so pieces laid end to end, closed by one empty final block, are one valid
stream whose text is the pieces' texts in order. The body's SHA-256, in the header, covers
the joined bytes as before.

What is kept, and its bound: each cached chunk's compressed bytes and the identity of the
objects it encoded (to know the chunk is still the same). That is the compressed body's own
size at most (12 MB for a 50,000-entry session, about 6 % of its raw bytes), the price of
not re-encoding 35 µs of state per entry at every write.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from pifold_core.canonical import wire_bytes
from pifold_core.checkpoint_state import capture_rest, entry_state, fold_state, unit_state

if TYPE_CHECKING:
    from pifold_core.entry_list import EntryFacts
    from pifold_core.folds import Fold
    from pifold_core.session_state import SessionState
    from pifold_core.transcript import Unit

ENTRY_CHUNK = 1_024
"""Entries per cached chunk: small enough that the open chunk re-encoded at each write is
cheap (about 20 ms), large enough that the chunks' bookkeeping is negligible."""
FOLD_CHUNK = 256
"""Folds per cached chunk (a fold record, brief included, is about six entries' facts)."""
COMPRESSION_LEVEL = 1
"""zlib's fastest level: most of the size gained at a fraction of level 6's time."""
RAW_DEFLATE = -15
"""``wbits`` for a raw DEFLATE stream (no zlib header or checksum: the SHA-256 covers it)."""


def _deflate(text: bytes) -> bytes:
    """``text`` as DEFLATE blocks that end on a byte boundary and stand alone."""
    compressor = zlib.compressobj(COMPRESSION_LEVEL, zlib.DEFLATED, RAW_DEFLATE)
    return compressor.compress(text) + compressor.flush(zlib.Z_FULL_FLUSH)


def _final_block() -> bytes:
    return zlib.compressobj(COMPRESSION_LEVEL, zlib.DEFLATED, RAW_DEFLATE).flush(zlib.Z_FINISH)


def inflate(body: bytes) -> bytes:
    """The text of a raw DEFLATE body.

    Raises:
        zlib.error: it does not decompress, ends before its final block, or has bytes after.
    """
    decompressor = zlib.decompressobj(RAW_DEFLATE)
    text = decompressor.decompress(body)
    if not decompressor.eof or decompressor.unused_data:
        raise zlib.error("the body does not end with its final block")
    return text


class CheckpointBody:
    """Builds checkpoint bodies for one session, reusing the chunks that cannot change."""

    def __init__(self, entry_chunk: int = ENTRY_CHUNK, fold_chunk: int = FOLD_CHUNK) -> None:
        if entry_chunk < 1 or fold_chunk < 1:
            raise ValueError(f"chunk sizes must be positive, got {entry_chunk}, {fold_chunk}")
        self.entry_chunk = entry_chunk
        """Entries per chunk (:data:`ENTRY_CHUNK`; smaller in tests, to reuse chunks)."""
        self.fold_chunk = fold_chunk
        """Folds per chunk (:data:`FOLD_CHUNK`)."""
        self.unit_chunk = entry_chunk
        """Units per chunk (as many as entries: a unit is about an entry's size here)."""
        self._entries: dict[int, tuple[tuple[EntryFacts | None, ...], bytes]] = {}
        self._folds: dict[int, tuple[tuple[Fold, ...], bytes]] = {}
        self._units: dict[int, tuple[tuple[Unit, ...], bytes]] = {}
        self.reused = 0
        """Chunks taken from the cache by the latest :meth:`build` (for tests and the bench)."""

    def build(self, state: SessionState) -> bytes:
        """The compressed body of ``state`` as of now (see the module)."""
        self.reused = 0
        pieces: list[bytes] = []
        fresh: list[bytes] = [b'{"entries":[']
        for chunk in range(-(-len(state.transcript) // self.entry_chunk)):
            self._add(pieces, fresh, self._entry_chunk(state, chunk))
        fresh.append(b'],"folds":[')
        folds = list(state.forest.folds.values())
        for chunk in range(-(-len(folds) // self.fold_chunk)):
            self._add(pieces, fresh, self._fold_chunk(folds, chunk))
        fresh.append(b'],"units":[')
        units = state.transcript.units
        for chunk in range(-(-len(units) // self.unit_chunk)):
            self._add(pieces, fresh, self._unit_chunk(units, chunk))
        rest = wire_bytes(capture_rest(state))
        fresh.append(b"]," + rest[1:])
        pieces.append(_deflate(b"".join(fresh)))
        pieces.append(_final_block())
        return b"".join(pieces)

    def _add(self, pieces: list[bytes], fresh: list[bytes], chunk: tuple[bool, bytes]) -> None:
        compressed, data = chunk
        if not compressed:
            fresh.append(data)
            return
        self.reused += 1
        if fresh:
            pieces.append(_deflate(b"".join(fresh)))
            fresh.clear()
        pieces.append(data)

    def _entry_chunk(self, state: SessionState, chunk: int) -> tuple[bool, bytes]:
        """Chunk ``chunk`` of the entries: ``(True, compressed)`` when final, else its text."""
        entries = state.transcript.entries
        size = self.entry_chunk
        start, end = chunk * size, min(len(entries), (chunk + 1) * size)
        facts = tuple(entries.facts[start:end])
        cached = self._entries.get(chunk)
        if cached is not None and _same(cached[0], facts):
            return True, cached[1]
        spans = state.journal.entry_spans
        text = (b"," if chunk else b"") + b",".join(
            wire_bytes(entry_state(state, index, spans)) for index in range(start, end)
        )
        # Final: a full chunk of released entries (released ones are never held again).
        if end - start == size and not any(entries.is_whole(i) for i in range(start, end)):
            compressed = _deflate(text)
            self._entries[chunk] = (facts, compressed)
            return True, compressed
        return False, text

    def _unit_chunk(self, units: list[Unit], chunk: int) -> tuple[bool, bytes]:
        """Chunk ``chunk`` of the units, as :meth:`_entry_chunk`: final once every unit in
        it is closed (a closed unit never changes again; an append taken back reopens only
        units its own append closed, which no final chunk holds)."""
        size = self.unit_chunk
        group = tuple(units[chunk * size : (chunk + 1) * size])
        cached = self._units.get(chunk)
        if cached is not None and _same(cached[0], group):
            return True, cached[1]
        text = (b"," if chunk else b"") + b",".join(wire_bytes(unit_state(u)) for u in group)
        if len(group) == size and all(unit.closed for unit in group):
            compressed = _deflate(text)
            self._units[chunk] = (group, compressed)
            return True, compressed
        return False, text

    def _fold_chunk(self, folds: list[Fold], chunk: int) -> tuple[bool, bytes]:
        """Chunk ``chunk`` of the fold records, as :meth:`_entry_chunk`."""
        size = self.fold_chunk
        group = tuple(folds[chunk * size : (chunk + 1) * size])
        cached = self._folds.get(chunk)
        if cached is not None and _same(cached[0], group):
            return True, cached[1]
        text = (b"," if chunk else b"") + b",".join(wire_bytes(fold_state(f)) for f in group)
        if len(group) == size:
            compressed = _deflate(text)
            self._folds[chunk] = (group, compressed)
            return True, compressed
        return False, text


def _same(kept: tuple[object, ...], now: tuple[object, ...]) -> bool:
    """Whether a chunk holds the very objects it held when cached (a fold record, an
    entry's facts or a closed unit is final: the same object encodes the same). Tuple
    equality tries each pair's identity first, in C: a Python loop over every cached
    chunk's members was half of a write at 50,000 entries."""
    return kept == now


__all__ = ["ENTRY_CHUNK", "FOLD_CHUNK", "CheckpointBody", "inflate"]
