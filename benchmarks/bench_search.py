"""Search over folded history at scale (issue 21): latency, upkeep share, index size.

Run: ``.venv/bin/python benchmarks/bench_search.py [--entries 50000] [--budget 100000]``
(add ``--suggestions``, ``--layouts`` for those figures; ``--no-rebuild`` skips the rebuild)

Drives :func:`bench_scale.synthetic_session` (asks, tool calls with 2-20 KB code-like
results, notes) through the real engine, ``prepare_request`` before every assistant message,
timing every commit and, inside it, the search index's upkeep
(:meth:`SessionSearch.after_commit`), CPU beside wall (the machine is shared: CPU is what
the process itself spent). Then, on the final state:

* the upkeep's share of the commits' CPU, and the baseline from the same run: the same
  commits with search off (their CPU less the upkeep's: the engine does nothing else for
  search at a commit), and the upkeep against it;
* with ``--suggestions``, what suggestions at a commit (``surfacing``) would cost: after
  each commit the engine is asked for them (:meth:`Engine.suggestions`, the note's whole
  work but the append), CPU beside wall, against the commits' CPU;
* the index file's bytes against the raw record bytes appended, and with ``--layouts`` what
  the same rows cost in other layouts: FTS5 ``detail=full`` (word positions: format 1 of
  the index) and a table that keeps its text (``content`` stored, the default FTS5 table);
* search latency, median and p90 over ``--repeat`` runs of each query, CPU beside wall:
  a common word, a rare identifier, a phrase, a word with a tool filter, a regex whose
  words the index finds first, and one with none (the bounded scan of the newest entries);
* a rebuild from nothing (the index deleted, the next search rebuilds it), unless
  ``--no-rebuild``.

At 50,000 entries the drive alone is a few minutes of CPU (the commits are most of it), so
the optional figures are off by default.
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parent))
from bench_scale import synthetic_session

from pifold_core.engine import Engine
from pifold_core.options import EngineOptions
from pifold_core.search import INDEX_NAME, SearchQuery, parse_query
from pifold_core.search.rebuild import clipped_indices, folded_indices, rows_for
from pifold_core.search.session import SessionSearch

QUERIES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("common word", {"text": "parser"}),
    ("rare identifier", {"text": "handler_4242"}),
    ("phrase", {"text": '"parser buffer"'}),
    ("word + tool filter", {"text": "retry", "tool": "read"}),
    ("regex, its words found by the index", {"text": r"return 99999\d", "regex": True}),
    ("regex without words (bounded scan)", {"text": r"\b99999\d\b", "regex": True}),
)


def _clocks() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


@contextlib.contextmanager
def upkeep_timed(upkeep: list[tuple[float, float]]) -> Iterator[None]:
    """Within the block, each :meth:`SessionSearch.after_commit` (the index's upkeep inside a
    commit) adds its CPU and wall seconds to ``upkeep``."""
    original = SessionSearch.after_commit

    def timed_upkeep(self: SessionSearch, session: Any, outcome: Any) -> None:
        cpu, wall = _clocks()
        original(self, session, outcome)
        now_cpu, now_wall = _clocks()
        upkeep.append((now_cpu - cpu, now_wall - wall))

    SessionSearch.after_commit = timed_upkeep  # type: ignore[method-assign]
    try:
        yield
    finally:
        SessionSearch.after_commit = original  # type: ignore[method-assign]


def drive(state: Path, count: int, budget: int, suggestions: bool = False) -> dict[str, Any]:
    """Drive the session; per-commit CPU and wall seconds, and the upkeep's inside them."""
    upkeep: list[tuple[float, float]] = []
    with upkeep_timed(upkeep):
        return _driven(state, count, budget, suggestions, upkeep)


