"""The commit policy on every bundled trace: threshold commits, cold-cache commits, overflow
recoveries, the closest two threshold commits in tokens of inflow, and the floor named.

Run: ``.venv/bin/python benchmarks/bench_runway.py [--budgets 30000,60000] [--lifetime model]``

Each trace is replayed once per budget through :func:`pifold_bench.runway_audit.audit_replay`
(the trace's own clock; ``--lifetime`` ``model`` for its model's cache lifetime, ``none``, or
seconds). "Closest" is the smallest inflow between two consecutive threshold commits (see
:mod:`pifold_bench.runway_audit` for the definition), beside the runway the rule asks. The
last column is the floor named last, if any: the host prompt and the budget that would work.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.replay_lifetime import CacheLifetime
from pifold_bench.runway_audit import RunwayAudit, audit_replay


def _lifetime(text: str) -> CacheLifetime:
    if text == "model":
        return "model"
    if text == "none":
        return None
    return int(text)


def _row(name: str, budget: int, audit: RunwayAudit, cpu: float, wall: float) -> str:
    gaps = audit.gaps()
    closest = f"{min(gap.inflow for gap in gaps):,}" if gaps else "-"
    floors = audit.floors()
    last = floors[-1].floor if floors else None
    named = (
        f"host {last.host_tokens:,}; {last.budget_that_works:,} works" if last is not None else "-"
    )
    cells = [
        name,
        f"{budget // 1_000}k",
        f"{len(audit.steps)}",
        f"{audit.commits('threshold')}",
        f"{audit.commits('cold-cache')}",
        f"{audit.commits('overflow')}",
        f"{closest} / {audit.runway:,}",
        f"{len(floors)}",
        named,
        f"{cpu:.2f}",
        f"{wall:.2f}",
    ]
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="30000,60000")
    parser.add_argument("--lifetime", default="model")
    arguments = parser.parse_args()
    budgets = [int(part) for part in arguments.budgets.split(",")]
    lifetime = _lifetime(arguments.lifetime)
    traces = sorted(path for path in bundled_traces())
    print(
        "| trace | budget | requests | threshold | cold-cache | overflow | closest / runway "
        "| floors named | last floor | CPU s | wall s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="pifold-runway-") as folder:
        for index, trace in enumerate(traces):
            for budget in budgets:
                wall, cpu = time.perf_counter(), time.process_time()
                state = Path(folder) / f"{index}-{budget}"
                audit = audit_replay(trace, budget, state, lifetime)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                print(_row(trace.parent.name, budget, audit, cpu, wall), flush=True)


if __name__ == "__main__":
    main()
