"""Peek results and byte slicing (DESIGN §7, ``peek``).

``peek`` returns exact, hash-verified bytes: a fold's source at any depth, one entry's record
(for example a clipped tool result) or an evidence artifact. ``offset`` and ``length``
select a byte slice; a slice that falls outside the source is refused, never clamped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pifold_core.canonical import sha256_hex

PeekKind = Literal["fold", "entry", "evidence"]


class PeekError(ValueError):
    """A peek request is invalid; the message names the argument."""


@dataclass(frozen=True, slots=True)
class PeekResult:
    """Exact bytes returned by a peek."""

    identifier: str
    """The id that was peeked."""
    kind: PeekKind
    """What the id named."""
    total_bytes: int
    """Size of the whole source."""
    offset: int
    """Byte offset of :attr:`data` within the source."""
    data: bytes
    """The bytes returned."""
    source_digest: str
    """SHA-256 of the whole source (verified before anything was returned)."""

    @property
    def complete(self) -> bool:
        """Whether the whole source was returned."""
        return self.offset == 0 and len(self.data) == self.total_bytes

    @property
    def next_offset(self) -> int | None:
        """Where the next slice starts, or ``None`` at the end."""
        end = self.offset + len(self.data)
        return end if end < self.total_bytes else None


def slice_source(
    identifier: str, kind: PeekKind, source: bytes, offset: int, length: int | None
) -> PeekResult:
    """Cut ``source`` to the requested slice after checking the arguments."""
    end = slice_end(identifier, len(source), offset, length)
    return PeekResult(
        identifier=identifier,
        kind=kind,
        total_bytes=len(source),
        offset=offset,
        data=source[offset:end],
        source_digest=sha256_hex(source),
    )


def slice_end(identifier: str, total: int, offset: int, length: int | None) -> int:
    """Where the slice at ``offset`` of ``length`` bytes ends in a source of ``total`` bytes.

    Raises:
        PeekError: ``offset`` is not a non-negative integer inside the source (0 for an
            empty one), or ``length`` is not a positive integer; nothing is clamped.
    """
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise PeekError(f"offset must be a non-negative integer, got {offset!r}")
    if offset > total or (offset == total and total):
        raise PeekError(f"offset {offset} is outside {identifier}, whose source has {total} bytes")
    if length is not None and (
        isinstance(length, bool) or not isinstance(length, int) or length < 1
    ):
        raise PeekError(f"bytes must be a positive integer, got {length!r}")
    return total if length is None else min(total, offset + length)
