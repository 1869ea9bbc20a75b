"""Killing a replay half way (SIGKILL) and reopening gives the same requests, byte for byte."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pifold_agent.replay import replay_trace
from pifold_core.canonical import parse_json
from pifold_core.engine import LOG_NAME
from tests.conftest import shared_trace_files

TRACES = [path for path in shared_trace_files() if "mini-swe-agent" in str(path)]

# The child replays the trace and, after N log records, writes half of the next record
# (a torn line) and kills itself with SIGKILL: nothing gets to clean up.
CHILD = """
import os, signal, sys
from pathlib import Path
from pifold_core import journal
from pifold_agent.replay import replay_trace

limit = int(sys.argv[3])
original = journal.Journal.append
def append(self, kind, body, durable=False):
    if self.next_sequence == limit:
        sequence = original(self, kind, body, durable)
        data = self.path.read_bytes()
        # Cut the record just written in half, as a crash mid-write would.
        last = data.rstrip(b"\\n").rfind(b"\\n") + 1
        with open(self.path, "r+b") as handle:
            handle.truncate(last + (len(data) - last) // 2)
        os.kill(os.getpid(), signal.SIGKILL)
    return original(self, kind, body, durable)
journal.Journal.append = append
replay_trace(Path(sys.argv[1]), budget=40_000, state_dir=Path(sys.argv[2]))
"""


def request_prefixes(state: Path) -> list[str]:
    lines = (state / LOG_NAME).read_bytes().splitlines()
    records = [parse_json(line) for line in lines]
    return [record["b"]["prefix"] for record in records if record["k"] == "request"]


@pytest.mark.skipif(not TRACES, reason="../shared/traces is not present")
@pytest.mark.parametrize("kill_after", [150, 420])
def test_sigkill_then_reopen_matches_an_uninterrupted_run(tmp_path: Path, kill_after: int) -> None:
    trace = TRACES[0]
    reference = tmp_path / "reference"
    uninterrupted = replay_trace(trace, budget=40_000, state_dir=reference)
    assert uninterrupted.commits >= 2, "the budget must be small enough for commits to happen"

    crashed = tmp_path / "crashed"
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(trace), str(crashed), str(kill_after)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == -9, child.stderr
    resumed = replay_trace(trace, budget=40_000, state_dir=crashed)

    assert resumed.unattributed == 0
    assert resumed.failed_folds == 0
    assert request_prefixes(crashed) == request_prefixes(reference)
    assert resumed.commits == uninterrupted.commits
    assert resumed.folds == uninterrupted.folds
