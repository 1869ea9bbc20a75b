"""Crash faults: a replay SIGKILLed at any point resumes to exactly the uninterrupted run.

A forked child replays a real trace into a state folder and kills itself with SIGKILL at a
chosen point: the Nth log append (before it, after it, or half written as a torn line), the
Nth commit record, or the Nth fold-store or evidence write (before it, after it, or with
half a temporary file left behind). Nothing gets to clean up. The parent then resumes the
replay on the same folder, as ``pifold replay --state`` does, and compares it with an
uninterrupted run of the same trace: the report, the final window's wire bytes, and the
whole durable engine state of both folders reopened (entries, folds, views, marks, pins,
meter, audit). Every fold of the resumed run is peeked and verified byte for byte.

The kill points are installed in the child only, by wrapping functions after the fork: the
product code has no kill hook of its own.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.replay import replay_trace
from pifold_agent.replay_report import ReplayReport
from pifold_core.engine import Engine
from pifold_core.state_folder import object_roots
from pifold_core.store import find_temporaries
from tests.core.engine_checks import durable_state
from tests.fault.kill_points import MODES, TARGET_WEIGHTS, KillPoint, wrapped
from tests.fault.tally import FaultTally

CRASH_TRACES: dict[str, int] = {
    "codex-soulpass/codex-session.jsonl": 30_000,
    "pi-v3-paradocs/session.jsonl": 30_000,
    "claude-code-session-share/general-tool-calls.jsonl": 40_000,
    "mini-swe-agent-deepseek/django__django-13265.traj.json": 40_000,
    "pi-mono/large-session.jsonl": 60_000,
}
"""Real traces and budgets small enough for many commits (codex at 30,000 also overflows)."""

SECOND_KILL_SHARE = 0.25
"""Share of cases whose resume is killed too before the final resume."""


@dataclass(frozen=True)
class Reference:
    """The uninterrupted run of one trace at one budget."""

    report: dict[str, Any]
    window: bytes
    state: dict[str, Any]
    counts: Counter[str]


def trace_path(name: str) -> Path | None:
    for path in bundled_traces():
        if str(path).endswith(name):
            return path
    return None


def comparable(report: ReplayReport) -> dict[str, Any]:
    data = report.to_json()
    data.pop("torn_tail")  # a kill mid-write leaves one: the resumed report says so
    return data


def reopened_state(state_dir: Path) -> dict[str, Any]:
    engine = Engine.open(state_dir)
    try:
        return durable_state(engine)
    finally:
        engine.close()


@cache
def reference(name: str) -> Reference:
    path = trace_path(name)
    assert path is not None, name
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="pifold-crash-reference-") as folder:
        state, window = Path(folder) / "state", Path(folder) / "window.json"
        with wrapped(None, counts):
            report = replay_trace(path, CRASH_TRACES[name], state, window)
        return Reference(comparable(report), window.read_bytes(), reopened_state(state), counts)


def crash_child(name: str, state: Path, point: KillPoint) -> str | None:
    """Replay in a forked child that dies at ``point``; returns what went wrong, if anything."""
    outcome = child_replay(name, state, point)
    if outcome == "killed":
        return None
    return f"the child was not killed ({outcome}): the kill point was never reached"


def child_replay(name: str, state: Path, point: KillPoint) -> str:
    """Replay (or resume) in a forked child set to die at ``point``: ``killed``, ``finished``
    when the replay ended first, or what else happened to it."""
    path = trace_path(name)
    assert path is not None
    child = os.fork()
    if child == 0:  # the child: never returns into the caller
        status = 0
        try:
            with wrapped(point, Counter()):
                replay_trace(path, CRASH_TRACES[name], state)
        except BaseException:
            traceback.print_exc()
            status = 3
        os._exit(status)
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        return "killed"
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return "finished"
    return f"the replay failed (wait status {status})"


def window_of(state: Path) -> Path:
    """Where the resumed replay of ``state`` writes its final window."""
    return state.parent / f"{state.name}-window.json"


def differences(name: str, state: Path) -> list[str]:
    """Resume the replay on ``state`` and name every way it differs from the reference."""
    path = trace_path(name)
    assert path is not None
    expected = reference(name)
    window = window_of(state)
    try:
        report = replay_trace(path, CRASH_TRACES[name], state, window)
    except Exception as error:  # the resume itself failing is the difference to report
        return [f"resume raised {type(error).__name__}: {error}"]
    found: list[str] = []
    if report.failed_folds or report.unattributed:
        found.append(f"{report.failed_folds} failed folds, {report.unattributed} unattributed")
    resumed = comparable(report)
    for key, value in expected.report.items():
        if resumed.get(key) != value:
            found.append(f"report {key}: {resumed.get(key)!r} != {value!r}")
    if window.read_bytes() != expected.window:
        found.append("the final window's wire bytes differ")
    rebuilt = reopened_state(state)
    for key, value in expected.state.items():
        if rebuilt[key] != value:
            found.append(f"engine state {key} differs")
    leftovers = [path for root in object_roots(state) for path in find_temporaries(root)]
    if leftovers:
        found.append(f"temporary files of the killed write left behind: {leftovers[:3]}")
    return found


def choose_point(rng: random.Random, name: str) -> KillPoint:
    counts = reference(name).counts
    targets = [target for target in TARGET_WEIGHTS if counts[target]]
    target = rng.choices(targets, [TARGET_WEIGHTS[target] for target in targets])[0]
    return KillPoint(target, rng.randint(1, counts[target]), rng.choice(MODES[target]))


def available_traces() -> list[str]:
    return [name for name in CRASH_TRACES if trace_path(name) is not None]


def run(count: int, seed: int) -> FaultTally:
    """``count`` kills at seeded random points over the shared traces.

    Each case kills a replay; a share of them then kills its resume too, at another point
    (the second kill counts when it lands before the resume finishes). Then the replay is
    resumed to the end and compared with the uninterrupted run.
    """
    tally = FaultTally("crash (SIGKILL)")
    rng = random.Random(seed)
    names = available_traces()
    with tempfile.TemporaryDirectory(prefix="pifold-crash-") as folder:
        number = 0
        while tally.tried < count:
            name = rng.choice(names)
            point = choose_point(rng, name)
            state = Path(folder) / f"state-{number}"
            number += 1
            tally.tried += 1
            case = point.describe(name)
            problem = crash_child(name, state, point)
            if problem is None and tally.tried < count and rng.random() < SECOND_KILL_SHARE:
                again = choose_point(rng, name)
                case += f", then its resume at {again.mode} {again.target} #{again.nth}"
                outcome = child_replay(name, state, again)
                tally.tried += outcome == "killed"
                problem = None if outcome in ("killed", "finished") else outcome
            found = [problem] if problem else differences(name, state)
            for what in found:
                tally.fail(case, what)
            shutil.rmtree(state, ignore_errors=True)
            window_of(state).unlink(missing_ok=True)
    return tally


def test_seeded_kills_resume_to_the_uninterrupted_run() -> None:
    tally = run(24, seed=20261201)
    assert tally.tried == 24
    assert tally.failures == []


CODEX = "codex-soulpass/codex-session.jsonl"


@pytest.mark.parametrize("mode", ["before", "torn", "after"])
def test_a_kill_around_the_overflow_commit_resumes_with_the_retried_request(
    tmp_path: Path, mode: str
) -> None:
    # Defect 6 of issue 9: killed between the overflow commit and its retried request, a
    # resumed replay dropped the retry and went on to 22 commits instead of 21.
    # 9 since issue 12's runway rule no longer waives a commit through past the budget.
    assert reference(CODEX).report["overflows"] == 9
    state = tmp_path / "state"
    assert crash_child(CODEX, state, KillPoint("commit", 1, mode, cause="overflow")) is None
    assert differences(CODEX, state) == []
    # 21 commits before issue 12's runway rule held back the ones that bought little room,
    # 16 with it while a request past the budget waived it; 15 now (4 threshold, 2 on a
    # cold cache, 9 overflow recoveries).
    assert reference(CODEX).report["commits"] == 15


@pytest.mark.parametrize("target", ["log", "commit"])
def test_every_kill_inside_the_overflow_step_resumes_exactly(tmp_path: Path, target: str) -> None:
    # The log appends and commits around the overflow: the request, the overflow note, the
    # commit, the retried request, the answer note and the usage that follows it.
    overflow_commit = _overflow_commit_number()
    counts = reference(CODEX).counts
    first, last = (
        (max(1, overflow_commit - 1), overflow_commit + 1)
        if target == "commit"
        else (1, counts["log"])
    )
    points = [
        KillPoint(target, nth, "after")
        for nth in range(first, last + 1)
        if target == "commit" or _near_overflow(nth)
    ]
    assert points
    for index, point in enumerate(points):
        state = tmp_path / f"state-{index}"
        assert crash_child(CODEX, state, point) is None
        assert differences(CODEX, state) == [], point


@cache
def _overflow_log() -> list[tuple[str, dict[str, Any]]]:
    path = trace_path(CODEX)
    assert path is not None
    with tempfile.TemporaryDirectory() as folder:
        replay_trace(path, CRASH_TRACES[CODEX], Path(folder))
        lines = (Path(folder) / "fold-log.jsonl").read_bytes().splitlines()
    return [(record["k"], record["b"]) for record in map(json.loads, lines)]


def _overflow_commit_number() -> int:
    commits = [body for kind, body in _overflow_log() if kind == "commit"]
    return next(index for index, body in enumerate(commits, 1) if body["cause"] == "overflow")


def _near_overflow(nth: int) -> bool:
    """Whether log append ``nth`` (1-based; the open record is the first) is within three
    records of the overflow commit."""
    records = _overflow_log()
    at = next(i for i, (kind, body) in enumerate(records) if body.get("cause") == "overflow")
    return at - 3 <= nth - 1 <= at + 3


CLI_CHILD = """
import os, signal, sys
from pifold_core import journal
from pifold_cli.app import app

