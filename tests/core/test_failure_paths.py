"""What a failure leaves behind: the live state must stay what the log rebuilds.

A failed commit rolls back whole (placeholders included), a failed log write moves nothing,
and a reopen restores the commit stall exactly as the live session last had it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_core.engine import Engine
from pifold_core.journal import Journal
from pifold_core.store import FoldStore
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_lossless,
    assert_reopens_identically,
    pending_engine,
    reopen,
)


def test_a_commit_retried_after_a_failure_carries_the_new_brief(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = pending_engine(
        tmp_path, options=small_options(budget=200_000, consolidate_after=50)
    )
    span = next(mark for mark in engine.view.marks.values() if mark.kind == "span")

    def full_disk(self: FoldStore, payload: bytes, *rest: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(FoldStore, "put_folds", full_disk)  # what a commit writes
    with pytest.raises(OSError):
        engine.commit_marks([span.id])
    monkeypatch.undo()
    # The same span folds again later, now with the agent's own brief: its placeholder must
    # say so, not repeat the one rendered for the commit that failed.
    engine.set_brief(span.id, "Agent brief: the parser rewrite in src/x0.py, tests green")
    engine.commit_marks([span.id])
    fold = next(f for f in engine.view.forest.folds.values() if f.start == span.start)
    item = engine.view.projection.items[engine.view.projection.item_index_at(span.start)]
    assert item.fold == fold.handle
    assert "Agent brief: the parser rewrite" in str(item.message)
    engine.prepare_request()
    assert_reopens_identically(engine)


def test_a_calibration_sample_that_cannot_be_logged_is_not_learned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = pending_engine(tmp_path)
    before = engine.view.calibration

    def broken_append(self: Journal, kind: str, body: object, durable: bool = False) -> int:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(Journal, "append", broken_append)
    with pytest.raises(OSError):
        engine.calibrate(1_500, 1_000)
    monkeypatch.undo()
    assert engine.view.calibration == before
    assert_reopens_identically(engine)


def test_a_floor_cleared_by_a_later_commit_stays_cleared_after_reopen(tmp_path: Path) -> None:
    engine = Engine.open(
        tmp_path / "state", small_options(budget=20_000, min_fold_chars=1_000), CharCounter()
    )
    session = SessionBuilder()
    session.user("Read the generated bundle")
    # One batch far larger than the band: the commit cannot get under its target.
    session.batch([25_000, 25_000, 25_000], text="reading it all", seed=1)
    session.assistant("Read.")
    drive(engine, session.entries)
    # Before "Read." the batch was the fresh tail: no commit could buy runway, so none
    # landed, and status names the floor that blocks it (the fresh tail) and a budget that
    # would work.
    floor = engine.status().floor
    assert floor is not None and floor.fresh_tokens > 0
    assert floor.budget_that_works > 20_000
    # (A reopen names the floor again at its next request: the floor is a finding of the
    # last threshold check, not logged state.)
    # Once the model has moved on, the batch leaves the fresh tail and is marked: the next
    # threshold commit reaches its target.
    more = SessionBuilder(prefix="m")
    more.user("next")
    more.assistant("ok")
    more.user("and then?")
    more.assistant("Done.")
    commits = [r.commit for r in drive(engine, more.entries) if r.commit is not None]
    assert commits and not commits[-1].short_of_target
    assert_clean_audit(engine)
    assert_lossless(engine)
    assert engine._state.stalled_reason is None
    assert engine.status().floor is None
    reopened = reopen(engine)
    try:
        assert reopened._state.stalled_reason is None
        assert reopened.status().stalled_reason is None
        assert reopened.status().floor is None
    finally:
        reopened.close()
