"""Opening a session's state: from a verified checkpoint and the log after it, or the whole log.

:meth:`pifold_core.engine.Engine.open` calls :func:`open_session`, which takes the writer's
lock and calls :func:`open_state`; the state is built over the state it returns.
When ``<state>/checkpoint.json`` verifies against the log (:mod:`pifold_core.checkpoint`),
its state is put into a fresh :class:`~pifold_core.session_state.SessionState` and only the
records after it are replayed through
:mod:`pifold_core.restore`, whose checks then cover what those records added (new folds,
their store objects, new evidence). Otherwise, and whenever putting the checkpoint's state
back fails, the whole log is replayed as it always was, and what was wrong with the
checkpoint stays in ``checkpoint_problem`` (``state.view.checkpoint_problem``). Either way
the state is the same; the tests compare the two field by field. What the open replayed and
checked is reported in ``engine.view.reopen`` (:class:`~pifold_core.engine_results.OpenReport`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pifold_core import checkpoint
from pifold_core.checkpoint import collector_paused
from pifold_core.checkpoint_state import CheckpointStateError, restore
from pifold_core.engine_errors import EngineError, SessionLocked
from pifold_core.engine_results import OpenReport
from pifold_core.host_notes import HostNote
from pifold_core.journal import Journal, JournalRecord
from pifold_core.lock import LockHeld, SessionLock
from pifold_core.options import EngineOptions
from pifold_core.restore import check_restored, replay_record
from pifold_core.session_state import SessionState
from pifold_core.state_folder import LOG_NAME, prepare_state, refuse_lost_log
from pifold_core.store import make_private_folder
from pifold_core.tokens import TiktokenCounter, TokenCounter


def take_lock(state_dir: Path) -> SessionLock:
    """The writer's lock on ``state_dir`` (created private when missing), or a clear refusal."""
    make_private_folder(state_dir)
    try:
        return SessionLock.acquire(state_dir)
    except LockHeld as error:
        raise SessionLocked(
            f"{state_dir} is already open for writing by {error.holder.describe()}; one writer "
            "per session: close that one first, or open this one read-only"
        ) from None


def open_session(
    state_dir: Path,
    options: EngineOptions | None,
    counter: TokenCounter | None,
    host_measures: bool,
    read_only: bool,
) -> SessionState:
    """What :meth:`~pifold_core.engine.Engine.open` does: the writer's lock (none read-only),
    then :func:`open_state`; the lock is given back if the open fails."""
    folder = Path(state_dir)
    if read_only and not (folder / LOG_NAME).is_file():
        refuse_lost_log(folder, Journal(folder / LOG_NAME, read_only=True), False)
        raise EngineError(f"{folder} holds no session log ({LOG_NAME}) to open read-only")
    lock = None if read_only else take_lock(folder)
    try:
        return open_state(folder, options, counter, host_measures, lock)
    except BaseException:
        if lock is not None:
            lock.release()
        raise


def open_state(
    state_dir: Path,
    options: EngineOptions | None,
    counter: TokenCounter | None,
    host_measures: bool,
    lock: SessionLock | None,
    use_checkpoint: bool = True,
) -> SessionState:
    """The state of ``state_dir``, restored (see the module docstring)."""
    with collector_paused():
        return _open_state(state_dir, options, counter, host_measures, lock, use_checkpoint)


def _open_state(
    state_dir: Path,
    options: EngineOptions | None,
    counter: TokenCounter | None,
    host_measures: bool,
    lock: SessionLock | None,
    use_checkpoint: bool,
) -> SessionState:
    folder = Path(state_dir)
    counter = counter if counter is not None else TiktokenCounter()
    if use_checkpoint:
        found, hashed = checkpoint.read(folder, folder / LOG_NAME, counter.name)
        if found.state is not None:
            state = _from_checkpoint(folder, found, hashed, counter, host_measures, lock)
            if state is not None:
                return state
            found = checkpoint.CheckpointRead(
                None, problem=f"{folder / checkpoint.CHECKPOINT_NAME}: its state is malformed"
            )
    else:
        found = checkpoint.CheckpointRead(None)
    state = _from_log(folder, options, counter, host_measures, lock)
    replayed = max(state.journal.next_sequence - 1, 0)  # every record but the "open" one
    state.set_opened(OpenReport(0, replayed, len(state.forest), found.problem))
    return state


