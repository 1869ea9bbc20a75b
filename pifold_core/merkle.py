"""Fold objects as a Merkle structure: each entry's bytes are stored once (issue 12).

A fold's source is the canonical JSON list of its entries' records (:func:`source_of`). A
consolidated fold's source repeats its children's sources, so storing every source whole
holds each byte once per nesting level. Instead a fold's store object lists its *parts* in
transcript order, each by digest: an ``entry`` is one entry's record, whose bytes are the
entry's own line in the session log (:mod:`pifold_core.journal`), named by its SHA-256 and
its line's byte offset and length; a ``fold`` is a child fold's object (named by the child's
source digest). Reading a fold reassembles the source from its parts, verifying every part on
the way (an entry's line is re-read with ``pread``, its checksum checked, and its record
hashed against the digest listed), and then hashes the whole against the fold's source
digest, so the handle and the verification stay content-derived exactly as before.

Why the log and not a leaf object per entry (as the first Merkle version stored, part kind
``leaf``, still read): the log must hold every entry anyway (it is how a session reopens,
and an entry is durable once its line is written), so a second copy per entry doubled the
bytes and made one file per entry. Naming the line by position costs nothing to write (a
commit writes one small object per fold, no leaf), and a read needs no index: the listing
says where to look, and the digest says whether what is there is the entry. A damaged line
is named by its byte range, and since the log's lines are each checksummed, the same damage
is found by any reopen.

The listing is one line per part, ``entry <64 hex> <offset> <length>``, ``fold <64 hex>`` or
``leaf <64 hex>``; the object's header carries the SHA-256 of the listing, so damage to the
listing itself is named as such.

Reassembly works on the bytes between a source's brackets: a source is ``[`` + the records
joined by ``,`` + ``]``, so a parent's inside is its parts' insides joined by ``,``. That also
reads children stored whole by older versions (format 1), which keeps old sessions readable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from pifold_core.canonical import sha256_hex
from pifold_core.entries import Entry
from pifold_core.entry_list import EntryList
from pifold_core.fold_digest import NodeKind, node_digest
from pifold_core.folds import Fold
from pifold_core.journal import LogSpan

PartKind = Literal["leaf", "fold", "entry"]

_LINE = re.compile(rb"(leaf|fold) ([0-9a-f]{64})|entry ([0-9a-f]{64}) (\d{1,15}) (\d{1,15})")


class ListingError(ValueError):
    """A fold object's listing does not parse; the message says which line."""


@dataclass(frozen=True, slots=True)
class FoldPart:
    """One part of a fold's source, in transcript order."""

    kind: PartKind
    """``entry`` (one entry's record, its bytes in the log), ``fold`` (a child fold's
    source) or ``leaf`` (one entry's record stored as its own object, as before the log held
    the leaves; still written for an entry whose line is not known)."""
    digest: str
    """SHA-256 of the entry's record bytes, or the child fold's source digest."""
    length: int
    """Bytes the part contributes: the record's length, or the child's whole source length."""
    payload: bytes | None = None
    """The record's bytes, when the caller has them (to write a leaf, or to repair)."""
    span: LogSpan | None = None
    """For an ``entry``: where its line lies in the log."""


class ListedPart(NamedTuple):
    """One line of a fold object's listing, parsed."""

    kind: PartKind
    digest: str
    span: LogSpan | None
    """For an ``entry``: the line it names in the log."""


def fold_parts(
    fold: Fold,
    folds: Mapping[str, Fold],
    entries: Sequence[Entry],
    spans: Mapping[str, LogSpan] | None = None,
) -> list[FoldPart]:
    """The parts of ``fold``: its direct children, and its own entries between them.

    ``entries`` is the whole transcript (indices are the fold's), ``folds`` every fold by
    handle (the children must be among them), ``spans`` the log line of each entry by id
    (:attr:`pifold_core.journal.Journal.entry_spans`): an entry with a line is an ``entry``
    part, one without a ``leaf`` part.
    """
    known = spans if spans is not None else {}
    parts: list[FoldPart] = []
    position = fold.start
    for handle in fold.children:
        child = folds[handle]
        parts.extend(_part(entries, index, known) for index in range(position, child.start))
        parts.append(FoldPart("fold", child.source_digest, child.source_bytes))
        position = child.end
    parts.extend(_part(entries, index, known) for index in range(position, fold.end))
    return parts


