"""bash with a real shell: exit codes, limits, the log file, timeouts and aborts."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from pifold_agent.tools import BashTool
from tests.agent.tools.helpers import Updates, context_for, run


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers signal 0; it is dead for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False  # reaped between the signal and the read


async def test_output_is_merged_and_runs_in_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "here.txt").write_text("")
    outcome = await run(BashTool(), tmp_path, command="ls; echo oops >&2")
    assert not outcome.is_error and outcome.text == "here.txt\noops"
    assert outcome.details["exitCode"] == 0
    assert (await run(BashTool(), tmp_path, command="true")).text == "(no output)"


async def test_a_non_zero_exit_is_an_error_with_output_and_code(tmp_path: Path) -> None:
    outcome = await run(BashTool(), tmp_path, command="echo partial; exit 3")
    assert outcome.is_error and outcome.text == "partial\n\nCommand exited with code 3"


async def test_long_output_keeps_the_tail_and_names_the_full_log(tmp_path: Path) -> None:
    outcome = await run(BashTool(), tmp_path, command="seq 1 30000")
    body, notice = outcome.text.rsplit("\n\n", 1)
    assert body.split("\n")[0] == "28001" and body.endswith("30000")
    log = outcome.details["fullOutputPath"]
    assert isinstance(log, str)
    assert notice == f"[Showing lines 28001-30000 of 30000. Full output: {log}]"
    assert Path(log).read_text() == "\n".join(str(n) for n in range(1, 30001)) + "\n"
    Path(log).unlink()


async def test_lines_are_counted_over_output_larger_than_memory_keeps(tmp_path: Path) -> None:
    outcome = await run(BashTool(), tmp_path, command="seq 1 100000")  # 588,895 bytes
    body, notice = outcome.text.rsplit("\n\n", 1)
    assert body.split("\n")[0] == "98001" and body.endswith("100000")
    log = outcome.details["fullOutputPath"]
    assert notice == f"[Showing lines 98001-100000 of 100000. Full output: {log}]"
    assert isinstance(log, str) and Path(log).stat().st_size == 588_895
    Path(log).unlink()


async def test_the_byte_limit_is_named_when_lines_are_wide(tmp_path: Path) -> None:
    # 1,000 lines of 99 characters: 100 bytes each with the newline.
    outcome = await run(
        BashTool(), tmp_path, command="for i in $(seq 1 1000); do printf '%099d\\n' $i; done"
    )
    notice = outcome.text.rsplit("\n\n", 1)[1]
    log = outcome.details["fullOutputPath"]
    assert notice == f"[Showing lines 489-1000 of 1000 (50.0KB limit). Full output: {log}]"
    assert isinstance(log, str)
    Path(log).unlink()


async def test_updates_stream_while_the_command_runs(tmp_path: Path) -> None:
    updates = Updates()
    tool = BashTool()
    outcome = await tool.run(
        {"command": "echo one; sleep 0.2; echo two"}, context_for(tmp_path, updates)
    )
    assert outcome.text == "one\ntwo"
    assert updates.texts[0] == "one\n" and updates.texts[-1] == "one\ntwo\n"


async def test_a_timeout_kills_the_group_and_is_an_error(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    outcome = await run(
        BashTool(),
        tmp_path,
        command=f"echo started; sleep 30 & echo $! > {pid_file}; wait",
        timeout=0.5,
    )
    assert outcome.is_error and outcome.text == "started\n\nCommand timed out after 0.5 seconds"
    # The SIGKILL is sent before the call returns; the kernel ends the process when it is
    # next scheduled, which on a loaded machine can be a moment later.
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while alive(child):
        assert time.monotonic() < deadline, "the background child outlived the timeout"
        await asyncio.sleep(0.02)


async def test_cancellation_kills_a_grandchild_that_ignores_sigterm(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    command = f"bash -c 'trap \"\" TERM; sleep 60 & echo $! > {pid_file}; wait' ; echo never"
    task = asyncio.create_task(BashTool().run({"command": command}, context_for(tmp_path)))
    deadline = time.monotonic() + 10
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert time.monotonic() < deadline, "the grandchild never started"
        await asyncio.sleep(0.02)
    grandchild = int(pid_file.read_text())
    assert alive(grandchild)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    deadline = time.monotonic() + 5
    while alive(grandchild):
        assert time.monotonic() < deadline, "the grandchild outlived the abort"
        await asyncio.sleep(0.02)


async def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    missing = await run(BashTool(), tmp_path)
    assert missing.is_error and missing.text == "bash: missing required argument 'command'"
    negative = await run(BashTool(), tmp_path, command="true", timeout=-1)
    assert negative.is_error and "'timeout' must be a positive number" in negative.text


async def test_a_nul_in_the_command_is_a_clear_refusal(tmp_path: Path) -> None:
    outcome = await run(BashTool(), tmp_path, command="echo a\x00b")
    assert outcome.is_error and outcome.text == (
        "bash: the command holds a NUL character, which no shell can run"
    )
