"""A bash command's output: the newest part in memory, all of it in a log once it is long.

Only the newest part is kept in memory; once the output passes the byte limit all of it
also goes to a temporary log file (``pifold-bash-*.log``, mode 0600), whose path the result
names. The result is the tail of the output (``(no output)`` when there was none) with a
notice when lines were dropped. Output written after the call returned, by processes it
left running, is appended to the same log (:meth:`OutputCollector.keep_writing`), up to
:data:`BACKGROUND_LOG_MAX_BYTES`.
"""

from __future__ import annotations

import codecs
import os
import tempfile
from dataclasses import dataclass, field
from typing import BinaryIO

from pifold_agent.tools.truncation import MAX_BYTES, format_size, truncate_tail
from pifold_core.canonical import JsonValue

KEPT_BYTES = 2 * MAX_BYTES
"""How much of the newest output is held in memory (enough for any tail the limits keep)."""

BACKGROUND_LOG_MAX_BYTES = 16 * 1024 * 1024
"""The most a log takes from processes left running; what comes later is dropped."""


@dataclass
class OutputCollector:
    """The newest output in memory, all of it in a log file once it passes the limit."""

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
        if self._log is None and self.total_bytes > MAX_BYTES:
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
    truncation = truncate_tail(full)
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
                f"({format_size(MAX_BYTES)} limit). {where}]"
            )
    return text, details


__all__ = ["BACKGROUND_LOG_MAX_BYTES", "KEPT_BYTES", "OutputCollector", "render_output"]
