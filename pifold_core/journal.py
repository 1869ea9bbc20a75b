"""The append-only state log (DESIGN §8 "Restart").

One JSON object per line: ``{"n": seq, "k": kind, "b": body, "c": check}``, where ``check``
is the first 16 hex of the SHA-256 of the canonical ``[n, k, b]``. Every line is written
unbuffered, so a killed process loses nothing it logged; lines that promise durability (a
commit) are also fsynced. An append that fails (a short write, a failed fsync) is taken back:
the file is cut to where it ended before, so the log never holds a record its writer went on
without.

**Entry records are the leaves of the fold store** (issue 12). An entry's record bytes live
in one place, its ``entry`` line here: a fold object lists the entry by its digest and its
line's :class:`LogSpan` (byte offset and length in this file), and a read re-reads that line
with ``pread`` and verifies it (:func:`read_entry_bytes`: the line's checksum, its kind, and
the SHA-256 of the record's canonical bytes against the digest the fold lists). Offsets never
move: the log is append-only, and a torn last line is cut before anything is written after
it, so no span of a kept line ever points at other bytes. :attr:`Journal.entry_spans` maps
every logged entry's id to its line.

**A commit logs what cannot be derived.** A fold's placeholder is a pure function of the
fold's handle, kind, brief and counts (:func:`pifold_core.placeholders.fold_placeholder`),
and repeating it beside the brief doubled a commit record's size. :func:`fold_log_record`
leaves it out when it is exactly what that function gives (a record that holds one differs
and keeps it), and :func:`fold_from_log` derives it back on reopen, byte for byte; every
logged request is then checked against the rebuilt projection, so a placeholder that rebuilt
differently could never pass unnoticed. Older logs carry the placeholder and read as before.
It does keep the token counts of the messages it showed (``counts``,
:func:`pifold_core.tokens.counts_record`), as an entry record keeps its own: derivable, but
only with a tokenizer, which a reopen after a kill then need not load (issue 23); a record
written before they were kept is counted anew.

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

from pifold_core.atomic_files import fsync_directory, make_private_folder
from pifold_core.canonical import (
    CanonicalError,
    canonical_bytes,
    parse_json,
    sha256_hex,
    wire_bytes,
)
from pifold_core.placeholders import fold_placeholder

LOG_MODE = 0o600
"""The log holds everything the user and the tools said: private to the user."""


class JournalCorrupt(RuntimeError):
    """A line before the last one is damaged, or the log is gone from under a populated
    store; the message names the file and line."""


class JournalReadOnly(RuntimeError):
    """An append to a log opened read-only (the engine refuses such verbs before this)."""


class LogEntryDamaged(ValueError):
    """An entry's line in the log no longer holds the entry a fold lists (a damaged region,
    or a log cut short); the message names the byte range and what is wrong."""


@dataclass(frozen=True, slots=True)
class LogSpan:
    """Where one line of the log lies: what a fold object names an entry's bytes by."""

    offset: int
    """Byte offset of the line's first byte in the log file."""
    length: int
    """Bytes of the line, its newline not counted."""

    def describe(self) -> str:
        """``bytes 1,024-2,047 of the log``: what an error message names."""
        return f"bytes {self.offset:,}-{self.offset + self.length:,} of the log"


@dataclass(frozen=True, slots=True)
class JournalRecord:
    """One verified line."""

    sequence: int
    kind: str
    body: dict[str, Any]
    span: LogSpan | None = None
    """Where the line lies in the log file."""


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


def _derived_placeholder(record: dict[str, Any]) -> str:
    source = record["source"]
    return fold_placeholder(
        str(record["handle"]),
        str(record["kind"]),
        str(record["brief"]),
        int(record["entry_count"]),
        int(record["tool_call_count"]),
        int(source["bytes"]),
    )


def fold_log_record(record: dict[str, Any]) -> dict[str, Any]:
    """A fold's record (:meth:`pifold_core.folds.Fold.to_record`) as a commit logs it:
    without its placeholder when the placeholder is the one its fields derive."""
    if record.get("placeholder") != _derived_placeholder(record):
        return record
    return {key: value for key, value in record.items() if key != "placeholder"}


def fold_from_log(record: dict[str, Any]) -> dict[str, Any]:
    """A commit's logged fold record made whole again (the placeholder derived, when left
    out), for :meth:`pifold_core.folds.Fold.from_record`.

    Raises:
        KeyError, TypeError, ValueError: a field the placeholder derives from is missing or
            of the wrong type (the caller names the record).
    """
    if "placeholder" in record:
        return record
    return {**record, "placeholder": _derived_placeholder(record)}


def _check(sequence: int, kind: str, body: dict[str, Any]) -> str:
    return sha256_hex(canonical_bytes([sequence, kind, body]))[:16]


def parse_line(line: bytes) -> JournalRecord | None:
    """One log line parsed and its checksum verified; ``None`` when it is damaged.

    The sequence number is returned as written: the caller checks it against its place.
    """
    try:
        value = parse_json(line)
    except (ValueError, CanonicalError):
        return None
    if not isinstance(value, dict) or set(value) != {"n", "k", "b", "c"}:
        return None
    sequence, kind, body = value["n"], value["k"], value["b"]
    if not isinstance(sequence, int) or not isinstance(kind, str) or not isinstance(body, dict):
        return None
    if value["c"] != _check(sequence, kind, body):
        return None
    return JournalRecord(sequence, kind, body)


