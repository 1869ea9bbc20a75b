"""The index writer thread: work runs on it, in order, for a waiting caller."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pifold_core.search import parse_query
from pifold_core.search.writer import THREAD_NAME, IndexWriter
from tests.core.engine_checks import assert_clean_audit
from tests.core.search.planted import SECRET, planted_engine


def _writer_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith(THREAD_NAME)]


def test_work_runs_on_the_writer_thread_and_its_result_comes_back() -> None:
    writer = IndexWriter()
    seen: list[str] = []

    def work() -> int:
        seen.append(threading.current_thread().name)
        return 42

    assert writer.run(work) == 42
    assert writer.run(work) == 42
    assert len(seen) == 2 and seen[0] == seen[1] and seen[0].startswith(THREAD_NAME)
    assert seen[0] != threading.current_thread().name
    writer.close()


def test_an_error_raised_by_the_work_is_raised_to_the_caller() -> None:
    writer = IndexWriter()

    def failing() -> None:
        raise ValueError("the work failed")

    with pytest.raises(ValueError, match="the work failed"):
        writer.run(failing)
    assert writer.run(lambda: "still usable") == "still usable"
    writer.close()


def test_work_run_from_the_writer_thread_runs_in_place() -> None:
    writer = IndexWriter()
    assert writer.run(lambda: writer.run(lambda: threading.current_thread().name)).startswith(
        THREAD_NAME
    )
    writer.close()


def test_close_ends_the_thread_and_a_later_run_makes_another() -> None:
    writer = IndexWriter()
    first = writer.run(threading.current_thread)
    writer.close()
    writer.close()  # idempotent
    assert not first.is_alive()
    second = writer.run(threading.current_thread)
    assert second is not first and second.is_alive()
    writer.close()
    assert not second.is_alive()


def test_a_session_writes_its_index_on_the_thread_and_closing_ends_it(tmp_path: Path) -> None:
    before = set(_writer_threads())
    engine, _ = planted_engine(tmp_path)  # commits: the upkeep ran
    (made,) = set(_writer_threads()) - before
    results = engine.search(parse_query(SECRET))
    assert results.rebuilt is None and results.total == 1  # written before the commit returned
    assert_clean_audit(engine)
    engine.close()
    assert not made.is_alive()
