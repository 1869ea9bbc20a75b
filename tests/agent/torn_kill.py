"""A replay killed mid-write: the child process the crash-and-resume tests run.

The child replays a trace and, once ``limit`` log records are written, writes the next one,
cuts it in half on disk (a torn line, as a crash mid-write leaves it) and kills itself with
SIGKILL, so nothing gets to clean up.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CHILD = """
import os, signal, sys
from pathlib import Path
from pifold_core import journal
from pifold_agent.replay import replay_trace

limit = int(sys.argv[3])
original = journal.Journal.append
def append(self, kind, body, durable=False):
    if self.next_sequence == limit:
        original(self, kind, body, durable)
        data = self.path.read_bytes()
        # Cut the record just written in half, as a crash mid-write would.
        last = data.rstrip(b"\\n").rfind(b"\\n") + 1
        with open(self.path, "r+b") as handle:
            handle.truncate(last + (len(data) - last) // 2)
        os.kill(os.getpid(), signal.SIGKILL)
    return original(self, kind, body, durable)
journal.Journal.append = append
replay_trace(Path(sys.argv[1]), budget=int(sys.argv[4]), state_dir=Path(sys.argv[2]))
"""


def replay_killed_after(
    trace: Path, state: Path, records: int, budget: int
) -> subprocess.CompletedProcess[str]:
    """Replay ``trace`` at ``budget`` into ``state`` in a child killed after ``records``."""
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(trace), str(state), str(records), str(budget)],
        capture_output=True,
        text=True,
        timeout=300,
    )
