"""The human-readable report: two rich tables per trace, the headline ratios and the chart."""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table

from pifold_agent.pricing.compaction import turn_prefix_summary_tokens
from pifold_bench.brief_probe import probe_line
from pifold_bench.calibration import ModelCheck
from pifold_bench.causes import CAUSES
from pifold_bench.chart import ARM_COLOURS, ChartPanel, terminal_chart
from pifold_bench.figures import ArmFigures
from pifold_bench.prepare import FOLD_ARMS, PreparedTrace
from pifold_bench.run import model_check_skipped


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
    sensitivity: dict[int, dict[str, int]] | None = None
    """Uncached input by arm under other cache lifetimes (seconds), when it was run."""

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
        f"cache lifetime {prepared.lifetime_source}; the engine arms get it with each "
        "request's time (cold-cache commits)"
    )
    console.print(
        f"native summary: {prepared.summary_tokens:,} tokens ({prepared.summary_source}), "
        f"plus a {turn_prefix_summary_tokens(prepared.summary_tokens):,}-token turn-prefix "
        f"summary when a cut splits a turn (assumed); {len(prepared.values)} values planted"
    )
    console.print(cost_table(outcome.figures).render(console.width))
    console.print(window_table(outcome.figures, budget).render(console.width))
    probes = probe_line({name: figure.brief_probe for name, figure in outcome.figures.items()})
    if probes is not None:
        console.print(probes)
    fold = outcome.figures.get("fold")
    if fold is not None and fold.suggestions is not None:
        console.print(fold.suggestions.describe())
    console.print(cause_table(outcome.figures).render(console.width))
    for line in headline_lines(outcome.figures):
        console.print(line)
    if outcome.sensitivity:
        console.print(sensitivity_table(outcome.sensitivity).render(console.width))
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


@dataclass(frozen=True)
class ArmTable:
    """A table of figures per arm, laid out wide (an arm a row) or narrow (an arm a column).

    Each cell carries two spellings: the exact figure for the wide layout and a compact one
    (``137.6k``, ``1.27M``) for terminals too narrow for the exact figures.
    """

    title: str
    """The table's caption."""
    figures: tuple[str, ...]
    """The figure names, in order."""
    rows: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    """By arm: the arm's name and, per figure, (exact text, compact text)."""

    def render(self, width: int) -> Table:
        """The wide layout when it fits in ``width`` columns, else the narrow one."""
        wide = self.wide()
        if _table_width(wide) <= width:
            return wide
        return self.narrow()

    def wide(self) -> Table:
        table = Table(title=self.title)
        table.add_column("arm", justify="left")
        for name in self.figures:
            table.add_column(name, justify="right")
        for arm, cells in self.rows:
            table.add_row(_arm_label(arm), *(exact for exact, _ in cells))
        return table

    def narrow(self) -> Table:
        table = Table(title=self.title, box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False)
        table.add_column("", justify="left", max_width=12)
        for arm, _ in self.rows:
            # A hyphenated arm name breaks after its hyphen, so a column stays narrow.
            table.add_column(_arm_label(arm.replace("-", "-\n")), justify="right", no_wrap=True)
        for position, name in enumerate(self.figures):
            table.add_row(name, *(cells[position][1] for _, cells in self.rows))
        return table


def _table_width(table: Table) -> int:
    console = Console(width=10_000, file=io.StringIO(), color_system=None)
    return console.measure(table).maximum


def _arm_label(text: str) -> str:
    arm = text.replace("-\n", "-")
    return f"[{ARM_COLOURS.get(arm, 'white')}]{text}[/]"


def compact(value: float) -> str:
    """A token count in at most six characters: ``9,999``, ``137.6k``, ``1.27M``."""
    if abs(value) < 10_000:
        return f"{value:,.0f}"
    if abs(value) < 1_000_000:
        return f"{value / 1_000:.1f}k"
    return f"{value / 1_000_000:.2f}M"


def _count(value: float) -> tuple[str, str]:
    return f"{value:,.0f}", compact(value)


def _same(text: str) -> tuple[str, str]:
    return text, text


def cost_table(figures: Mapping[str, ArmFigures]) -> ArmTable:
    """Requests, rewrites, tokens and dollars per arm."""
    names = (
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
    )
    rows = tuple(
        (
            figure.arm,
            (
                _count(figure.requests),
                _count(figure.appends),
                _count(figure.attributed),
                _same(_alarm(figure.unattributed)),
                _count(figure.fresh_input),
                _count(figure.cache_write),
                _count(figure.cache_read),
                _count(figure.output),
                _count(figure.total_tokens),
                _same(f"{figure.cost:,.2f}"),
            ),
        )
        for figure in figures.values()
    )
    return ArmTable("tokens and cost (provider tokens, side calls included)", names, rows)


