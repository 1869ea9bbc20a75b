"""One engine, two threads: the reads a host runs off its UI thread never meet a change.

The fold editor verifies a fold's source (:meth:`Engine.peek`) and searches folded history
(:meth:`Engine.search`) in worker threads, so the app keeps taking keys (issues 21 and 23).
Meanwhile its UI thread may change the session: the editor's own actions, or the agent's
run appending entries and committing. A commit rebuilds the forest, releases entries and
writes the search index on the same SQLite connection a search reads, and a dry run
(:meth:`Engine.preview_commit`) runs the real committer between a snapshot and its restore:
a read interleaved with any of it could iterate a dictionary while it changes size, or see
a state that is never meant to be seen.

So each engine has one re-entrant lock. Every public method that changes the session (or
may: a preview changes it and puts it back) holds it, and so do the reads that run off the
UI thread; the UI thread's own reads (the view, the bar's composition, the status) need
none, since the only other thread only reads, and what it writes on the way (a read-back
cache, a damaged object's note) is written one atomic step at a time. A change that arrives
while a worker reads waits for that read: at most one peek or one search.

:func:`guarded` applies it to :class:`~pifold_core.engine.Engine` from the lists below, in
one place, and a test checks that every public method is in exactly one of them, so a new
verb cannot be left out.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

CHANGES = (
    "note",
    "append",
    "report_usage",
    "set_host_prefix",
    "calibrate",
    "prepare_request",
    "commit_now",
    "preview_commit",
    "settled_boundary",
    "recover_from_overflow",
    "commit_marks",
    "apply_options",
    "note_ephemeral_peek",
    "expand",
    "refold",
    "pin",
    "unpin",
    "set_brief",
    "reboundary",
    "unmark",
    "set_surfacing",
    "suggestions",
    "close",
)
"""Methods that change the session, or may (a preview, the suggestions' index reads)."""

OFF_THREAD_READS = ("peek", "peek_range", "search")
"""Reads a host may run in a worker thread."""

UI_READS = ("expected_tokens", "composition", "status", "fold_rows")
"""Reads made on the thread that makes every change: they need no lock."""

_LOCKS: WeakKeyDictionary[object, threading.RLock] = WeakKeyDictionary()
"""Each engine's lock, made on first use (and gone with the engine)."""

_MAKING = threading.Lock()
"""Held while an engine's lock is made, so two threads never make two."""

Guarded = TypeVar("Guarded", bound=type)


def session_lock(engine: object) -> threading.RLock:
    """``engine``'s lock (the same one every call)."""
    lock = _LOCKS.get(engine)
    if lock is None:
        with _MAKING:
            lock = _LOCKS.get(engine)
            if lock is None:
                lock = _LOCKS[engine] = threading.RLock()
    return lock


def _holding_the_lock(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def locked(engine: object, *arguments: Any, **keywords: Any) -> Any:
        with session_lock(engine):
            return method(engine, *arguments, **keywords)

    return locked


def guarded(cls: Guarded) -> Guarded:
    """``cls`` with :data:`CHANGES` and :data:`OFF_THREAD_READS` holding the engine's lock."""
    for name in CHANGES + OFF_THREAD_READS:
        setattr(cls, name, _holding_the_lock(getattr(cls, name)))
    return cls


__all__ = ["CHANGES", "OFF_THREAD_READS", "UI_READS", "guarded", "session_lock"]
