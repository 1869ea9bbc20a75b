"""``pifold bench``: every arm over every given trace, reported as tables, JSON and a chart.

Exit codes: 0 when every trace ran and the ``fold`` arms kept their promises; 1 when a
``fold`` arm made an unattributed rewrite or lost a planted value; 2 for bad arguments or a
trace that cannot be read. Markdown files among the paths (the shared traces' PROVENANCE.md
notes, which a glob picks up) are skipped with a note.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from pifold_agent.importers import TraceFormatError
from pifold_bench.chart import ChartPanel, svg_chart
from pifold_bench.figures import arm_figures, trace_json
from pifold_bench.prices import PriceBook, load_price_book
from pifold_bench.report import TraceOutcome, print_totals, print_trace, svg_title
from pifold_bench.run import (
    ARM_NAMES,
    FOLD_ARMS,
    BenchSettings,
    check_model,
    prepare_trace,
    run_arms,
)
from pifold_bench.sensitivity import lifetime_sensitivity
from pifold_core.tokens import TiktokenCounter


def bench(
    traces: Annotated[list[Path], typer.Argument(help="Session files (any format replay reads).")],
    budget: Annotated[int, typer.Option(help="Serving budget in tokens, for every arm.")] = 100_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    svg_out: Annotated[
        Path | None, typer.Option(help="Write the window-per-request chart here (SVG).")
    ] = None,
    arms: Annotated[
        list[str] | None,
        typer.Option(help=f"Arms to run (repeat or separate by commas): {', '.join(ARM_NAMES)}."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for the planted values.")] = 7,
    plant: Annotated[int, typer.Option(help="Values to plant per trace.")] = 12,
    summary_tokens: Annotated[
        int | None, typer.Option(help="Native summary length (default: from the trace, or 2000).")
    ] = None,
    price_model: Annotated[
        str | None, typer.Option(help="Price every trace as this model (default: its own).")
    ] = None,
    cache_lifetime: Annotated[
        int | None,
        typer.Option(help="Seconds an unused cache entry lives (default: the price file's)."),
    ] = None,
    sensitivity: Annotated[
        bool,
        typer.Option(help="Rerun every arm under 300, 600 and 3,600 s cache lifetimes."),
    ] = True,
) -> None:
    """Compare folding with compaction on real sessions, offline: tokens, dollars, recall."""
    console = Console(stderr=as_json)
    book = load_price_book()
    try:
        settings = _settings(budget, arms, seed, plant, summary_tokens, price_model, book)
        if cache_lifetime is not None:
            if cache_lifetime < 1:
                raise ValueError("--cache-lifetime must be at least one second")
            settings = replace(settings, cache_lifetime_s=cache_lifetime)
    except ValueError as error:
        console.print(f"[red]error:[/] {error}")
        raise typer.Exit(2) from None
    # No session format is Markdown, and the shared traces keep a PROVENANCE.md beside each
    # session, so a glob like ``traces/*/*`` names them too: they are passed over, said so.
    skipped = [path for path in traces if path.suffix.lower() == ".md"]
    traces = [path for path in traces if path.suffix.lower() != ".md"]
    for path in skipped:
        console.print(f"skipped {path}: Markdown, not a session")
    if not traces:
        console.print("[red]error:[/] no session file given (Markdown files are skipped)")
        raise typer.Exit(2)
    counter = TiktokenCounter()
    outcomes: list[TraceOutcome] = []
    documents: list[dict[str, Any]] = []
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} entries"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as progress:
        task = progress.add_task("reading traces", total=None)
        for path in traces:
            try:
                prepared = prepare_trace(path, settings, counter, book)
            except TraceFormatError as error:
                console.print(f"[red]error:[/] {error}")
                raise typer.Exit(2) from None
            except OSError as error:
                console.print(f"[red]error:[/] cannot read {path}: {error.strerror or error}")
                raise typer.Exit(2) from None
            entries = len(prepared.entries)
            progress.update(task, completed=0, total=entries * len(settings.arms))
            advance = _ArmProgress(progress, task, path.name)
            runs = run_arms(prepared, settings.arms, settings.budget, counter, advance)
            check = check_model(prepared, counter)
            lifetimes = (
                lifetime_sensitivity(prepared, settings.arms, settings.budget, counter)
                if sensitivity
                else None
            )
            figures = {
                name: arm_figures(run, settings.budget, len(prepared.values))
                for name, run in runs.items()
            }
            outcomes.append(
                TraceOutcome(
                    prepared,
                    figures,
                    check,
                    {name: run.windows for name, run in runs.items()},
                    lifetimes,
                )
            )
            documents.append(
                trace_json(prepared, runs, check, settings.budget, book.as_of, lifetimes)
            )
    if svg_out is not None:
        panels = [
            ChartPanel(svg_title(outcome.prepared.path), settings.budget, outcome.windows)
            for outcome in outcomes
        ]
        svg_out.write_text(svg_chart(panels), encoding="utf-8")
    if as_json:
        document = {
            "budget": settings.budget,
            "arms": list(settings.arms),
            "seed": settings.seed,
            "prices_as_of": book.as_of,
            "prices_source": book.source,
            "traces": documents,
            "totals": _totals(outcomes),
        }
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        for outcome in outcomes:
            print_trace(console, outcome, settings.budget, book.as_of)
        if len(outcomes) > 1:
            print_totals(console, outcomes)
        if svg_out is not None:
            console.print(f"chart written to {svg_out}")
    if _broken_promises(outcomes):
        raise typer.Exit(1)


class _ArmProgress:
    """Moves one bar across every arm of a trace: each arm owns an equal stretch of it."""

    def __init__(self, progress: Progress, task: TaskID, trace_name: str) -> None:
        self.progress = progress
        self.task = task
        self.trace_name = trace_name
        self.offsets: dict[str, int] = {}

    def __call__(self, arm: str, done: int, total: int) -> None:
        offset = self.offsets.setdefault(arm, len(self.offsets) * total)
        self.progress.update(
            self.task, description=f"{self.trace_name}: {arm}", completed=offset + done
        )


def _settings(
    budget: int,
    arms: list[str] | None,
    seed: int,
    plant: int,
    summary_tokens: int | None,
    price_model: str | None,
    book: PriceBook,
) -> BenchSettings:
    if budget < 1:
        raise ValueError("--budget must be a positive number of tokens")
    names = [name.strip() for item in (arms or []) for name in item.split(",") if name.strip()]
    unknown = [name for name in names if name not in ARM_NAMES]
    if unknown:
        raise ValueError(f"unknown arm(s) {', '.join(unknown)}; arms are {', '.join(ARM_NAMES)}")
    if plant < 0:
        raise ValueError("--plant must be 0 or more")
    if summary_tokens is not None and summary_tokens < 1:
        raise ValueError("--summary-tokens must be a positive number of tokens")
    if price_model is not None and not book.lookup(price_model)[1]:
        raise ValueError(
            f"--price-model {price_model!r} is not in the price file; it lists "
            f"{', '.join(sorted(book.models))}"
        )
    ordered = tuple(name for name in ARM_NAMES if name in names) if names else ARM_NAMES
    return BenchSettings(budget, ordered, seed, plant, summary_tokens, price_model)


def _totals(outcomes: list[TraceOutcome]) -> dict[str, dict[str, float]]:
    """Sums over every trace of the additive figures, per arm."""
    summed = (
        "requests",
        "appends",
        "attributed",
        "unattributed",
        "fresh_input",
        "cache_read",
        "cache_write",
        "uncached_input",
        "rewrite_and_summary_tokens",
        "output",
        "total_tokens",
        "cost",
        "side_calls",
        "events",
        "near_zero",
        "over_budget",
        "above_tier",
    )
    totals: dict[str, dict[str, float]] = {}
    for outcome in outcomes:
        for name, figures in outcome.figures.items():
            values = asdict(figures)
            bucket = totals.setdefault(name, dict.fromkeys((*summed, "lost"), 0.0))
            for key in summed:
                bucket[key] += values[key]
            bucket["lost"] += figures.recall.lost
    for bucket in totals.values():
        bucket["cost"] = round(bucket["cost"], 6)
    return totals


def _broken_promises(outcomes: list[TraceOutcome]) -> bool:
    """A fold arm rewrote without a cause or lost a planted value."""
    return any(
        figures.unattributed or figures.recall.lost
        for outcome in outcomes
        for name, figures in outcome.figures.items()
        if name in FOLD_ARMS
    )
