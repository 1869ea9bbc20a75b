"""Damage handled precisely and loudly, and private files (issue 9, defects 7 and 8).

A lost log over a populated store is refused; a torn tail is reported in status; one
damaged store object or evidence artifact leaves the rest of the session usable and is loud
when touched; leftovers of killed writes are cleaned on a writable open; every file of the
state is private, and an old session's wider modes are tightened by its next writer.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pifold_core.engine import Engine
from pifold_core.journal import JournalCorrupt
from pifold_core.state_folder import loose_state_modes, state_temporaries
from pifold_core.store import StoreObjectCorrupt, StoreObjectMissing
from pifold_core.tool import run_tool
from tests.core.builders import CharCounter, SessionBuilder, drive, filler, small_options
from tests.core.engine_checks import assert_lossless, folded_engine, set_checkpoint_aside


def _evidence_session(path: Path) -> tuple[Engine, str]:
    """A folded session whose last tool result is kept as an evidence artifact."""
    engine, session = folded_engine(path)
    call = session.assistant("", [("bash", {"cmd": "cat big.log"})])
    session.result(call.tool_calls[0], filler(40_000, 3, stem="log"))
    session.assistant("It is long.")
    drive(engine, session.entries[-3:])
    (identifier,) = engine.view.evidence_ids
    return engine, identifier


def _open(engine: Engine, read_only: bool = False) -> Engine:
    return Engine.open(engine.state_dir, None, CharCounter(), read_only=read_only)


@pytest.mark.parametrize("how", ["deleted", "emptied"])
def test_a_lost_log_over_a_populated_store_is_refused(tmp_path: Path, how: str) -> None:
    engine, _ = folded_engine(tmp_path)
    engine.close()
    log = engine._state.journal.path
    if how == "deleted":
        log.unlink()
    else:
        log.write_bytes(b"")
    for read_only in (False, True):
        with pytest.raises(JournalCorrupt, match=r"fold-log.jsonl (is missing|holds no record)"):
            _open(engine, read_only)
    assert not log.exists() if how == "deleted" else log.read_bytes() == b""


def test_a_torn_tail_is_reported_in_status(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    engine.close()
    log = engine._state.journal.path
    data = log.read_bytes()
    lines = data.split(b"\n")[:-1]
    log.write_bytes(data[: -len(lines[-1]) // 2 - 1])  # half of the last line, no newline
    reopened = _open(engine)
    torn = reopened.status().torn_tail
    assert torn is not None and torn.line_number == len(lines)
    assert torn.byte_count == len(lines[-1]) - len(lines[-1]) // 2
    assert f"LOG CUT ON OPEN: {torn.describe()}" in run_tool(reopened, {"action": "status"}).text
    assert reopened.status().damaged == ()
    reopened.close()


@pytest.mark.parametrize("damage", ["deleted", "flipped", "truncated", "folder"])
def test_one_damaged_store_object_leaves_the_rest_usable(tmp_path: Path, damage: str) -> None:
    engine, _ = folded_engine(tmp_path)
    engine.close()
    folds = list(engine.view.forest.folds.values())
    assert len(folds) >= 3
    victim = next(fold for fold in folds if engine.view.forest.parent.get(fold.handle) is None)
    path = engine._state.store.path_of(victim.source_digest)
    if damage == "deleted":
        path.unlink()
    elif damage == "folder":
        path.unlink()
        path.mkdir()
    else:
        data = bytearray(path.read_bytes())
        if damage == "flipped":
            data[-5] ^= 0x10
        else:
            del data[-7:]
        os.chmod(path, 0o600)
        path.write_bytes(bytes(data))
    set_checkpoint_aside(engine.state_dir)  # the whole-log reopen checks every object
    reopened = _open(engine)
    problem = "missing" if damage == "deleted" else "corrupt"
    damaged = reopened.status().damaged
    assert [(item.id, item.kind, item.problem) for item in damaged] == [
        (victim.handle, "fold", problem)
    ]
    assert victim.source_digest in damaged[0].message
    text = run_tool(reopened, {"action": "status"}).text
    assert f"DAMAGED: fold {victim.handle}, its stored bytes are {problem}" in text
    error = StoreObjectMissing if damage == "deleted" else StoreObjectCorrupt
    with pytest.raises(error, match=victim.source_digest):
        reopened.peek(victim.handle)
    with pytest.raises(error, match=victim.source_digest):
        reopened.expand(victim.handle)
    for fold in folds:
        if fold.handle != victim.handle:
            reopened.peek(fold.handle)  # every other fold verifies
    reopened.append(SessionBuilder(prefix="later-").user("the session goes on"))
    reopened.prepare_request()
    assert reopened.view.audit_counts.unattributed == 0
    reopened.close()


def test_a_damaged_evidence_artifact_is_reported_and_loud(tmp_path: Path) -> None:
    engine, identifier = _evidence_session(tmp_path)
    assert engine.peek(identifier).complete
    engine.close()
    digest = identifier.removeprefix("evidence-")
    path = engine._state.evidence.path_of(digest)
    os.chmod(path, 0o600)
    path.write_bytes(path.read_bytes()[:-1] + b" ")
    set_checkpoint_aside(engine.state_dir)
    reopened = _open(engine, read_only=True)
    assert [(item.id, item.kind, item.problem) for item in reopened.status().damaged] == [
        (identifier, "evidence", "corrupt")
    ]
    with pytest.raises(StoreObjectCorrupt, match=identifier):
        reopened.peek(identifier)
    assert_lossless(reopened)  # the folds are untouched
    path.unlink()
    path.mkdir()
    with pytest.raises(StoreObjectCorrupt, match="cannot be read as a file"):
        reopened.peek(identifier)


def test_leftovers_of_killed_writes_are_removed_by_a_writer_only(tmp_path: Path) -> None:
    engine, identifier = _evidence_session(tmp_path)
    engine.close()
    fold = next(iter(engine.view.forest.folds.values()))
    store_leftover = engine._state.store.path_of(fold.source_digest).parent / ".abc.tmp1"
    evidence_folder = engine._state.evidence.path_of(identifier.removeprefix("evidence-")).parent
    evidence_leftover = evidence_folder / ".def.tmp2"
    for leftover in (store_leftover, evidence_leftover):
        leftover.write_bytes(b"half written")
    viewer = _open(engine, read_only=True)
    assert sorted(state_temporaries(engine.state_dir)) == sorted(
        [store_leftover, evidence_leftover]
    )
    viewer.close()
    writer = _open(engine)
    assert state_temporaries(engine.state_dir) == []
    assert not store_leftover.exists() and not evidence_leftover.exists()
    assert writer.status().damaged == ()
    writer.close()


def test_every_file_of_the_state_is_private_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o000)
    try:
        engine, _ = _evidence_session(tmp_path)
    finally:
        os.umask(previous)
    engine.close()
    state = engine.state_dir
    assert loose_state_modes(state) == []
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "fold-log.jsonl").stat().st_mode) == 0o600
    assert stat.S_IMODE((state / "lock").stat().st_mode) == 0o600
    for path in state.rglob("*"):
        mode = stat.S_IMODE(path.stat().st_mode)
        if path.is_dir():
            assert mode == 0o700, path
        elif path.parent.parent.name == "sha256":
            assert mode == 0o400, path


def test_an_old_session_with_wide_modes_is_tightened_by_its_writer(tmp_path: Path) -> None:
    engine, _ = _evidence_session(tmp_path)
    engine.close()
    state = engine.state_dir
    for path in [state, *state.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644 if path.suffix != "" else 0o444)
    loose = {path for path, _, _ in loose_state_modes(state)}
    assert state / "fold-log.jsonl" in loose and state in loose
    viewer = _open(engine, read_only=True)  # a reader changes nothing
    assert {path for path, _, _ in loose_state_modes(state)} == loose
    viewer.close()
    writer = _open(engine)
    assert loose_state_modes(state) == []
    writer.close()


def test_a_new_state_folder_is_created_private(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        engine = Engine.open(tmp_path / "a" / "state", small_options(), CharCounter())
    finally:
        os.umask(previous)
    engine.close()
    assert stat.S_IMODE((tmp_path / "a" / "state").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "a" / "state" / "fold-log.jsonl").stat().st_mode) == 0o600
