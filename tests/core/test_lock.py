"""One writer per session (issue 9, defect 1): the lock, read-only opens, a dead holder."""

from __future__ import annotations

import fcntl
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest

import pifold_core.lock as lock_module
from pifold_core.engine import Engine, ReadOnlySession, SessionLocked
from pifold_core.entries import Usage
from pifold_core.lock import LockHeld, SessionLock, current_holder
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_lossless, chapters, durable_state, folded_engine

REPOSITORY = Path(__file__).resolve().parents[2]


@contextmanager
def holder_process(state: Path, rounds: int) -> Iterator[subprocess.Popen[str]]:
    """A second process holding ``state`` open for writing (see ``lock_holder``)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.core.lock_holder", str(state), str(rounds)],
        cwd=REPOSITORY,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().split() == ["ready", str(process.pid)]
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def _rounds(process: subprocess.Popen[str]) -> Iterator[int]:
    """Entries the holder reports after each round, as it reports them."""
    assert process.stdout is not None
    for line in process.stdout:
        word, _, entries = line.split()
        assert word == "round"
        yield int(entries)


def test_a_second_open_in_the_same_process_is_refused(tmp_path: Path) -> None:
    first = Engine.open(tmp_path / "state", small_options(), CharCounter())
    log = first._state.journal.path.read_bytes()
    with pytest.raises(SessionLocked, match=rf"state is already open .* by pid {os.getpid()}"):
        Engine.open(tmp_path / "state", small_options(), CharCounter())
    assert first._state.journal.path.read_bytes() == log  # the refused open wrote nothing
    first.close()
    again = Engine.open(tmp_path / "state", small_options(), CharCounter())  # freed by close
    again.close()
    again.close()  # idempotent


def test_a_failed_open_gives_the_lock_back(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(), CharCounter())
    engine.close()
    log = engine._state.journal.path
    lines = log.read_bytes().split(b"\n")
    log.write_bytes(lines[0].replace(b'"open"', b'"opne"') + b"\n" + lines[0] + b"\n")
    with pytest.raises(RuntimeError, match="line 1 is damaged"):
        Engine.open(tmp_path / "state", small_options(), CharCounter())
    assert current_holder(tmp_path / "state") is None


def test_lock_records_its_holder_and_is_private(tmp_path: Path) -> None:
    previous = os.umask(0o000)
    try:
        lock = SessionLock.acquire(tmp_path)
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "lock").stat().st_mode) == 0o600
    holder = current_holder(tmp_path)
    assert holder is not None and holder.pid == os.getpid() and holder.since
    with pytest.raises(LockHeld, match=f"pid {os.getpid()}"):
        SessionLock.acquire(tmp_path)
    lock.release()
    assert not lock.held and current_holder(tmp_path) is None


def test_a_second_process_is_refused_and_a_killed_holder_leaves_no_lock(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with holder_process(state, rounds=2) as process:
        assert list(_take(_rounds(process), 2)) == [2, 4]
        holder = current_holder(state)
        assert holder is not None and holder.pid == process.pid
        log = (state / "fold-log.jsonl").read_bytes()
        with pytest.raises(SessionLocked, match=rf"{state} is already open .* pid {process.pid}"):
            Engine.open(state, small_options(), CharCounter())
        assert (state / "fold-log.jsonl").read_bytes() == log
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert current_holder(state) is None  # the kernel freed it with the process
    engine = Engine.open(state, small_options(), CharCounter())
    assert len(engine.view.transcript) == 4 and engine.view.torn_tail is None
    engine.close()


def test_read_only_beside_a_writer_that_keeps_appending(tmp_path: Path) -> None:
    state = tmp_path / "state"
    rounds = 12
    with holder_process(state, rounds) as process:
        seen: list[int] = []
        for written in _rounds(process):
            viewer = Engine.open(state, None, CharCounter(), read_only=True)
            # Everything the writer reported is there; a line it is still writing is not
            # taken for a torn tail (and nothing is cut from under it).
            assert len(viewer.view.transcript) >= written
            assert viewer.view.torn_tail is None
            assert viewer.status().audit.unattributed == 0
            seen.append(len(viewer.view.transcript))
            viewer.close()
            if written == 2 * rounds:
                break
        assert seen == sorted(seen)
        assert process.stdin is not None
        process.stdin.write("close\n")
        process.stdin.close()
        assert process.wait() == 0
    reopened = Engine.open(state, None, CharCounter())
    assert len(reopened.view.transcript) == 2 * rounds and reopened.view.torn_tail is None
    assert reopened.view.audit_counts.requests == rounds
    reopened.close()


def test_read_only_rebuilds_the_same_state_and_refuses_every_change(tmp_path: Path) -> None:
    engine, session = folded_engine(tmp_path)
    engine._state.journal.sync()
    viewer = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
    assert durable_state(viewer) == durable_state(engine)
    assert_lossless(viewer)  # peek works read-only
    files = sorted(path for path in engine.state_dir.rglob("*"))
    log = engine._state.journal.path.read_bytes()
    fold = next(iter(viewer.view.forest.folds))
    entry = session.entries[-1].id
    more = SessionBuilder(prefix="more-")
    refusals = [
        lambda: viewer.append(more.user("hello")),
        viewer.prepare_request,
        viewer.commit_now,
        viewer.recover_from_overflow,
        lambda: viewer.expand(fold),
        lambda: viewer.refold(fold),
        lambda: viewer.pin([entry]),
        lambda: viewer.unpin([entry]),
        lambda: viewer.apply_options(small_options(budget=9_999)),
        lambda: viewer.note({"step": 1}),
        lambda: viewer.note_ephemeral_peek("call-x", fold),
        lambda: viewer.commit_marks(["mark-1"]),
        lambda: viewer.set_brief("mark-1", "a brief"),
        lambda: viewer.reboundary("mark-1", entry, entry),
        lambda: viewer.unmark("mark-1"),
        lambda: viewer.calibrate(100, 100),
        lambda: viewer.report_usage(1, Usage(input_tokens=10)),
    ]
    before = durable_state(viewer)
    for refusal in refusals:
        with pytest.raises(ReadOnlySession, match="open read-only"):
            refusal()
    assert durable_state(viewer) == before
    viewer.close()
    assert sorted(path for path in engine.state_dir.rglob("*")) == files
    assert engine._state.journal.path.read_bytes() == log
    engine.close()


def test_read_only_needs_a_session_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holds no session log"):
        Engine.open(tmp_path / "absent", read_only=True)
    assert not (tmp_path / "absent").exists()


def test_read_only_does_not_cut_a_torn_tail_a_writer_then_reports(tmp_path: Path) -> None:
    session = SessionBuilder()
    chapters(session, 2)
    engine = Engine.open(tmp_path / "state", small_options(budget=200_000), CharCounter())
    drive(engine, session.entries)
    engine.close()
    log = engine._state.journal.path
    whole = log.read_bytes()
    log.write_bytes(whole + b'{"n":999,"k":"entry"')  # a writer killed in its last append
    viewer = Engine.open(tmp_path / "state", None, CharCounter(), read_only=True)
    assert viewer.status().torn_tail is None and len(viewer.view.transcript) == len(session.entries)
    assert log.read_bytes().endswith(b'"k":"entry"')
    writer = Engine.open(tmp_path / "state", None, CharCounter())
    torn = writer.status().torn_tail
    assert torn is not None and torn.byte_count == len(b'{"n":999,"k":"entry"')
    assert torn.line_number == whole.count(b"\n") + 1
    assert log.read_bytes() == whole
    writer.close()


def _take(values: Iterator[int], count: int) -> Iterator[int]:
    for _ in range(count):
        yield next(values)


def test_a_look_at_the_lock_never_turns_a_writer_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    SessionLock.acquire(tmp_path).release()
    with open(tmp_path / "lock", "rb") as probe:
        fcntl.flock(probe.fileno(), fcntl.LOCK_SH)  # what current_holder holds for an instant
        pauses: list[float] = []

        def look_ends(seconds: float) -> None:
            pauses.append(seconds)
            fcntl.flock(probe.fileno(), fcntl.LOCK_UN)

        clock = SimpleNamespace(sleep=look_ends, strftime=time.strftime, gmtime=time.gmtime)
        monkeypatch.setattr(lock_module, "time", clock)
        lock = SessionLock.acquire(tmp_path)
    assert lock.held and len(pauses) == 1
    lock.release()
