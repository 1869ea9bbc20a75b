"""Fault harness, agent: two writers: one session written by two at once, in every mode.

Each case prepares a session (folding or ``--no-fold``), starts a first writer in a process
of its own (``pifold -p`` folding or ``--no-fold``, or the app's set-up and a run) and a
second in this process (the same modes, and the app opening the session with no model) at a
random moment: before the first claims the session, while it holds it, or after it ended.
Each writer's answer is streamed over a random time, so the two overlap in every way.

Checks: a writer either finishes (exit 0, its answer) or is refused clearly (exit 2, one
``error:`` line naming the session and the other writer's pid, nothing recorded); the
session file stays one line of history (every entry's parent is the entry before it: no
fork), every finished writer's prompt and answer are on its current branch, and the
engine's log agrees with it (zero unattributed rewrites, every fold verified).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from pathlib import Path

from pifold_agent.run_input import HeadlessOptions
from pifold_agent.sessions import SessionFile, latest_for
from pifold_agent.sessions.writer_lock import session_holder
from tests.agent.headless_cases import (
    Outcome,
    answer_script,
    assert_session_consistent,
    headless,
    refusal_problems,
    scoped_environment,
)
from tests.fault.tally import FaultTally
from tests.fault.writers import MODES, PROCESS_MODES, Writer, outcome_of, paced_script

CATEGORY = "agent: two writers"

QUICK_COUNT = 8
"""Cases ``benchmarks/fault_harness.py --quick`` runs (each starts a process: ~2 s)."""

FULL_COUNT = 150
"""Cases of a full run."""

HOLD_SECONDS = (0.05, 0.5)
"""How long a writer's answer streams: the time it holds the session."""


def prepared(root: Path, no_fold: bool) -> tuple[Path, Path, Path]:
    """A session of one turn; returns its file, the working directory and the sessions."""
    work, sessions = root / "work", root / "home" / "sessions"
    work.mkdir(parents=True)
    options = HeadlessOptions(prompt="start", script=answer_script(root), no_fold=no_fold,
                              cwd=work, sessions_dir=sessions)  # fmt: skip
    outcome = headless(options)
    assert outcome.code == 0, outcome.err
    session = latest_for(work, sessions)
    assert session is not None
    return session.path, work, sessions


def fork_problems(path: Path) -> list[str]:
    """Where the session file stops being one line of history (an entry whose parent is
    not the entry before it)."""
    lines = [json.loads(text) for text in path.read_text().splitlines() if text.strip()]
    lines = [line for line in lines if line.get("type") != "session"]
    previous = None
    for line in lines:
        if line.get("parentId") != previous:
            return [f"entry {line.get('id')} forks off {line.get('parentId')}, not {previous}"]
        previous = line.get("id")
    return []


def writer_problems(
    writer: Writer, outcome: Outcome, session_id: str, other_pid: int | None
) -> list[str]:
    """A writer finished with its answer, or was refused in one line naming the session and
    (when it is known) the other writer's pid."""
    if outcome.code == 0:
        expected = "" if writer.mode == "app-no-model" else writer.answer + "\n"
        if outcome.out != expected or outcome.err:
            return [f"{writer.name} ({writer.mode}) finished oddly: {outcome}"]
        return []
    phrases = [session_id] + ([f"pid {other_pid}"] if other_pid is not None else [])
    return [
        f"{writer.name} ({writer.mode}): {problem}"
        for problem in refusal_problems(outcome, 2, *phrases)
    ]


def one_case(
    number: int, rng: random.Random, base: Path, tally: FaultTally, lag: list[float]
) -> None:
    """Two writers on one fresh session; what broke goes into ``tally``."""
    root = base / f"case-{number}"
    started_no_fold = rng.random() < 0.3
    path, work, sessions = prepared(root, no_fold=started_no_fold)
    session_id = SessionFile.open(path).id
    first = Writer(rng.choice(PROCESS_MODES), "first",
                   paced_script(root / "first.jsonl", "answer of the first writer",
                                rng.uniform(*HOLD_SECONDS)), work, sessions)  # fmt: skip
    second = Writer(rng.choice(MODES), "second",
                    paced_script(root / "second.jsonl", "answer of the second writer",
                                 rng.uniform(*HOLD_SECONDS)), work, sessions)  # fmt: skip
    case = f"case {number}: {first.mode} then {second.mode}"
    started = time.monotonic()
    process = first.start_process()
    # The second writer starts at a random moment around the first one's claim (learnt
    # from earlier cases): before it, while it holds the session, or after it ended.
    claim = sum(lag) / len(lag) if lag else 1.5
    delay = rng.uniform(0.5 * claim, claim + HOLD_SECONDS[1] + 0.3)
    seen_pid = None
    while time.monotonic() - started < delay:
        holder = session_holder(path)
        if holder is not None and holder.pid == process.pid and seen_pid is None:
            seen_pid = process.pid
            lag.append(time.monotonic() - started)
        time.sleep(0.002)
    second_outcome = second.run_here()
    first_outcome = outcome_of(process)
    tally.tried += 1
    problems = writer_problems(first, first_outcome, session_id, os.getpid())
    problems += writer_problems(second, second_outcome, session_id, process.pid)
    if first_outcome.code != 0 and second_outcome.code != 0:
        problems.append("both writers were refused")
    problems += fork_problems(path)
    texts = [entry.text for entry in SessionFile.open(path).messages()]
    for writer, outcome in ((first, first_outcome), (second, second_outcome)):
        recorded = writer.prompt in texts
        if writer.mode != "app-no-model" and recorded != (outcome.code == 0):
            state = "finished but is not" if outcome.code == 0 else "was refused but is"
            problems.append(f"the {writer.name} writer {state} on the current branch")
        if outcome.code == 0 and writer.mode != "app-no-model" and writer.answer not in texts:
            problems.append(f"the {writer.name} writer's answer is not on the current branch")
    no_fold_wrote = started_no_fold or any(
        writer.mode == "no-fold" and outcome.code == 0
        for writer, outcome in ((first, first_outcome), (second, second_outcome))
    )
    try:
        assert_session_consistent(path, log_may_lag=no_fold_wrote)
    except AssertionError as error:
        problems.append(f"the log disagrees with the file: {error}")
    for problem in problems:
        tally.fail(case, problem)


def run(count: int, seed: int) -> FaultTally:
    """``count`` pairs of writers on one session each."""
    tally = FaultTally(CATEGORY)
    rng = random.Random(seed)
    lag: list[float] = []
    with tempfile.TemporaryDirectory(prefix="pifold-writers-") as scratch:
        environment = {"XDG_CONFIG_HOME": str(Path(scratch) / "config")}
        with scoped_environment(environment):
            for number in range(count):
                try:
                    one_case(number, rng, Path(scratch), tally, lag)
                except Exception as error:
                    tally.fail(f"case {number}", f"{type(error).__name__}: {error}")
    return tally


def test_two_writers_in_every_mode_never_fork_the_session() -> None:
    tally = run(count=3, seed=5)
    assert tally.tried == 3
    assert tally.failures == []
