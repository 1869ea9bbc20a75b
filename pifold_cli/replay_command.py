"""``pifold replay`` and ``pifold demo``: a real session replayed through the engine, one model
request at a time, and the figures of what folding did.

``pifold demo`` replays the bundled Pi session (``--headless`` plays it through the agent
loop instead: :mod:`pifold_cli.headless_demo`). Both exit 1 when the replay broke a promise
(an unattributed rewrite, a fold that does not round-trip, a request over budget) and 2 when
what they were given was refused; every failure is one line on stderr.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn
from rich.table import Table

from pifold_agent.bundled_traces import demo_trace
from pifold_agent.importers import TraceFormatError
from pifold_agent.replay import ReplayOutputError, ReplayStateError, replay_trace
from pifold_agent.replay_lifetime import CacheLifetime
from pifold_agent.replay_report import ReplayReport, broken_promises
from pifold_cli.headless_demo import headless_demo
from pifold_cli.inspect_command import run_inspection
from pifold_core.options import DEFAULT_BUDGET, EngineOptions, OptionsError, check_budget
from pifold_core.settings import SettingsError, SettingsFile


def demo(
    budget: Annotated[int, typer.Option(help="Serving budget in tokens.")] = DEFAULT_BUDGET,
    headless: Annotated[
        bool,
        typer.Option(
            "--headless",
            help="Play the session through the agent loop (scripted provider), not a replay.",
        ),
    ] = False,
) -> None:
    """Replay a real agent session shipped with pifold and show what folding did."""
    console = Console()
    if headless:
        raise typer.Exit(headless_demo(budget, console))
    console.print(
        "[bold]pifold demo[/]: replays a real Pi coding session (pi-mono, MIT) through the "
        "folding engine; --headless plays it through the agent loop instead."
    )
    try:
        report = _run_replay(console, demo_trace(), budget, None, None, show_progress=True)
    except (TraceFormatError, OSError) as error:
        _fail(f"the demo session could not be replayed: {error}")
    _print_report(console, report)
    broken = broken_promises(report)  # the demo keeps replay's promises, and exits as it does
    if broken:
        _fail(broken, code=1)


def replay(
    trace: Annotated[Path, typer.Argument(help="A session file (Pi, Claude Code, Codex, ...).")],
    budget: Annotated[int, typer.Option(help="Serving budget in tokens.")] = DEFAULT_BUDGET,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    state: Annotated[
        Path | None, typer.Option(help="Keep the engine's state (log and store) here.")
    ] = None,
    window_out: Annotated[
        Path | None, typer.Option(help="Write the final projection (messages as sent) here.")
    ] = None,
    inspect_after: Annotated[
        bool, typer.Option("--inspect", help="Then open the fold screens on the result.")
    ] = False,
    cache_lifetime: Annotated[
        int | None,
        typer.Option(
            help="Seconds an unused cache entry lives; a longer pause commits as a cold cache "
            "would (default: the trace's model's; 0: pass none, no cold-cache commits)."
        ),
    ] = None,
) -> None:
    """Replay a real session through the engine, one model request at a time."""
    if cache_lifetime is not None and cache_lifetime < 0:
        _fail(f"--cache-lifetime must be 0 (none) or a number of seconds, got {cache_lifetime}")
    lifetime: CacheLifetime = "model" if cache_lifetime is None else cache_lifetime or None
    if inspect_after and as_json:
        Console(stderr=True).print("[red]error:[/] --inspect opens the screens; not with --json")
        raise typer.Exit(2)
    scratch: Path | None = None
    if inspect_after and state is None:
        # The screens need the state after the replay; without --state it lives in a
        # temporary folder removed once the screens close.
        scratch = Path(tempfile.mkdtemp(prefix="pifold-inspect-"))
        state = scratch / "state"
    try:
        _replay_command(trace, budget, as_json, state, window_out, lifetime, inspect_after)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _replay_command(
    trace: Path,
    budget: int,
    as_json: bool,
    state: Path | None,
    window_out: Path | None,
    lifetime: CacheLifetime,
    inspect_after: bool,
) -> None:
    console = Console(stderr=as_json)
    try:
        report = _run_replay(console, trace, budget, state, window_out, not as_json, lifetime)
    except (TraceFormatError, ReplayStateError, ReplayOutputError) as error:
        _fail(str(error))
    except OSError as error:
        # Reading the trace is checked before the replay starts: this is a write that failed.
        _fail(f"cannot write {error.filename or state}: {error.strerror or error}")
    if report.torn_tail is not None:
        Console(stderr=True).print(
            f"[yellow]warning:[/] {escape(report.torn_tail)}", soft_wrap=True
        )
    if as_json:
        sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n")
    else:
        _print_report(console, report)
    if inspect_after and state is not None:
        run_inspection(Console(stderr=True), state)
    broken = broken_promises(report)
    if broken:
        _fail(broken, code=1)


def _fail(message: str, code: int = 2) -> NoReturn:
    """Say what went wrong on stderr, in every output mode, and exit with ``code``."""
    Console(stderr=True).print(f"[red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _options(console: Console, budget: int) -> EngineOptions:
    """The user's settings file with the command's budget: refused settings stop the run."""
    try:
        check_budget(budget, "--budget")
    except OptionsError as error:
        _fail(str(error))
    try:
        options = SettingsFile(base=EngineOptions(budget=budget)).load()
    except SettingsError as error:
        _fail(str(error))
    return replace(options, budget=budget)


def _run_replay(
    console: Console,
    path: Path,
    budget: int,
    state: Path | None,
    window_out: Path | None,
    show_progress: bool,
    lifetime: CacheLifetime = "model",
) -> ReplayReport:
    options = _options(console, budget)
    if not show_progress:
        return replay_trace(
            path, budget, state, window_out, options=options, cache_lifetime_s=lifetime
        )
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} entries"),
        console=Console(stderr=True),  # progress is not output: stdout keeps only the report
        transient=True,
    ) as progress:
        task = progress.add_task(f"replaying {path.name}", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        return replay_trace(
            path,
            budget,
            state,
            window_out,
            progress=advance,
            options=options,
            cache_lifetime_s=lifetime,
        )


def _cache_misses(cache: dict[str, Any]) -> str:
    """``2 (2 explained, 0 unexplained)``, or why there is no figure."""
    if not cache.get("judged"):
        return "no report recorded"
    explained, unexplained = cache["explained"], cache["unexplained"]
    return f"{cache['misses']:,} ({explained:,} explained, {unexplained:,} unexplained)"


def _print_report(console: Console, report: ReplayReport) -> None:
    table = Table(title=f"{Path(report.trace).name} ({report.format})", show_header=False)
    table.add_column("figure", style="bold")
    table.add_column("value", justify="right")
    window = report.window
    folds = report.folds
    rows = [
        ("entries", f"{report.entries:,}"),
        ("model requests", f"{report.requests:,}"),
        ("pure appends", f"{report.appends:,}"),
        ("attributed rewrites", f"{report.rewrites:,}"),
        ("unattributed rewrites", f"{report.unattributed:,}"),
        ("provider's cache misses", _cache_misses(report.cache)),
        ("commits", f"{report.commits:,} ({report.cold_commits:,} on a cold cache)"),
        ("cache lifetime", _lifetime(report)),
        (
            "folds",
            f"{sum(folds.values())} ({folds['consolidated']} cons., {folds['span']} span, "
            f"{folds['tool']} tool)",
        ),
        ("folds verified byte for byte", f"{report.verified_folds} / {sum(folds.values())}"),
        ("folds per commit", ", ".join(str(size) for size in report.commit_sizes) or "-"),
        ("tool results clipped", f"{report.clipped:,}"),
        ("marks pending at the end", f"{report.marks_pending:,}"),
        ("occupancy reading", _reading(report)),
        ("budget", f"{window.budget:,} tokens"),
        ("peak window", f"{window.peak:,} tokens"),
        ("requests over budget", f"{report.over_budget:,}"),
        ("mean window", f"{window.mean:,.0f} tokens"),
        ("lowest window after first commit", _tokens(window.min_after_first_commit)),
        ("skipped lines", f"{report.skipped_lines}"),
    ]
    for label, value in rows:
        table.add_row(label, value)
    console.print(table)
    for note in report.notes:
        console.print(f"[dim]note: {note[:200]}[/]")
    for failure in report.failures:
        console.print(f"[red]fold failure:[/] {failure}")


def _reading(report: ReplayReport) -> str:
    measurement = report.measurement
    if not measurement.recorded:
        return "estimated (the trace recorded no usage)"
    return (
        f"{measurement.reading.replace('_', ' ')}; {measurement.bound} counts bound, "
        f"{measurement.calibration_samples} calibration samples, "
        f"{measurement.calibration:.2f} tokens per estimated token"
    )


def _lifetime(report: ReplayReport) -> str:
    if report.cache_lifetime_s is None:
        return "none passed (no cold-cache commits)"
    return f"{report.cache_lifetime_s:,} s ({report.cache_lifetime_source})"


def _tokens(value: int | None) -> str:
    return "no commit" if value is None else f"{value:,} tokens"


__all__ = ["demo", "replay"]
