"""The agent loop's cost per model request: the bundled session (and any other bundled trace)
played headless through the loop by the scripted provider, at several budgets.

Run: ``.venv/bin/python benchmarks/bench_agent_loop.py [--budgets 60000,100000,200000]
[--all-traces]``

Each row is one whole run of :func:`pifold_cli.headless_demo.play`: every recorded reply
streamed in chunks to the engine's projection, tool calls answered with the recorded results,
user messages through the queues, commits as they fall due. Wall and CPU time are printed
side by side (the machine is shared; CPU time is the steadier figure), with the share of
pure appends and the folds verified byte for byte at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pifold_agent.bundled_traces import bundled_traces, demo_trace
from pifold_agent.importers import load_trace
from pifold_cli.headless_demo import play
from pifold_core.options import EngineOptions


def traces(all_traces: bool) -> list[Path]:
    """The demo's session, and every other bundled trace when asked."""
    found = [demo_trace()]
    if all_traces:
        found += [path for path in bundled_traces() if path != demo_trace()]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="60000,100000,200000")
    parser.add_argument("--all-traces", action="store_true")
    arguments = parser.parse_args()
    budgets = [int(text) for text in arguments.budgets.split(",")]
    table = Table(title="agent loop, scripted provider, recorded tool results")
    for column in (
        "trace",
        "budget",
        "requests",
        "appends",
        "commits",
        "unattributed",
        "folds verified",
        "wall s",
        "CPU s",
        "wall ms/request",
        "CPU ms/request",
    ):
        table.add_column(column, justify="left" if column == "trace" else "right")
    for path in traces(arguments.all_traces):
        try:
            entries = load_trace(path).entries
        except ValueError:
            continue  # not a trace (a README or a notice beside the traces)
        for budget in budgets:
            with tempfile.TemporaryDirectory(prefix="pifold-loop-bench-") as folder:
                wall, cpu = time.perf_counter(), time.process_time()
                figures = asyncio.run(play(entries, EngineOptions(budget=budget), Path(folder)))
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            requests = max(figures.requests, 1)
            table.add_row(
                path.parent.name if path != demo_trace() else "pi-mono (the demo)",
                f"{budget:,}",
                f"{figures.requests:,}",
                f"{figures.appends / requests:.1%}",
                f"{len(figures.commits)}",
                f"{figures.unattributed}",
                f"{figures.verified_folds}/{figures.folds}",
                f"{wall:.2f}",
                f"{cpu:.2f}",
                f"{1000 * wall / requests:.1f}",
                f"{1000 * cpu / requests:.1f}",
            )
    Console().print(table)


if __name__ == "__main__":
    main()
