"""Fold objects as a Merkle structure: each entry's bytes are stored once (issue 12).

A fold's source is the canonical JSON list of its entries' records (:func:`source_of`). A
consolidated fold's source repeats its children's sources, so storing every source whole
holds each byte once per nesting level. Instead a fold's store object lists its *parts* in
transcript order: a ``leaf`` is one entry's record bytes, stored as its own object (named by
their SHA-256), and a ``fold`` is a child fold's object (named by the child's source digest).
Reading a fold reassembles the source from its parts, verifying every object on the way, and
then hashes the whole against the fold's source digest, so the handle and the verification
stay content-derived exactly as before.

The listing is one line per part, ``leaf <64 hex>`` or ``fold <64 hex>``; the object's header
carries the SHA-256 of the listing, so damage to the listing itself is named as such.

Reassembly works on the bytes between a source's brackets: a source is ``[`` + the records
joined by ``,`` + ``]``, so a parent's inside is its parts' insides joined by ``,``. That also
reads children stored whole by older versions (format 1), which keeps old sessions readable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pifold_core.canonical import sha256_hex
from pifold_core.entries import Entry
from pifold_core.folds import Fold

PartKind = Literal["leaf", "fold"]

_LINE = re.compile(rb"(leaf|fold) ([0-9a-f]{64})")


class ListingError(ValueError):
    """A fold object's listing does not parse; the message says which line."""


@dataclass(frozen=True, slots=True)
class FoldPart:
    """One part of a fold's source, in transcript order."""

    kind: PartKind
    """``leaf`` (one entry's record bytes) or ``fold`` (a child fold's source)."""
    digest: str
    """SHA-256 of the leaf's bytes, or the child fold's source digest."""
    length: int
    """Bytes the part contributes: the leaf's length, or the child's whole source length."""
    payload: bytes | None = None
    """The leaf's bytes, when the caller has them (to write or repair the leaf)."""


def fold_parts(fold: Fold, folds: Mapping[str, Fold], entries: Sequence[Entry]) -> list[FoldPart]:
    """The parts of ``fold``: its direct children, and its own entries between them.

    ``entries`` is the whole transcript (indices are the fold's), ``folds`` every fold by
    handle (the children must be among them).
    """
    parts: list[FoldPart] = []
    position = fold.start
    for handle in fold.children:
        child = folds[handle]
        parts.extend(_leaf(entry) for entry in entries[position : child.start])
        parts.append(FoldPart("fold", child.source_digest, child.source_bytes))
        position = child.end
    parts.extend(_leaf(entry) for entry in entries[position : fold.end])
    return parts


def _leaf(entry: Entry) -> FoldPart:
    data = entry.record_bytes
    return FoldPart("leaf", sha256_hex(data), len(data), data)


def encode_listing(parts: Sequence[FoldPart]) -> bytes:
    """The listing bytes of a fold object."""
    return b"".join(f"{part.kind} {part.digest}\n".encode("ascii") for part in parts)


def decode_listing(listing: bytes) -> list[tuple[PartKind, str]]:
    """Parse a listing back into ``(kind, digest)`` pairs.

    Raises:
        ListingError: an empty listing, a line that is not ``leaf|fold <64 hex>``, or a
            missing final newline.
    """
    if not listing.endswith(b"\n"):
        raise ListingError("the listing does not end with a newline")
    found: list[tuple[PartKind, str]] = []
    for number, line in enumerate(listing[:-1].split(b"\n"), start=1):
        match = _LINE.fullmatch(line)
        if match is None:
            raise ListingError(f"line {number} of the listing is not 'leaf|fold <sha256>'")
        kind: PartKind = "leaf" if match[1] == b"leaf" else "fold"
        found.append((kind, match[2].decode("ascii")))
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
    "ListingError",
    "PartKind",
    "assemble",
    "decode_listing",
    "encode_listing",
    "fold_parts",
    "inside",
    "listing_digest",
    "source_length",
]