def entry_record_bytes(line: bytes, span: LogSpan, digest: str) -> bytes:
    """The canonical record bytes an ``entry`` line holds, verified against ``digest``.

    Raises:
        LogEntryDamaged: the line is damaged, not an entry record, or its record does not
            hash to ``digest``.
    """
    record = parse_line(line)
    if record is None:
        raise LogEntryDamaged(f"{span.describe()} is not a sound log line (damaged)")
    if record.kind != "entry" or not isinstance(record.body.get("record"), dict):
        raise LogEntryDamaged(f"{span.describe()} holds a {record.kind!r} record, not an entry")
    data = canonical_bytes(record.body["record"])
    actual = sha256_hex(data)
    if actual != digest:
        raise LogEntryDamaged(
            f"{span.describe()} holds an entry whose record hashes to {actual}, not {digest}"
        )
    return data


def read_entry_bytes(descriptor: int, span: LogSpan, digest: str) -> bytes:
    """Read one entry's exact record bytes from an open log with ``pread``, verified.

    The line must be whole (its newline follows it), sound, an entry, and hash to ``digest``.

    Raises:
        LogEntryDamaged: naming the byte range and what is wrong.
    """
    data = os.pread(descriptor, span.length + 1, span.offset)
    if len(data) != span.length + 1 or not data.endswith(b"\n"):
        raise LogEntryDamaged(f"{span.describe()} is not a whole line (the log is cut short)")
    return entry_record_bytes(data[:-1], span, digest)


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
        self.entry_spans: dict[str, LogSpan] = {}
        """Every logged entry's line, by entry id, from :meth:`read_all` and :meth:`append`
        (what :func:`pifold_core.merkle.fold_parts` lists a fold's entries by)."""
        self.last_span: LogSpan | None = None
        """Where the line of the latest successful :meth:`append` lies."""
        self._handle: IO[bytes] | None = None

    def read_entry(self, span: LogSpan, digest: str) -> bytes:
        """One entry's exact record bytes, read from the log and verified against ``digest``
        (the entry's :attr:`~pifold_core.entries.Entry.digest`): the public way to get an
        entry's bytes back without holding them in memory (see :func:`read_entry_bytes`).

        Raises:
            LogEntryDamaged: the line at ``span`` is not that entry, whole and sound.
            OSError: the log cannot be read.
        """
        descriptor = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            return read_entry_bytes(descriptor, span, digest)
        finally:
            os.close(descriptor)

    def read_all(self, start: int = 0, sequence: int = 0) -> Iterator[JournalRecord]:
        """Yield every verified record; truncate a torn last line (and report it).

        With ``start``, the byte offset where record ``sequence`` begins (what a verified
        checkpoint names, :mod:`pifold_core.checkpoint`), only the lines from there on are
        read; one record is one line, so line numbers stay the whole log's. The log is read
        a line at a time, never whole (issue 23: a 50,000-entry session's log is 230 MB, and
        holding it, its lines and its records at once peaked a whole-log reopen at 914 MB).
        """
        if not self.path.exists():
            return
        self.next_sequence = sequence
        with open(self.path, "rb") as handle:
            handle.seek(start)
            offset, number = start, sequence
            line = handle.readline()
            while line.endswith(b"\n"):
                # One line ahead: a damaged line is a torn write only when it is the last.
                following = handle.readline()
                number += 1
                record = self._parse(line[:-1], self.next_sequence)
                if record is None:
                    if not following:
                        self._truncate(offset, number, len(line))
                        return
                    rest = handle.read()
                    total = number + 1 + rest.count(b"\n") + (bool(rest) and rest[-1:] != b"\n")
                    raise JournalCorrupt(
                        f"{self.path}: line {number} is damaged (bad checksum, sequence or "
                        f"JSON; {total} lines in all): the lines after it cannot be trusted, "
                        "so the session is not opened"
                    )
                self.next_sequence = record.sequence + 1
                span = LogSpan(offset, len(line) - 1)
                self._note_entry(record.kind, record.body, span)
                offset += len(line)
                yield JournalRecord(record.sequence, record.kind, record.body, span)
                line = following
        if line and self.read_only:
            self.unfinished = TornTail(number + 1, len(line))
        elif line:
            self._truncate(offset, number + 1, len(line))
        # A read-only reader leaves an unterminated last line alone: a live writer may be
        # halfway through it.

    def _parse(self, line: bytes, expected: int) -> JournalRecord | None:
        record = parse_line(line)
        if record is None or record.sequence != expected:
            return None
        return record

    def _note_entry(self, kind: str, body: dict[str, Any], span: LogSpan) -> None:
        """Remember where an entry's line lies (its bytes are the store's leaf)."""
        if kind != "entry":
            return
        record = body.get("record")
        identifier = record.get("id") if isinstance(record, dict) else None
        if isinstance(identifier, str):
            self.entry_spans[identifier] = span

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
        self.last_span = LogSpan(size, len(line))
        self._note_entry(kind, body, self.last_span)
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
