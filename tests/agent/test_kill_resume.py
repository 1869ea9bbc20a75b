"""SIGKILL of a running ``pifold -p`` (scripted) during a tool batch and during a commit,
then ``--continue``: no entry is lost and the engine's projection is the one it had logged.

The agent runs as a real subprocess with its session under a private ``PIFOLD_HOME``; the
test kills it at the moment it is inside the batch (a marker the bash call writes) or inside
the commit (the first fold object appearing in the store), then reads what survived.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pifold_agent.loop.messages import in_context
from pifold_agent.loop.recorder import ORPHAN_RESULT
from pifold_agent.sessions import SessionFile, latest_for
from pifold_core.audit import request_digest
from pifold_core.engine import Engine
from pifold_core.journal import Journal
from tests.core.builders import filler
from tests.helpers.scripts import write_script as script_file


def write_script(path: Path, name: str, lines: list[dict[str, object]]) -> Path:
    """A script under ``path`` whose tool calls run for real."""
    return script_file(path / name, lines, tools="execute")


def start(repository: Path, home: Path, script: Path, *extra: str) -> subprocess.Popen[bytes]:
    entry_point = "from pifold_cli.app import main; main()"
    command = [sys.executable, "-c", entry_point, "-p", "go", "--script", str(script)]
    environment = {**os.environ, "PIFOLD_HOME": str(home)}
    return subprocess.Popen(
        [*command, *extra],
        cwd=repository,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def kill_when(process: subprocess.Popen[bytes], ready: Callable[[], bool]) -> None:
    """SIGKILL ``process`` the moment ``ready()`` holds (it must, within a minute)."""
    deadline = time.monotonic() + 60
    while not ready():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the agent never got there"
        time.sleep(0.001)
    process.send_signal(signal.SIGKILL)
    process.wait()


def logged_projection_holds(state: Path) -> Engine:
    """Reopen the killed session's engine read-only; the last logged request's digests are
    the rebuilt projection's, byte for byte, unless a commit landed after that request: the
    kill then fell between a commit's record and the next request's (the search index's
    upkeep runs there), the reopened projection is the commit's, and the reopen's replay
    checks a request it replays against the projection of its own moment."""
    records = list(Journal(state / "fold-log.jsonl").read_all())
    last_request = max(place for place, record in enumerate(records) if "prefix" in record.body)
    committed_since = any(record.kind == "commit" for record in records[last_request + 1 :])
    engine = Engine.open(state, read_only=True)
    last = records[last_request].body
    digest = request_digest(engine.view.projection.digests()[: last["count"]])
    assert digest == last["prefix"] or committed_since
    return engine


def resume_and_check(
    repository: Path, home: Path, tmp_path: Path, before: list[str]
) -> tuple[SessionFile, Engine]:
    """``--continue`` with a one-reply script; every entry from before is still there."""
    script = write_script(tmp_path, "resume.jsonl", [{"assistant": "Resumed and done."}])
    process = start(repository, home, script, "--continue")
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()
    assert out.decode() == "Resumed and done.\n"
    session = latest_for(repository, home / "sessions")
    assert session is not None
    engine = Engine.open(session.state_directory, read_only=True)
    engine_ids = [entry.id for entry in engine.view.transcript.entries]
    assert all(identifier in engine_ids for identifier in before)
    session_ids = [entry.id for entry in session.messages() if in_context(entry)]
    assert session_ids[: len(before)] == before
    assert [identifier for identifier in engine_ids if identifier in session_ids] == session_ids
    assert engine.view.audit_counts.unattributed == 0
    return session, engine


def test_sigkill_during_a_tool_batch_then_continue(tmp_path: Path) -> None:
    repository, home = tmp_path / "repo", tmp_path / "home"
    repository.mkdir()
    marker = tmp_path / "in-the-batch"
    command = f"echo $$ > {marker}.tmp && mv {marker}.tmp {marker} && sleep 60"
    script = write_script(
        tmp_path,
        "batch.jsonl",
        [
            {
                "assistant": "Running two commands.",
                "tool_calls": [
                    {"id": "fast", "name": "bash", "arguments": {"command": "echo quick"}},
                    {"id": "slow", "name": "bash", "arguments": {"command": command}},
                ],
            },
            {"assistant": "never reached"},
        ],
    )
    process = start(repository, home, script)

    def inside_the_batch() -> bool:
        # The slow call is running and the fast one's result, finalised first, is on disk.
        files = list(home.glob("sessions/*/*.jsonl"))
        return marker.exists() and any('"toolCallId":"fast"' in path.read_text() for path in files)

    try:
        kill_when(process, inside_the_batch)
    finally:
        if marker.exists():  # the bash call's own group outlives its killed parent
            os.killpg(int(marker.read_text()), signal.SIGKILL)

    session = latest_for(repository, home / "sessions")
    assert session is not None
    before = [entry.id for entry in session.messages() if in_context(entry)]
    assert [entry.kind for entry in session.messages()][:2] == ["user", "assistant"]
    logged_projection_holds(session.state_directory).close()

    session, engine = resume_and_check(repository, home, tmp_path, before)
    results = {entry.call_id: entry for entry in engine.view.transcript.entries if entry.call_id}
    assert results["fast"].text.strip() == "quick" and not results["fast"].is_error
    assert results["slow"].is_error and results["slow"].text == ORPHAN_RESULT
    assert engine.view.transcript.entries[-1].text == "Resumed and done."
    engine.close()


def test_sigkill_during_a_commit_then_continue(tmp_path: Path) -> None:
    repository, home = tmp_path / "repo", tmp_path / "home"
    (repository / "src").mkdir(parents=True)
    lines: list[dict[str, object]] = []
    for number in range(40):
        (repository / "src" / f"part_{number}.txt").write_text(filler(6_000, seed=number))
        call = {"id": f"r{number}", "name": "read", "arguments": {"path": f"src/part_{number}.txt"}}
        lines.append({"assistant": f"Reading part {number}.", "tool_calls": [call]})
    lines.append({"assistant": "Read everything."})
    script = write_script(tmp_path, "commit.jsonl", lines)
    process = start(repository, home, script, "--budget", "20000")

    def store_objects() -> bool:
        return any(home.glob("sessions/*/*.pi-fold/store/sha256/*/*"))

    kill_when(process, store_objects)

    session = latest_for(repository, home / "sessions")
    assert session is not None
    before = [entry.id for entry in session.messages() if in_context(entry)]
    assert len(before) > 10
    engine = logged_projection_holds(session.state_directory)
    committed = engine.view.commit_count
    engine.close()

    session, engine = resume_and_check(repository, home, tmp_path, before)
    # Whether the kill came before the commit's record or after it, the resumed session
    # commits (again, or further) and every fold it holds is verified on open.
    assert engine.view.commit_count >= max(committed, 1)
    assert engine.view.forest.folds
    engine.close()


def test_ctrl_c_aborts_cleanly_with_exit_one(tmp_path: Path) -> None:
    repository, home = tmp_path / "repo", tmp_path / "home"
    repository.mkdir()
    marker = tmp_path / "in-the-batch"
    command = f"echo $$ > {marker}.tmp && mv {marker}.tmp {marker} && sleep 60"
    call = {"id": "slow", "name": "bash", "arguments": {"command": command}}
    script = write_script(
        tmp_path,
        "abort.jsonl",
        [{"assistant": "Waiting.", "tool_calls": [call]}, {"assistant": "never reached"}],
    )
    process = start(repository, home, script)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    group = int(marker.read_text())
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)

    assert process.returncode == 1 and out == b""
    assert err.decode() == "aborted: the run was interrupted; the session keeps what happened\n"
    try:  # the abort killed the bash call's whole process group
        os.killpg(group, 0)
        raise AssertionError("the bash call's process group outlived the abort")
    except ProcessLookupError:
        pass
    session = latest_for(repository, home / "sessions")
    assert session is not None
    entries = session.messages()
    assert [entry.kind for entry in entries] == ["user", "assistant", "tool_result"]
    assert entries[-1].is_error
    engine = Engine.open(session.state_directory, read_only=True)
    assert [entry.id for entry in engine.view.transcript.entries] == [entry.id for entry in entries]
    engine.close()