def window_table(figures: Mapping[str, ArmFigures], budget: int) -> ArmTable:
    """Window sizes, events and recall per arm."""
    names = (
        "events",
        "peak",
        "mean",
        "lowest after 1st",
        "near zero",
        "over budget (first)",
        "> tier",
        "raw",
        "in brief",
        "recoverable",
        "by search",
        "lost",
    )
    rows: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    for figure in figures.values():
        recall = figure.recall
        over = (
            (
                f"{figure.over_budget} (#{figure.first_over_budget})",
                f"{figure.over_budget} #{figure.first_over_budget}",
            )
            if figure.over_budget
            else _same("0")
        )
        lowest = figure.lowest_after_first_event
        lost = _alarm(recall.lost) if figure.arm in FOLD_ARMS else f"{recall.lost}"
        rows.append(
            (
                figure.arm,
                (
                    _same(f"{figure.events}"),
                    _count(figure.peak_window),
                    _count(figure.mean_window),
                    _same("–") if lowest is None else _count(lowest),
                    _same(f"{figure.near_zero}"),
                    over,
                    _same(f"{figure.above_tier}"),
                    _same(f"{recall.visible_raw}/{recall.planted}"),
                    _same(f"{recall.visible_in_brief}"),
                    _same(f"{recall.recoverable}"),
                    _same(
                        "–"
                        if recall.found_by_search is None
                        else f"{recall.found_by_search}/{recall.recoverable}"
                    ),
                    _same(lost),
                ),
            )
        )
    title = f"window (estimated tokens, budget {budget:,}) and recall (visible raw, in brief)"
    return ArmTable(title, names, tuple(rows))


def cause_table(figures: Mapping[str, ArmFigures]) -> ArmTable:
    """Uncached input per arm, split by what caused it (:mod:`pifold_bench.causes`)."""
    names = ("uncached in", *(f"{cause}" for cause in CAUSES))
    rows = tuple(
        (
            figure.arm,
            (
                _count(figure.uncached_input),
                *(_count(getattr(figure.uncached_by_cause, cause)) for cause in CAUSES),
            ),
        )
        for figure in figures.values()
    )
    return ArmTable("uncached input by cause (provider tokens)", names, rows)


def sensitivity_table(sensitivity: Mapping[int, Mapping[str, int]]) -> ArmTable:
    """Each arm's uncached input when the cache keeps an unused entry 300, 600, 3,600 s."""
    lifetimes = list(sensitivity)
    arms = list(sensitivity[lifetimes[0]]) if lifetimes else []
    rows = tuple(
        (arm, tuple(_count(sensitivity[seconds][arm]) for seconds in lifetimes)) for arm in arms
    )
    names = tuple(f"{seconds:,} s" for seconds in lifetimes)
    return ArmTable("uncached input by cache lifetime", names, rows)


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
    no_cold = figures.get("fold-no-cold")
    if fold is not None and no_cold is not None and fold.uncached_input:
        lines.append(
            f"fold-no-cold vs fold: {no_cold.uncached_input / fold.uncached_input:.2f}x the "
            f"uncached input; fold made {fold.cold_cache_commits} cold-cache commit(s)"
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
    names = (
        "requests",
        "rewrites",
        "unattr.",
        "uncached in",
        "total",
        "cost $",
        "over budget",
        "lost",
    )
    table_rows: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    for arm in outcomes[0].figures:
        rows = [outcome.figures[arm] for outcome in outcomes if arm in outcome.figures]
        table_rows.append(
            (
                arm,
                (
                    _count(sum(figure.requests for figure in rows)),
                    _count(sum(figure.attributed for figure in rows)),
                    _same(_alarm(sum(figure.unattributed for figure in rows))),
                    _count(sum(figure.uncached_input for figure in rows)),
                    _count(sum(figure.total_tokens for figure in rows)),
                    _same(f"{sum(figure.cost for figure in rows):,.2f}"),
                    _same(f"{sum(figure.over_budget for figure in rows)}"),
                    _same(f"{sum(figure.recall.lost for figure in rows)}"),
                ),
            )
        )
    table = ArmTable(f"all {len(outcomes)} traces", names, tuple(table_rows))
    console.print(table.render(console.width))


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