def _part(entries: Sequence[Entry], index: int, spans: Mapping[str, LogSpan]) -> FoldPart:
    """Entry ``index`` as a part; one released from memory is listed from its facts (its
    digest, length and line), never read back (a reopen lists every fold's parts)."""
    if isinstance(entries, EntryList) and not entries.is_whole(index):
        facts = entries.facts_of(index)
        span = spans.get(facts.id)
        if span is not None:
            return FoldPart("entry", facts.digest, facts.record_length, None, span)
    return _leaf(entries[index], spans)


def _leaf(entry: Entry, spans: Mapping[str, LogSpan]) -> FoldPart:
    data = entry.record_bytes
    span = spans.get(entry.id)
    if span is None:
        return FoldPart("leaf", entry.digest, len(data), data)
    return FoldPart("entry", entry.digest, len(data), data, span)


def node_of(parts: Sequence[FoldPart] | Sequence[ListedPart]) -> list[tuple[NodeKind, str]]:
    """The node lines of a fold whose parts are ``parts`` (:mod:`pifold_core.fold_digest`):
    an entry is an entry whether its bytes are a log line or a leaf object."""
    return [("fold" if part.kind == "fold" else "entry", part.digest) for part in parts]


def named_by_parts(digest: str, parts: Sequence[FoldPart] | Sequence[ListedPart]) -> bool:
    """Whether ``digest`` is the digest (version 2) of a fold with ``parts``."""
    return node_digest(node_of(parts)) == digest


def listed(parts: Sequence[FoldPart]) -> list[ListedPart]:
    """What the listing of ``parts`` says, to compare with a decoded listing."""
    return [ListedPart(part.kind, part.digest, part.span) for part in parts]


def encode_listing(parts: Sequence[FoldPart]) -> bytes:
    """The listing bytes of a fold object.

    Raises:
        ValueError: an ``entry`` part without its line.
    """
    lines: list[str] = []
    for part in parts:
        if part.kind != "entry":
            lines.append(f"{part.kind} {part.digest}\n")
        elif part.span is None:
            raise ValueError(f"entry {part.digest} has no line in the log to be listed by")
        else:
            lines.append(f"entry {part.digest} {part.span.offset} {part.span.length}\n")
    return "".join(lines).encode("ascii")


def decode_listing(listing: bytes) -> list[ListedPart]:
    """Parse a listing back into its parts.

    Raises:
        ListingError: an empty listing, a line that is not ``leaf|fold <64 hex>`` or
            ``entry <64 hex> <offset> <length>``, or a missing final newline.
    """
    if not listing.endswith(b"\n"):
        raise ListingError("the listing does not end with a newline")
    found: list[ListedPart] = []
    for number, line in enumerate(listing[:-1].split(b"\n"), start=1):
        match = _LINE.fullmatch(line)
        if match is None:
            raise ListingError(
                f"line {number} of the listing is not 'leaf|fold <sha256>' or "
                "'entry <sha256> <offset> <length>'"
            )
        if match[3] is not None:
            span = LogSpan(int(match[4]), int(match[5]))
            found.append(ListedPart("entry", match[3].decode("ascii"), span))
        else:
            kind: PartKind = "leaf" if match[1] == b"leaf" else "fold"
            found.append(ListedPart(kind, match[2].decode("ascii"), None))
    return found


def listing_digest(listing: bytes) -> str:
    """What a fold object's header records about its listing."""
    return sha256_hex(listing)


def inside(source: bytes) -> bytes:
    """The bytes between a source's brackets (a leaf's bytes are returned as they are)."""
    return source[1:-1]


def assemble(insides: Sequence[bytes]) -> bytes:
    """A fold's source from its parts' insides, in order."""
    return b"[" + b",".join(insides) + b"]"


def source_length(parts: Sequence[FoldPart]) -> int:
    """Length of the source the parts assemble to (no bytes needed)."""
    # Each part contributes its inside (a child loses its two brackets), plus the commas
    # between parts and the outer brackets.
    insides = sum(part.length - (2 if part.kind == "fold" else 0) for part in parts)
    return insides + max(len(parts) - 1, 0) + 2


__all__ = [
    "FoldPart",
    "ListedPart",
    "ListingError",
    "PartKind",
    "assemble",
    "decode_listing",
    "encode_listing",
    "fold_parts",
    "inside",
    "listed",
    "listing_digest",
    "named_by_parts",
    "node_of",
    "source_length",
]