def _driven(
    state: Path, count: int, budget: int, suggestions: bool, upkeep: list[tuple[float, float]]
) -> dict[str, Any]:
    engine = Engine.open(state, EngineOptions(budget=budget))
    commits: list[tuple[float, float]] = []
    suggesting: list[tuple[float, float]] = []
    suggested: list[int] = []
    raw_bytes = 0
    try:
        for entry in synthetic_session(count):
            if entry.kind == "assistant":
                cpu, wall = _clocks()
                request = engine.prepare_request()
                if request.commit is not None:
                    now_cpu, now_wall = _clocks()
                    commits.append((now_cpu - cpu, now_wall - wall))
                    if suggestions:
                        cpu, wall = _clocks()
                        suggested.append(len(engine.suggestions()))
                        now_cpu, now_wall = _clocks()
                        suggesting.append((now_cpu - cpu, now_wall - wall))
            raw_bytes += len(engine.append(entry).record_bytes)
        problem = engine._session_search().upkeep_problem
    finally:
        engine.close()
    return {
        "commits": commits,
        "upkeep": upkeep,
        "raw_bytes": raw_bytes,
        "problem": problem,
        "suggesting": suggesting,
        "suggested": suggested,
    }


def other_layouts(engine: Engine, folder: Path) -> dict[str, int]:
    """Bytes of the same rows in other FTS5 layouts (built here, then measured)."""
    state = engine._state
    indices = set(folded_indices(state.forest))
    indices.update(clipped_indices(state.journal.path, state.commit_count))
    rows = rows_for(state.transcript, indices, state.evidence)
    sizes: dict[str, int] = {}
    layouts = {
        "contentless, detail=full (format 1)": "content=''",
        "text stored (FTS5 default)": "",
    }
    for name, options in layouts.items():
        path = folder / f"{len(sizes)}.sqlite3"
        connection = sqlite3.connect(path)
        extra = f", {options}" if options else ""
        connection.execute(f"CREATE VIRTUAL TABLE body USING fts5(text{extra})")
        connection.executemany(
            "INSERT INTO body (rowid, text) VALUES (?, ?)",
            [(row.index, row.fields.body) for row in rows],
        )
        connection.commit()
        connection.execute("VACUUM")
        connection.close()
        sizes[name] = path.stat().st_size
    return sizes


def latency(
    engine: Engine, query: SearchQuery, repeat: int
) -> tuple[list[float], list[float], str]:
    """Wall and CPU milliseconds of each run, and the hits (a phrase: of how many checked)."""
    walls: list[float] = []
    cpus: list[float] = []
    total = ""
    for _ in range(repeat):
        cpu, wall = _clocks()
        results = engine.search(query)
        total = f"{results.total:,}"
        if results.checked is not None:
            total += f" of {results.checked:,} checked ({results.unchecked:,} not)"
        now_cpu, now_wall = _clocks()
        walls.append((now_wall - wall) * 1000)
        cpus.append((now_cpu - cpu) * 1000)
    return walls, cpus, total


def rebuild_from_nothing(state: Path) -> tuple[float, float, str]:
    """CPU and wall seconds of a rebuild from nothing (the index deleted, a search rebuilds
    it), and the notice the search gave."""
    (state / INDEX_NAME).unlink()
    writer = Engine.open(state)
    try:
        cpu, wall = _clocks()
        rebuilt = writer.search(parse_query("parser"))
        now_cpu, now_wall = _clocks()
    finally:
        writer.close()
    return now_cpu - cpu, now_wall - wall, str(rebuilt.rebuilt)