limit = int(sys.argv[1])
original = journal.Journal.append
def append(self, *args, **kwargs):
    if self.next_sequence == limit:
        os.kill(os.getpid(), signal.SIGKILL)
    return original(self, *args, **kwargs)
journal.Journal.append = append
app(sys.argv[2:])
"""


def test_the_cli_killed_mid_replay_resumes_to_the_same_json(tmp_path: Path) -> None:
    path = trace_path(CODEX)
    assert path is not None
    arguments = ["replay", str(path), "--budget", "30000", "--json", "--state"]
    command = [sys.executable, "-c", CLI_CHILD]
    whole = subprocess.run(
        [*command, "-1", *arguments, str(tmp_path / "whole")], capture_output=True, text=True
    )
    killed = subprocess.run(
        [*command, "200", *arguments, str(tmp_path / "killed")], capture_output=True, text=True
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = subprocess.run(
        [*command, "-1", *arguments, str(tmp_path / "killed")], capture_output=True, text=True
    )
    # Budget 30,000 is too small for one of codex's requests even after recovery: exit 1.
    assert whole.returncode == resumed.returncode == 1, resumed.stderr
    expected, got = json.loads(whole.stdout), json.loads(resumed.stdout)
    got.pop("torn_tail")
    expected.pop("torn_tail")
    assert got == expected
