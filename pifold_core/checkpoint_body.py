"""The checkpoint's body, compressed piece by piece so a write costs what changed (issues 12, 23).

A checkpoint's state (:mod:`pifold_core.checkpoint_state`) is mostly four lists that only
grow: the entries (a folded one kept as its facts), the folds (each with its brief), the
transcript's units and the commit history. Encoding and compressing them whole made every
write cost time proportional to the session: at 50,000 entries about a second, added to the
commit that wrote it. Yet an entry released to its facts never changes again, and neither
does a fold record, a closed unit or a commit's view. So each list is cut into chunks
(:class:`ChunkedList`), and a chunk whose members are all final is encoded and compressed
once and its compressed bytes reused by every later write; only the open chunks and the rest
of the state are encoded again.

**Settled as the session goes, not at the write** (issue 23). Caching alone still left a
write to encode every chunk that became final since the previous write, and the log bytes
appended since then to hash: both grow with the interval between writes, which is a share of
the log, so the commit that wrote a checkpoint grew with the session (335 ms CPU at 50,000
entries, the costliest commits of the session). :meth:`CheckpointBody.settle`, called after
every commit, does that work as it falls due: it encodes at most :data:`SETTLE_CHUNKS` chunks
of each list that became final, and hashes the log up to its end (at most
:data:`SETTLE_LOG_BYTES` at a time). A commit then pays for
what it added, and a write for the open chunks and the rest, whatever the session's length.
What a write still does in proportion to the session is C code over the finished body:
joining it, hashing it (SHA-256) and writing it, about 3 ms a megabyte (12 MB at 50,000
entries).

How compressed pieces can be joined: the body is a raw DEFLATE stream (format 3 of
:mod:`pifold_core.checkpoint`). Each piece comes from its own compressor, flushed with
``Z_FULL_FLUSH``: it ends on a byte boundary and none of its back-references reach before
its own start, so pieces laid end to end, closed by one empty final block, are one valid
stream whose text is the pieces' texts in order. The body's SHA-256, in the header, covers
the joined bytes as before. The body's text is one JSON object; its keys come in the order
the lists are written, which the reader does not depend on.

What is kept, and its bound: each cached chunk's compressed bytes and the identity of the
objects it encoded (to know the chunk is still the same). That is the compressed body's own
size at most (12 MB for a 50,000-entry session, about 6 % of its raw bytes), the price of
not re-encoding 35 µs of state per entry at every write.
"""

from __future__ import annotations

import contextlib
import operator
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Literal

from pifold_core.canonical import JsonValue, wire_bytes
from pifold_core.checkpoint_state import (
    capture_rest,
    commit_view_state,
    entry_state,
    fold_state,
    unit_state,
)

if TYPE_CHECKING:
    from pifold_core.session_state import SessionState

ENTRY_CHUNK = 1_024
"""Entries per cached chunk: small enough that the open chunk re-encoded at each write is
cheap (about 20 ms), large enough that the chunks' bookkeeping is negligible."""
FOLD_CHUNK = 256
"""Folds per cached chunk (a fold record, brief included, is about six entries' facts)."""
UNIT_CHUNK = 1_024
"""Units per cached chunk (a unit is six numbers and flags)."""
COMMIT_CHUNK = 256
"""Commit views per cached chunk."""
SETTLE_CHUNKS = 1
"""Chunks of each list :meth:`CheckpointBody.settle` encodes at most per call. A session adds
far less than one chunk of any list per commit (about 60 entries, 25 folds, 30 units), so
one keeps up; the bound keeps a commit from paying for a backlog at once (a reopened
session's cache starts empty: its chunks are settled one a commit, and a write before they
all are encodes the rest itself)."""
SETTLE_LOG_BYTES = 8 << 20
"""Log bytes :meth:`CheckpointBody.settle` hashes at most per call: far more than a commit
appends (about 0.6 MB at 100,000 tokens of budget), so it keeps up, while a log opened
without a checkpoint (hashed from its start) is caught up a few milliseconds a commit."""
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


