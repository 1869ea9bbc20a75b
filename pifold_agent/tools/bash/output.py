"""A bash command's output: the newest part in memory, all of it in a log once it is long.

Only the newest part is kept in memory; once the output passes the byte limit all of it
also goes to a temporary log file (``pifold-bash-*.log``, mode 0600), whose path the result
names. The result is the tail of the output (``(no output)`` when there was none) with a
notice when lines were dropped. Output written after the call returned, by processes it
left running, is appended to the same log (:meth:`OutputCollector.keep_writing`), up to
:data:`BACKGROUND_LOG_MAX_BYTES`.

**The pipe** (:class:`OutputPipe`) is not read "until EOF" to know the command is done:
``cmd &`` hands it to a background process that may hold it open for hours. The tool waits
for the *shell* instead, then takes what the pipe holds at that moment with
:meth:`OutputPipe.drain_pending` (every byte the foreground wrote before the shell exited is
there; what a background process keeps writing is not waited for). The pipe is not closed
then: a background process writing to a pipe nobody reads would block once it is full, and
one writing to a closed pipe would die of SIGPIPE. So the loop keeps draining it (into the
call's log, or nowhere) until every writer has closed it, at most :data:`DRAIN_BUDGET` a
wake-up so that a process writing without pause cannot hold the loop.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import fcntl
import os
import struct
import tempfile
import termios
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from pifold_agent.tools.truncation import MAX_BYTES, format_size, truncate_tail
from pifold_core.canonical import JsonValue

KEPT_BYTES = 2 * MAX_BYTES
"""How much of the newest output is held in memory (enough for any tail the limits keep)."""

READ_CHUNK = 64 * 1024
"""How much one read of the pipe takes."""

DRAIN_BUDGET = 1024 * 1024
"""The most one wake-up of the reader takes: a process writing without pause (``yes &``)
gets the loop back between wake-ups instead of holding it."""

BACKGROUND_LOG_MAX_BYTES = 16 * 1024 * 1024
"""The most a log takes from processes left running; what comes later is dropped."""


@dataclass
class OutputCollector:
    """The newest output in memory, all of it in a log file once it passes the limit."""

    limit_bytes: int = MAX_BYTES
    """The most of the output the result shows (its tail); past it the whole output goes to
    a log file. :func:`~pifold_agent.tools.truncation.output_limit` of the call's context."""
    kept: bytearray = field(default_factory=bytearray)
    """The newest :data:`KEPT_BYTES` (or more) of output."""
    total_bytes: int = 0
    """Every byte the command wrote."""
    newlines: int = 0
    """Every newline the command wrote (so lines are counted even where the head was
    dropped from memory)."""
    ends_with_newline: bool = False
    """Whether the last byte written was a newline."""
    log_path: str | None = None
    """The temporary log holding the whole output, once it passed the limit."""
    _log: BinaryIO | None = None
    _background_bytes: int = 0
    _background_cut: bool = False

    def add(self, chunk: bytes) -> None:
        if not chunk:
            return
        self.total_bytes += len(chunk)
        self.newlines += chunk.count(b"\n")
        self.ends_with_newline = chunk.endswith(b"\n")
        if self._log is None and self.total_bytes > self.limit_bytes:
            self.open_log()
        if self._log is not None:
            self._log.write(chunk)
        self.kept.extend(chunk)
        if len(self.kept) > 2 * KEPT_BYTES:
            del self.kept[: len(self.kept) - KEPT_BYTES]

    def text(self) -> str:
        """The kept output as text; a character cut at the front is dropped."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        data = bytes(self.kept)
        if self.total_bytes > len(data):
            start = 0
            while start < len(data) and (data[start] & 0xC0) == 0x80:
                start += 1
            data = data[start:]
        return decoder.decode(data, final=True)

    @property
    def total_lines(self) -> int:
        """Lines of the whole output, a final newline ending the last line."""
        return self.newlines + (0 if self.ends_with_newline else 1)

    def open_log(self) -> str:
        """The log's path, creating it now (holding everything so far) if need be."""
        if self._log is None:
            descriptor, self.log_path = tempfile.mkstemp(prefix="pifold-bash-", suffix=".log")
            self._log = os.fdopen(descriptor, "wb")
            self._log.write(bytes(self.kept))  # under the limit: nothing was dropped yet
            self._log.flush()
        assert self.log_path is not None
        return self.log_path

    def keep_writing(self, chunk: bytes) -> None:
        """Append output that came after the call returned to the log (flushed, so it can
        be read at once), up to :data:`BACKGROUND_LOG_MAX_BYTES`; nothing else changes."""
        if self._log is None or not chunk:
            return
        self._background_bytes += len(chunk)
        if self._background_bytes <= BACKGROUND_LOG_MAX_BYTES:
            self._log.write(chunk)
        elif not self._background_cut:
            self._background_cut = True
            self._log.write(b"\n[pifold: the rest of the background output was dropped]\n")
        self._log.flush()

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None


