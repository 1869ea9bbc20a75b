"""Fault harness, search index: SIGKILL while the index is written (issue 21).

A forked child replays a seeded random session into a state folder, committing many times,
and dies by SIGKILL at one of these moments:

* ``timed``: the parent kills it after a random delay, wherever it is;
* ``before the upkeep``: at the Nth commit, after its log record is durable and before the
  index is written (the index is left one commit behind);
* ``inside the transaction``: at the Nth index write (a commit's, or the rows of a result
  kept as evidence, written when it is appended), after a random number of SQLite steps (a
  SQLite progress handler kills it mid-statement);
* ``inside a rebuild``: the index is deleted after the Nth commit and a search rebuilds it,
  killed a random number of SQLite steps into the rebuild's transaction.

Then the parent reopens the session, searches it (every other case first resumes the
session, so its commits meet the index as the kill left it), and checks the promises of
:mod:`pifold_core.search`: every result equals the one a fresh rebuild gives (a copy of the
state without its index, opened read-only, rebuilds in memory), an index that was missing,
damaged or behind the log is rebuilt *and says so* (never silently used), and after the
session is resumed to its end the kept-up index still matches a fresh rebuild.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.search import INDEX_NAME, SearchResults, parse_query
from pifold_core.search.index import BuiltTo, IndexUnusable, SearchIndex
from pifold_core.search.rebuild import evidence_indices, fingerprint_now
from pifold_core.search.session import SessionSearch
from tests.core.builders import CharCounter, drive, random_session, small_options
from tests.fault.tally import FaultTally

QUICK_COUNT = 4
"""Cases in the pytest form (about a second each)."""

FULL_COUNT = 200
"""Cases in the harness's full run."""

MODES = ("timed", "before the upkeep", "inside the transaction", "inside a rebuild")

QUERIES: tuple[dict[str, Any], ...] = (
    {"text": "alpha"},
    {"text": '"gamma delta"'},
    {"text": "Task src"},
    {"text": "read", "tool": "read"},
    {"text": "ABC", "path": "module"},
    {"text": r"ABC-10\d\d", "regex": True},
)
"""Searches compared after each kill (limit 50: most hits, compared in order)."""

TIMED_SECONDS = 0.6
"""Longest delay before a timed kill (a case's replay takes about that long)."""


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _options() -> Any:
    # Results over 2 KB are kept as evidence: indexed when appended, so some kills land in
    # that write (between an append's log record and its rows) as well as in a commit's.
    return small_options(
        budget=6_000, min_fold_chars=1_000, consolidate_after=3, evidence_threshold_bytes=2_048
    )


def _child(folder: Path, entries: list[Entry], mode: str, nth: int, steps: int) -> None:
    """Runs in the forked child: replays ``entries`` and dies at the chosen point."""
    try:
        if mode == "before the upkeep":
            _install_before_upkeep(nth)
        elif mode == "inside the transaction":
            _install_step_kill(nth, steps)
        engine = Engine.open(folder, _options(), CharCounter())
        if mode == "inside a rebuild":
            _rebuild_then_die(engine, entries, nth, steps)
        else:
            drive(engine, entries)
            engine.close()
    finally:
        os._exit(0)  # finished (or the kill point was never reached)


def _install_before_upkeep(nth: int) -> None:
    original = SessionSearch.after_commit
    seen = [0]

    def after_commit(self: SessionSearch, session: Any, outcome: Any) -> None:
        seen[0] += 1
        if seen[0] == nth:
            _kill()
        original(self, session, outcome)

    SessionSearch.after_commit = after_commit  # type: ignore[method-assign]


def _install_step_kill(nth: int, steps: int) -> None:
    original = SearchIndex.add
    seen = [0]

    def add(self: SearchIndex, *arguments: Any, **keywords: Any) -> None:
        seen[0] += 1
        if seen[0] == nth:
            counted = [0]

            def progress() -> int:
                counted[0] += 1
                if counted[0] >= steps:
                    _kill()
                return 0

            self.connection().set_progress_handler(progress, 10)
        original(self, *arguments, **keywords)

    SearchIndex.add = add  # type: ignore[method-assign]


def _rebuild_then_die(engine: Engine, entries: list[Entry], nth: int, steps: int) -> None:
    """Replay until the Nth commit, delete the index, and die inside the rebuild."""
    for entry in entries:
        if engine.view.commit_count >= nth:
            break
        drive(engine, [entry])
    engine.close()
    (engine.state_dir / INDEX_NAME).unlink(missing_ok=True)
    _install_step_kill(1, steps)
    reopened = Engine.open(engine.state_dir, None, CharCounter())
    reopened.search(parse_query("alpha"))
    reopened.close()


def _crash(
    folder: Path, entries: list[Entry], mode: str, nth: int, steps: int, delay: float
) -> str:
    """Run the child; returns how it ended (``killed`` or ``finished``)."""
    pid = os.fork()
    if pid == 0:
        _child(folder, entries, mode, nth, steps)
    if mode == "timed":
        time.sleep(delay)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return "killed" if os.WIFSIGNALED(status) else "finished"


