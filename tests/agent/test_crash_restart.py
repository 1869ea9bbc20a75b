"""Killing a replay half way (SIGKILL) and reopening gives the same requests, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.replay import replay_trace
from pifold_core.canonical import parse_json
from pifold_core.engine import LOG_NAME
from tests.agent.torn_kill import replay_killed_after

TRACES = [path for path in bundled_traces() if "mini-swe-agent" in str(path)]


def request_prefixes(state: Path) -> list[str]:
    lines = (state / LOG_NAME).read_bytes().splitlines()
    records = [parse_json(line) for line in lines]
    return [record["b"]["prefix"] for record in records if record["k"] == "request"]


@pytest.mark.parametrize("kill_after", [150, 420])
def test_sigkill_then_reopen_matches_an_uninterrupted_run(tmp_path: Path, kill_after: int) -> None:
    trace = TRACES[0]
    reference = tmp_path / "reference"
    uninterrupted = replay_trace(trace, budget=40_000, state_dir=reference)
    assert uninterrupted.commits >= 2, "the budget must be small enough for commits to happen"

    crashed = tmp_path / "crashed"
    child = replay_killed_after(trace, crashed, kill_after, 40_000)
    assert child.returncode == -9, child.stderr
    resumed = replay_trace(trace, budget=40_000, state_dir=crashed)

    assert resumed.unattributed == 0
    assert resumed.failed_folds == 0
    assert request_prefixes(crashed) == request_prefixes(reference)
    assert resumed.commits == uninterrupted.commits
    assert resumed.folds == uninterrupted.folds
