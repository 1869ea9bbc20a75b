"""The read end of a command's output pipe, drained by the event loop until its last writer
closes it.

A pipe is not read "until EOF" to know the command is done: ``cmd &`` hands the pipe to a
background process that may hold it open for hours. The tool waits for the *shell* instead,
then takes what is already in the pipe with :meth:`OutputPipe.drain` (non-blocking reads
until the pipe is empty: every byte the foreground wrote before the shell exited is there).
The pipe is not closed then: a background process writing to a pipe nobody reads would
block once it is full, and one writing to a closed pipe would die of SIGPIPE. So the loop
keeps draining it (into :meth:`OutputPipe.redirect`'s sink: the call's log, or nowhere)
until every writer has closed it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable

READ_CHUNK = 64 * 1024
"""How much one read takes."""


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

    def drain(self) -> None:
        """Read everything the pipe holds now; close at its end."""
        while self._descriptor is not None:
            try:
                chunk = os.read(self._descriptor, READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.close()
                if self._ended is not None:
                    self._ended()
                return
            self._sink(chunk)

    def close(self) -> None:
        """Stop reading and close the read end (idempotent)."""
        if self._descriptor is None:
            return
        descriptor, self._descriptor = self._descriptor, None
        with contextlib.suppress(ValueError, RuntimeError):  # the loop may be closing
            self._loop.remove_reader(descriptor)
        os.close(descriptor)


__all__ = ["READ_CHUNK", "OutputPipe"]