Encode = Callable[[int, int], bytes]
"""Members ``[start, end)`` of a list as JSON text, comma-joined."""
Piece = Literal["kept", "late", "open"]
"""What a chunk of a body is (:meth:`ChunkedList.pieces`)."""
Final = Callable[[int, int], bool]
"""Whether members ``[start, end)`` of a list can never change again."""


class ChunkedList:
    """One growing list of the state, cut into chunks of ``size`` members; a full chunk whose
    members are final is encoded and compressed once and kept, with its members' identities
    (a member that is final encodes the same as long as it is the same object)."""

    def __init__(self, size: int) -> None:
        self.size = size
        """Members per chunk."""
        self._kept: dict[int, tuple[tuple[object, ...], bytes]] = {}
        self._seen = 0
        """Full chunks the list had at the latest :meth:`settle`."""
        self._waiting: list[int] = []
        """Full chunks not kept yet, in order: the only ones :meth:`settle` looks at."""

    def settle(self, members: Sequence[object], final: Final, encode: Encode) -> None:
        """Keep up to :data:`SETTLE_CHUNKS` full chunks that became final since last time."""
        full = len(members) // self.size
        self._waiting.extend(range(self._seen, full))
        self._seen = max(self._seen, full)
        settled = 0
        for chunk in list(self._waiting):
            if settled == SETTLE_CHUNKS:
                return
            start, end = chunk * self.size, (chunk + 1) * self.size
            if chunk in self._kept or end > len(members):
                self._waiting.remove(chunk)  # kept by a write meanwhile, or the list shrank
            elif final(start, end):
                self._keep(chunk, members, self._text(chunk, encode))
                settled += 1

    def pieces(
        self, members: Sequence[object], final: Final, encode: Encode
    ) -> Iterator[tuple[Piece, bytes]]:
        """Every chunk in order, with what it is: ``kept`` compressed from before, ``late``
        (final, compressed now: :meth:`settle` had not reached it) or ``open`` (its text)."""
        for chunk in range(-(-len(members) // self.size)):
            start, end = chunk * self.size, min(len(members), (chunk + 1) * self.size)
            kept = self._kept.get(chunk)
            if kept is not None and _same(kept[0], members[start:end]):
                yield "kept", kept[1]
                continue
            text = self._text(chunk, encode)
            if end - start == self.size and final(start, end):
                yield "late", self._keep(chunk, members, text)
            else:
                self._kept.pop(chunk, None)  # members replaced (a reopen's), or not final
                yield "open", text

    @property
    def kept(self) -> int:
        """Chunks kept compressed."""
        return len(self._kept)

    @property
    def waiting(self) -> int:
        """Full chunks :meth:`settle` has not kept yet (open ones, or a backlog)."""
        return len(self._waiting)

    def _text(self, chunk: int, encode: Encode) -> bytes:
        start = chunk * self.size
        return (b"," if chunk else b"") + encode(start, start + self.size)

    def _keep(self, chunk: int, members: Sequence[object], text: bytes) -> bytes:
        start = chunk * self.size
        compressed = _deflate(text)
        self._kept[chunk] = (tuple(members[start : start + self.size]), compressed)
        if chunk in self._waiting:
            self._waiting.remove(chunk)
        return compressed


class CheckpointBody:
    """Builds checkpoint bodies for one session, reusing the chunks that cannot change."""

    def __init__(
        self,
        entry_chunk: int = ENTRY_CHUNK,
        fold_chunk: int = FOLD_CHUNK,
        unit_chunk: int = UNIT_CHUNK,
        commit_chunk: int = COMMIT_CHUNK,
    ) -> None:
        if min(entry_chunk, fold_chunk, unit_chunk, commit_chunk) < 1:
            raise ValueError(
                "chunk sizes must be positive, got "
                f"{entry_chunk}, {fold_chunk}, {unit_chunk}, {commit_chunk}"
            )
        self._lists = {
            "entries": ChunkedList(entry_chunk),
            "folds": ChunkedList(fold_chunk),
            "units": ChunkedList(unit_chunk),
            "commitHistory": ChunkedList(commit_chunk),
        }
        self.reused = 0
        """Chunks taken from the cache by the latest :meth:`build` (for tests and the bench)."""
        self.late = 0
        """Final chunks the latest :meth:`build` encoded itself, :meth:`settle` not having
        reached them (none while it keeps up; a reopened session's backlog)."""

    def kept(self, name: str) -> int:
        """Chunks of list ``name`` (``entries``, ``folds``, ``units``, ``commitHistory``)
        kept compressed (for tests)."""
        return self._lists[name].kept

    def settle(self, state: SessionState) -> None:
        """Do now what the next write would otherwise do for what became final since the
        last call: encode chunks (at most :data:`SETTLE_CHUNKS` of each list) and hash the
        log through its end. Called after every commit (see the module docstring)."""
        for name, (members, final, encode) in self._sources(state).items():
            self._lists[name].settle(members, final, encode)
        # Every append so far is whole in the file (the log is written unbuffered, and a
        # failed append is cut off before it returns), so these bytes are the log's own. One
        # that cannot be read now is left to the write, which reports it as it always did.
        with contextlib.suppress(OSError):
            digest = state.log_digest
            end = state.journal.path.stat().st_size
            digest.through(min(end, digest.position + SETTLE_LOG_BYTES))

    def build(self, state: SessionState) -> bytes:
        """The compressed body of ``state`` as of now (see the module)."""
        self.reused = self.late = 0
        pieces: list[bytes] = []
        fresh: list[bytes] = [b"{"]
        for name, (members, final, encode) in self._sources(state).items():
            fresh.append(b'"' + name.encode() + b'":[')
            for piece, data in self._lists[name].pieces(members, final, encode):
                if piece == "open":
                    fresh.append(data)
                    continue
                self.reused += piece == "kept"
                self.late += piece == "late"
                pieces.append(_deflate(b"".join(fresh)))
                fresh.clear()
                pieces.append(data)
            fresh.append(b"],")
        fresh.append(wire_bytes(capture_rest(state))[1:])
        pieces.append(_deflate(b"".join(fresh)))
        pieces.append(_final_block())
        return b"".join(pieces)

    def _sources(self, state: SessionState) -> dict[str, tuple[Sequence[object], Final, Encode]]:
        """Each chunked list: its members (by identity), when a run of them is final, and
        how a run of them is encoded."""
        transcript, entries = state.transcript, state.transcript.entries
        spans = state.journal.entry_spans
        folds = list(state.forest.folds.values())
        units, views = transcript.units, state.commit_history

        def released(start: int, end: int) -> bool:
            # Released entries are never held again; a held one may still change view.
            return not any(entries.is_whole(index) for index in range(start, end))

        def closed(_start: int, end: int) -> bool:
            # A closed unit never changes again: only the last unit grows or seals, and the
            # one take-back (an append whose log write failed) happens inside that append.
            return end <= transcript.closed_through

        return {
            "entries": (
                entries.facts,
                released,
                _joined(len(entries), lambda index: entry_state(state, index, spans)),
            ),
            "folds": (folds, _always, _joined(len(folds), lambda index: fold_state(folds[index]))),
            "units": (units, closed, _joined(len(units), lambda index: unit_state(units[index]))),
            "commitHistory": (
                views,
                _always,
                _joined(len(views), lambda index: commit_view_state(views[index])),
            ),
        }


def _always(_start: int, _end: int) -> bool:
    """Final once the chunk is full: the list's members never change (fold records, views)."""
    return True


def _joined(length: int, encode: Callable[[int], JsonValue]) -> Encode:
    """Members ``[start, end)`` (up to ``length``) encoded one by one, comma-joined."""
    return lambda start, end: b",".join(
        wire_bytes(encode(index)) for index in range(start, min(end, length))
    )


def _same(kept: tuple[object, ...], now: Sequence[object]) -> bool:
    """Whether a chunk holds the very objects it held when cached (a fold record or an
    entry's facts is immutable: the same object encodes the same)."""
    return len(kept) == len(now) and all(map(operator.is_, kept, now))


__all__ = [
    "COMMIT_CHUNK",
    "ENTRY_CHUNK",
    "FOLD_CHUNK",
    "SETTLE_CHUNKS",
    "SETTLE_LOG_BYTES",
    "UNIT_CHUNK",
    "CheckpointBody",
    "ChunkedList",
    "inflate",
]
