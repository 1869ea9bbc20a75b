"""``cmd &``: bash returns when the shell does, names what it left running, lets it run,
and ends it when pifold exits. And the default timeout, configurable."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pifold_agent.tools import BashTool
from pifold_agent.tools.bash import end_background_processes
from tests.agent.tools.helpers import run
from tests.agent.tools.test_bash import alive

BOUND_SECONDS = 20
"""A call that has not returned by then hangs (a bound, not a measurement)."""


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND_SECONDS
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


async def settle(condition: Callable[[], bool], what: str) -> None:
    """:func:`wait_until` that lets the event loop run (it drains the pipes)."""
    deadline = time.monotonic() + BOUND_SECONDS
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


@pytest.fixture(autouse=True)
def no_background_left() -> Iterator[None]:
    yield
    end_background_processes()


async def test_a_background_process_does_not_hold_the_call(tmp_path: Path) -> None:
    outcome = await asyncio.wait_for(
        run(BashTool(), tmp_path, command="sleep 60 & echo started $!"), BOUND_SECONDS
    )
    assert not outcome.is_error
    first, notice = outcome.text.split("\n\n")
    pid = int(first.split()[1])
    assert notice.startswith("[Still running in the background (process group ")
    assert f"): {pid} " in notice and "end them sooner with: kill -- -" in notice
    # Its command line is sleep's, or the shell's copy when sleep had not started yet.
    left = outcome.details["leftRunning"]
    assert isinstance(left, list) and [member["pid"] for member in left] == [pid]  # type: ignore[index]
    assert alive(pid)  # not killed when the call returned
    assert end_background_processes() != []
    wait_until(lambda: not alive(pid), "the background process outlived its end")


async def test_a_background_process_writing_without_pause_holds_neither_call_nor_loop(
    tmp_path: Path,
) -> None:
    outcome = await asyncio.wait_for(
        run(BashTool(), tmp_path, command="yes & echo started"), BOUND_SECONDS
    )
    assert "[Still running in the background" in outcome.text  # the tail is yes's output
    await asyncio.wait_for(asyncio.sleep(0.2), BOUND_SECONDS)  # the loop still turns
    log = outcome.details["fullOutputPath"]
    assert isinstance(log, str)
    end_background_processes()
    await settle(lambda: Path(log).stat().st_size > 0, "the log stayed empty")
    Path(log).unlink()


async def test_background_output_goes_on_to_the_named_log(tmp_path: Path) -> None:
    command = "(sleep 0.3; echo later; sleep 60) & echo now"
    outcome = await asyncio.wait_for(run(BashTool(), tmp_path, command=command), BOUND_SECONDS)
    log = outcome.details["fullOutputPath"]
    assert isinstance(log, str) and f"Their output goes to {log}." in outcome.text
    assert outcome.text.startswith("now\n\n[Still running")
    await settle(lambda: Path(log).read_text() == "now\nlater\n", "the later output never came")
    Path(log).unlink()


def test_processes_left_running_end_when_pifold_exits(tmp_path: Path) -> None:
    script = (
        "import asyncio, pathlib\n"
        "from pifold_agent.tools import BashTool\n"
        "from tests.agent.tools.helpers import run\n"
        "outcome = asyncio.run(run(BashTool(), pathlib.Path('.'), command='sleep 60 & echo $!'))\n"
        "print(outcome.text.split()[0], flush=True)\n"
    )
    finished = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        timeout=BOUND_SECONDS * 3,
        check=True,
    )
    pid = int(finished.stdout.split()[0])
    wait_until(lambda: not alive(pid), "a background process outlived pifold")


async def test_the_default_timeout_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIFOLD_BASH_TIMEOUT", "0.5")
    outcome = await asyncio.wait_for(
        run(BashTool(), tmp_path, command="echo begun; sleep 30"), BOUND_SECONDS
    )
    assert outcome.is_error and outcome.text == (
        "begun\n\nCommand timed out after 0.5 seconds "
        "(the default limit: give a larger timeout if it needs longer)"
    )
    monkeypatch.setenv("PIFOLD_BASH_TIMEOUT", "soon")
    refused = await run(BashTool(), tmp_path, command="true")
    assert refused.is_error and refused.text == (
        "bash: PIFOLD_BASH_TIMEOUT must be a number of seconds (0 for no limit), got 'soon'"
    )
    monkeypatch.setenv("PIFOLD_BASH_TIMEOUT", "0")
    assert (await run(BashTool(), tmp_path, command="sleep 0.1; echo ok")).text == "ok"


def test_the_default_timeout_is_two_minutes() -> None:
    from pifold_agent.tools.bash import default_timeout

    assert default_timeout({}) == 120.0
    assert default_timeout({"PIFOLD_BASH_TIMEOUT": "7.5"}) == 7.5
    assert default_timeout({"PIFOLD_BASH_TIMEOUT": "0"}) is None
