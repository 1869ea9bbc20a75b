"""One Ctrl-C always ends the run: nothing a tool blocks on keeps ``pifold -p`` alive.

The model reads a FIFO nobody writes (which once hung in ``open()`` inside a thread the
interpreter waited for at exit) and starts a long command beside it; one SIGINT must end the
process, every call answered. The blocking helper itself is checked the same way: a task
cancelled while its thread is stuck in ``open()`` lets the interpreter exit.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pifold_agent.loop.batch import ABORTED_RESULT
from pifold_agent.sessions import latest_for
from pifold_core.engine import Engine
from tests.core.engine_checks import assert_clean_audit, assert_lossless

REPOSITORY = Path(__file__).resolve().parents[3]
BOUND_SECONDS = 60
"""A process still alive after this long hangs (a bound, not a measurement)."""


def release(fifo: Path) -> None:
    """Let a reader stuck opening ``fifo`` go (when a test failed and left one)."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_one_sigint_ends_pifold_p_beside_a_fifo_and_a_long_command(tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    fifo = work / "pipe"
    os.mkfifo(fifo)
    marker = tmp_path / "running"
    lines = [
        {"script": "pifold", "version": 1, "tools": "execute"},
        {
            "assistant": "Reading.",
            "tool_calls": [
                {"id": "fifo", "name": "read", "arguments": {"path": "pipe"}},
                {
                    "id": "long",
                    "name": "bash",
                    "arguments": {"command": f"touch {marker}; sleep 60"},
                },
            ],
        },
        {"assistant": "never reached"},
    ]
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    entry_point = "from pifold_cli.app import main; main()"
    process = subprocess.Popen(
        [sys.executable, "-c", entry_point, "-p", "go", "--script", str(script)],
        cwd=work,
        env={**os.environ, "PIFOLD_HOME": str(home), "PYTHONPATH": str(REPOSITORY)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + BOUND_SECONDS
        while not marker.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=BOUND_SECONDS)
    finally:
        if process.poll() is None:
            release(fifo)
            process.kill()
            process.wait()
    assert process.returncode == 1
    session = latest_for(work, home / "sessions")
    assert session is not None
    results = {entry.call_id: entry for entry in session.messages() if entry.kind == "tool_result"}
    assert results["fifo"].is_error and "FIFO" in results["fifo"].text
    assert results["long"].text == ABORTED_RESULT
    engine = Engine.open(session.state_directory, read_only=True)
    try:
        assert_clean_audit(engine)
        assert_lossless(engine)
    finally:
        engine.close()


def test_a_thread_stuck_in_open_does_not_keep_the_interpreter_alive(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    script = (
        "import asyncio\n"
        "from pifold_agent.tools.blocking import in_thread\n"
        "async def main():\n"
        f"    task = asyncio.ensure_future(in_thread(open, {str(fifo)!r}, 'rb'))\n"
        "    await asyncio.sleep(0.2)\n"
        "    task.cancel()\n"
        "    try:\n"
        "        await task\n"
        "    except asyncio.CancelledError:\n"
        "        print('cancelled', flush=True)\n"
        "asyncio.run(main())\n"
    )
    try:
        finished = subprocess.run(
            [sys.executable, "-c", script],
            cwd=REPOSITORY,
            capture_output=True,
            timeout=BOUND_SECONDS,
        )
    finally:
        release(fifo)
    assert finished.returncode == 0 and finished.stdout == b"cancelled\n"
