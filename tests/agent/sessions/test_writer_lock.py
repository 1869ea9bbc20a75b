"""One writer per session file, whatever the mode (Reliability II, defect 5).

Two opens of one session each append to the branch they read: without the lock the second
forks the tree and the first one's work drops off the current branch. These tests hold the
lock with a second open (in this process, and in a real second process that is then
killed) and check the refusal, what it names, and that nothing forks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pifold_agent.sessions import SessionBusy, SessionError, SessionFile, state_directory
from pifold_agent.sessions.writer_lock import session_holder
from pifold_cli.app import app
from pifold_core.entries import Entry, TextBlock
from tests.agent.headless_cases import answer_script, headless, newest, options_in


def message(identifier: str, text: str) -> Entry:
    return Entry(identifier, "user", 1_764_619_200_000, (TextBlock(text),))


def started(tmp_path: Path) -> SessionFile:
    session = SessionFile.create(tmp_path / "project", sessions_dir=tmp_path / "sessions")
    session.record(message("a0000001", "first"))
    session.close()
    return session


def test_a_second_open_is_refused_naming_the_session_and_this_process(tmp_path: Path) -> None:
    path = started(tmp_path).path
    first = SessionFile.open(path)
    first.claim()
    second = SessionFile.open(path)
    with pytest.raises(SessionBusy) as refused:
        second.claim()
    text = str(refused.value)
    assert first.id in text and str(path) in text and f"pid {os.getpid()}" in text
    with pytest.raises(SessionBusy):
        second.record(message("b0000001", "would fork"))  # a write takes the lock too
    first.record(message("a0000002", "second"))
    first.close()
    assert session_holder(path) is None  # closing gave it back
    reopened = SessionFile.open(path)
    assert [entry.id for entry in reopened.messages()] == ["a0000001", "a0000002"]


def test_a_claim_reads_what_another_writer_appended_so_nothing_forks(tmp_path: Path) -> None:
    path = started(tmp_path).path
    stale = SessionFile.open(path)  # read before the other writer's turn
    other = SessionFile.open(path)
    other.record(message("a0000002", "the other writer's work"))
    other.close()
    stale.claim()
    stale.record(message("a0000003", "mine"))
    stale.close()
    branch = [entry.id for entry in SessionFile.open(path).messages()]
    assert branch == ["a0000001", "a0000002", "a0000003"]


def test_a_write_after_another_writer_changed_the_file_is_refused(tmp_path: Path) -> None:
    path = started(tmp_path).path
    stale = SessionFile.open(path)
    other = SessionFile.open(path)
    other.record(message("a0000002", "the other writer's work"))
    other.close()
    with pytest.raises(SessionError, match="changed on disk since it was read"):
        stale.record(message("a0000003", "would fork"))
    assert session_holder(path) is None  # the refused write took no lock with it
    branch = [entry.id for entry in SessionFile.open(path).messages()]
    assert branch == ["a0000001", "a0000002"]


HOLDER = """
import sys
from pathlib import Path
from pifold_agent.sessions import SessionFile
session = SessionFile.open(Path(sys.argv[1]))
session.claim()
print("held", flush=True)
sys.stdin.readline()
"""


def test_another_process_is_named_and_a_killed_holder_never_blocks(tmp_path: Path) -> None:
    path = started(tmp_path).path
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == b"held\n"
        holder = session_holder(path)
        assert holder is not None and holder.pid == process.pid
        with pytest.raises(SessionBusy, match=f"pid {process.pid}"):
            SessionFile.open(path).claim()
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    survivor = SessionFile.open(path)
    survivor.claim()  # the kernel freed the lock with the killed process
    survivor.close()


def test_a_file_where_the_state_folder_should_be_is_named(tmp_path: Path) -> None:
    path = started(tmp_path).path
    folder = state_directory(path)
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()
    folder.write_text("not a folder")
    with pytest.raises(SessionError, match="is not a folder: move it aside"):
        SessionFile.open(path).claim()


def test_the_doctor_names_who_writes_the_session_file(tmp_path: Path) -> None:
    assert headless(options_in(tmp_path, script=answer_script(tmp_path))).code == 0
    path = newest(tmp_path).path
    holder = SessionFile.open(path)
    holder.claim()  # a --no-fold run holds only the session file's lock
    try:
        result = CliRunner().invoke(app, ["doctor", str(state_directory(path)), "--json"])
    finally:
        holder.close()
    report = json.loads(result.stdout)
    assert report["lockHolder"] is None
    assert report["sessionFileHolder"]["pid"] == os.getpid()
    shown = CliRunner().invoke(app, ["doctor", str(state_directory(path))])
    assert "session file:" not in shown.stdout  # nobody writes it now
