"""``pifold inspect`` and ``pifold replay --inspect`` end to end, in a real pseudo-terminal.

The command runs as a user would run it, in its own process on a pty: the test waits until
the screen shows what it must, presses keys, quits with ``q`` and checks the exit code and
the state folder. No timing is asserted: the waits only bound a hung run.
"""

from __future__ import annotations

import os
from pathlib import Path

from pifold_core.engine import LOG_NAME
from tests.conftest import TRACES
from tests.pty_terminal import Terminal

SMALL_TRACE = TRACES / "swe-agent-demo" / "marshmallow-code__marshmallow-1867.traj"
"""A short real trace, so the replay before the screens is quick."""


def test_inspect_opens_the_screens_and_quits(replayed_state: Path) -> None:
    terminal = Terminal(["inspect", str(replayed_state), "--read-only"])
    terminal.wait_for("/fold-status")
    terminal.wait_for("Read-only")
    terminal.press("f")
    terminal.wait_for("Enter or y commits")
    terminal.press("q")
    assert terminal.finish() == 0


def test_replay_then_inspect_hands_the_state_to_the_screens(tmp_path: Path) -> None:
    state = tmp_path / "state"
    terminal = Terminal(
        ["replay", str(SMALL_TRACE), "--budget", "6000", "--state", str(state), "--inspect"]
    )
    terminal.wait_for("/fold-status")
    terminal.press("q")
    assert terminal.finish() == 0
    assert (state / LOG_NAME).is_file()


def test_replay_then_inspect_without_a_state_folder_leaves_nothing_behind(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    terminal = Terminal(
        ["replay", str(SMALL_TRACE), "--budget", "6000", "--inspect"],
        environment={**os.environ, "TMPDIR": str(scratch)},
    )
    terminal.wait_for("/fold-status")
    assert [path.name for path in scratch.iterdir() if path.name.startswith("pifold-inspect-")]
    terminal.press("q")
    assert terminal.finish() == 0
    assert [path for path in scratch.iterdir() if path.name.startswith("pifold-")] == []
