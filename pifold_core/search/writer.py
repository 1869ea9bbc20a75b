"""The thread a session's index is written on (issue 21: the upkeep's share of a commit).

A commit's upkeep hands its rows to SQLite's FTS5, which tokenises them and builds a
segment with a great many small allocations. On the thread that runs the engine, those come
from the C allocator's main arena, which the engine's own objects (entries, records, folds)
churn between commits; on a thread of its own, glibc gives them an arena of that thread's.
Measured with two engines driven in lockstep through 20,000 entries in one process, the same
upkeep cost 9 to 16 % less CPU on its own thread, and with ``MALLOC_ARENA_MAX=1`` (one arena
for every thread) the difference was gone: the allocator, not the thread, is what changes.

The hand-off is synchronous: :meth:`IndexWriter.run` returns what the work returned (or
raises what it raised) once it is done, so a commit still returns with its rows written,
exactly as before; the thread only changes where the allocations come from. One thread, so
writes stay in order; made at the first write, so a session that never commits (or is open
read-only) starts none.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

Result = TypeVar("Result")

THREAD_NAME = "pifold-search-index"
"""The writer thread's name (what a profiler or a thread dump shows)."""


class IndexWriter:
    """One thread that runs a session's index writes, one at a time, for a waiting caller."""

    def __init__(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def run(self, work: Callable[[], Result]) -> Result:
        """Run ``work`` on the writer thread and return its result once it is done.

        Raises:
            BaseException: whatever ``work`` raised, re-raised here.
        """
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=THREAD_NAME)
            executor = self._executor
        if threading.current_thread().name.startswith(THREAD_NAME):
            return work()  # already on it: waiting on itself would never end
        return executor.submit(work).result()

    def close(self) -> None:
        """Let the thread end once its work is done (idempotent); a later :meth:`run` makes
        a new one."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


__all__ = ["THREAD_NAME", "IndexWriter"]
