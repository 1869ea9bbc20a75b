"""A reopen from the whole log holds the window, not the history (issue 23: at 50,000 entries
it peaked at 914 MB, holding the log, its lines, its records and every entry at once)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from pifold_core.engine import Engine
from tests.core.builders import CharCounter, drive, random_session, small_options
from tests.core.engine_checks import assert_lossless, durable_state, set_checkpoint_aside


def test_a_whole_log_reopen_never_holds_the_sessions_bytes_at_once(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(budget=20_000), CharCounter())
    drive(engine, random_session(5, 30, max_size=20_000))
    engine.prepare_request()
    live = durable_state(engine)
    engine.close()
    set_checkpoint_aside(engine.state_dir)
    log_bytes = engine._state.journal.path.stat().st_size
    tracemalloc.start()
    try:
        reopened = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Read a line at a time, each commit's entries let go as it is replayed: the peak is
    # well under the log's own size (it was 3.6 times that, the log held whole and more).
    assert peak < log_bytes, f"peak {peak:,} bytes for a log of {log_bytes:,}"
    assert reopened.view.reopen.replayed_records > 0
    assert durable_state(reopened) == live
    assert_lossless(reopened)
    reopened.close()
