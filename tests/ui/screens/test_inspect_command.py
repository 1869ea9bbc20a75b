"""``pifold inspect`` and ``pifold replay --inspect`` end to end, in a real pseudo-terminal.

The command runs as a user would run it, in its own process on a pty: the test waits until
the screen shows what it must, presses keys, quits with ``q`` and checks the exit code and
the state folder. No timing is asserted: the waits only bound a hung run.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from pifold_core.engine import LOG_NAME
from tests.conftest import TRACES

WAIT_SECONDS = 90.0
"""How long a run may take to show what is awaited before the test calls it hung."""

SMALL_TRACE = TRACES / "swe-agent-demo" / "marshmallow-code__marshmallow-1867.traj"
"""A short real trace, so the replay before the screens is quick."""


class Terminal:
    """One ``pifold`` process on a pseudo-terminal of 120 × 40."""

    def __init__(self, arguments: list[str]) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        environment = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pifold_agent.cli", *arguments],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment,
            close_fds=True,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = b""

    def wait_for(self, text: str) -> None:
        """Read the terminal until ``text`` has been drawn (or fail, naming what was seen)."""
        deadline = time.monotonic() + WAIT_SECONDS
        needle = text.encode()
        while needle not in self.seen:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"never showed {text!r}; last output: {self.seen[-2000:]!r}"
            ready, _, _ = select.select([self.master], [], [], min(remaining, 1.0))
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:  # the process ended and closed its side
                    assert needle in self.seen, f"ended before showing {text!r}"
                    return

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def finish(self) -> int:
        """Wait for the process to exit, draining its output; its exit code."""
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
        finally:
            os.close(self.master)


def test_inspect_opens_the_screens_and_quits(replayed_state: Path) -> None:
    terminal = Terminal(["inspect", str(replayed_state), "--read-only"])
    terminal.wait_for("/fold-status")
    terminal.wait_for("Read-only")
    terminal.press("f")
    terminal.wait_for("Enter or y commits")
    terminal.press("q")
    assert terminal.finish() == 0


def test_replay_then_inspect_hands_the_state_to_the_screens(tmp_path: Path) -> None:
    state = tmp_path / "state"
    terminal = Terminal(
        ["replay", str(SMALL_TRACE), "--budget", "6000", "--state", str(state), "--inspect"]
    )
    terminal.wait_for("/fold-status")
    terminal.press("q")
    assert terminal.finish() == 0
    assert (state / LOG_NAME).is_file()
