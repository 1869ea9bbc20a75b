"""Every arm of ``pifold bench`` on every shared trace: the README's tables and their timing.

Run: ``.venv/bin/python benchmarks/bench_compare.py [--budget 100000]``

Prints, in Markdown, the three tables of ``pifold_bench/README.md`` so they can be regenerated
in one command: the headline ratios per trace, the sums per arm over every trace, and a row
per trace and arm with the figures ``pifold bench`` reports. Then the model check per trace
and how long each trace took, every arm and the model check together.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from pifold_bench.calibration import ModelCheck
from pifold_bench.figures import ArmFigures, arm_figures
from pifold_bench.prices import load_price_book
from pifold_bench.run import (
    ARM_NAMES,
    BenchSettings,
    PreparedTrace,
    check_model,
    model_check_skipped,
    prepare_trace,
    run_arms,
)
from pifold_core.tokens import TiktokenCounter

SHARED_TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"

HEADLINE_COLUMNS = (
    "trace",
    "priced as",
    "model check",
    "fold / native tokens",
    "fold / native $",
    "uncached in: unbatched / fold",
    "uncached in: immediate / fold",
    "on rewrites and summaries: fold / unbatched / immediate",
    "lost: fold / native / clip-only",
)

TOTAL_COLUMNS = (
    "arm",
    "rewrites",
    "unattributed",
    "uncached input",
    "on rewrites and summaries",
    "total tokens",
    "cost $",
    "near-zero drops",
    "over budget",
    "planted values lost",
)

DETAIL_COLUMNS = (
    "trace",
    "arm",
    "rewrites",
    "unattr.",
    "uncached in",
    "on rewrites and summaries",
    "cache read",
    "total tokens",
    "cost $",
    "peak",
    "mean",
    "near zero",
    "events",
    "raw/brief/recov./lost",
)


def markdown(columns: Sequence[str], rows: Sequence[Sequence[str]], left: int) -> list[str]:
    """A Markdown table whose first ``left`` columns are left-aligned, the rest right."""
    lines = ["| " + " | ".join(columns) + " |"]
    lines.append(
        "|" + "|".join("---" if column < left else "---:" for column in range(len(columns))) + "|"
    )
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def ratio(part: float, whole: float) -> str:
    return f"{part / whole:.2f}x" if whole else "–"


def headline_row(
    name: str, prepared: PreparedTrace, check: ModelCheck | None, figures: dict[str, ArmFigures]
) -> list[str]:
    fold, native = figures["fold"], figures["native"]
    unbatched, immediate = figures["fold-unbatched"], figures["fold-immediate"]
    return [
        name,
        prepared.prices.model,
        "–" if check is None or check.ratio is None else f"{check.ratio:.3f}",
        ratio(fold.total_tokens, native.total_tokens),
        ratio(fold.cost, native.cost),
        ratio(unbatched.uncached_input, fold.uncached_input),
        ratio(immediate.uncached_input, fold.uncached_input),
        " / ".join(f"{arm.rewrite_and_summary_tokens:,}" for arm in (fold, unbatched, immediate)),
        " / ".join(f"{figures[arm].recall.lost}" for arm in ("fold", "native", "clip-only")),
    ]


def detail_row(name: str, figures: ArmFigures) -> list[str]:
    recall = figures.recall
    return [
        name,
        figures.arm,
        f"{figures.attributed}",
        f"{figures.unattributed}",
        f"{figures.uncached_input:,}",
        f"{figures.rewrite_and_summary_tokens:,}",
        f"{figures.cache_read:,}",
        f"{figures.total_tokens:,}",
        f"{figures.cost:.2f}",
        f"{figures.peak_window:,}",
        f"{figures.mean_window:,.0f}",
        f"{figures.near_zero}",
        f"{figures.events}",
        f"{recall.visible_raw}/{recall.visible_in_brief}/{recall.recoverable}/{recall.lost}",
    ]


def total_rows(per_trace: list[dict[str, ArmFigures]]) -> list[list[str]]:
    rows = []
    for arm in ARM_NAMES:
        figures = [trace[arm] for trace in per_trace]
        rows.append(
            [
                arm,
                f"{sum(figure.attributed for figure in figures):,}",
                f"{sum(figure.unattributed for figure in figures):,}",
                f"{sum(figure.uncached_input for figure in figures):,}",
                f"{sum(figure.rewrite_and_summary_tokens for figure in figures):,}",
                f"{sum(figure.total_tokens for figure in figures):,}",
                f"{sum(figure.cost for figure in figures):,.2f}",
                f"{sum(figure.near_zero for figure in figures)}",
                f"{sum(figure.over_budget for figure in figures)}",
                f"{sum(figure.recall.lost for figure in figures)} of "
                f"{sum(figure.recall.planted for figure in figures)}",
            ]
        )
    return rows


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
    headlines: list[list[str]] = []
    details: list[list[str]] = []
    per_trace: list[dict[str, ArmFigures]] = []
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
        skipped = model_check_skipped(prepared)
        if skipped is not None:
            checks.append(f"{name}: model check {skipped}")
        elif check is not None and check.ratio is not None:
            checks.append(
                f"{name}: simulated/recorded cache reads {check.ratio:.3f} over "
                f"{check.requests} requests ({'within' if check.within_tolerance else 'outside'} "
                f"10%), priced as {prepared.prices.model}"
            )
        else:
            checks.append(f"{name}: no recorded usage, priced as {prepared.prices.model}")
        figures = {
            arm: arm_figures(run, settings.budget, len(prepared.values))
            for arm, run in runs.items()
        }
        per_trace.append(figures)
        headlines.append(headline_row(name, prepared, check, figures))
        details += [detail_row(name, arm) for arm in figures.values()]
    total = time.perf_counter() - started
    for table in (
        markdown(HEADLINE_COLUMNS, headlines, left=2),
        markdown(TOTAL_COLUMNS, total_rows(per_trace), left=1),
        markdown(DETAIL_COLUMNS, details, left=2),
    ):
        print("\n".join(table))
        print()
    for line in checks:
        print(f"- {line}")
    print()
    for line in timings:
        print(f"- {line}")
    print(f"- all {len(traces)} traces, every arm: {total:.2f} s (prices as of {book.as_of})")


if __name__ == "__main__":
    main()
