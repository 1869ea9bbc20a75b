"""The brief probe on every bundled trace: planted values kept in sight by briefs.

Run: ``.venv/bin/python benchmarks/bench_brief_probe.py [--budget 100000 30000] [--seed 7]``

Each bundled trace is prepared as ``pifold bench`` prepares it (12 values planted, seed 7),
then each engine arm replays it (:mod:`pifold_bench.run`) and the probe
(:mod:`pifold_bench.brief_probe`) counts, at the end of the run, the planted values a
collapsed fold holds and how many of them its brief shows. Prints a Markdown table per
budget (cells ``in shown brief / folded``, then the values in the innermost fold's brief),
with the CPU and wall seconds of the whole run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.pricing.prices import load_price_book
from pifold_bench.brief_probe import BriefProbe, probe_arm
from pifold_bench.prepare import FOLD_ARMS, BenchSettings, prepare_trace
from pifold_bench.run import make_arm, run_arm
from pifold_core.tokens import TiktokenCounter


def probe_trace(path: Path, budget: int, seed: int) -> dict[str, BriefProbe]:
    """The probe of every engine arm on one trace."""
    counter = TiktokenCounter()
    settings = BenchSettings(budget=budget, seed=seed)
    prepared = prepare_trace(path, settings, counter, load_price_book())
    probes: dict[str, BriefProbe] = {}
    for name in FOLD_ARMS:
        with tempfile.TemporaryDirectory(prefix="bench-brief-probe-") as state:
            arm = make_arm(name, Path(state), prepared, budget, counter)
            try:
                run_arm(arm, prepared, recall=False)
                probe = probe_arm(arm, prepared.values)
            finally:
                arm.close()
        if probe is not None:
            probes[name] = probe
    return probes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, nargs="+", default=[100_000, 30_000])
    parser.add_argument("--seed", type=int, default=7)
    arguments = parser.parse_args()
    for budget in arguments.budget:
        cpu, wall = time.process_time(), time.perf_counter()
        title = f"budget {budget:,}, seed {arguments.seed}"
        print(f"\n{title}: in shown brief / folded (in first brief)\n")
        print("| trace | " + " | ".join(FOLD_ARMS) + " |")
        print("|---|" + "---:|" * len(FOLD_ARMS))
        totals = {name: [0, 0, 0] for name in FOLD_ARMS}
        for path in bundled_traces():
            probes = probe_trace(path, budget, arguments.seed)
            cells: list[str] = []
            for name in FOLD_ARMS:
                probe = probes[name]
                totals[name][0] += probe.in_shown_brief
                totals[name][1] += probe.folded
                totals[name][2] += probe.in_first_brief
                cells.append(f"{probe.in_shown_brief}/{probe.folded} ({probe.in_first_brief})")
            print(f"| {path.parent.name} | " + " | ".join(cells) + " |")
        summed = [f"{shown}/{folded} ({first})" for shown, folded, first in totals.values()]
        print("| all | " + " | ".join(summed) + " |")
        print(f"\n{time.process_time() - cpu:.1f} s CPU, {time.perf_counter() - wall:.1f} s wall")


if __name__ == "__main__":
    main()
