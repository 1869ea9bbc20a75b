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

A read-only reader (a viewer beside a live writer, or ``pifold doctor``) never writes: it
truncates nothing, and it takes an unterminated last line for one the writer has not
finished yet, so it is neither read nor reported. The log is private to the user (0600).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pifold_core.canonical import (
    CanonicalError,
    canonical_bytes,
    parse_json,
    sha256_hex,
    wire_bytes,
)
from pifold_core.store import fsync_directory, make_private_folder

LOG_MODE = 0o600
"""The log holds everything the user and the tools said: private to the user."""


class JournalCorrupt(RuntimeError):
    """A line before the last one is damaged, or the log is gone from under a populated
    store; the message names the file and line."""


class JournalReadOnly(RuntimeError):
    """An append to a log opened read-only (the engine refuses such verbs before this)."""


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
    """Bytes discarded (by a read-only reader: bytes that a writable open would discard)."""

    def describe(self) -> str:
        """``line 137 (412 bytes)``: what a status line or a message says."""
        return f"line {self.line_number} ({self.byte_count:,} bytes)"


def _check(sequence: int, kind: str, body: dict[str, Any]) -> str:
    return sha256_hex(canonical_bytes([sequence, kind, body]))[:16]


class Journal:
    """Reads and appends the state log of one session."""

    def __init__(self, path: Path, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        """Never write, never truncate (see the module docstring)."""
        self.next_sequence = 0
        self.torn: TornTail | None = None
        """Set by :meth:`read_all` when a torn last line was found (and, unless read-only,
        removed)."""
        self.unfinished: TornTail | None = None
        """Set by a read-only :meth:`read_all` for an unterminated last line it left alone:
        a live writer's line in progress, or (when no writer holds the session) a torn one."""
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
                raise JournalCorrupt(
                    f"{self.path}: line {number} is damaged (bad checksum, sequence or JSON; "
                    f"{len(complete) + bool(trailing)} lines in all): the lines after it "
                    f"cannot be trusted, so the session is not opened"
                )
            self.next_sequence = record.sequence + 1
            offset += len(line) + 1
            yield record
        if trailing and self.read_only:
            self.unfinished = TornTail(len(complete) + 1, len(trailing))
        elif trailing:
            self._truncate(offset, len(complete) + 1, len(trailing))
        # A read-only reader leaves an unterminated last line alone: a live writer may be
        # halfway through it.

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
        if self.read_only:
            return
        with open(self.path, "r+b") as handle:
            handle.truncate(offset)
            handle.flush()
            os.fsync(handle.fileno())

    def append(self, kind: str, body: dict[str, Any], durable: bool = False) -> int:
        """Write one record; fsync when ``durable``. Returns its sequence number."""
        if self.read_only:
            raise JournalReadOnly(f"{self.path} is open read-only: nothing is written to it")
        if self._handle is None:
            created = not self.path.exists()
            make_private_folder(self.path.parent)
            descriptor = os.open(
                self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, LOG_MODE
            )
            os.fchmod(descriptor, LOG_MODE)  # the umask cut the mode above; and tighten an old log
            # Unbuffered: nothing of a failed append can linger in a buffer and reach the file
            # with a later one.
            self._handle = os.fdopen(descriptor, "ab", buffering=0)
            if created:
                fsync_directory(self.path.parent)
        sequence = self.next_sequence
        # Wire form, not canonical: keys keep their order (a tool call's arguments come back
        # as the provider sent them), and the strict UTF-8 encoding refuses, before anything
        # is written, a line that could not be read back identically. The check stays
        # canonical, so it does not depend on key order.
        line = wire_bytes({"n": sequence, "k": kind, "b": body, "c": _check(sequence, kind, body)})
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
