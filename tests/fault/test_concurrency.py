"""Fault harness, concurrency: one writer per session, readers beside it, no stuck lock.

Each case starts a second process that opens a session for writing and keeps appending
(``tests.core.lock_holder``), then, while it holds the session:

* a writable ``Engine.open`` in this process is refused with ``SessionLocked`` naming the
  folder and the holder's pid, and writes nothing;
* ``pifold replay --state`` on the folder is refused with a clear message on stderr, a
  non-zero exit and no traceback, and writes nothing;
* ``pifold doctor --repair`` is refused; ``pifold doctor`` and a read-only open work beside
  it and see at least what the holder reported, never cutting its line in progress;

then kills the holder with SIGKILL at a random point of its writing and checks that the lock
is free at once and the session reopens for writing, consistent, with everything the holder
reported written.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from typer.testing import CliRunner

from pifold_cli.app import app
from pifold_core.engine import Engine, SessionLocked
from pifold_core.lock import current_holder
from tests.conftest import TRACES as BUNDLED
from tests.core.builders import CharCounter
from tests.fault.tally import FaultTally

REPOSITORY = Path(__file__).resolve().parents[2]
TRACE = BUNDLED / "swe-agent-demo" / "marshmallow-code__marshmallow-1867.traj"
RUNNER = CliRunner()


def _files(state: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in state.rglob("*") if path.is_file()}


def _case(state: Path, rng: random.Random, tally: FaultTally, label: str) -> None:
    rounds = rng.randrange(2, 9)
    kill_after = rng.randrange(1, rounds + 1)  # rounds reported before the kill
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.core.lock_holder", str(state), str(rounds)],
        cwd=REPOSITORY,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        if process.stdout.readline().split() != ["ready", str(process.pid)]:
            tally.fail(label, "the holder did not start")
            return
        reported = 0
        for _ in range(kill_after):
            reported = int(process.stdout.readline().split()[2])
        _while_held(state, process.pid, reported, tally, label)
        # Killed wherever it is: between rounds, or in the middle of its next append.
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if current_holder(state) is not None:
        tally.fail(label, "the lock is still held after its holder was killed")
        return
    engine = Engine.open(state, None, CharCounter())
    try:
        if len(engine.view.transcript) < reported:
            tally.fail(
                label, f"{reported} entries reported, {len(engine.view.transcript)} reopened"
            )
        if engine.view.audit_counts.unattributed:
            tally.fail(label, "unattributed rewrites after the kill")
    finally:
        engine.close()


def _while_held(state: Path, pid: int, reported: int, tally: FaultTally, label: str) -> None:
    files = _files(state)
    try:
        Engine.open(state, None, CharCounter()).close()
        tally.fail(label, "a second writer was let in")
    except SessionLocked as error:
        if str(state) not in str(error) or f"pid {pid}" not in str(error):
            tally.fail(label, f"the refusal does not name the folder and pid: {error}")
    result = RUNNER.invoke(app, ["replay", str(TRACE), "--state", str(state), "--json"])
    if result.exit_code == 0 or "Traceback" in result.output or "open" not in result.output:
        tally.fail(label, f"replay beside a writer: exit {result.exit_code}: {result.output}")
    repaired = RUNNER.invoke(app, ["doctor", str(state), "--repair"])
    if repaired.exit_code != 1 or f"pid {pid}" not in repaired.output:
        tally.fail(label, f"doctor --repair beside a writer: {repaired.output}")
    # What the holder wrote since is its own; the refused openers must have added nothing.
    for path, data in files.items():
        now = path.read_bytes() if path.exists() else b""
        if path.name != "fold-log.jsonl" and now != data:
            tally.fail(label, f"{path.name} changed under a refused opener")
    looked = RUNNER.invoke(app, ["doctor", str(state), "--json"])
    if f'"pid": {pid}' not in looked.output:
        tally.fail(label, f"doctor does not name the holder: {looked.output}")
    viewer = Engine.open(state, None, CharCounter(), read_only=True)
    try:
        if len(viewer.view.transcript) < reported or viewer.view.torn_tail is not None:
            tally.fail(label, "a read-only open beside the writer lost or cut its lines")
    finally:
        viewer.close()


QUICK_COUNT = 5
"""Cases ``benchmarks/fault_harness.py --quick`` runs (the CI test runs about as many)."""


def run(count: int, seed: int) -> FaultTally:
    """``count`` holders, each refused to others, read beside, then killed."""
    tally = FaultTally("concurrency")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="pifold-concurrency-") as scratch:
        for number in range(count):
            state = Path(scratch) / f"case-{number}"
            _case(state, rng, tally, f"holder (seed {seed}, case {number})")
            tally.tried += 1
    return tally


def test_one_writer_readers_beside_it_and_no_stuck_lock() -> None:
    tally = run(count=4, seed=5)
    assert tally.tried == 4
    assert tally.failures == []


def test_the_holder_is_named_in_the_lock_file_and_the_file_is_private() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(scratch) / "state"
        engine = Engine.open(state, None, CharCounter())
        holder = current_holder(state)
        assert holder is not None and holder.pid == os.getpid()
        assert (state / "lock").stat().st_mode & 0o777 == 0o600
        engine.close()
        assert current_holder(state) is None
