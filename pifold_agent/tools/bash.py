"""``bash``: run a command in the working directory, stdout and stderr merged.

The command runs in a process group of its own (``start_new_session``), so a timeout or an
abort can end everything it started: SIGTERM to the whole group, then SIGKILL after a short
grace. Output streams to the UI as it comes (the tail, cut to the shared limits). Only the
newest part is kept in memory; once the output passes the byte limit all of it also goes to
a temporary log file, whose path the result names. The result is the tail of the output
(``(no output)`` when there was none) with a notice when lines were dropped. A non-zero exit
is an error result that carries the output and ``Command exited with code N``; a timeout is
an error result too. There is no default timeout, as in Pi.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import shutil
import signal
import tempfile
from dataclasses import dataclass, field
from typing import BinaryIO

from pifold_agent.loop.tool_protocol import ToolContext, ToolOutcome
from pifold_agent.tools.arguments import (
    ToolInputError,
    failure,
    optional_number,
    required_string,
)
from pifold_agent.tools.truncation import MAX_BYTES, format_size, truncate_tail
from pifold_core.canonical import JsonValue

KEPT_BYTES = 2 * MAX_BYTES
"""How much of the newest output is held in memory (enough for any tail the limits keep)."""

KILL_GRACE_SECONDS = 1.0
"""How long the group gets to end after SIGTERM before SIGKILL."""

READ_CHUNK = 64 * 1024


def shell() -> str:
    """bash when installed, else the POSIX shell."""
    return shutil.which("bash") or "/bin/sh"


async def kill_group(process: asyncio.subprocess.Process) -> None:
    """End the process's whole group: SIGTERM, a grace period, then SIGKILL to whatever of
    the group is left (children that ignored SIGTERM, or outlived the shell)."""
    group = process.pid
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), KILL_GRACE_SECONDS)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
    await process.wait()


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

    def add(self, chunk: bytes) -> None:
        if not chunk:
            return
        self.total_bytes += len(chunk)
        self.newlines += chunk.count(b"\n")
        self.ends_with_newline = chunk.endswith(b"\n")
        if self._log is None and self.total_bytes > MAX_BYTES:
            descriptor, self.log_path = tempfile.mkstemp(prefix="pifold-bash-", suffix=".log")
            self._log = os.fdopen(descriptor, "wb")
            self._log.write(bytes(self.kept))  # nothing was dropped yet
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


PARAMETERS: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command to run."},
        "timeout": {"type": "number", "description": "Seconds before it is killed (optional)."},
    },
    "required": ["command"],
}
"""The JSON schema of the arguments."""


class BashTool:
    """Pi's ``bash``."""

    name = "bash"
    description = (
        "Run a bash command in the working directory and return its output (stdout and "
        "stderr together), the last 2000 lines or 50KB. A non-zero exit code is reported as "
        "an error. Give a timeout in seconds for commands that may hang."
    )

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            command = required_string(arguments, "command")
            timeout = optional_number(arguments, "timeout")
        except ToolInputError as error:
            return failure(f"bash: {error}")
        try:
            process = await asyncio.create_subprocess_exec(
                shell(),
                "-c",
                command,
                cwd=context.cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as error:
            return failure(f"Cannot start the shell in {context.cwd}: {error.strerror or error}")
        collector = OutputCollector()
        try:
            try:
                exit_code = await asyncio.wait_for(
                    self._collect(process, collector, context), timeout
                )
            except TimeoutError:
                await kill_group(process)
                text, details = render_output(collector)
                return failure(
                    f"{_prefix(collector, text)}Command timed out after {timeout:g} seconds",
                    details,
                )
            except asyncio.CancelledError:
                await asyncio.shield(kill_group(process))
                raise
        finally:
            collector.close()
        text, details = render_output(collector)
        details["exitCode"] = exit_code
        if exit_code != 0:
            return failure(f"{text}\n\nCommand exited with code {exit_code}", details)
        return ToolOutcome(text, details=details)

    async def _collect(
        self, process: asyncio.subprocess.Process, collector: OutputCollector, context: ToolContext
    ) -> int:
        assert process.stdout is not None  # a pipe was asked for
        while chunk := await process.stdout.read(READ_CHUNK):
            collector.add(chunk)
            context.update(truncate_tail(collector.text()).content)
        return await process.wait()


def _prefix(collector: OutputCollector, text: str) -> str:
    return f"{text}\n\n" if collector.total_bytes else ""


__all__ = ["BashTool", "OutputCollector", "kill_group", "render_output", "shell"]
