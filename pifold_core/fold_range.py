"""A bounded peek: one byte range of a fold's source, reading only the parts it overlaps
(issue 23).

:meth:`pifold_core.engine.Engine.peek` reassembles a fold's whole source and hashes it, which
for a fold of 2,000 entries reads 2,000 log lines to show the first four kilobytes of them. A
fold named by its parts (digest version 2, :mod:`pifold_core.fold_digest`) can be verified a
part at a time instead: its store object's listing is checked against the fold's digest (the
node of its parts' digests, which the log's fold record carries), and then each part the
range overlaps is read and checked against its own digest, an entry's log line by its
checksum and the SHA-256 of its record, a child fold by the same procedure one level down.
So every byte returned is verified, and nothing outside the range is read: a damaged part
inside the range is a loud :class:`~pifold_core.store.StoreObjectCorrupt`, one outside it is
found by the next read that covers it (a whole peek, the doctor, a reopen).

Where each part starts needs no read: the transcript keeps every entry's record length and
digest in its facts, and every fold its source length, so the layout of a fold's source (``[``,
its parts' insides joined by ``,``, ``]``) follows from the fold's children and entries. The
listing must name exactly those parts, in that order, or the object is called corrupt.

A fold named by its whole source's SHA-256 (digest version 1: every fold written before issue
23) cannot be checked a part at a time; it is read and hashed whole, as a peek does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from pifold_core.entry_list import EntryList
from pifold_core.fold_digest import PARTS_DIGEST
from pifold_core.folds import Fold
from pifold_core.merkle import ListedPart
from pifold_core.store import FoldStore, StoreError, StoreObjectCorrupt
from pifold_core.store_format import PARTS_FOLD_FORMAT_VERSION, read_object_file


@dataclass(frozen=True, slots=True)
class SourceRange:
    """Verified bytes of one range of a source, and what was read to verify them."""

    identifier: str
    """The id peeked."""
    offset: int
    """Byte offset of :attr:`data` within the source."""
    data: bytes
    """The bytes of the range (shorter at the source's end)."""
    total_bytes: int
    """Size of the whole source."""
    digest: str
    """What the bytes were verified against: for a fold named by its parts, the fold's
    digest (its listing checked against it, each part read against its own digest); else the
    SHA-256 of the whole source, read and hashed whole."""
    entries_read: int
    """Entries whose bytes were read and verified for this range."""
    entries_total: int
    """Entries the source holds."""


class _Part(NamedTuple):
    """One part of a fold's source as the transcript gives it."""

    kind: str
    """``entry`` or ``fold`` (a ``leaf`` object is listed as an entry's bytes)."""
    digest: str
    inside: int
    """Bytes the part contributes between the fold's brackets."""
    child: Fold | None
    """The child fold, for a ``fold`` part."""


class FoldRangeReader:
    """Reads verified byte ranges of fold sources from ``store``, laid out by the transcript."""

    def __init__(self, store: FoldStore, folds: Mapping[str, Fold], entries: EntryList) -> None:
        self._store = store
        self._folds = folds
        self._entries = entries
        self._entries_read = 0

    def read(self, fold: Fold, start: int, stop: int) -> SourceRange:
        """The verified bytes ``source[start:stop]`` of ``fold`` (the caller checked the range).

        Raises:
            StoreError: the fold's object, or a part the range overlaps, is missing or
                damaged (also noted in the store's ``damaged``).
        """
        self._entries_read = 0
        pieces: list[bytes] = []
        self._collect(fold, start, stop, pieces)
        data = b"".join(pieces)
        return SourceRange(
            fold.handle,
            start,
            data,
            fold.source_bytes,
            fold.source_digest,
            self._entries_read,
            fold.entry_count,
        )

    def _collect(self, fold: Fold, start: int, stop: int, pieces: list[bytes]) -> None:
        """Append the verified bytes ``source[start:stop]`` of ``fold`` to ``pieces``."""
        listing = self._listing(fold) if fold.digest_version == PARTS_DIGEST else None
        if listing is None:
            source = self._store.get(fold.source_digest)  # verified whole, by its name
            self._entries_read += fold.entry_count
            pieces.append(source[start:stop])
            return
        layout = self._layout(fold)
        if [(part.kind, part.digest) for part in layout] != [
            ("fold" if part.kind == "fold" else "entry", part.digest) for part in listing
        ]:
            raise self._damaged(
                StoreObjectCorrupt(
                    f"fold store object {fold.source_digest} lists other parts than the log's "
                    f"fold {fold.handle} holds",
                    fold.source_digest,
                )
            )
        position = 1  # after the opening bracket
        if start == 0:
            pieces.append(b"[")
        for number, (part, listed) in enumerate(zip(layout, listing, strict=True)):
            if number:
                if start <= position < stop:
                    pieces.append(b",")
                position += 1
            end = position + part.inside
            if end > start and position < stop:
                low, high = max(start, position) - position, min(stop, end) - position
                if part.child is not None:
                    # A child's inside is its source less the brackets: one byte further in.
                    self._collect(part.child, low + 1, high + 1, pieces)
                else:
                    pieces.append(self._entry_bytes(fold, listed)[low:high])
            position = end
            if position >= stop:
                return
        if start <= position < stop:
            pieces.append(b"]")

    def _listing(self, fold: Fold) -> list[ListedPart] | None:
        """The listing of ``fold``'s object, checked against the fold's digest; ``None`` for
        an object of an older format (read and hashed whole instead)."""
        path = self._store.path_of(fold.source_digest)
        try:
            found = read_object_file(path, fold.source_digest)
        except StoreError as error:
            raise self._damaged(error) from None
        if found.version != PARTS_FOLD_FORMAT_VERSION or found.listing is None:
            return None
        if found.length != fold.source_bytes:
            raise self._damaged(
                StoreObjectCorrupt(
                    f"fold store object {fold.source_digest} says its source has "
                    f"{found.length} bytes, the log's fold {fold.handle} {fold.source_bytes}",
                    fold.source_digest,
                )
            )
        return found.listing

    def _layout(self, fold: Fold) -> list[_Part]:
        """``fold``'s parts in order, from the transcript's facts (nothing read)."""
        parts: list[_Part] = []
        position = fold.start
        for child in (*(self._folds[handle] for handle in fold.children), None):
            stop = fold.end if child is None else child.start
            for index in range(position, stop):
                facts = self._entries.facts_of(index)
                parts.append(_Part("entry", facts.digest, facts.record_length, None))
            if child is not None:
                parts.append(_Part("fold", child.source_digest, child.source_bytes - 2, child))
                position = child.end
        return parts

    def _entry_bytes(self, fold: Fold, listed: ListedPart) -> bytes:
        """One entry's record bytes, read and checked against its digest."""
        self._entries_read += 1
        if listed.span is None:
            return self._store.get(listed.digest)  # an entry stored as its own object
        return self._store.entry_bytes(listed.digest, listed.span, None, fold.source_digest)

    def _damaged(self, error: StoreError) -> StoreError:
        """``error``, noted in the store's damaged objects as a read there would."""
        self._store.damaged[error.digest] = error
        return error


__all__ = ["FoldRangeReader", "SourceRange"]
