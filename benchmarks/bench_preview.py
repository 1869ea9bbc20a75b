"""What a commit preview costs: ``preview_commit`` and ``settled_boundary`` on real sessions.

Run: ``.venv/bin/python benchmarks/bench_preview.py [--budget 60000] [--repeat 20]``

The bundled agent asks ``settled_boundary()`` before requests to place its Anthropic cache
breakpoints and ``/fold`` shows ``preview_commit()``, so both must stay cheap beside a request.
Each bundled trace is replayed at the budget into a temporary folder, then each call is timed
on the final state (the largest window of the session) ``--repeat`` times. Prints a Markdown
table of the median wall and CPU time per call beside ``prepare_request``'s own.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pifold_agent.bundled_traces import traces_folder
from pifold_agent.replay import replay_trace
from pifold_core.engine import Engine
from pifold_core.options import EngineOptions

TRACES = (
    "pi-mono/large-session.jsonl",
    "codex-soulpass/codex-session.jsonl",
    "claude-code-session-share/general-tool-calls.jsonl",
    "mini-swe-agent-deepseek/django__django-13265.traj.json",
    "pi-v3-paradocs/session.jsonl",
)


def timed(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds of ``call`` over ``repeat`` runs."""
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def measure(trace: Path, budget: int, repeat: int) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="bench-preview-") as folder:
        state = Path(folder) / "state"
        replay_trace(trace, budget, state, options=EngineOptions(budget=budget))
        engine = Engine.open(state, read_only=True)
        try:
            command = timed(lambda: engine.preview_commit("command"), repeat)
            band = timed(lambda: engine.preview_commit("threshold"), repeat)
            boundary = timed(engine.settled_boundary, repeat)
            messages = len(engine.view.projection.items)
            pending = len(engine.view.marks)
        finally:
            engine.close()
        writable = Engine.open(state)
        try:
            request = timed(writable.prepare_request, repeat)
        finally:
            writable.close()
    return [
        trace.parent.name,
        f"{messages:,}",
        f"{pending}",
        *(f"{wall:.2f} / {cpu:.2f}" for wall, cpu in (command, band, boundary, request)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=60_000)
    parser.add_argument("--repeat", type=int, default=20)
    arguments = parser.parse_args()
    header = [
        "trace",
        "messages",
        "marks",
        "preview /fold ms (wall / CPU)",
        "preview band ms",
        "settled_boundary ms",
        "prepare_request ms",
    ]
    print(f"budget {arguments.budget:,}, median of {arguments.repeat} calls on the final state\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if index == 0 else "---:" for index in range(len(header))) + "|")
    for name in TRACES:
        print(
            "| "
            + " | ".join(measure(traces_folder() / name, arguments.budget, arguments.repeat))
            + " |"
        )


if __name__ == "__main__":
    main()