def render_output(collector: OutputCollector) -> tuple[str, dict[str, JsonValue]]:
    """The tail of the output with its notice, and the details for the UI."""
    full = collector.text()
    # A final newline ends the last line; it does not start an empty one.
    full = full.removesuffix("\n")
    truncation = truncate_tail(full, max_bytes=collector.limit_bytes)
    text = truncation.content or "(no output)"
    details: dict[str, JsonValue] = {"truncation": truncation.to_details()}
    if collector.log_path is not None:
        details["fullOutputPath"] = collector.log_path
    if truncation.truncated:
        # Counted over the whole output, not only the part still in memory.
        total = collector.total_lines
        start = total - truncation.output_lines + 1
        where = f"Full output: {collector.log_path}" if collector.log_path else ""
        if truncation.last_line_partial:
            line_size = format_size(len(full.rsplit("\n", 1)[-1].encode("utf-8", "replace")))
            text += (
                f"\n\n[Showing last {format_size(truncation.output_bytes)} of line {total} "
                f"(line is {line_size}). {where}]"
            )
        elif truncation.truncated_by == "lines":
            text += f"\n\n[Showing lines {start}-{total} of {total}. {where}]"
        else:
            text += (
                f"\n\n[Showing lines {start}-{total} of {total} "
                f"({format_size(collector.limit_bytes)} limit). {where}]"
            )
    return text, details


class OutputPipe:
    """A non-blocking pipe read end whose chunks go to a sink as they arrive."""

    def __init__(self, descriptor: int, sink: Callable[[bytes], None]) -> None:
        os.set_blocking(descriptor, False)
        self._descriptor: int | None = descriptor
        self._sink = sink
        self._ended: Callable[[], None] | None = None
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(descriptor, self.drain)

    @property
    def open(self) -> bool:
        """Whether some writer may still write (the end of the pipe was not reached)."""
        return self._descriptor is not None

    def redirect(self, sink: Callable[[bytes], None], ended: Callable[[], None]) -> None:
        """Send what comes from now on to ``sink``; call ``ended`` at the pipe's end."""
        self._sink = sink
        self._ended = ended

    def drain(self, budget: int = DRAIN_BUDGET) -> None:
        """Read what the pipe holds, up to ``budget`` bytes (the rest at the next wake-up);
        close at its end."""
        taken = 0
        while self._descriptor is not None and taken < budget:
            try:
                chunk = os.read(self._descriptor, min(READ_CHUNK, budget - taken))
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.close()
                if self._ended is not None:
                    self._ended()
                return
            taken += len(chunk)
            self._sink(chunk)

    def drain_pending(self) -> None:
        """Read exactly what the pipe holds now, not what keeps coming (at least one read,
        so the end of the pipe is seen when it has come)."""
        if self._descriptor is None:
            return
        try:
            answer = fcntl.ioctl(self._descriptor, termios.FIONREAD, b"\0\0\0\0")
            pending = int(struct.unpack("i", answer)[0])
        except OSError:
            pending = DRAIN_BUDGET
        self.drain(max(1, pending))

    def close(self) -> None:
        """Stop reading and close the read end (idempotent)."""
        if self._descriptor is None:
            return
        descriptor, self._descriptor = self._descriptor, None
        with contextlib.suppress(ValueError, RuntimeError):  # the loop may be closing
            self._loop.remove_reader(descriptor)
        os.close(descriptor)


__all__ = [
    "BACKGROUND_LOG_MAX_BYTES",
    "DRAIN_BUDGET",
    "KEPT_BYTES",
    "READ_CHUNK",
    "OutputCollector",
    "OutputPipe",
    "render_output",
]
