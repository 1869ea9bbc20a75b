"""The ``/fold-status`` report: everything a user needs to trust the window (issue 11).

A pure renderable: :class:`StatusFigures` is read from the engine once (only its public
reading API: ``status``, ``composition``, ``fold_rows``, ``preview_commit``; none of them
changes anything), and :func:`status_report` turns it into Rich tables. Every row that can be
reduced names the action that reduces it, the way aider's ``/tokens`` does.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rich.console import Group, RenderableType
from rich.text import Text

from pifold_agent.cache_report.tally import CacheTally
from pifold_core.composition import CATEGORY_LABELS, CATEGORY_ORDER, Category, Composition
from pifold_core.engine import Engine
from pifold_core.preview import CommitPreview
from pifold_core.status import EngineStatus
from pifold_tui.screens.status.cache_rows import cache_rows
from pifold_tui.screens.status.figures import (
    AIM_LABEL,
    EXPECTED_LABEL,
    READING_WORDS,
    ReportStyles,
    byte_size,
    heading,
    reading_is_estimate,
    share,
    tokens,
)
from pifold_tui.screens.status.history import commit_history, last_commit_rows
from pifold_tui.screens.status.rows import FigureRows, must_be_zero_row

CATEGORY_ACTIONS: dict[Category, str] = {
    Category.CONSOLIDATED: "the deepest compression; peek or expand one in /fold-editor",
    Category.SPAN: "consolidated by a commit once enough sit side by side",
    Category.TOOL: "taken into a span fold when its chapter folds",
    Category.MARKED: "/fold lands these marks now",
    Category.RAW: "marked as units close; the next commit folds the stalest",
    Category.PINNED: "unpin in /fold-editor to let them fold",
}
"""What reduces each category of the bar, named beside its row."""


@dataclass(frozen=True, slots=True)
class StatusFigures:
    """Everything the status screen shows, read from the engine without changing it."""

    status: EngineStatus
    """The engine's status report."""
    composition: Composition
    """What fills the window (the bar's figures)."""
    kinds: dict[str, int]
    """Every fold in the forest by kind, nested ones included."""
    band_commit: CommitPreview
    """What the commit the band fires next would do, made now."""
    fold_now: CommitPreview
    """What ``/fold`` would do now."""
    cache: CacheTally = field(default_factory=CacheTally)
    """The provider's own cache figures, read from the session's replies."""

    @classmethod
    def read(cls, engine: Engine) -> StatusFigures:
        """Read the figures; looking is free (no entry, no log record, no state change)."""
        return cls(
            status=engine.status(),
            composition=engine.composition(),
            kinds=dict(Counter(row.kind for row in engine.fold_rows())),
            band_commit=engine.preview_commit("threshold"),
            fold_now=engine.preview_commit("command"),
            cache=CacheTally.of(engine.view.transcript.entries),
        )


def status_report(
    figures: StatusFigures, styles: ReportStyles, width: int | None = None
) -> RenderableType:
    """The whole report: the figure table, the commit history and the wire audit, laid out
    for ``width`` cells (``None``: the wide layout; see :mod:`pifold_tui.screens.status.rows`)."""
    parts: list[RenderableType] = []
    stopped = figures.status.folding_stopped
    if stopped is not None:
        parts.append(Text(f"FOLDING STOPPED: {stopped}", style=styles.warning))
    table = FigureRows(styles.muted)
    _window_rows(table, figures, styles)
    _composition_rows(table, figures, styles)
    _fold_rows(table, figures, styles)
    _next_commit_rows(table, figures, styles)
    _holding_rows(table, figures, styles)
    last_commit_rows(table, figures.status, styles)
    _audit_rows(table, figures, styles)
    cache_rows(table, figures.cache, styles)
    parts.append(table.render(width))
    parts.append(Text())
    history = figures.status.commit_history
    parts.append(commit_history(history, figures.status.budget, styles, width))
    return Group(*parts)


def _window_rows(table: FigureRows, figures: StatusFigures, styles: ReportStyles) -> None:
    status = figures.status
    occupancy = status.occupancy
    budget = status.budget
    table.add_heading(heading("Window", styles))
    table.add(
        "serving budget", tokens(budget), "100%", "providerInputBudget in the session's options"
    )
    reading = occupancy.reading
    if occupancy.shown_tokens is None:
        table.add("occupancy shown", "–", "–", READING_WORDS[reading])
    else:
        shown = occupancy.shown_tokens
        estimated = reading_is_estimate(reading)
        table.add(
            "occupancy shown",
            tokens(shown, estimated),
            share(shown, budget),
            READING_WORDS[reading],
        )
    expected = occupancy.tokens
    table.add(
        EXPECTED_LABEL,
        tokens(expected, True),
        share(expected, budget),
        "what the commit trigger compares",
        short_label="next request",
    )
    table.add(
        "engine estimate",
        tokens(occupancy.estimated_tokens, True),
        share(occupancy.estimated_tokens, budget),
        f"tiktoken count of the {'prefix and ' if occupancy.prefix_tokens else ''}projection; "
        f"×{occupancy.calibration:.2f} calibration",
    )
    room = max(0, status.max_tokens - expected)
    table.add(
        "commit fires at (maxTarget)",
        tokens(status.max_tokens),
        share(status.max_tokens, budget),
        f"~{room:,} tokens away" if room else "due at the next request",
        short_label="fires at (maxTarget)",
    )
    spread = status.max_tokens - status.min_tokens
    tax = status.min_tokens / spread if spread > 0 else 0.0
    table.add(
        AIM_LABEL,
        tokens(status.min_tokens),
        share(status.min_tokens, budget),
        f"rewrite tax of the band {tax:.2f}",
        short_label="aims for (minTarget)",
    )


