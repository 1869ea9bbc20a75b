"""The human-readable report: two rich tables per trace, the headline ratios and the chart."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pifold_bench.calibration import ModelCheck
from pifold_bench.chart import ARM_COLOURS, ChartPanel, terminal_chart
from pifold_bench.figures import ArmFigures
from pifold_bench.native import turn_prefix_summary_tokens
from pifold_bench.run import FOLD_ARMS, PreparedTrace, model_check_skipped


@dataclass(frozen=True)
class TraceOutcome:
    """Everything reported about one trace."""

    prepared: PreparedTrace
    """The trace as every arm saw it."""
    figures: dict[str, ArmFigures]
    """By arm, in report order."""
    check: ModelCheck | None
    """The model check, when the trace recorded usage."""
    windows: dict[str, list[int]]
    """Window of each request, by arm."""

    @property
    def name(self) -> str:
        path = self.prepared.path
        return f"{path.parent.name}/{path.name}"


def print_trace(console: Console, outcome: TraceOutcome, budget: int, as_of: str) -> None:
    """Print one trace's report."""
    prepared = outcome.prepared
    calibration = prepared.calibration
    requests = len(prepared.request_times)
    console.rule(f"[bold]{outcome.name}[/] ({prepared.format}, {requests} requests)")
    own = "" if prepared.priced_as_own_model else " (model not listed: default prices)"
    console.print(
        f"priced as [bold]{prepared.prices.model}[/]{own}, cache family "
        f"{prepared.prices.rules.family}, prices as of {as_of}; budget {budget:,} tokens"
    )
    if calibration.checked_requests:
        console.print(
            f"calibrated on recorded usage: preamble {calibration.preamble_tokens:,} tokens, "
            f"{calibration.scale:.3f} provider tokens per estimated token, "
            f"{len(calibration.prefix_resets)} host prefix reset(s)"
        )
    else:
        console.print("no usage recorded: estimates billed as they are, no preamble")
    console.print(check_line(outcome.check, model_check_skipped(prepared)))
    console.print(
        f"native summary: {prepared.summary_tokens:,} tokens ({prepared.summary_source}), "
        f"plus a {turn_prefix_summary_tokens(prepared.summary_tokens):,}-token turn-prefix "
        f"summary when a cut splits a turn (assumed); {len(prepared.values)} values planted"
    )
    console.print(cost_table(outcome.figures))
    console.print(window_table(outcome.figures, budget))
    for line in headline_lines(outcome.figures):
        console.print(line)
    panel = ChartPanel(outcome.name, budget, outcome.windows)
    label_width = max((len(name) for name in outcome.windows), default=0)
    # Room for the label, the two rules and the peak that follows the top row.
    width = max(16, console.width - label_width - 3 - len(" peak 999,999"))
    for index, line in enumerate(terminal_chart(panel, width=width)):
        console.print(line if index == 0 else _coloured(line, outcome.windows), highlight=False)


def check_line(check: ModelCheck | None, skipped: str | None = None) -> str:
    """One line on the model check, or why there is none."""
    if skipped is not None:
        return f"model check: [yellow]{skipped}[/]"
    if check is None or check.ratio is None:
        return "model check: no recorded cache reads to compare with"
    verdict = "[green]within 10%[/]" if check.within_tolerance else "[red]outside 10%[/]"
    line = (
        f"model check ([italic]none[/] arm vs provider, {check.requests} requests): simulated "
        f"cache reads {check.simulated_cache_read:,} / recorded {check.recorded_cache_read:,} "
        f"= {check.ratio:.3f}, {verdict}"
    )
    if check.simulated_without_resets is not None:
        plain = check.simulated_without_resets / check.recorded_cache_read
        line += f" (without the prefix resets: {plain:.3f})"
    return line


def cost_table(figures: Mapping[str, ArmFigures]) -> Table:
    """Requests, rewrites, tokens and dollars per arm."""
    table = Table(title="tokens and cost (provider tokens, side calls included)")
    for header in (
        "arm",
        "requests",
        "appends",
        "rewrites",
        "unattr.",
        "fresh in",
        "cache write",
        "cache read",
        "output",
        "total",
        "cost $",
    ):
        table.add_column(header, justify="left" if header == "arm" else "right")
    for figure in figures.values():
        table.add_row(
            f"[{ARM_COLOURS.get(figure.arm, 'white')}]{figure.arm}[/]",
            f"{figure.requests:,}",
            f"{figure.appends:,}",
            f"{figure.attributed:,}",
            _alarm(figure.unattributed),
            f"{figure.fresh_input:,}",
            f"{figure.cache_write:,}",
            f"{figure.cache_read:,}",
            f"{figure.output:,}",
            f"{figure.total_tokens:,}",
            f"{figure.cost:,.2f}",
        )
    return table


