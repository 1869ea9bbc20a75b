"""Checks shared by the engine-policy tests: what a refused call must leave untouched, and
what a reopened session must rebuild exactly."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pifold_core.checkpoint import CHECKPOINT_NAME
from pifold_core.engine import Engine
from pifold_core.options import EngineOptions
from pifold_core.tokens import TokenCounter
from tests.core.builders import CharCounter, SessionBuilder, drive, expected_source, small_options


def durable_state(engine: Engine) -> dict[str, Any]:
    """Everything a reopen must rebuild: projection, marks, pins, views, forest, meter, audit."""
    meter = engine._state.meter
    return {
        "digests": engine.view.projection.digests(),
        "messages": engine.view.projection.messages(),
        "tokens": engine.view.projection.tokens,
        "marks": dict(engine.view.marks),
        "mark_count": engine._state.mark_count,
        "pins": set(engine.view.pinned),
        "views": dict(engine.view.projection.views),
        "folds": dict(engine.view.forest.folds),
        "parents": dict(engine.view.forest.parent),
        "expanded": set(engine.view.forest.expanded),
        "refolds": set(engine.view.staged_refolds),
        "pin_opened": set(engine._state.pin_opened),
        "ephemeral": dict(engine._state.ephemeral),
        "meter": (
            meter.last,
            dict(meter.sent),
            meter.calibration,
            meter._measured_growth,
            meter._estimated_growth,
        ),
        "prefix": engine.view.prefix_tokens,
        "reading": meter.reading(engine.view.epoch),
        "expected": engine.expected_tokens(),
        "audit": (
            dataclasses.replace(engine.view.audit_counts),
            list(engine._state.audit.previous),
        ),
        "commit_count": engine.view.commit_count,
        "last_commit": engine._state.last_commit,
        "epoch": engine.view.epoch,
        "sent_through": engine._state.sent_through,
        "options": engine.options,
        "noticed": engine._state.noticed,
        "stalled": (engine._state.stalled_at, engine._state.stalled_reason),
        "floor": engine.view.floor,
        "entries": [entry.record_bytes for entry in engine.view.transcript.entries],
    }


def full_state(engine: Engine) -> dict[str, Any]:
    """:func:`durable_state` plus the log's bytes and the process-only flags."""
    return {
        **durable_state(engine),
        "log": engine._state.journal.path.read_bytes(),
        "folding_stopped": engine.view.folding_stopped,
        "commits": len(engine._state.commits),
    }


@contextmanager
def unchanged(engine: Engine) -> Iterator[None]:
    """Assert the block changes nothing, the log's bytes included."""
    before = full_state(engine)
    yield
    after = full_state(engine)
    for key, value in before.items():
        assert after[key] == value, f"{key} changed"
    assert_clean_audit(engine)


def reopen(engine: Engine) -> Engine:
    """Open the engine's state again from its log, as a restarted process would: the old
    engine is closed first (it gives up the writer's lock, as a process that ends does)."""
    engine.close()
    return Engine.open(engine.state_dir, None, CharCounter(), engine._state.meter.host_measures)


def set_checkpoint_aside(state_dir: Path) -> None:
    """Remove the checkpoint a clean close wrote, so the next open rebuilds from the whole log
    and checks every store object and evidence artifact on the way (a reopen from the
    checkpoint checks only what the records past it added; the rest is verified on read,
    and by ``pifold doctor``)."""
    (state_dir / CHECKPOINT_NAME).unlink()


def assert_reopens_identically(engine: Engine, counter: TokenCounter | None = None) -> Engine:
    """Zero unattributed rewrites, every fold lossless, and a read-only reopen beside the
    live engine rebuilds the same state, counting with ``counter`` (the tests' characters /
    4 by default; the app's tokenizer for an app's engine). Returns the reopened (read-only,
    closed) engine; the live one stays writable."""
    assert_clean_audit(engine)
    assert_lossless(engine)
    engine._state.journal.sync()
    reopened = Engine.open(
        engine.state_dir,
        None,
        CharCounter() if counter is None else counter,
        engine._state.meter.host_measures,
        read_only=True,
    )
    assert reopened.view.torn_tail is None
    assert reopened.status().damaged == ()
    live, rebuilt = durable_state(engine), durable_state(reopened)
    for key, value in live.items():
        assert rebuilt[key] == value, f"{key} differs after reopen"
    reopened.close()
    return reopened


def assert_clean_audit(engine: Engine) -> None:
    """The wire audit found no unattributed rewrite (DESIGN §4)."""
    assert engine.view.audit_counts.unattributed == 0


def assert_lossless(engine: Engine) -> None:
    """Every fold, at any depth, peeks back exactly the entries it covers (DESIGN §3)."""
    for fold in engine.view.forest.folds.values():
        result = engine.peek(fold.handle)
        assert result.complete and result.data == expected_source(engine, fold), fold.handle


def shown_raw(engine: Engine, index: int) -> bool:
    """Entry ``index`` is a message of its own in the projection, byte for byte."""
    item = engine.view.projection.items[engine.view.projection.item_index_at(index)]
    return (
        item.fold is None
        and (item.start, item.end) == (index, index + 1)
        and item.digest == engine.view.transcript.entries[index].wire_digest
    )


def raw_tokens(engine: Engine, index: int) -> int:
    """What entry ``index`` costs shown whole, counted as the tests count (characters / 4)."""
    entry = engine.view.transcript.entries[index]
    return CharCounter().count_message(entry.wire, entry.wire_digest)


def chapters(
    session: SessionBuilder,
    count: int,
    first: int = 0,
    sizes: tuple[list[int], ...] = ([1500, 800], [1200]),
) -> None:
    """``count`` chapters, each a user ask, two tool batches and a closing message."""
    for number in range(first, first + count):
        session.chapter(f"Chapter {number}: look at src/x{number}.py", list(sizes), seed=number)


def pending_engine(
    path: Any, count: int = 4, options: EngineOptions | None = None
) -> tuple[Engine, SessionBuilder]:
    """``count`` chapters with their marks pending and nothing folded yet."""
    session = SessionBuilder()
    chapters(session, count)
    session.user("what next?")
    session.assistant("Waiting.")
    engine = Engine.open(
        path / "state",
        options or small_options(budget=200_000, min_fold_chars=2_000),
        CharCounter(),
    )
    drive(engine, session.entries)
    assert engine.view.marks and not engine.view.forest.folds
    assert_clean_audit(engine)
    return engine, session


def folded_engine(
    path: Any, count: int = 4, options: EngineOptions | None = None
) -> tuple[Engine, SessionBuilder]:
    """The same chapters folded by an explicit commit (nested: consolidated > span > tool)."""
    engine, session = pending_engine(path, count, options)
    engine.commit_now()
    engine.prepare_request()
    assert engine.view.forest.folds
    return engine, session


__all__ = [
    "assert_clean_audit",
    "assert_lossless",
    "assert_reopens_identically",
    "chapters",
    "durable_state",
    "folded_engine",
    "full_state",
    "pending_engine",
    "raw_tokens",
    "reopen",
    "set_checkpoint_aside",
    "shown_raw",
    "unchanged",
]