def _searches(engine: Engine) -> list[tuple[SearchResults, str]]:
    found = []
    for query in QUERIES:
        found.append((engine.search(parse_query(limit=50, **query)), str(query)))
    return found


def _comparable(results: SearchResults) -> tuple[int, list[tuple[str | None, str, str]]]:
    return results.total, [(hit.fold, hit.entry, hit.snippet) for hit in results.hits]


def _fresh(folder: Path, scratch: Path) -> list[tuple[int, list[tuple[str | None, str, str]]]]:
    """The results a rebuild from nothing gives, on a copy of the state without its index."""
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(folder, scratch)
    for stale in scratch.glob(f"{INDEX_NAME}*"):
        stale.unlink()
    viewer = Engine.open(scratch, None, CharCounter(), read_only=True)
    try:
        return [_comparable(results) for results, _ in _searches(viewer)]
    finally:
        viewer.close()
        shutil.rmtree(scratch, ignore_errors=True)


def _index_current(engine: Engine) -> bool:
    """Whether the index file is whole and built to the session as it stands, once a
    transaction a kill interrupted is rolled back (as the engine's first read does; a
    read-only connection cannot). Results kept as evidence it lacks do not count: the
    engine adds them (appended entries never change) and reports no rebuild."""
    path = engine.state_dir / INDEX_NAME
    if path.exists():
        with (
            contextlib.closing(sqlite3.connect(path)) as connection,
            contextlib.suppress(sqlite3.Error),
        ):
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    index = SearchIndex(path, read_only=True)
    try:
        if not path.exists() or index.integrity_problem():
            return False
        expected = BuiltTo(engine.view.commit_count, fingerprint_now(engine.view.forest))
        return index.built_to() == expected
    except (IndexUnusable, sqlite3.Error):
        return False
    finally:
        index.close()


def _check(engine: Engine, scratch: Path, case: str, tally: FaultTally, when: str) -> None:
    # Before the first commit only results kept as evidence are searchable: with none there
    # is nothing to index (and nothing to rebuild).
    transcript = engine.view.transcript
    nothing_hidden = engine.view.commit_count == 0 and not evidence_indices(
        transcript, 0, len(transcript)
    )
    current = _index_current(engine) or nothing_hidden
    found = _searches(engine)
    rebuilt = found[0][0].rebuilt
    if not current and rebuilt is None:
        tally.fail(case, f"{when}: the index was not current and no rebuild was reported")
    if current and rebuilt is not None:
        tally.fail(case, f"{when}: a current index was rebuilt ({rebuilt})")
    for (results, query), expected in zip(found, _fresh(engine.state_dir, scratch), strict=True):
        if _comparable(results) != expected:
            tally.fail(case, f"{when}: {query} differs from a fresh rebuild")


def _case(rng: random.Random, folder: Path, scratch: Path, number: int, tally: FaultTally) -> None:
    seed = rng.randrange(10**6)
    entries = random_session(seed, segments=6, max_batches=4, max_results=2, max_size=3_000)
    mode = MODES[number % len(MODES)]
    nth, steps, delay = rng.randint(1, 3), rng.randint(1, 60), rng.uniform(0.02, TIMED_SECONDS)
    state = folder / f"state-{number}"
    case = f"session {seed}, {mode} (commit {nth}, step {steps}, {delay:.2f} s)"
    ended = _crash(state, entries, mode, nth, steps, delay)
    tally.tried += 1
    if not (state / "fold-log.jsonl").exists():
        return  # killed before the session began: nothing to search
    engine = Engine.open(state, None, CharCounter())
    try:
        # Every other case resumes first: its commits must not patch an index left behind.
        if (number + number // len(MODES)) % 2 == 0:
            _check(engine, scratch, case, tally, f"after the {ended} child")
        drive(engine, entries[len(engine.view.transcript) :])
        if engine.view.marks:
            engine.commit_now()
        _check(engine, scratch, case, tally, "after the resumed session")
        if engine.view.audit_counts.unattributed:
            tally.fail(case, "the resumed session has unattributed rewrites")
    finally:
        engine.close()
    shutil.rmtree(state, ignore_errors=True)


def run(count: int, seed: int) -> FaultTally:
    """``count`` kills at seeded points, each checked against a fresh rebuild."""
    tally = FaultTally("search index (SIGKILL)")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="pifold-search-") as folder:
        for number in range(count):
            _case(rng, Path(folder), Path(folder) / "fresh", number, tally)
    return tally


def test_a_killed_index_write_is_rebuilt_said_and_matches_a_fresh_rebuild() -> None:
    tally = run(QUICK_COUNT, seed=20261205)
    assert tally.tried == QUICK_COUNT
    assert tally.failures == []
