"""Opening a session's state: from a verified checkpoint and the log after it, or the whole log.

:meth:`pifold_core.engine.Engine.open` takes the writer's lock and calls :func:`open_state`.
When ``<state>/checkpoint.json`` verifies against the log (:mod:`pifold_core.checkpoint`),
its state is put into a fresh engine and only the records after it are replayed through
:mod:`pifold_core.restore`, whose checks then cover what those records added (new folds,
their store objects, new evidence). Otherwise, and whenever putting the checkpoint's state
back fails, the whole log is replayed as it always was, and what was wrong with the
checkpoint stays in ``Engine.checkpoint_problem``. Either way the engine is the same; the
tests compare the two field by field.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pifold_core import checkpoint
from pifold_core.checkpoint_state import CheckpointStateError, restore
from pifold_core.engine_errors import EngineError, SessionLocked
from pifold_core.host_notes import HostNote
from pifold_core.journal import Journal, JournalRecord
from pifold_core.lock import LockHeld, SessionLock
from pifold_core.options import EngineOptions
from pifold_core.restore import check_restored, replay_records
from pifold_core.state_folder import LOG_NAME, prepare_state, refuse_lost_log
from pifold_core.store import make_private_folder
from pifold_core.tokens import TiktokenCounter, TokenCounter

if TYPE_CHECKING:
    from pifold_core.engine import Engine


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


def open_engine(
    cls: type[Engine],
    state_dir: Path,
    options: EngineOptions | None,
    counter: TokenCounter | None,
    host_measures: bool,
    read_only: bool,
) -> Engine:
    """What :meth:`~pifold_core.engine.Engine.open` does: the writer's lock (none read-only),
    then :func:`open_state`; the lock is given back if the open fails."""
    folder = Path(state_dir)
    if read_only and not (folder / LOG_NAME).is_file():
        refuse_lost_log(folder, Journal(folder / LOG_NAME, read_only=True), False)
        raise EngineError(f"{folder} holds no session log ({LOG_NAME}) to open read-only")
    lock = None if read_only else take_lock(folder)
    try:
        return open_state(cls, folder, options, counter, host_measures, lock)
    except BaseException:
        if lock is not None:
            lock.release()
        raise


def open_state(
    cls: type[Engine],
    state_dir: Path,
    options: EngineOptions | None,
    counter: TokenCounter | None,
    host_measures: bool,
    lock: SessionLock | None,
    use_checkpoint: bool = True,
) -> Engine:
    """The engine of ``state_dir``, restored (see the module docstring)."""
    folder = Path(state_dir)
    counter = counter if counter is not None else TiktokenCounter()
    if use_checkpoint:
        found, hashed = checkpoint.read(folder, folder / LOG_NAME, counter.name)
        if found.state is not None:
            engine = _from_checkpoint(cls, folder, found, hashed, counter, host_measures, lock)
            if engine is not None:
                return engine
            found = checkpoint.CheckpointRead(
                None, problem=f"{folder / checkpoint.CHECKPOINT_NAME}: its state is malformed"
            )
    else:
        found = checkpoint.CheckpointRead(None)
    engine = _from_log(cls, folder, options, counter, host_measures, lock)
    engine.checkpoint_problem = found.problem
    return engine


def _from_log(
    cls: type[Engine],
    folder: Path,
    options: EngineOptions | None,
    counter: TokenCounter,
    host_measures: bool,
    lock: SessionLock | None,
) -> Engine:
    journal = Journal(folder / LOG_NAME, read_only=lock is None)
    records = list(journal.read_all())
    refuse_lost_log(folder, journal, bool(records))
    if records and records[0].kind == "open":
        options = EngineOptions.from_record(records[0].body["options"])
    engine = cls(folder, options or EngineOptions(), counter, host_measures)
    _attach(engine, journal, lock)
    if not records and lock is None:
        return engine  # an empty log read-only: nothing to rebuild, nothing to write
    if not records:
        engine.journal.append("open", {"options": engine.options.to_record()}, durable=True)
        return engine
    _replay(engine, records[1:])
    check_restored(engine)
    # Checked: what the folds hold is let go, as after a live commit (issue 12, memory).
    for root in engine.forest.roots():
        engine.transcript.release_span(root.start, root.end, engine.journal.entry_spans)
    return engine


def _from_checkpoint(
    cls: type[Engine],
    folder: Path,
    found: checkpoint.CheckpointRead,
    hashed: object,
    counter: TokenCounter,
    host_measures: bool,
    lock: SessionLock | None,
) -> Engine | None:
    """The engine from a verified checkpoint and the records after it; ``None`` when its
    state cannot be put back (the caller rebuilds from the log)."""
    assert found.state is not None
    try:
        options = EngineOptions.from_record(found.state["options"])
    except (KeyError, TypeError, ValueError):
        return None
    engine = cls(folder, options, counter, host_measures)
    journal = Journal(folder / LOG_NAME, read_only=lock is None)
    engine.journal = journal
    try:
        restore(engine, found.state)
    except CheckpointStateError:
        return None
    before = set(engine.forest.folds)
    evidence_before = set(engine.evidence_ids)
    _attach(engine, journal, lock)
    tail = list(journal.read_all(found.log_bytes, found.records))
    _replay(engine, tail)
    engine.checkpoint_records = found.records
    engine.log_digest.seed(hashed, found.log_bytes)
    check_restored(
        engine,
        [fold for handle, fold in engine.forest.folds.items() if handle not in before],
        engine.evidence_ids - evidence_before,
    )
    return engine


def _attach(engine: Engine, journal: Journal, lock: SessionLock | None) -> None:
    engine.journal = journal
    engine.log_digest = checkpoint.LogDigest(journal.path)
    engine.read_only, engine.lock = lock is None, lock
    if lock is not None:
        prepare_state(engine.state_dir)  # a dead writer's leftovers, loose modes
        checkpoint.remove_temporaries(engine.state_dir)


def _replay(engine: Engine, records: list[JournalRecord]) -> None:
    """Replay ``records`` (none of them the log's ``open`` record) into ``engine``."""
    # Host notes change no engine state: they are handed back to the host as logged.
    engine.host_notes.extend(
        HostNote(record.sequence, record.body["note"])
        for record in records
        if record.kind == "host"
    )
    replay_records(engine, [(r.kind, r.body) for r in records if r.kind != "host"])


__all__ = ["open_engine", "open_state", "take_lock"]
