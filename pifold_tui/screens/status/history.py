"""The commits of a session on ``/fold-status``: the last one in the figure table, and the
whole history as its own table (an auditable record: terminal-agents §5, item 4).

Narrower than :data:`~pifold_tui.screens.status.rows.WIDE_COLUMNS`, the history leaves out
the entry count (the request number places a commit already), writes the time without the
year and ``UTC`` (``12-01 23:33``) and puts one cell between columns, so its eleven figures
fit 80 columns without a cut header.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from pifold_core.status import CommitView, EngineStatus
from pifold_tui.screens.status.figures import (
    ReportStyles,
    heading,
    share,
    timestamp,
    tokens,
)
from pifold_tui.screens.status.rows import WIDE_COLUMNS, FigureRows


def last_commit_rows(table: FigureRows, status: EngineStatus, styles: ReportStyles) -> None:
    """The last commit's rows of the figure table: when, why, before and after, what landed."""
    last = status.last_commit
    table.add_heading(heading("Last commit", styles))
    if last is None:
        table.add("none yet", "", "", "the first fires at maxTarget, or with /fold")
        return
    table.add(
        f"#{last.number} ({last.cause})",
        f"{tokens(last.tokens_before, True)} → {tokens(last.tokens_after, True)}",
        share(last.tokens_before - last.tokens_after, status.budget),
        f"before request {last.request:,}, {timestamp(last.newest_timestamp_ms)}; "
        f"{last.folds_made} folds landed from {last.marks_applied} marks, "
        f"{last.clipped} clipped, {last.withdrawn} peeks withdrawn",
    )


def short_timestamp(milliseconds: int | None) -> str:
    """A host timestamp as ``12-01 14:06`` (UTC), or ``?``: for the narrow history."""
    text = timestamp(milliseconds)
    return text[5:16] if text[:1].isdigit() else "?"


def commit_history(
    history: tuple[CommitView, ...],
    budget: int,
    styles: ReportStyles,
    width: int | None = None,
) -> Table | Text:
    """Every commit, oldest first: when, why, tokens before and after, what landed; laid out
    for ``width`` cells (``None``: the wide layout)."""
    if not history:
        return Text("No commit yet: nothing has been rewritten.", style=styles.muted)
    narrow = width is not None and width < WIDE_COLUMNS
    table = Table(
        title="Commits",
        title_justify="left",
        title_style=styles.heading,
        box=None,
        padding=(0, 1),
        collapse_padding=narrow,
        pad_edge=not narrow,
        header_style=styles.muted,
    )
    leading = (
        ("#", "request", "when", "cause")
        if narrow
        else (
            "#",
            "before request",
            "at entry",
            "when",
            "cause",
        )
    )
    for name in leading:
        table.add_column(name, justify="right" if name != "cause" else "left", no_wrap=True)
    for name in ("before", "after", "freed", "folds", "marks", "clipped"):
        table.add_column(name, justify="right", no_wrap=True)
    for view in history:
        freed = view.tokens_before - view.tokens_after
        when = short_timestamp if narrow else timestamp
        first = (
            (f"{view.number}", f"{view.request:,}")
            if narrow
            else (f"{view.number}", f"{view.request:,}", f"{view.entries:,}")
        )
        table.add_row(
            *first,
            when(view.newest_timestamp_ms),
            view.cause,
            tokens(view.tokens_before, True),
            tokens(view.tokens_after, True),
            f"{share(freed, budget)}",
            f"{view.folds_made}",
            f"{view.marks_applied}",
            f"{view.clipped}",
        )
    return table


__all__ = ["commit_history", "last_commit_rows", "short_timestamp"]
