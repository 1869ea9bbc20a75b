"""The commits of a session on ``/fold-status``: the last one in the figure table, and the
whole history as its own table (an auditable record: terminal-agents §5, item 4)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from pifold_core.status import CommitView, EngineStatus
from pifold_tui.screens.status.figures import (
    ReportStyles,
    add_figure_row,
    heading,
    share,
    timestamp,
    tokens,
)


def last_commit_rows(table: Table, status: EngineStatus, styles: ReportStyles) -> None:
    """The last commit's rows of the figure table: when, why, before and after, what landed."""
    last = status.last_commit
    table.add_section()
    table.add_row(heading("Last commit", styles))
    if last is None:
        add_figure_row(
            table, "none yet", "", "", "the first fires at maxTarget, or with /fold", styles
        )
        return
    add_figure_row(
        table,
        f"#{last.number} ({last.cause})",
        f"{tokens(last.tokens_before, True)} → {tokens(last.tokens_after, True)}",
        share(last.tokens_before - last.tokens_after, status.budget),
        f"before request {last.request:,}, {timestamp(last.newest_timestamp_ms)}; "
        f"{last.folds_made} folds landed from {last.marks_applied} marks, "
        f"{last.clipped} clipped, {last.withdrawn} peeks withdrawn",
        styles,
    )


def commit_history(
    history: tuple[CommitView, ...], budget: int, styles: ReportStyles
) -> Table | Text:
    """Every commit, oldest first: when, why, tokens before and after, what landed."""
    if not history:
        return Text("No commit yet: nothing has been rewritten.", style=styles.muted)
    table = Table(
        title="Commits",
        title_justify="left",
        title_style=styles.heading,
        box=None,
        padding=(0, 1),
        header_style=styles.muted,
    )
    for name in ("#", "before request", "at entry", "when", "cause"):
        table.add_column(name, justify="right" if name != "cause" else "left", no_wrap=True)
    for name in ("before", "after", "freed", "folds", "marks", "clipped"):
        table.add_column(name, justify="right", no_wrap=True)
    for view in history:
        freed = view.tokens_before - view.tokens_after
        table.add_row(
            f"{view.number}",
            f"{view.request:,}",
            f"{view.entries:,}",
            timestamp(view.newest_timestamp_ms),
            view.cause,
            tokens(view.tokens_before, True),
            tokens(view.tokens_after, True),
            f"{share(freed, budget)}",
            f"{view.folds_made}",
            f"{view.marks_applied}",
            f"{view.clipped}",
        )
    return table


__all__ = ["commit_history", "last_commit_rows"]
