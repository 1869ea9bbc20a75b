"""The append-only state log (DESIGN §8 "Restart").

One JSON object per line: ``{"n": seq, "k": kind, "b": body, "c": check}``, where ``check``
is the first 16 hex of the SHA-256 of the canonical ``[n, k, b]``. Every line is written
unbuffered, so a killed process loses nothing it logged; lines that promise durability (a
commit) are also fsynced. An append that fails (a short write, a failed fsync) is taken back:
the file is cut to where it ended before, so the log never holds a record its writer went on
without.

On reopen every line is verified. A damaged *last* line is a torn write: it is reported,
truncated away before anything new is written, and nothing before it is lost. A damaged line
anywhere else is corruption, and opening fails loudly with the line number.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pifold_core.canonical import CanonicalError, canonical_bytes, parse_json, sha256_hex
from pifold_core.store import fsync_directory


class JournalCorrupt(RuntimeError):
    """A line before the last one is damaged; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class JournalRecord:
    """One verified line."""

    sequence: int
    kind: str
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TornTail:
    """What was cut off the end of the log on reopen."""

    line_number: int
    """1-based number of the torn line."""
    byte_count: int
    """Bytes discarded."""


def _check(sequence: int, kind: str, body: dict[str, Any]) -> str:
    return sha256_hex(canonical_bytes([sequence, kind, body]))[:16]


class Journal:
    """Reads and appends the state log of one session."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.next_sequence = 0
        self.torn: TornTail | None = None
        """Set by :meth:`read_all` when a torn last line was found and removed."""
        self._handle: IO[bytes] | None = None

    def read_all(self) -> Iterator[JournalRecord]:
        """Yield every verified record; truncate a torn last line (and report it)."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        # A complete log ends with a newline, so the final split element is empty.
        complete, trailing = lines[:-1], lines[-1]
        offset = 0
        for number, line in enumerate(complete, start=1):
            record = self._parse(line, self.next_sequence)
            if record is None:
                if number == len(complete) and not trailing:
                    self._truncate(offset, number, len(data) - offset)
                    return
                raise JournalCorrupt(f"{self.path}: line {number} is damaged")
            self.next_sequence = record.sequence + 1
            offset += len(line) + 1
            yield record
        if trailing:
            self._truncate(offset, len(complete) + 1, len(trailing))

    def _parse(self, line: bytes, expected: int) -> JournalRecord | None:
        try:
            value = parse_json(line)
        except (ValueError, CanonicalError):
            return None
        if not isinstance(value, dict) or set(value) != {"n", "k", "b", "c"}:
            return None
        sequence, kind, body = value["n"], value["k"], value["b"]
        if sequence != expected or not isinstance(kind, str) or not isinstance(body, dict):
            return None
        if value["c"] != _check(sequence, kind, body):
            return None
        return JournalRecord(sequence, kind, body)

    def _truncate(self, offset: int, line_number: int, byte_count: int) -> None:
        self.torn = TornTail(line_number, byte_count)
        with open(self.path, "r+b") as handle:
            handle.truncate(offset)
            handle.flush()
            os.fsync(handle.fileno())

    def append(self, kind: str, body: dict[str, Any], durable: bool = False) -> int:
        """Write one record; fsync when ``durable``. Returns its sequence number."""
        if self._handle is None:
            created = not self.path.exists()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Unbuffered: nothing of a failed append can linger in a buffer and reach the file
            # with a later one.
            self._handle = open(self.path, "ab", buffering=0)  # noqa: SIM115 (kept open)
            if created:
                fsync_directory(self.path.parent)
        sequence = self.next_sequence
        line = canonical_bytes(
            {"n": sequence, "k": kind, "b": body, "c": _check(sequence, kind, body)}
        )
        descriptor = self._handle.fileno()
        size = os.fstat(descriptor).st_size
        try:
            remaining = memoryview(line + b"\n")
            while remaining:
                remaining = remaining[self._handle.write(remaining) :]
            if durable:
                os.fsync(descriptor)
        except BaseException:
            # Not written, or not made durable: take it back, so the log stays a record of
            # what the engine kept (the caller undoes its own change and carries on).
            # If even that fails, a torn last line is cut off on the next open instead.
            with contextlib.suppress(OSError):
                os.ftruncate(descriptor, size)
            raise
        self.next_sequence += 1
        return sequence

    def sync(self) -> None:
        if self._handle is not None:
            self._handle.flush()
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle is not None:
            self.sync()
            self._handle.close()
            self._handle = None
