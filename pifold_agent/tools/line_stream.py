"""A file's lines, read in chunks: only what a caller asks for ever reaches memory.

``read`` shows at most 2,000 lines or 50 KB from some line on, so it must never read a
2 GB file (or a 2 GB line) whole to show its first screen. :class:`LineStream` hands out
lines one at a time, each cut to the bytes the caller keeps; :meth:`LineStream.count_rest`
counts the lines left within a byte budget, for the notice that says how many there are.

Lines are what ``text.split("\\n")`` gives, as in the rest of the tools: every newline ends
a line, and what follows the last one (possibly nothing) is the final line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO

CHUNK_BYTES = 64 * 1024
"""How much is read at a time."""


@dataclass(frozen=True, slots=True)
class Line:
    """One line (without its newline), possibly only its beginning."""

    kept: bytes
    """The line's first bytes, as many as the caller asked to keep."""
    length: int
    """Bytes of the line seen so far: all of it when :attr:`complete`."""
    complete: bool
    """Whether the line's end was reached (False: the scan budget ran out first)."""


class LineStream:
    """The lines of an open binary file, front to back."""

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self._buffer = bytearray()
        self._position = 0
        self._at_end = False
        self._finished = False
        self.delivered = 0
        """Lines handed out so far (a line cut by the budget included)."""

    @property
    def finished(self) -> bool:
        """Whether the final line has been handed out."""
        return self._finished

    def line(self, keep: int, budget: int | None = None) -> Line | None:
        """The next line's first ``keep`` bytes; None after the final line.

        With a ``budget``, at most about that many bytes of the line are read: a longer
        line comes back incomplete and the stream must not be read further.
        """
        if self._finished:
            return None
        self.delivered += 1
        kept = bytearray()
        length = 0
        while True:
            newline = self._buffer.find(b"\n", self._position)
            end = newline if newline >= 0 else len(self._buffer)
            room = keep - len(kept)
            if room > 0:
                kept += self._buffer[self._position : min(end, self._position + room)]
            length += end - self._position
            if newline >= 0:
                self._position = newline + 1
                return Line(bytes(kept), length, True)
            self._position = end
            if budget is not None and length > budget:
                return Line(bytes(kept), length, False)
            if not self._more():
                self._finished = True
                return Line(bytes(kept), length, True)

    def count_rest(self, budget: int) -> int | None:
        """How many lines are left, reading at most about ``budget`` bytes; None when the
        budget runs out before the end of the file."""
        if self._finished:
            return 0
        newlines = 0
        scanned = 0
        while True:
            newlines += self._buffer.count(b"\n", self._position)
            scanned += len(self._buffer) - self._position
            self._position = len(self._buffer)
            if scanned > budget:
                return None
            if not self._more():
                return newlines + 1  # what follows the last newline is the final line

    def _more(self) -> bool:
        """Read the next chunk (dropping what was consumed); False at the end of the file."""
        if self._at_end:
            return False
        chunk = self._handle.read(CHUNK_BYTES)
        if not chunk:
            self._at_end = True
            return False
        del self._buffer[: self._position]
        self._position = 0
        self._buffer += chunk
        return True


__all__ = ["CHUNK_BYTES", "Line", "LineStream"]