def window_table(figures: Mapping[str, ArmFigures], budget: int) -> Table:
    """Window sizes, events and recall per arm."""
    table = Table(title=f"window (estimated tokens, budget {budget:,}) and recall")
    for header in (
        "arm",
        "events",
        "peak",
        "mean",
        "lowest after 1st",
        "near zero",
        "over budget (first)",
        "> tier",
        "visible",
        "recoverable",
        "lost",
    ):
        table.add_column(header, justify="left" if header == "arm" else "right")
    for figure in figures.values():
        recall = figure.recall
        over = f"{figure.over_budget} (#{figure.first_over_budget})" if figure.over_budget else "0"
        lowest = figure.lowest_after_first_event
        table.add_row(
            f"[{ARM_COLOURS.get(figure.arm, 'white')}]{figure.arm}[/]",
            f"{figure.events}",
            f"{figure.peak_window:,}",
            f"{figure.mean_window:,.0f}",
            "–" if lowest is None else f"{lowest:,}",
            f"{figure.near_zero}",
            over,
            f"{figure.above_tier}",
            f"{recall.visible_raw + recall.visible_made}/{recall.planted}",
            f"{recall.recoverable}",
            _alarm(recall.lost) if figure.arm in FOLD_ARMS else f"{recall.lost}",
        )
    return table


def headline_lines(figures: Mapping[str, ArmFigures]) -> list[str]:
    """The seeds' headline comparisons, where both arms of each ran."""
    lines: list[str] = []
    fold = figures.get("fold")
    native = figures.get("native")
    unbatched = figures.get("fold-unbatched")
    immediate = figures.get("fold-immediate")
    if fold is not None and native is not None and native.total_tokens:
        lines.append(
            f"fold vs native: {fold.total_tokens / native.total_tokens:.2f}x the total tokens, "
            f"{_ratio(fold.cost, native.cost)} the dollars"
        )
    if fold is not None and unbatched is not None and fold.uncached_input:
        # The seeds' scheduling comparison: the same marks, one rewrite each or together.
        lines.append(
            f"fold-unbatched vs fold: {unbatched.uncached_input / fold.uncached_input:.2f}x the "
            f"uncached input; {unbatched.attributed} vs {fold.attributed} rewrites, on which "
            f"{unbatched.rewrite_and_summary_tokens:,} vs {fold.rewrite_and_summary_tokens:,} "
            f"tokens"
        )
    if fold is not None and immediate is not None and fold.uncached_input:
        lines.append(
            f"fold-immediate vs fold: {immediate.uncached_input / fold.uncached_input:.2f}x the "
            f"uncached input (fresh + cache write); on rewriting requests "
            f"{immediate.rewrite_and_summary_tokens:,} vs {fold.rewrite_and_summary_tokens:,} "
            f"tokens"
        )
    return lines


def print_totals(console: Console, outcomes: list[TraceOutcome]) -> None:
    """Sums over every trace, per arm."""
    table = Table(title=f"all {len(outcomes)} traces")
    headers = (
        "arm",
        "requests",
        "rewrites",
        "unattr.",
        "uncached in",
        "total",
        "cost $",
        "over budget",
        "lost",
    )
    for header in headers:
        table.add_column(header, justify="left" if header == "arm" else "right")
    for arm in outcomes[0].figures:
        rows = [outcome.figures[arm] for outcome in outcomes if arm in outcome.figures]
        table.add_row(
            f"[{ARM_COLOURS.get(arm, 'white')}]{arm}[/]",
            f"{sum(figure.requests for figure in rows):,}",
            f"{sum(figure.attributed for figure in rows):,}",
            _alarm(sum(figure.unattributed for figure in rows)),
            f"{sum(figure.uncached_input for figure in rows):,}",
            f"{sum(figure.total_tokens for figure in rows):,}",
            f"{sum(figure.cost for figure in rows):,.2f}",
            f"{sum(figure.over_budget for figure in rows)}",
            f"{sum(figure.recall.lost for figure in rows)}",
        )
    console.print(table)


def svg_title(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _coloured(line: str, windows: Mapping[str, list[int]]) -> str:
    for name in windows:
        if line.lstrip().startswith(name + " "):
            colour = ARM_COLOURS.get(name, "white")
            return line.replace(name, f"[{colour}]{name}[/]", 1)
    return line


def _alarm(value: int) -> str:
    return f"[bold red]{value}[/]" if value else "0"


def _ratio(part: float, whole: float) -> str:
    return f"{part / whole:.2f}x" if whole else "–"
