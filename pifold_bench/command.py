"""``pifold bench``: every arm over every given trace, reported as tables, JSON and a chart.

Exit codes: 0 when every trace ran and the ``fold`` arms kept their promises; 1 when a
``fold`` arm made an unattributed rewrite or lost a planted value; 2 for bad arguments or a
trace that cannot be read. With no path it benches the bundled traces. Markdown files and
licences among the paths (each bundled trace keeps a PROVENANCE.md and a LICENSE beside it,
which a glob picks up) are skipped with a note.
"""

from __future__ import annotations

import json
import stat
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from pifold_agent.bundled_traces import NOT_SESSIONS, bundled_traces, traces_folder
from pifold_agent.importers import TraceFormatError
from pifold_agent.pricing.prices import PriceBook, load_price_book
from pifold_bench.chart import ChartPanel, svg_chart
from pifold_bench.figures import arm_figures, trace_json
from pifold_bench.prepare import ARM_NAMES, FOLD_ARMS, BenchSettings, prepare_trace
from pifold_bench.report import TraceOutcome, print_totals, print_trace, svg_title
from pifold_bench.run import check_model, run_arms
from pifold_bench.sensitivity import lifetime_sensitivity
from pifold_core.options import DEFAULT_BUDGET, EngineOptions, check_budget
from pifold_core.settings import SettingsError, SettingsFile
from pifold_core.tokens import TiktokenCounter


def bench(
    traces: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Session files (any format replay reads); none: the seven bundled real traces."
        ),
    ] = None,
    budget: Annotated[
        int, typer.Option(help="Serving budget in tokens, for every arm.")
    ] = DEFAULT_BUDGET,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    svg_out: Annotated[
        Path | None, typer.Option(help="Write the window-per-request chart here (SVG).")
    ] = None,
    arms: Annotated[
        list[str] | None,
        typer.Option(help=f"Arms to run (repeat or separate by commas): {', '.join(ARM_NAMES)}."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for the planted values.")] = 7,
    plant: Annotated[
        int | None,
        typer.Option(
            help="Values to plant per trace, each in its own tool result (default: 12, or one "
            "per tool result when a trace has fewer); more than a trace has room for is refused."
        ),
    ] = None,
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
        fold_options = _fold_options(budget)
        _check_output(svg_out)
    except (ValueError, SettingsError) as error:
        _fail(str(error))
    if not traces:
        traces = bundled_traces()
        console.print(f"benching the {len(traces)} bundled real traces ({traces_folder()})")
    # No session format is Markdown, and each bundled trace keeps a PROVENANCE.md and a LICENSE
    # session, so a glob like ``traces/*/*`` names them too: they are passed over, said so.
    skipped = [path for path in traces if _not_a_session(path)]
    traces = [path for path in traces if not _not_a_session(path)]
    for path in skipped:
        console.print(f"skipped {path}: a provenance note or licence, not a session")
    if not traces:
        _fail("no session file given (Markdown files and licences are skipped)")
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
                _check_trace_file(path)
                prepared = prepare_trace(path, settings, counter, book)
            except TraceFormatError as error:
                _fail(str(error))
            except OSError as error:
                _fail(f"cannot read {path}: {error.strerror or error}")
            if plant is not None and len(prepared.values) < plant:
                _fail(
                    f"--plant {plant}: {path} has room for {len(prepared.values)} "
                    "planted values (one per answered tool result with text); ask for fewer"
                )
            entries = len(prepared.entries)
            progress.update(task, completed=0, total=entries * len(settings.arms))
            advance = _ArmProgress(progress, task, path.name)
            runs = run_arms(
                prepared,
                settings.arms,
                settings.budget,
                counter,
                advance,
                fold_options=fold_options,
            )
            check = check_model(prepared, counter)
            lifetimes = (
                lifetime_sensitivity(
                    prepared, settings.arms, settings.budget, counter, fold_options=fold_options
                )
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
        try:
            svg_out.write_text(svg_chart(panels), encoding="utf-8")
        except OSError as error:
            _fail(f"cannot write --svg-out {svg_out}: {error.strerror or error}")
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


DEFAULT_PLANTED = 12
"""Values planted per trace when ``--plant`` is not given (fewer where a trace has fewer
tool results to carry them)."""


def _not_a_session(path: Path) -> bool:
    """A Markdown note or a licence file, which a glob over the bundled traces also names."""
    return path.suffix.lower() == ".md" or path.name in NOT_SESSIONS


def _fail(message: str, code: int = 2) -> NoReturn:
    """Say what went wrong on stderr, in every output mode, and exit with ``code``."""
    Console(stderr=True).print(f"[red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _fold_options(budget: int) -> EngineOptions:
    """The ``fold`` arm's options: the user's settings file, as every pifold command that runs
    the engine reads it, with ``--budget`` as the budget (as for replay). Raises
    ``SettingsError`` naming what is wrong in a refused file.

    The other arms keep their own fixed policies (``fold-immediate`` and ``fold-unbatched``
    the default band, ``clip-only`` clearing at its top), so only ``fold`` and
    ``fold-no-cold`` (the same engine without cold-cache commits) change with them.
    """
    options = SettingsFile(base=EngineOptions(budget=budget)).load()
    return replace(options, budget=budget)


def _check_output(svg_out: Path | None) -> None:
    """Refuse an ``--svg-out`` that cannot be written before spending the run on it."""
    if svg_out is None:
        return
    if svg_out.is_dir():
        raise ValueError(f"cannot write --svg-out {svg_out}: it is a folder")
    if not svg_out.parent.is_dir():
        raise ValueError(
            f"cannot write --svg-out {svg_out}: folder {svg_out.parent} does not exist"
        )


def _check_trace_file(path: Path) -> None:
    """A FIFO, a device or a folder is refused before it is opened (a FIFO would block)."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise TraceFormatError(f"{path}: cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(mode):
        raise TraceFormatError(f"{path}: not a regular file, so not a session file")


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
    plant: int | None,
    summary_tokens: int | None,
    price_model: str | None,
    book: PriceBook,
) -> BenchSettings:
    check_budget(budget, "--budget")
    names = [name.strip() for item in (arms or []) for name in item.split(",") if name.strip()]
    unknown = [name for name in names if name not in ARM_NAMES]
    if unknown:
        raise ValueError(f"unknown arm(s) {', '.join(unknown)}; arms are {', '.join(ARM_NAMES)}")
    if plant is not None and plant < 0:
        raise ValueError("--plant must be 0 or more")
    if summary_tokens is not None and summary_tokens < 1:
        raise ValueError("--summary-tokens must be a positive number of tokens")
    if price_model is not None and not book.lookup(price_model)[1]:
        raise ValueError(
            f"--price-model {price_model!r} is not in the price file; it lists "
            f"{', '.join(sorted(book.models))}"
        )
    ordered = tuple(name for name in ARM_NAMES if name in names) if names else ARM_NAMES
    planted = DEFAULT_PLANTED if plant is None else plant
    return BenchSettings(budget, ordered, seed, planted, summary_tokens, price_model)


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
        "cold_cache_commits",
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
