"""The sweep behind ``COLD_COMMIT_SHARE``: the ``fold`` arm at candidate cold points.

Run: ``.venv/bin/python benchmarks/sweep_cold_point.py [--budget 100000] [--shares 0.3,0.5]``

A cold-cache commit lands standing marks when the cache has expired anyway and the expected
occupancy is at least the cold point (a share of the budget). Too low a point folds early and
hides detail the agent could still read raw; too high a point leaves the free re-send unused.
For each candidate point the ``fold`` arm replays every bundled trace (budget 100,000 unless
told otherwise, seed 7, the priced family's cache lifetime), and the script prints, per point
and trace, the whole-session uncached input, the commits (and how many were cold-cache ones)
and the planted values still visible raw at the end; then the sums per point, ``fold-no-cold``
beside them (the same engine without the rule), on how many traces ``fold`` reads less than
``fold-immediate`` at that point (the acceptance criterion's third line), and the CPU and
wall time of the run.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from pifold_agent.bundled_traces import bundled_traces, traces_folder
from pifold_agent.pricing.prices import load_price_book
from pifold_bench.figures import arm_figures
from pifold_bench.prepare import BenchSettings, prepare_trace
from pifold_bench.run import run_arms
from pifold_core.runway import COLD_COMMIT_SHARE
from pifold_core.tokens import TiktokenCounter

CANDIDATE_SHARES = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
"""The cold points swept by default, as shares of the budget."""


def markdown(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table, the first column left-aligned and the rest right."""
    lines = ["| " + " | ".join(columns) + " |"]
    lines.append("|---|" + "|".join("---:" for _ in columns[1:]) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=100_000)
    parser.add_argument(
        "--shares",
        default=",".join(f"{share}" for share in CANDIDATE_SHARES),
        help="comma-separated cold points, shares of the budget between 0 and 1",
    )
    arguments = parser.parse_args()
    try:
        shares = [float(item) for item in arguments.shares.split(",") if item.strip()]
    except ValueError:
        parser.error(f"--shares must be numbers separated by commas, got {arguments.shares!r}")
    if not shares or any(not 0 < share < 1 for share in shares):
        parser.error("--shares must name at least one share strictly between 0 and 1")
    traces = sorted(path for path in bundled_traces())
    if not traces:
        parser.error(f"no traces under {traces_folder()}")
    settings = BenchSettings(budget=arguments.budget)
    counter = TiktokenCounter()
    book = load_price_book()
    cpu_started, wall_started = time.process_time(), time.perf_counter()
    prepared = [prepare_trace(path, settings, counter, book) for path in traces]
    # cells[share][trace] = (uncached input, commits, cold-cache commits, visible raw,
    # fold-immediate's uncached input at the same point)
    cells: dict[float | None, list[tuple[int, int, int, int, int]]] = {}
    for share in [*shares, None]:
        row: list[tuple[int, int, int, int, int]] = []
        for trace in prepared:
            arm = "fold" if share is not None else "fold-no-cold"
            point = COLD_COMMIT_SHARE if share is None else share  # unused by fold-no-cold
            pair = (arm, "fold-immediate")
            runs = run_arms(trace, pair, settings.budget, counter, cold_commit_share=point)
            figures = arm_figures(runs[arm], settings.budget, len(trace.values))
            immediate = arm_figures(runs["fold-immediate"], settings.budget, len(trace.values))
            cold = sum(1 for cause in runs[arm].declared_causes if cause.endswith("(cold-cache)"))
            row.append(
                (
                    figures.uncached_input,
                    figures.events,
                    cold,
                    figures.recall.visible_raw,
                    immediate.uncached_input,
                )
            )
        cells[share] = row
    cpu = time.process_time() - cpu_started
    wall = time.perf_counter() - wall_started

    names = [path.parent.name for path in traces]
    labels = {share: "no cold" if share is None else f"{share:.2f}" for share in cells}
    columns = ["trace", *(labels[share] for share in cells)]
    planted = sum(len(trace.values) for trace in prepared)
    print(f"Uncached input (provider tokens), budget {settings.budget:,}, cold point = share")
    print()
    rows = [
        [name, *(f"{cells[share][index][0]:,}" for share in cells)]
        for index, name in enumerate(names)
    ]
    rows.append(["all traces", *(f"{sum(cell[0] for cell in cells[share]):,}" for share in cells)])
    rows.append(
        [
            "below fold-immediate",
            *(
                f"{sum(cell[0] < cell[4] for cell in cells[share])} of {len(traces)}"
                for share in cells
            ),
        ]
    )
    print("\n".join(markdown(columns, rows)))
    print()
    print("Commits (of which cold-cache) / planted values visible raw at the end")
    print()
    rows = [
        [
            name,
            *(
                f"{cells[share][index][1]} ({cells[share][index][2]}) / {cells[share][index][3]}"
                for share in cells
            ),
        ]
        for index, name in enumerate(names)
    ]
    rows.append(
        [
            "all traces",
            *(
                f"{sum(cell[1] for cell in cells[share])} "
                f"({sum(cell[2] for cell in cells[share])}) / "
                f"{sum(cell[3] for cell in cells[share])} of {planted}"
                for share in cells
            ),
        ]
    )
    print("\n".join(markdown(columns, rows)))
    print()
    arm_runs = 2 * len(cells) * len(traces)
    print(f"{arm_runs} runs of one arm: {cpu:.2f} s CPU, {wall:.2f} s wall (this machine, shared)")


if __name__ == "__main__":
    main()