def _from_log(
    folder: Path,
    options: EngineOptions | None,
    counter: TokenCounter,
    host_measures: bool,
    lock: SessionLock | None,
) -> SessionState:
    journal = Journal(folder / LOG_NAME, read_only=lock is None)
    records = journal.read_all()  # read as replayed, never held whole (issue 23, memory)
    first = next(records, None)
    refuse_lost_log(folder, journal, first is not None)
    if first is not None and first.kind == "open":
        options = EngineOptions.from_record(first.body["options"])
    state = SessionState(folder, options or EngineOptions(), counter, host_measures)
    _attach(state, journal, lock)
    if first is None and lock is None:
        return state  # an empty log read-only: nothing to rebuild, nothing to write
    if first is None:
        state.journal.append("open", {"options": state.options.to_record()}, durable=True)
        return state
    _replay(state, records, release=True)
    check_restored(state)
    # Checked: what the folds hold is let go, as after a live commit (issue 12, memory).
    for root in state.forest.roots():
        state.transcript.release_span(root.start, root.end, state.journal.entry_spans)
    return state


def _from_checkpoint(
    folder: Path,
    found: checkpoint.CheckpointRead,
    hashed: object,
    counter: TokenCounter,
    host_measures: bool,
    lock: SessionLock | None,
) -> SessionState | None:
    """The state from a verified checkpoint and the records after it; ``None`` when it
    cannot be put back (the caller rebuilds from the log)."""
    assert found.state is not None
    try:
        options = EngineOptions.from_record(found.state["options"])
    except (KeyError, TypeError, ValueError):
        return None
    state = SessionState(folder, options, counter, host_measures)
    journal = Journal(folder / LOG_NAME, read_only=lock is None)
    state.attach(journal, None)  # the checkpoint's log spans go into this journal
    try:
        restore(state, found.state)
    except CheckpointStateError:
        return None
    before = set(state.forest.folds)
    evidence_before = set(state.evidence_ids)
    _attach(state, journal, lock)
    tail = list(journal.read_all(found.log_bytes, found.records))
    _replay(state, tail, release=True)
    state.resume_checkpoint(found.records, hashed, found.log_bytes)
    made = [fold for handle, fold in state.forest.folds.items() if handle not in before]
    check_restored(state, made, state.evidence_ids - evidence_before, found.written_ns)
    state.set_opened(OpenReport(found.records, len(tail), len(made)))
    return state


def _attach(state: SessionState, journal: Journal, lock: SessionLock | None) -> None:
    state.attach(journal, lock)
    if lock is not None:
        prepare_state(state.state_dir)  # a dead writer's leftovers, loose modes
        checkpoint.remove_temporaries(state.state_dir)


def _replay(state: SessionState, records: Iterable[JournalRecord], release: bool = False) -> None:
    """Replay ``records`` (none of them the log's ``open`` record) into ``state``; with
    ``release``, the entries each commit's folds hold are let go as it lands, as the live
    commit did (a whole-log replay then holds the window, not the history)."""
    with state.replaying():
        for record in records:
            if record.kind == "host":
                # Host notes change no session state: they are handed back as logged.
                state.add_host_note(HostNote(record.sequence, record.body["note"]))
                continue
            replay_record(state, record.kind, record.body)
            if release and record.kind == "commit":
                _release_landed(state, record.body)


def _release_landed(state: SessionState, body: dict[str, Any]) -> None:
    """Let go the entries of the folds a replayed commit record landed (their lines are
    known: the log was read up to here)."""
    for fold in body["folds"]:
        landed = state.forest.folds[str(fold["handle"])]
        state.transcript.release_span(landed.start, landed.end, state.journal.entry_spans)


__all__ = ["open_session", "open_state", "take_lock"]