def _composition_rows(table: FigureRows, figures: StatusFigures, styles: ReportStyles) -> None:
    composition = figures.composition
    table.add_heading(heading("Composition", styles))
    if not composition.available:
        table.add("composition", "unavailable", "", "")
        return
    if composition.prefix_tokens:
        table.add(
            "Fixed prefix",
            tokens(composition.prefix_tokens, True),
            share(composition.prefix_tokens, composition.budget),
            Text(
                "system prompt and tool definitions: in every request, never folded",
                style=styles.muted,
            ),
        )
    for category in CATEGORY_ORDER:
        mass = composition.mass(category)
        label = Text(CATEGORY_LABELS[category], style=styles.category(category))
        action = CATEGORY_ACTIONS[category] if mass else ""
        table.add(
            label,
            tokens(mass, True),
            share(mass, composition.budget),
            Text(action, style=styles.muted),
        )


def _fold_rows(table: FigureRows, figures: StatusFigures, styles: ReportStyles) -> None:
    status = figures.status
    counts = status.counts
    table.add_heading(heading("Folds", styles))
    table.add(
        "visible folds",
        f"{counts.folds:,}",
        "",
        f"{counts.consolidated} consolidated, {counts.span} span, {counts.tool} tool",
    )
    kinds = figures.kinds
    table.add(
        "all folds, nested too",
        f"{status.total_folds:,}",
        "",
        f"{kinds.get('consolidated', 0)} consolidated, {kinds.get('span', 0)} span, "
        f"{kinds.get('tool', 0)} tool",
        short_label="all folds, nested",
    )
    table.add("nesting depth", f"{status.max_depth}", "", "levels from root to leaf")
    refolds = len(status.staged_refolds)
    table.add(
        "staged refolds", f"{refolds}", "", "collapse again at the next commit" if refolds else ""
    )


def _freed(preview: CommitPreview) -> str:
    if preview.refused:
        return preview.refusal or ""
    first = preview.first_changed
    return (
        f"~{preview.expected_before:,} → ~{preview.expected_after:,}; rewrites from message "
        f"{first}, ~{preview.uncached_tokens:,} tokens uncached"
    )


def _next_commit_rows(table: FigureRows, figures: StatusFigures, styles: ReportStyles) -> None:
    status = figures.status
    budget = status.budget
    table.add_heading(heading("Next commit", styles))
    table.add(
        "pending marks",
        f"{len(status.marks):,}",
        "",
        "/fold lands every one now" if status.marks else "",
    )
    table.add(
        "marked tokens",
        tokens(status.marked_tokens, True),
        share(status.marked_tokens, budget),
        "what the marks cost now",
    )
    band = figures.band_commit
    table.add(
        "band commit would free",
        tokens(band.freed_tokens, True),
        share(band.freed_tokens, budget),
        _freed(band),
        short_label="band commit frees",
    )
    now = figures.fold_now
    table.add(
        "/fold now would free",
        tokens(now.freed_tokens, True),
        share(now.freed_tokens, budget),
        _freed(now),
        short_label="/fold now frees",
    )
    if status.stalled_reason is not None:
        table.add("band commit stalled", "", "", status.stalled_reason)
    if status.prefix_floor is not None:
        table.add("floor: fixed prefix", "", "", status.prefix_floor.describe())


def _holding_rows(table: FigureRows, figures: StatusFigures, styles: ReportStyles) -> None:
    status = figures.status
    table.add_heading(heading("Held and stored", styles))
    staged = len(status.staged_pins)
    pin_note = f"{staged} staged: shown raw from the next commit; " if staged else ""
    table.add(
        f"pins ({len(status.pins)} entries)",
        tokens(status.pinned_tokens, True),
        f"{share(status.pinned_tokens, status.pin_cap_tokens)} of cap",
        f"{pin_note}cap {status.pin_cap_tokens:,} (minTarget × budget)"
        + ("; unpin in /fold-editor" if status.pins else ""),
    )
    table.add(
        "clipped results",
        f"{status.clipped:,}",
        "",
        f"{status.clipped_total:,} clipped by commits so far; peek an entry id for it whole",
    )
    table.add(
        "evidence (bytes)",
        f"{status.evidence_bytes:,}",
        share(status.evidence_bytes, status.evidence_cap_bytes),
        f"{byte_size(status.evidence_bytes)} of the session cap of "
        f"{byte_size(status.evidence_cap_bytes)}",
    )
    table.add(
        "fold store (bytes)",
        f"{status.store_bytes:,}",
        "",
        f"{byte_size(status.store_bytes)} in {status.store_objects:,} sources, each "
        "SHA-256 verified on every read",
    )


def _audit_rows(table: FigureRows, figures: StatusFigures, styles: ReportStyles) -> None:
    audit = figures.status.audit
    table.add_heading(heading("Wire audit", styles))
    table.add("requests", f"{audit.requests:,}", "", "")
    table.add(
        "pure appends",
        f"{audit.appends:,}",
        share(audit.appends, audit.requests),
        "the provider's cache replays the whole prefix",
    )
    table.add(
        "attributed rewrites",
        f"{audit.attributed:,}",
        share(audit.attributed, audit.requests),
        "a commit or a verb (expand) named the change",
    )
    must_be_zero_row(
        table,
        styles,
        "unattributed rewrites",
        audit.unattributed,
        audit.requests,
        "bytes changed with no commit or verb: a bug, please report it",
        "none, as it must be",
    )


__all__ = ["CATEGORY_ACTIONS", "StatusFigures", "status_report"]
