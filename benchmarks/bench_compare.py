"""Every arm of ``pifold bench`` on every bundled trace: the README's tables and their timing.

Run: ``.venv/bin/python benchmarks/bench_compare.py [--budget 100000]``

Prints, in Markdown, the tables of ``docs/bench-figures.md`` and the project README's bench
section, so they can be regenerated in one command: the headline ratios per trace; the
acceptance criterion's three lines per trace, with their figures; the sums per arm over
every trace (uncached input split by cause, tokens, dollars, mean window, recall split); each
arm's uncached input under 300, 600 and 3,600 s cache lifetimes (``--no-sensitivity`` skips
those reruns); and a row per trace and arm. Then the model check and cache lifetime per
trace, and how long each trace took in CPU and wall time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from pifold_agent.bundled_traces import bundled_traces
from pifold_agent.pricing.prices import load_price_book
from pifold_bench.calibration import ModelCheck
from pifold_bench.causes import CAUSES
from pifold_bench.figures import ArmFigures, arm_figures
from pifold_bench.prepare import ARM_NAMES, BenchSettings, PreparedTrace, prepare_trace
from pifold_bench.run import check_model, model_check_skipped, run_arms
from pifold_bench.sensitivity import SENSITIVITY_LIFETIMES, lifetime_sensitivity
from pifold_core.tokens import TiktokenCounter

HEADLINE_COLUMNS = (
    "trace",
    "priced as",
    "model check",
    "fold / native tokens",
    "fold / native $",
    "uncached in: unbatched / fold",
    "uncached in: immediate / fold",
    "uncached in: no-cold / fold",
    "rewrite-caused: fold / unbatched / immediate",
    "lost: fold / native / clip-only",
)

CRITERION_COLUMNS = (
    "trace",
    "fold commits (cold)",
    "uncached in: fold / unbatched",
    "1: fold <= unbatched",
    "rewrite-caused: fold / immediate",
    "2: fold < immediate",
    "uncached in: fold / immediate",
    "3: fold < immediate",
)

TOTAL_COLUMNS = (
    "arm",
    "rewrites",
    "cold-cache",
    "unattributed",
    "uncached input",
    "appended",
    "expired",
    "reset",
    "rewrite",
    "total tokens",
    "cost $",
    "mean window",
    "near-zero drops",
    "over budget",
    "raw / in brief / recoverable / lost",
)

DETAIL_COLUMNS = (
    "trace",
    "arm",
    "rewrites",
    "cold",
    "unattr.",
    "uncached in",
    "appended",
    "expired",
    "reset",
    "rewrite",
    "total tokens",
    "cost $",
    "peak",
    "mean",
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


def verdict(holds: bool) -> str:
    return "holds" if holds else "**fails**"


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
        ratio(figures["fold-no-cold"].uncached_input, fold.uncached_input),
        " / ".join(f"{arm.uncached_by_cause.rewrite:,}" for arm in (fold, unbatched, immediate)),
        " / ".join(f"{figures[arm].recall.lost}" for arm in ("fold", "native", "clip-only")),
    ]


def criterion_row(name: str, figures: dict[str, ArmFigures]) -> list[str]:
    """The three lines of the acceptance criterion on one trace, with their figures."""
    fold, unbatched, immediate = (
        figures["fold"],
        figures["fold-unbatched"],
        figures["fold-immediate"],
    )
    # Strictly less wherever a commit landed several marks at once (the unbatched arm then
    # made more commits); where each landed one, the two arms are the same run.
    batching = fold.uncached_input <= unbatched.uncached_input and (
        unbatched.events == fold.events or fold.uncached_input < unbatched.uncached_input
    )
    rewrites = fold.uncached_by_cause.rewrite < immediate.uncached_by_cause.rewrite
    return [
        name,
        f"{fold.events} ({fold.cold_cache_commits})",
        f"{fold.uncached_input:,} / {unbatched.uncached_input:,}",
        verdict(batching),
        f"{fold.uncached_by_cause.rewrite:,} / {immediate.uncached_by_cause.rewrite:,}",
        verdict(rewrites),
        f"{fold.uncached_input:,} / {immediate.uncached_input:,}",
        verdict(fold.uncached_input < immediate.uncached_input),
    ]


def recall_cell(figures: Sequence[ArmFigures], separator: str = " / ") -> str:
    counts = (
        sum(figure.recall.visible_raw for figure in figures),
        sum(figure.recall.visible_in_brief for figure in figures),
        sum(figure.recall.recoverable for figure in figures),
        sum(figure.recall.lost for figure in figures),
    )
    return separator.join(f"{count}" for count in counts)


def detail_row(name: str, figures: ArmFigures) -> list[str]:
    causes = figures.uncached_by_cause
    return [
        name,
        figures.arm,
        f"{figures.attributed}",
        f"{figures.cold_cache_commits}",
        f"{figures.unattributed}",
        f"{figures.uncached_input:,}",
        *(f"{getattr(causes, cause):,}" for cause in CAUSES),
        f"{figures.total_tokens:,}",
        f"{figures.cost:.2f}",
        f"{figures.peak_window:,}",
        f"{figures.mean_window:,.0f}",
        recall_cell([figures], "/"),
    ]


def total_rows(per_trace: list[dict[str, ArmFigures]]) -> list[list[str]]:
    rows = []
    for arm in ARM_NAMES:
        figures = [trace[arm] for trace in per_trace]
        requests = sum(figure.requests for figure in figures)
        window = sum(figure.mean_window * figure.requests for figure in figures) / requests
        rows.append(
            [
                arm,
                f"{sum(figure.attributed for figure in figures):,}",
                f"{sum(figure.cold_cache_commits for figure in figures):,}",
                f"{sum(figure.unattributed for figure in figures):,}",
                f"{sum(figure.uncached_input for figure in figures):,}",
                *(
                    f"{sum(getattr(figure.uncached_by_cause, cause) for figure in figures):,}"
                    for cause in CAUSES
                ),
                f"{sum(figure.total_tokens for figure in figures):,}",
                f"{sum(figure.cost for figure in figures):,.2f}",
                f"{window:,.0f}",
                f"{sum(figure.near_zero for figure in figures)}",
                f"{sum(figure.over_budget for figure in figures)}",
                f"{recall_cell(figures)} of {sum(figure.recall.planted for figure in figures)}",
            ]
        )
    return rows


def sensitivity_rows(
    names: Sequence[str], by_trace: Sequence[dict[int, dict[str, int]]]
) -> list[list[str]]:
    """Uncached input per arm under each lifetime, per trace and summed."""
    rows: list[list[str]] = []
    for arm in ARM_NAMES:
        cells = [
            f"{sum(trace[seconds][arm] for trace in by_trace):,}"
            for seconds in SENSITIVITY_LIFETIMES
        ]
        rows.append([arm, *cells])
    fold_wins = [
        sum(1 for trace in by_trace if trace[seconds]["fold"] < trace[seconds]["fold-immediate"])
        for seconds in SENSITIVITY_LIFETIMES
    ]
    rows.append(
        ["traces where fold < fold-immediate", *(f"{wins} of {len(names)}" for wins in fold_wins)]
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=100_000)
    parser.add_argument(
        "--no-sensitivity", action="store_true", help="skip the 300/600/3,600 s reruns"
    )
    arguments = parser.parse_args()
    traces = sorted(path for path in bundled_traces())
    settings = BenchSettings(budget=arguments.budget)
    counter = TiktokenCounter()
    book = load_price_book()
    headlines: list[list[str]] = []
    criteria: list[list[str]] = []
    details: list[list[str]] = []
    per_trace: list[dict[str, ArmFigures]] = []
    lifetimes: list[dict[int, dict[str, int]]] = []
    checks: list[str] = []
    timings: list[str] = []
    cpu_started, started = time.process_time(), time.perf_counter()
    for path in traces:
        trace_cpu, trace_started = time.process_time(), time.perf_counter()
        prepared = prepare_trace(path, settings, counter, book)
        runs = run_arms(prepared, settings.arms, settings.budget, counter)
        check = check_model(prepared, counter)
        cpu, seconds = time.process_time() - trace_cpu, time.perf_counter() - trace_started
        name = path.parent.name
        timings.append(
            f"{name}: {cpu:.2f} s CPU, {seconds:.2f} s wall ({len(prepared.request_times)} "
            "requests, every arm and the model check)"
        )
        if not arguments.no_sensitivity:
            lifetimes.append(lifetime_sensitivity(prepared, ARM_NAMES, settings.budget, counter))
        skipped = model_check_skipped(prepared)
        if skipped is not None:
            checks.append(f"{name}: model check {skipped}")
        elif check is not None and check.ratio is not None:
            checks.append(
                f"{name}: simulated/recorded cache reads {check.ratio:.3f} over "
                f"{check.requests} requests ({'within' if check.within_tolerance else 'outside'} "
                f"10%), priced as {prepared.prices.model}, cache lifetime "
                f"{prepared.lifetime_source}"
            )
        else:
            checks.append(
                f"{name}: no recorded usage, priced as {prepared.prices.model}, cache lifetime "
                f"{prepared.lifetime_source}"
            )
        figures = {
            arm: arm_figures(run, settings.budget, len(prepared.values))
            for arm, run in runs.items()
        }
        per_trace.append(figures)
        headlines.append(headline_row(name, prepared, check, figures))
        criteria.append(criterion_row(name, figures))
        details += [detail_row(name, arm) for arm in figures.values()]
    cpu_total, total = time.process_time() - cpu_started, time.perf_counter() - started
    names = [path.parent.name for path in traces]
    tables = [
        markdown(HEADLINE_COLUMNS, headlines, left=2),
        markdown(CRITERION_COLUMNS, criteria, left=1),
        markdown(TOTAL_COLUMNS, total_rows(per_trace), left=1),
    ]
    if lifetimes:
        columns = ("uncached input, all traces", *(f"{s:,} s" for s in SENSITIVITY_LIFETIMES))
        tables.append(markdown(columns, sensitivity_rows(names, lifetimes), left=1))
    tables.append(markdown(DETAIL_COLUMNS, details, left=2))
    for table in tables:
        print("\n".join(table))
        print()
    for line in checks:
        print(f"- {line}")
    print()
    for line in timings:
        print(f"- {line}")
    reruns = " and the three lifetime reruns" if lifetimes else ""
    print(
        f"- all {len(traces)} traces, every arm{reruns}: {cpu_total:.2f} s CPU, {total:.2f} s "
        f"wall (prices as of {book.as_of})"
    )


if __name__ == "__main__":
    main()
