"""Replaying every shared trace: the acceptance figures of the engine (issue 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pifold_agent.replay import replay_trace
from pifold_core.engine import Engine
from tests.conftest import shared_trace_files

TRACES = shared_trace_files()


@pytest.mark.skipif(not TRACES, reason="../shared/traces is not present")
@pytest.mark.parametrize("trace", TRACES, ids=[path.parent.name for path in TRACES])
def test_every_trace_replays_cleanly_at_100k(trace: Path, tmp_path: Path) -> None:
    window_out = tmp_path / "window.json"
    report = replay_trace(
        trace, budget=100_000, state_dir=tmp_path / "state", window_out=window_out
    )
    assert report.requests > 0
    assert report.unattributed == 0
    assert report.failed_folds == 0
    assert report.verified_folds == sum(report.folds.values())
    assert report.appends + report.rewrites == report.requests
    # Between commits every request is a pure append: rewrites only come from commits.
    assert report.rewrites <= report.commits
    if report.window.max_after_first_commit is not None:
        assert report.window.max_after_first_commit <= (
            0.80 * 100_000 + report.window.largest_inflow
        )
    sent = json.loads(window_out.read_text(encoding="utf-8"))
    reopened = Engine.open(tmp_path / "state")
    try:
        assert sent == reopened.projection.messages()
        assert reopened.audit.counts.unattributed == 0
    finally:
        reopened.close()


@pytest.mark.skipif(not TRACES, reason="../shared/traces is not present")
def test_small_budget_folds_deeply_and_stays_lossless(tmp_path: Path) -> None:
    trace = next(path for path in TRACES if path.suffix == ".jsonl" and "pi-mono" in str(path))
    report = replay_trace(trace, budget=30_000, state_dir=tmp_path)
    assert report.commits >= 3
    assert report.folds["consolidated"] >= 1
    assert report.unattributed == 0 and report.failed_folds == 0
    assert report.window.min_after_first_commit is not None
    assert report.window.min_after_first_commit > 0


def test_resume_refuses_state_of_another_trace(tmp_path: Path) -> None:
    if len(TRACES) < 2:
        pytest.skip("needs two shared traces")
    replay_trace(TRACES[0], budget=100_000, state_dir=tmp_path)
    from pifold_agent.replay import ReplayStateError

    with pytest.raises(ReplayStateError, match="another session"):
        replay_trace(TRACES[1], budget=100_000, state_dir=tmp_path)
