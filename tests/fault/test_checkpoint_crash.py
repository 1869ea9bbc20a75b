"""Fault harness, checkpoint: SIGKILL while a checkpoint is written (issue 12).

A forked child opens a session that already has a checkpoint, appends more, and writes a
new checkpoint with its atomic write wrapped to die at one point: with half the temporary
file written, with the temporary file whole but not renamed, or after the rename (its folder
not yet fsynced). Whatever the point, the next open finds the old checkpoint or the new one,
whole, never a torn one: it is used without a problem, the writer removes the temporary file
the kill left, and the session equals the one rebuilt from the whole log.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from pifold_core import atomic_files, checkpoint
from pifold_core.engine import Engine
from pifold_core.opening import open_state
from tests.core.builders import CharCounter, drive, random_session, small_options
from tests.core.engine_checks import durable_state

KILL_POINTS = ("half a temporary file", "temporary file not renamed", "after the rename")


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _dying_write(point: str) -> Any:
    original = atomic_files.write_file_atomically

    def write(path: Path, data: bytes, mode: int = 0o400, sync_folder: bool = True) -> None:
        if point == "after the rename":
            original(path, data, mode, sync_folder=False)
            _kill()
        temporary = path.parent / f"{atomic_files.TEMPORARY_PREFIX}{path.name}.killed"
        half = data[: len(data) // 2] if point == "half a temporary file" else data
        temporary.write_bytes(half)
        _kill()

    return write


def _child(folder: Path, entries: list[Any], point: str) -> None:
    """Runs in the forked child: never returns."""
    try:
        engine = Engine.open(folder, None, CharCounter())
        drive(engine, entries)
        setattr(checkpoint, "write_file_atomically", _dying_write(point))  # noqa: B010
        checkpoint.write(engine._state)
    finally:
        os._exit(3)  # the kill point was not reached


@pytest.mark.parametrize("point", KILL_POINTS)
def test_a_kill_while_a_checkpoint_is_written_leaves_a_whole_one(
    tmp_path: Path, point: str
) -> None:
    folder = tmp_path / "state"
    entries = random_session(21, 6)
    cut = len(entries) // 2
    engine = Engine.open(folder, small_options(budget=6_000), CharCounter())
    drive(engine, entries[:cut])
    covered = checkpoint.write(engine._state)
    engine.close()
    pid = os.fork()
    if pid == 0:
        _child(folder, entries[cut:], point)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
    reopened = Engine.open(folder, None, CharCounter())
    assert reopened.view.checkpoint_problem is None
    if point == "after the rename":
        assert reopened.view.checkpoint_records > covered  # the new one, whole
    else:
        assert reopened.view.checkpoint_records == covered  # the old one, untouched
    leftovers = list(folder.glob(f"{atomic_files.TEMPORARY_PREFIX}*"))
    assert leftovers == [], leftovers
    rebuilt = Engine(open_state(folder, None, CharCounter(), True, None, use_checkpoint=False))
    live, again = durable_state(reopened), durable_state(rebuilt)
    for key, value in again.items():
        assert live[key] == value, f"{key} differs"
    assert reopened.view.audit_counts.unattributed == 0
    reopened.close()
