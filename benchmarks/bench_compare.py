"""Every arm of ``pifold bench`` on every shared trace: the comparison table and its timing.

Run: ``.venv/bin/python benchmarks/bench_compare.py [--budget 100000]``

Prints one Markdown table (a row per trace and arm, the figures ``pifold bench`` reports),
the model check per trace, and how long each trace took, all arms together, so the README's
table can be regenerated in one command.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from pifold_bench.figures import arm_figures
from pifold_bench.prices import load_price_book
from pifold_bench.run import BenchSettings, check_model, prepare_trace, run_arms
from pifold_core.tokens import TiktokenCounter

SHARED_TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"

COLUMNS = (
    "trace",
    "arm",
    "rewrites",
    "unattr.",
    "uncached in",
    "on rewrites",
    "cache read",
    "total tokens",
    "cost $",
    "peak",
    "mean",
    "near zero",
    "events",
    "visible/recov./lost",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=100_000)
    arguments = parser.parse_args()
    traces = sorted(
        path for path in SHARED_TRACES.rglob("*") if path.is_file() and path.name != "PROVENANCE.md"
    )
    settings = BenchSettings(budget=arguments.budget)
    counter = TiktokenCounter()
    book = load_price_book()
    rows: list[list[str]] = []
    checks: list[str] = []
    timings: list[str] = []
    started = time.perf_counter()
    for path in traces:
        trace_started = time.perf_counter()
        prepared = prepare_trace(path, settings, counter, book)
        runs = run_arms(prepared, settings.arms, settings.budget, counter)
        check = check_model(prepared, counter)
        seconds = time.perf_counter() - trace_started
        name = path.parent.name
        timings.append(f"{name}: {seconds:.2f} s ({len(prepared.request_times)} requests)")
        if check is not None and check.ratio is not None:
            checks.append(
                f"{name}: simulated/recorded cache reads {check.ratio:.3f} over "
                f"{check.requests} requests ({'within' if check.within_tolerance else 'outside'} "
                f"10%), priced as {prepared.prices.model}"
            )
        else:
            checks.append(f"{name}: no recorded usage, priced as {prepared.prices.model}")
        for arm, run in runs.items():
            figures = arm_figures(run, settings.budget, len(prepared.values))
            recall = figures.recall
            visible = recall.visible_raw + recall.visible_made
            rows.append(
                [
                    name,
                    arm,
                    f"{figures.attributed}",
                    f"{figures.unattributed}",
                    f"{figures.uncached_input:,}",
                    f"{figures.rewrite_uncached_input:,}",
                    f"{figures.cache_read:,}",
                    f"{figures.total_tokens:,}",
                    f"{figures.cost:.2f}",
                    f"{figures.peak_window:,}",
                    f"{figures.mean_window:,.0f}",
                    f"{figures.near_zero}",
                    f"{figures.events}",
                    f"{visible}/{recall.recoverable}/{recall.lost}",
                ]
            )
    total = time.perf_counter() - started
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "|".join("---" if n < 2 else "---:" for n in range(len(COLUMNS))) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    for line in checks:
        print(f"- {line}")
    print()
    for line in timings:
        print(f"- {line}")
    print(f"- all {len(traces)} traces, every arm: {total:.2f} s (prices as of {book.as_of})")


if __name__ == "__main__":
    main()
