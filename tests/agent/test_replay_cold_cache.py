"""The replay driver passes the trace's cache lifetime (issue 12): a long pause in a real
session finds the cache cold and lands a ``cold-cache`` commit, as it would live, and a replay
killed with SIGKILL around that commit resumes to exactly the uninterrupted run.

The Claude Code shared trace has pauses longer than five minutes (its model's family in the
price file: Anthropic breakpoints, 300 s); replayed at 60k it commits only on a cold cache.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.replay import ReplayStateError, replay_trace
from pifold_agent.replay_report import ReplayReport
from pifold_cli.app import app
from pifold_core.canonical import parse_json
from pifold_core.engine import LOG_NAME
from tests.agent.torn_kill import replay_killed_after

TRACES = [path for path in bundled_traces() if "claude-code" in str(path)]
BUDGET = 60_000
LIFETIME_S = 300


def _records(state: Path) -> list[dict[str, object]]:
    return [parse_json(line) for line in (state / LOG_NAME).read_bytes().splitlines()]  # type: ignore[misc]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReplayReport, Path]:
    """The uninterrupted replay at the trace's own lifetime, shared by the tests."""
    state = tmp_path_factory.mktemp("reference") / "state"
    return replay_trace(TRACES[0], BUDGET, state), state


def test_a_long_pause_in_the_trace_lands_a_cold_cache_commit(
    reference: tuple[ReplayReport, Path],
) -> None:
    report, state = reference
    assert (report.cache_lifetime_s, report.cache_lifetime_source) == (LIFETIME_S, "price file")
    assert report.cold_commits >= 1
    assert report.unattributed == 0 and report.failed_folds == 0
    assert report.verified_folds == sum(report.folds.values())
    # Every cold-cache commit ran before a request sent more than the lifetime after the
    # one before it, by the trace's own clock.
    records = _records(state)
    times = [record["b"]["at"] for record in records if record["k"] == "request"]  # type: ignore[index]
    cold_at = []
    requests = 0
    for record in records:
        if record["k"] == "request":
            requests += 1
        elif record["k"] == "commit" and record["b"]["cause"] == "cold-cache":  # type: ignore[index]
            cold_at.append(requests)
    assert len(cold_at) == report.cold_commits
    for number in cold_at:
        assert number >= 1, "a cold commit needs a previous request to measure from"
        assert times[number] - times[number - 1] > LIFETIME_S * 1_000  # type: ignore[operator]


def test_without_a_lifetime_the_same_trace_makes_no_cold_commit(
    reference: tuple[ReplayReport, Path], tmp_path: Path
) -> None:
    report = replay_trace(TRACES[0], BUDGET, tmp_path / "state", cache_lifetime_s=None)
    assert report.cold_commits == 0 and report.cache_lifetime_source == "none"
    assert report.commits < reference[0].commits
    assert report.unattributed == 0 and report.failed_folds == 0


def test_a_resume_with_another_lifetime_is_refused_and_changes_nothing(
    reference: tuple[ReplayReport, Path], tmp_path: Path
) -> None:
    state = tmp_path / "state"
    shutil.copytree(reference[1], state)
    (state / "lock").unlink(missing_ok=True)
    before = (state / LOG_NAME).read_bytes()
    with pytest.raises(ReplayStateError, match=r"cache lifetime of 300 s.*asked for 600 s"):
        replay_trace(TRACES[0], BUDGET, state, cache_lifetime_s=600)
    with pytest.raises(ReplayStateError, match=r"asked for none \(0\)"):
        replay_trace(TRACES[0], BUDGET, state, cache_lifetime_s=None)
    assert (state / LOG_NAME).read_bytes() == before
    again = replay_trace(TRACES[0], BUDGET, state)  # the same lifetime: it resumes (at the end)
    assert (again.commits, again.cold_commits) == (
        reference[0].commits,
        reference[0].cold_commits,
    )


def _kill_points(state: Path) -> list[int]:
    """The log positions of the first cold-cache commit, and of the request right after it."""
    records = _records(state)
    commit = next(
        index
        for index, record in enumerate(records)
        if record["k"] == "commit" and record["b"]["cause"] == "cold-cache"  # type: ignore[index]
    )
    return [commit, commit + 1]


@pytest.mark.parametrize("which", [0, 1], ids=["at-the-cold-commit", "at-the-request-after"])
def test_sigkill_around_a_cold_commit_then_resume_matches_the_uninterrupted_run(
    reference: tuple[ReplayReport, Path], tmp_path: Path, which: int
) -> None:
    uninterrupted, reference_state = reference
    kill_after = _kill_points(reference_state)[which]
    crashed = tmp_path / "crashed"
    child = replay_killed_after(TRACES[0], crashed, kill_after, BUDGET)
    assert child.returncode == -9, child.stderr
    resumed = replay_trace(TRACES[0], BUDGET, crashed)
    assert resumed.unattributed == 0 and resumed.failed_folds == 0
    assert (resumed.commits, resumed.cold_commits) == (
        uninterrupted.commits,
        uninterrupted.cold_commits,
    )
    assert resumed.folds == uninterrupted.folds

    def requests(state: Path) -> list[object]:
        return [record["b"] for record in _records(state) if record["k"] == "request"]  # type: ignore[index]

    assert requests(crashed) == requests(reference_state)


def test_the_command_takes_a_cache_lifetime(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["replay", str(TRACES[0]), "--budget", str(BUDGET), "--json", "--cache-lifetime", "0"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["cache_lifetime_s"], report["cold_commits"]) == (None, 0)
    result = CliRunner().invoke(
        app, ["replay", str(TRACES[0]), "--budget", str(BUDGET), "--cache-lifetime", "-5"]
    )
    assert result.exit_code == 2
    assert "--cache-lifetime must be 0 (none) or a number of seconds" in result.output
    assert "Traceback" not in result.output
