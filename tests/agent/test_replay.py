"""Replaying every shared trace: the acceptance figures of the engine (issue 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.replay import replay_trace
from pifold_core.engine import Engine

TRACES = bundled_traces()


BUDGETS = (60_000, 100_000, 200_000)


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("trace", TRACES, ids=[path.parent.name for path in TRACES])
def test_every_trace_replays_cleanly(trace: Path, budget: int, tmp_path: Path) -> None:
    window_out = tmp_path / "window.json"
    report = replay_trace(trace, budget=budget, state_dir=tmp_path / "state", window_out=window_out)
    assert report.requests > 0
    assert report.unattributed == 0
    assert report.failed_folds == 0
    assert report.verified_folds == sum(report.folds.values())
    assert report.appends + report.rewrites == report.requests
    assert report.append_share >= 0.90
    # Between commits every request is a pure append: rewrites only come from commits.
    assert report.rewrites <= report.commits
    assert len(report.commit_sizes) == report.commits
    assert report.consolidations == report.folds["consolidated"]
    if report.window.max_after_first_commit is not None:
        assert report.window.max_after_first_commit <= (
            0.80 * budget + report.window.largest_inflow
        )
    data = report.to_json()
    for key in ("clipped", "pins", "marks_pending", "consolidations", "commit_sizes"):
        assert key in data
    sent = json.loads(window_out.read_text(encoding="utf-8"))
    reopened = Engine.open(tmp_path / "state")
    try:
        assert sent == reopened.view.projection.messages()
        assert reopened.view.audit_counts.unattributed == 0
        assert reopened.view.clipped_total == report.clipped
    finally:
        reopened.close()


LONGEST = ("pi-mono", "codex-soulpass", "mini-swe-agent-deepseek")


@pytest.mark.parametrize("name", LONGEST)
def test_longest_traces_grow_consolidated_folds(name: str, tmp_path: Path) -> None:
    trace = next(path for path in TRACES if path.parent.name == name)
    report = replay_trace(trace, budget=100_000, state_dir=tmp_path)
    assert report.consolidations >= 1
    assert report.commits >= 1
    assert sum(report.commit_sizes) == sum(report.folds.values())


def test_recorded_usage_drives_occupancy(tmp_path: Path) -> None:
    """The trace's own usage is bound while the projection is the raw history, then only
    calibrates; occupancy carries what the engine cannot see (the system prompt)."""
    trace = next(path for path in TRACES if path.parent.name == "mini-swe-agent-deepseek")
    report = replay_trace(trace, budget=100_000, state_dir=tmp_path)
    measurement = report.measurement
    assert measurement.recorded
    assert measurement.bound > 100
    assert measurement.calibration_samples >= 1
    assert 0.5 <= measurement.calibration <= 2.0
    # Before the first commit the expected occupancy is the provider's count, which
    # includes the host's system prompt: above the engine's own estimate.
    assert report.window.peak > report.window.peak_estimated * 0.9
    assert measurement.reading == "estimated_after_commit"


def test_traces_without_usage_read_as_estimated(tmp_path: Path) -> None:
    trace = next(path for path in TRACES if path.parent.name == "gemini-cli")
    report = replay_trace(trace, budget=100_000, state_dir=tmp_path)
    assert not report.measurement.recorded
    assert report.measurement.reading == "estimated"
    assert report.window.peak == report.window.peak_estimated


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


def test_overflow_recovery_runs_where_a_provider_would_refuse(tmp_path: Path) -> None:
    """At a budget the trace's inflows overrun, the replay recovers as a host would."""
    trace = next(path for path in TRACES if path.parent.name == "codex-soulpass")
    report = replay_trace(trace, budget=20_000, state_dir=tmp_path)
    assert report.overflows >= 1
    assert report.unattributed == 0 and report.failed_folds == 0
    causes = [record for record in _log_kinds(tmp_path) if record == "overflow"]
    assert len(causes) == report.overflows


def test_pre_commit_notices_are_appends_and_survive_resume(tmp_path: Path) -> None:
    from dataclasses import replace

    from pifold_core.options import EngineOptions

    trace = next(path for path in TRACES if path.parent.name == "pi-mono")
    options = replace(EngineOptions(budget=60_000), pre_commit_notice=True)
    report = replay_trace(trace, budget=60_000, state_dir=tmp_path, options=options)
    assert report.unattributed == 0
    engine = Engine.open(tmp_path)
    try:
        notices = [entry for entry in engine.view.transcript if entry.extra.get("pifold")]
        # One notice per approach: at most one more than the commits that followed them.
        assert 1 <= len(notices) <= report.commits + 1
        assert all("commit fires at 48,000 tokens" in entry.text for entry in notices)
    finally:
        engine.close()
    again = replay_trace(trace, budget=60_000, state_dir=tmp_path, options=options)
    assert again.entries == report.entries


def _log_kinds(state: Path) -> list[str]:
    """The cause of every commit in a state folder's log."""
    causes: list[str] = []
    for line in (state / "fold-log.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["k"] == "commit":
            causes.append(record["b"]["cause"])
    return causes


def test_a_resumed_replay_with_overflows_matches_an_uninterrupted_one(tmp_path: Path) -> None:
    """An overflow sends one request twice; resuming must still find its place exactly."""
    trace = next(path for path in TRACES if path.parent.name == "pi-mono")
    whole = replay_trace(trace, budget=8_000, state_dir=tmp_path / "whole")
    assert whole.overflows > 0
    half = tmp_path / "half.jsonl"
    lines = trace.read_text(encoding="utf-8").splitlines(keepends=True)
    half.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    replay_trace(half, budget=8_000, state_dir=tmp_path / "resumed")
    resumed = replay_trace(trace, budget=8_000, state_dir=tmp_path / "resumed")
    assert resumed.requests == whole.requests
    assert resumed.commits == whole.commits
    assert resumed.unattributed == 0
    first = Engine.open(tmp_path / "whole")
    second = Engine.open(tmp_path / "resumed")
    try:
        assert first.view.projection.digests() == second.view.projection.digests()
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("cut", [1, 9, 30, 120])
def test_a_log_whose_first_write_was_torn_is_resumed(tmp_path: Path, cut: int) -> None:
    """A kill during the opening record's write leaves a partial first line: the replay
    resumes (the engine drops the torn line) instead of calling the folder foreign (found
    by the crash harness, seed 1: 1 of 1,000 kills)."""
    trace = min(TRACES, key=lambda path: path.stat().st_size)
    finished = replay_trace(trace, 60_000, state_dir=tmp_path / "whole")
    opening = (tmp_path / "whole" / "fold-log.jsonl").read_bytes().split(b"\n")[0]
    torn = tmp_path / "torn"
    torn.mkdir()
    (torn / "fold-log.jsonl").write_bytes(opening[:cut])
    resumed = replay_trace(trace, 60_000, state_dir=torn)
    assert resumed.requests == finished.requests
    assert resumed.unattributed == 0


def test_a_foreign_first_line_is_still_refused_when_unterminated(tmp_path: Path) -> None:
    from pifold_agent.replay import ReplayStateError

    state = tmp_path / "state"
    state.mkdir()
    (state / "fold-log.jsonl").write_bytes(b"hello, not a log")
    with pytest.raises(ReplayStateError, match="not a pifold session log"):
        replay_trace(TRACES[0], 60_000, state_dir=state)
    assert (state / "fold-log.jsonl").read_bytes() == b"hello, not a log"
