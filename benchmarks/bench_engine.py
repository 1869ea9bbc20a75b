"""Engine speed per model request, on the bundled traces and on a synthetic long session.

Run: ``.venv/bin/python benchmarks/bench_engine.py [--synthetic-entries 20000]``

For each bundled trace it prints the engine's time per request (the appends since the previous
request plus ``prepare_request``, commits included), median and p99, and the peak memory the
replay allocated (tracemalloc, measured in a second pass so it does not slow the timing).
The synthetic session shows whether per-request work grows with the session's length: it
compares the median time of the first and the last 500 requests, in CPU time (the process's
own work) beside wall time (which other jobs on a shared machine inflate).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.importers import load_trace
from pifold_core.engine import Engine
from pifold_core.entries import Entry, TextBlock, ToolCallBlock, Usage
from pifold_core.options import EngineOptions


def timed_replay(entries: Sequence[Entry], budget: int) -> tuple[list[float], Engine]:
    """Wall seconds of engine work per request."""
    wall, _, engine = timed_replay_clocks(entries, budget)
    return wall, engine


def timed_replay_clocks(
    entries: Sequence[Entry], budget: int
) -> tuple[list[float], list[float], Engine]:
    """Wall and CPU seconds of engine work per request."""
    state = Path(tempfile.mkdtemp(prefix="pifold-bench-"))
    engine = Engine.open(state, EngineOptions(budget=budget))
    wall: list[float] = []
    cpu: list[float] = []
    started, cpu_started = time.perf_counter(), time.process_time()
    for entry in entries:
        if entry.kind == "assistant":
            engine.prepare_request()
            now, cpu_now = time.perf_counter(), time.process_time()
            wall.append(now - started)
            cpu.append(cpu_now - cpu_started)
            started, cpu_started = now, cpu_now
        engine.append(entry)
    engine.close()
    return wall, cpu, engine


def peak_memory(entries: Sequence[Entry], budget: int) -> int:
    tracemalloc.start()
    timed_replay(entries, budget)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def synthetic_session(count: int) -> Iterator[Entry]:
    """One user ask, then a long agentic turn of tool calls with 1-6 KB results."""
    yield Entry("u0", "user", 0, (TextBlock("Refactor the parser and keep the tests green."),))
    index = 0
    while True:
        index += 1
        call = f"call-{index}"
        yield Entry(
            f"a{index}",
            "assistant",
            index * 1000,
            (
                TextBlock(f"Step {index}: reading module_{index % 97}.py for the next change."),
                ToolCallBlock(call, "read", {"path": f"src/module_{index % 97}.py"}),
            ),
            usage=Usage(input_tokens=100, output_tokens=50),
        )
        body = "\n".join(
            f"{line:04d}  def function_{index}_{line}(value): return value * {line}"
            for line in range(20 + (index * 37) % 80)
        )
        yield Entry(
            f"r{index}",
            "tool_result",
            index * 1000 + 1,
            (TextBlock(body),),
            call_id=call,
            tool_name="read",
        )
        if 2 * index + 1 >= count:
            return


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=int, default=100_000)
    parser.add_argument("--synthetic-entries", type=int, default=20_000)
    arguments = parser.parse_args()
    console = Console()

    table = Table(title=f"Engine time per request (budget {arguments.budget:,} tokens)")
    for column in ("trace", "requests", "commits", "median ms", "p99 ms", "peak memory MB"):
        table.add_column(column, justify="right" if column != "trace" else "left")
    traces = bundled_traces()
    for path in traces:
        entries = load_trace(path).entries
        timings, engine = timed_replay(entries, arguments.budget)
        memory = peak_memory(entries, arguments.budget)
        table.add_row(
            path.parent.name,
            f"{len(timings)}",
            f"{engine.view.commit_count}",
            f"{statistics.median(timings) * 1000:.3f}",
            f"{percentile(timings, 0.99) * 1000:.3f}",
            f"{memory / 1e6:.1f}",
        )
    console.print(table)

    entries = list(synthetic_session(arguments.synthetic_entries))
    wall, cpu, engine = timed_replay_clocks(entries, arguments.budget)
    window = 500
    synthetic = Table(title=f"Synthetic session: {len(entries):,} entries, one long turn")
    for column in (
        "clock",
        "requests",
        "commits",
        "folds",
        "first 500 median ms",
        "last 500 median ms",
        "end / start",
        "first 500 total s",
        "last 500 total s",
    ):
        synthetic.add_column(column, justify="right")
    for label, timings in (("CPU", cpu), ("wall", wall)):
        start = statistics.median(timings[:window])
        end = statistics.median(timings[-window:])
        synthetic.add_row(
            label,
            f"{len(timings):,}",
            f"{engine.view.commit_count}",
            f"{len(engine.view.forest):,}",
            f"{start * 1000:.3f}",
            f"{end * 1000:.3f}",
            f"{end / start:.2f}×",
            f"{sum(timings[:window]):.2f}",
            f"{sum(timings[-window:]):.2f}",
        )
    console.print(synthetic)


if __name__ == "__main__":
    main()
