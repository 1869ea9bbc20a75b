"""A reopen from the whole log holds the window, not the history (issue 23: at 50,000 entries
it peaked at 914 MB, holding the log, its lines, its records and every entry at once)."""

from __future__ import annotations

import gc
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


def test_an_open_holds_the_cycle_collector_off_and_turns_it_back_on(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(budget=6_000), CharCounter())
    drive(engine, random_session(9, 12))
    engine.close()
    passes: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            passes.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        for checkpoint_kept in (True, False):
            if not checkpoint_kept:
                set_checkpoint_aside(engine.state_dir)
            passes.clear()
            reopened = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
            # At most the one pass that follows it (over what it built, once), never one
            # each time the allocations pass the collector's threshold on the way.
            assert len(passes) <= 1, f"{len(passes)} collections while the session was put back"
            assert gc.isenabled()
            reopened.close()
    finally:
        gc.callbacks.remove(seen)