def _p90(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.9) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=50_000)
    parser.add_argument("--budget", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--suggestions", action="store_true", help="time suggestions too")
    parser.add_argument("--layouts", action="store_true", help="size other FTS5 layouts")
    parser.add_argument("--no-rebuild", action="store_true", help="skip the rebuild")
    arguments = parser.parse_args()
    started = _clocks()
    console = Console()
    with tempfile.TemporaryDirectory(prefix="bench-search-") as folder:
        state = Path(folder) / "state"
        driven = drive(state, arguments.entries, arguments.budget, arguments.suggestions)
        commit_cpu = sum(cpu for cpu, _ in driven["commits"])
        commit_wall = sum(wall for _, wall in driven["commits"])
        upkeep_cpu = sum(cpu for cpu, _ in driven["upkeep"])
        upkeep_wall = sum(wall for _, wall in driven["upkeep"])
        index_bytes = (state / INDEX_NAME).stat().st_size
        engine = Engine.open(state, read_only=True)
        try:
            sizes = other_layouts(engine, Path(folder)) if arguments.layouts else {}
            timings = [
                (name, latency(engine, parse_query(limit=10, **query), arguments.repeat))
                for name, query in QUERIES
            ]
        finally:
            engine.close()
        rebuild = None if arguments.no_rebuild else rebuild_from_nothing(state)
    raw = driven["raw_bytes"]
    summary = Table(
        title=f"search index, {arguments.entries:,} entries, budget {arguments.budget:,}"
    )
    summary.add_column("figure")
    summary.add_column("value", justify="right")
    summary.add_row("commits", f"{len(driven['commits']):,}")
    summary.add_row("commits' CPU / wall s (with upkeep)", f"{commit_cpu:.2f} / {commit_wall:.2f}")
    baseline_cpu = commit_cpu - upkeep_cpu
    summary.add_row(
        "baseline: the same commits with search off, CPU / wall s",
        f"{baseline_cpu:.2f} / {commit_wall - upkeep_wall:.2f}",
    )
    summary.add_row("index upkeep CPU / wall s", f"{upkeep_cpu:.2f} / {upkeep_wall:.2f}")
    summary.add_row(
        "upkeep share of the commits' CPU (goal <= 10 %)",
        f"{upkeep_cpu / commit_cpu:.1%}" if commit_cpu else "-",
    )
    summary.add_row(
        "upkeep / baseline CPU",
        f"{upkeep_cpu / baseline_cpu:.1%}" if baseline_cpu else "-",
    )
    if arguments.suggestions:
        suggest_cpu = sum(cpu for cpu, _ in driven["suggesting"])
        suggest_wall = sum(wall for _, wall in driven["suggesting"])
        summary.add_row(
            "suggestions at each commit CPU / wall s (folds suggested)",
            f"{suggest_cpu:.2f} / {suggest_wall:.2f} ({sum(driven['suggested']):,})",
        )
        summary.add_row(
            "suggestions' share of the commits' CPU",
            f"{suggest_cpu / commit_cpu:.1%}" if commit_cpu else "-",
        )
    summary.add_row("raw record bytes", f"{raw:,}")
    summary.add_row(
        "index bytes (contentless, detail=none) / raw (goal <= 0.3x)",
        f"{index_bytes:,} ({index_bytes / raw:.3f}x)",
    )
    for name, size in sizes.items():
        summary.add_row(f"  the same rows, {name}", f"{size:,} ({size / raw:.3f}x)")
    if rebuild is not None:
        summary.add_row("rebuild from nothing CPU / wall s", f"{rebuild[0]:.2f} / {rebuild[1]:.2f}")
        summary.add_row("rebuild reported", rebuild[2])
    summary.add_row("upkeep problem", str(driven["problem"]))
    finished = _clocks()
    summary.add_row(
        "this benchmark, CPU / wall s",
        f"{finished[0] - started[0]:.1f} / {finished[1] - started[1]:.1f}",
    )
    console.print(summary)
    table = Table(title=f"search latency, ms, {arguments.repeat} runs (goal <= 100 ms)")
    for heading in ("query", "hits", "wall median", "wall p90", "CPU median"):
        table.add_column(heading, justify="left" if heading == "query" else "right")
    for name, (walls, cpus, total) in timings:
        table.add_row(
            name,
            total,
            f"{statistics.median(walls):.1f}",
            f"{_p90(walls):.1f}",
            f"{statistics.median(cpus):.1f}",
        )
    console.print(table)


if __name__ == "__main__":
    main()
