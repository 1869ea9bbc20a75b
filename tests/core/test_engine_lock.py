"""A read a host runs in a worker thread (peek, search) and a change made meanwhile on the
UI thread never interleave: the change waits for the read (issue 23). What is asserted is
the order of events, never a duration."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pifold_core import engine_lock
from pifold_core.engine import Engine
from pifold_core.fold_verbs import FoldVerbs
from pifold_core.search import SessionSearch, parse_query
from tests.core.engine_checks import assert_clean_audit, assert_lossless, pending_engine

HELD_AT_MOST_S = 10.0
"""A held read gives up waiting after this long (a guard against a hung test)."""


class HeldRead:
    """A read method that, once entered, waits for :meth:`release`, noting events in order."""

    def __init__(self, name: str, method: Callable[..., Any], events: list[str]) -> None:
        self.name = name
        self.method = method
        self.events = events
        self.entered = threading.Event()
        """Set once the read is inside (and so holding whatever its caller holds)."""
        self.released = threading.Event()

    def __call__(self, *arguments: Any, **keywords: Any) -> Any:
        self.events.append(f"{self.name} started")
        self.entered.set()
        self.released.wait(HELD_AT_MOST_S)
        try:
            return self.method(*arguments, **keywords)
        finally:
            self.events.append(f"{self.name} done")

    def as_method(self) -> Callable[..., Any]:
        """A function to set on the class in the method's place (bound like it)."""

        def method(owner: object, *arguments: Any, **keywords: Any) -> Any:
            return self(owner, *arguments, **keywords)

        return method


def in_thread(events: list[str], name: str, call: Callable[[], object]) -> threading.Thread:
    """Run ``call`` in a thread of its own, noting when it returned."""

    def run() -> None:
        call()
        events.append(f"{name} done")

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    opened, _ = pending_engine(tmp_path, count=4)
    try:
        yield opened
    finally:
        opened.close()


def race(engine: Engine, held: HeldRead, read: Callable[[], object]) -> list[str]:
    """Start ``read`` in a worker, then a commit from another thread while the read is held;
    return the read's and the commit's events once both ended (the worker's own end may
    fall either side of the commit's: it returns after giving the lock up)."""
    reader = in_thread(held.events, "worker", read)
    assert held.entered.wait(HELD_AT_MOST_S)
    writer = in_thread(held.events, "commit", lambda: engine.commit_now())
    writer.join(0.2)  # the commit had its chance to run ahead of the read
    held.released.set()
    reader.join(HELD_AT_MOST_S)
    writer.join(HELD_AT_MOST_S)
    assert not reader.is_alive() and not writer.is_alive()
    return [event for event in held.events if event != "worker done"]


def test_a_commit_waits_for_a_peek_in_a_worker(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = HeldRead("peek", FoldVerbs.peek, [])
    monkeypatch.setattr(FoldVerbs, "peek", held.as_method())
    identifier = engine.view.transcript.entries[0].id
    folds_before = len(engine.view.forest.folds)
    events = race(engine, held, lambda: engine.peek(identifier))
    assert events == ["peek started", "peek done", "commit done"]
    assert len(engine.view.forest.folds) > folds_before  # the commit did land, after
    assert_clean_audit(engine)
    assert_lossless(engine)


def test_a_commit_waits_for_a_search_in_a_worker(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.commit_now()  # something folded to search
    engine.prepare_request()
    held = HeldRead("search", SessionSearch.search, [])
    monkeypatch.setattr(SessionSearch, "search", held.as_method())
    events = race(engine, held, lambda: engine.search(parse_query("chapter")))
    assert events == ["search started", "search done", "commit done"]
    assert_clean_audit(engine)


def test_every_public_method_is_a_change_or_a_read_said_where_it_runs() -> None:
    public = {
        name
        for name, member in inspect.getmembers(Engine)
        if not name.startswith("_")
        and callable(member)
        and not isinstance(inspect.getattr_static(Engine, name), classmethod)
    }
    changes = set(engine_lock.CHANGES)
    off_thread = set(engine_lock.OFF_THREAD_READS)
    ui_reads = set(engine_lock.UI_READS)
    assert public == changes | off_thread | ui_reads
    assert not (changes & off_thread or changes & ui_reads or off_thread & ui_reads)
    for name in changes | off_thread:
        assert hasattr(getattr(Engine, name), "__wrapped__"), f"{name} holds no lock"
    for name in ui_reads:
        assert not hasattr(getattr(Engine, name), "__wrapped__")
