"""One ``pifold`` process on a real pseudo-terminal, driven as a user drives it.

The tests that must see what a user sees (the screens end to end, what is printed once the
app has gone) run the command in its own process on a pty of 120 × 40: they wait until the
screen shows a text, press keys, and read everything the process wrote until it exited. No
timing is asserted: :data:`WAIT_SECONDS` only bounds a hung run.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Mapping
from pathlib import Path

WAIT_SECONDS = 90.0
"""How long a run may take to show what is awaited (or to exit) before it is called hung."""

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
"""What a full-screen app writes when it gives the terminal back (Textual does, on exit)."""

ESCAPE_SEQUENCE = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
"""A terminal control sequence (CSI, OSC or a two-byte escape): not text a user reads."""


class Terminal:
    """One ``pifold`` process on a pseudo-terminal of 120 × 40."""

    def __init__(
        self,
        arguments: list[str],
        environment: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        """Start ``python -m pifold_cli ARGUMENTS``.

        Args:
            arguments: The command line after ``pifold``.
            environment: The process's environment (this one's when omitted); the terminal
                type and colour depth are set on top of it.
            cwd: Where it runs (this process's working directory when omitted).
        """
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        base = dict(os.environ if environment is None else environment)
        base.update({"TERM": "xterm-256color", "COLORTERM": "truecolor"})
        # Textual takes COLUMNS and LINES over the terminal's own size, and a test runner's
        # worker may have them set: the app must see the pty's 120 x 40.
        base.pop("COLUMNS", None)
        base.pop("LINES", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pifold_cli", *arguments],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=base,
            cwd=cwd,
            close_fds=True,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = b""
        """Everything the process wrote so far (screen and error output alike)."""

    def wait_for(self, text: str) -> None:
        """Read the terminal until ``text`` has been drawn (or fail, naming what was seen)."""
        deadline = time.monotonic() + WAIT_SECONDS
        needle = text.encode()
        while needle not in self.seen:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise AssertionError(f"never showed {text!r}; last output: {self.seen[-2000:]!r}")
            ready, _, _ = select.select([self.master], [], [], min(remaining, 1.0))
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:  # the process ended and closed its side
                    assert needle in self.seen, f"ended before showing {text!r}"
                    return

    def read_for(self, seconds: float) -> None:
        """Keep reading what the process draws for ``seconds`` (so it never blocks on a full
        terminal while the caller waits)."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], remaining)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:
                    return

    def kill(self) -> None:
        """End the process and its session for good (a failed test leaves nothing running:
        an app whose terminal is gone may never notice it)."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def finish(self) -> int:
        """Wait for the process to exit, draining its output; its exit code (the process is
        killed, and the code is negative, when it does not exit in :data:`WAIT_SECONDS`)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while self.process.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:
                    break
        try:
            return self.process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()
        finally:
            self.read_rest()
            os.close(self.master)

    def read_rest(self) -> None:
        """Whatever is still buffered on the terminal (the process has ended)."""
        while True:
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if not ready:
                return
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.seen += chunk

    def printed_after_exit(self) -> str:
        """The text the process printed after it gave the terminal back: a traceback, a
        warning, an error line. Control sequences and blank space are not counted; a process
        that never gave the terminal back counts everything it wrote."""
        _, _, after = self.seen.rpartition(LEAVE_ALTERNATE_SCREEN)
        text = ESCAPE_SEQUENCE.sub(b"", after).decode("utf-8", errors="replace")
        return text.strip()


__all__ = ["LEAVE_ALTERNATE_SCREEN", "WAIT_SECONDS", "Terminal"]
