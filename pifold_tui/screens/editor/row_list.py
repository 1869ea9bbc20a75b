"""The window map's row list, held as three flat columns instead of an object per row.

A 20,000-entry session with every fold opened in the tree has 21,100 rows. As one tuple per
row they cost a Python object each to build, and each stayed in the garbage collector's
generations (a named tuple is never untracked), so every full collection walked them again
while the screen was open (issue 23). Here a row is an entry index and a depth in two
``array`` columns and a handle in a list of strings and ``None``: nothing the collector
tracks per row, and building the list extends the columns a run of entries at a time. A
:class:`MapRow` is made only when a row is read.

Rows are in transcript order (a fold before the entries it starts at), so a row is found by
bisecting its entry index.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from typing import NamedTuple, overload


class MapRow(NamedTuple):
    """One row of the map: an entry or a fold, at a depth in the tree."""

    depth: int
    """0 at the top level of the window, one more inside each fold opened in the tree."""
    entry_index: int
    """The entry's index, or the fold's first entry index."""
    handle: str | None
    """The fold's handle; ``None`` for an entry row."""

    @property
    def is_fold(self) -> bool:
        return self.handle is not None


class RowList(Sequence[MapRow]):
    """The map's rows in order; read like a list of :class:`MapRow`."""

    def __init__(self, rows: Iterable[MapRow] = ()) -> None:
        self._depths = array("l")
        self._indices = array("l")
        self._handles: list[str | None] = []
        for row in rows:
            self.append(row)

    def append(self, row: MapRow) -> None:
        """Add one row at the end."""
        self._depths.append(row.depth)
        self._indices.append(row.entry_index)
        self._handles.append(row.handle)

    def add_entries(self, depth: int, start: int, end: int) -> None:
        """Add a row for each entry of ``[start, end)``, all at ``depth``."""
        count = end - start
        if count <= 0:
            return
        self._depths.extend(repeat(depth, count))
        self._indices.extend(range(start, end))
        self._handles.extend(repeat(None, count))

    def __len__(self) -> int:
        return len(self._handles)

    @overload
    def __getitem__(self, position: int) -> MapRow: ...

    @overload
    def __getitem__(self, position: slice) -> list[MapRow]: ...

    def __getitem__(self, position: int | slice) -> MapRow | list[MapRow]:
        if isinstance(position, slice):
            return [self._row(place) for place in range(*position.indices(len(self)))]
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError(f"row {position} out of range")
        return self._row(position)

    def __iter__(self) -> Iterator[MapRow]:
        for position in range(len(self)):
            yield self._row(position)

    def _row(self, position: int) -> MapRow:
        return MapRow(self._depths[position], self._indices[position], self._handles[position])

    def position_of(self, entry_index: int, handle: str | None) -> int | None:
        """Where the row of that entry (``handle`` ``None``) or fold is, if it is listed."""
        position = bisect.bisect_left(self._indices, entry_index)
        while position < len(self) and self._indices[position] == entry_index:
            if self._handles[position] == handle:
                return position
            position += 1
        return None

    def first_from(self, entry_index: int) -> int:
        """The first row at or after ``entry_index`` (the length when there is none)."""
        return bisect.bisect_left(self._indices, entry_index)


__all__ = ["MapRow", "RowList"]
