"""Peek slicing: exact bytes, refused (never clamped) out-of-range requests."""

from __future__ import annotations

import pytest

from pifold_core.canonical import sha256_hex
from pifold_core.peek import PeekError, slice_source

SOURCE = bytes(range(256)) * 4


def test_whole_source() -> None:
    result = slice_source("fold-abc", "fold", SOURCE, 0, None)
    assert result.data == SOURCE and result.complete
    assert result.total_bytes == len(SOURCE)
    assert result.source_digest == sha256_hex(SOURCE)
    assert result.next_offset is None


def test_slices_walk_the_source() -> None:
    pieces: list[bytes] = []
    offset: int | None = 0
    while offset is not None:
        result = slice_source("fold-abc", "fold", SOURCE, offset, 300)
        assert result.offset == offset and not result.complete
        pieces.append(result.data)
        offset = result.next_offset
    assert b"".join(pieces) == SOURCE
    assert [len(piece) for piece in pieces] == [300, 300, 300, 124]


def test_length_past_the_end_returns_the_rest() -> None:
    result = slice_source("e1", "entry", SOURCE, 1000, 500)
    assert result.data == SOURCE[1000:]


@pytest.mark.parametrize(
    ("offset", "length", "message"),
    [
        (-1, None, "offset"),
        (len(SOURCE), None, "outside"),
        (len(SOURCE) + 5, 10, "outside"),
        (0, 0, "bytes"),
        (0, -3, "bytes"),
        (True, None, "offset"),
        (0, True, "bytes"),
        ("0", None, "offset"),
    ],
)
def test_bad_slices_are_refused(offset: object, length: object, message: str) -> None:
    with pytest.raises(PeekError, match=message):
        slice_source("fold-abc", "fold", SOURCE, offset, length)  # type: ignore[arg-type]


def test_empty_source_peeks_at_offset_zero() -> None:
    assert slice_source("e", "entry", b"", 0, None).data == b""
