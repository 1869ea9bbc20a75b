"""What a reopen replays, in the engine's own report (issue 23): nothing after a clean close,
the records past the last checkpoint after a kill, and a torn last line found and cut either
way."""

from __future__ import annotations

from pathlib import Path

from pifold_core import checkpoint
from pifold_core.engine import Engine
from tests.core.builders import CharCounter, SessionBuilder, drive, random_session, small_options
from tests.core.engine_checks import assert_reopens_identically, chapters, durable_state


def _session(folder: Path, segments: int = 8) -> Engine:
    """A small folded session, left open: far fewer records than a commit's checkpoint
    needs, so only a close can leave one."""
    engine = Engine.open(folder, small_options(budget=6_000), CharCounter())
    drive(engine, random_session(11, segments))
    engine.prepare_request()
    assert engine.view.forest.folds
    assert engine.view.log_length < checkpoint.CHECKPOINT_MIN_RECORDS
    return engine


def test_a_clean_close_leaves_a_state_that_reopens_replaying_nothing(tmp_path: Path) -> None:
    engine = _session(tmp_path / "state")
    live = durable_state(engine)
    engine.close()
    reopened = Engine.open(engine.state_dir, None, CharCounter())
    report = reopened.view.reopen
    assert report.checkpoint_problem is None
    assert report.checkpoint_records == reopened.view.log_length  # the whole log
    assert (report.replayed_records, report.checked_folds) == (0, 0)
    assert durable_state(reopened) == live
    # Closing again with nothing new logged writes nothing.
    written = (reopened.state_dir / checkpoint.CHECKPOINT_NAME).read_bytes()
    reopened.close()
    assert (reopened.state_dir / checkpoint.CHECKPOINT_NAME).read_bytes() == written


def test_after_a_kill_the_reopen_replays_what_followed_the_checkpoint(tmp_path: Path) -> None:
    engine = _session(tmp_path / "state", segments=5)
    engine._state.checkpoint_written(checkpoint.write(engine._state))  # tests may reach in
    covered = engine.view.log_length
    folds_before = set(engine.view.forest.folds)
    more = SessionBuilder(prefix="k")
    chapters(more, 4)
    drive(engine, more.entries)  # more of the session, never closed: as after a kill
    engine.prepare_request()
    engine._state.journal.sync()  # what a killed process's flushed lines leave on disk
    beside = assert_reopens_identically(engine)  # a read-only open beside the "dead" writer
    report = beside.view.reopen
    assert report.checkpoint_records == covered
    assert report.replayed_records == engine.view.log_length - covered
    assert report.checked_folds == len(set(engine.view.forest.folds) - folds_before) > 0


def test_a_torn_line_past_a_clean_close_is_cut_and_reported(tmp_path: Path) -> None:
    engine = _session(tmp_path / "state")
    engine.close()
    log = engine.state_dir / "fold-log.jsonl"
    whole = log.read_bytes()
    with open(log, "ab") as handle:
        handle.write(b'{"seq":')  # a writer killed inside its next line
    reopened = Engine.open(engine.state_dir, None, CharCounter())
    assert reopened.view.torn_tail is not None
    assert reopened.view.reopen.replayed_records == 0  # the checkpoint still covers the rest
    assert log.read_bytes() == whole
    reopened.close()
