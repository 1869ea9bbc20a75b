"""What briefs cost a commit: CPU and wall time of commit requests, and the briefs' share.

Run: ``.venv/bin/python benchmarks/bench_briefs.py [--entries 6000] [--budget 30000]``

Two workloads, in this process: the synthetic session of ``bench_scale.py`` (seed 12, tool
results of 2-20 KB of code-like text, budget 100,000) driven through ``prepare_request``, and
every bundled trace replayed by the bench's ``fold`` arm at ``--budget``. Every runtime brief
(``FoldBuilder.runtime_brief``) is timed by wrapping it, so the table shows, per
workload, the commit requests' median CPU and wall milliseconds beside the median CPU spent
in briefs within a commit, and the briefs' total CPU seconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import synthetic_session

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.pricing.prices import load_price_book
from pifold_bench.arms import EngineArm
from pifold_bench.prepare import BenchSettings, prepare_trace
from pifold_bench.run import make_arm, run_arm
from pifold_core.builder import FoldBuilder
from pifold_core.engine import Engine
from pifold_core.engine_results import Request
from pifold_core.options import EngineOptions
from pifold_core.tokens import TiktokenCounter

BRIEF_CPU: list[float] = []
"""CPU seconds of every runtime brief made in this process, in order."""


def _time_briefs() -> None:
    original = FoldBuilder.runtime_brief

    def timed(self: FoldBuilder, *arguments: Any) -> str:
        started = time.process_time()
        text = original(self, *arguments)
        BRIEF_CPU.append(time.process_time() - started)
        return text

    FoldBuilder.runtime_brief = timed  # type: ignore[method-assign, assignment]


class CommitClock:
    """Wraps an engine's ``prepare_request`` and keeps, per commit request, CPU, wall and
    the CPU its briefs took."""

    def __init__(self, engine: Engine) -> None:
        self.rows: list[tuple[float, float, float]] = []
        inner: Callable[..., Request] = engine.prepare_request

        def prepare(*arguments: Any, **keywords: Any) -> Request:
            cpu, wall, briefs = time.process_time(), time.perf_counter(), sum(BRIEF_CPU)
            request = inner(*arguments, **keywords)
            if request.commit is not None:
                self.rows.append(
                    (
                        time.process_time() - cpu,
                        time.perf_counter() - wall,
                        sum(BRIEF_CPU) - briefs,
                    )
                )
            return request

        engine.prepare_request = prepare  # type: ignore[method-assign]


def synthetic(count: int) -> list[tuple[float, float, float]]:
    with tempfile.TemporaryDirectory(prefix="bench-briefs-") as folder:
        engine = Engine.open(Path(folder) / "state", EngineOptions(budget=100_000))
        clock = CommitClock(engine)
        for entry in synthetic_session(count):
            if entry.kind == "assistant":
                engine.prepare_request()
            engine.append(entry)
        engine.close()
    return clock.rows


def trace(path: Path, budget: int) -> list[tuple[float, float, float]]:
    counter = TiktokenCounter()
    prepared = prepare_trace(path, BenchSettings(budget=budget), counter, load_price_book())
    with tempfile.TemporaryDirectory(prefix="bench-briefs-") as folder:
        arm = make_arm("fold", Path(folder), prepared, budget, counter)
        assert isinstance(arm, EngineArm)
        clock = CommitClock(arm.engine)
        try:
            run_arm(arm, prepared, recall=False)
        finally:
            arm.close()
    return clock.rows


def row(name: str, rows: list[tuple[float, float, float]]) -> str:
    if not rows:
        return f"| {name} | 0 | – | – | – |"
    cpu = statistics.median(value[0] for value in rows) * 1000
    wall = statistics.median(value[1] for value in rows) * 1000
    briefs = statistics.median(value[2] for value in rows) * 1000
    total = sum(value[2] for value in rows)
    return f"| {name} | {len(rows)} | {cpu:.1f} / {wall:.1f} | {briefs:.1f} | {total:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=6_000)
    parser.add_argument("--budget", type=int, default=30_000)
    arguments = parser.parse_args()
    _time_briefs()
    print("| workload | commits | commit median ms (CPU / wall) | briefs ms CPU | briefs s |")
    print("|---|---:|---:|---:|---:|")
    print(row(f"synthetic {arguments.entries:,} entries (100k)", synthetic(arguments.entries)))
    every: list[tuple[float, float, float]] = []
    for path in bundled_traces():
        rows = trace(path, arguments.budget)
        every.extend(rows)
        print(row(f"{path.parent.name} ({arguments.budget // 1000}k)", rows))
    print(row("all bundled traces", every))


if __name__ == "__main__":
    main()
