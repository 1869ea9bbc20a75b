"""What ``/fold`` shows: the preview before anything moves, then what landed (issue 11).

Pure renderables over plain data: the engine's :class:`~pifold_core.preview.CommitPreview`
of the ``/fold`` commit (every pending mark), the preview of the band's own commit (to show
where the band would have stopped) and, after the confirmation, the
:class:`~pifold_core.commit.CommitOutcome` with the projection's digests around it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from pifold_core.commit import CommitOutcome
from pifold_core.preview import CommitPreview, LandingMark, first_difference
from pifold_tui.screens.status.figures import (
    AIM_LABEL,
    EXPECTED_LABEL,
    ReportStyles,
    aim_words,
    figure_table,
    heading,
    share,
    tokens,
)

CONFIRM_HINT = "Enter or y commits · Escape cancels"
"""The line under a preview that can be committed."""


@dataclass(frozen=True, slots=True)
class FoldPreview:
    """The two previews ``/fold`` shows, read from the engine at once."""

    command: CommitPreview
    """What ``/fold`` would do: land every pending mark now."""
    band: CommitPreview
    """What the band's own commit would do now: where it would stop."""
    budget: int
    """The serving budget, for shares."""
    messages: int
    """Messages in the projection now."""


def preview_report(preview: FoldPreview, styles: ReportStyles) -> RenderableType:
    """The preview: figures, marks landing stalest first with the band's stop, folds."""
    command = preview.command
    if command.refused:
        return Group(
            Text("Nothing to commit.", style=styles.heading),
            Text(command.refusal or "", style=styles.warning),
            Text(),
            Text("Escape goes back; nothing was changed.", style=styles.muted),
        )
    parts: list[RenderableType] = [
        Text("/fold lands every pending mark now, in one rewrite.", style=styles.heading),
        Text(),
        _figures(preview, styles),
        Text(),
        _marks(preview, styles),
    ]
    if command.folds:
        parts += [Text(), _folds(command, styles)]
    extra = _riders(command)
    if extra:
        parts += [Text(), Text(extra, style=styles.muted)]
    parts += [Text(), Text(CONFIRM_HINT, style=styles.heading)]
    return Group(*parts)


def _figures(both: FoldPreview, styles: ReportStyles) -> RenderableType:
    """Occupancy before and after, on the scale of the trigger and ``/fold-status`` (the
    same labels name the same figures there), then what the rewrite costs the cache."""
    preview, budget, messages = both.command, both.budget, both.messages
    table = figure_table()
    table.add_row(
        EXPECTED_LABEL,
        tokens(preview.expected_before, True),
        share(preview.expected_before, budget),
        Text("the window now, as the commit trigger compares it", style=styles.muted),
    )
    table.add_row(
        "after the commit",
        tokens(preview.expected_after, True),
        share(preview.expected_after, budget),
    )
    table.add_row(
        "tokens freed", tokens(preview.freed_tokens, True), share(preview.freed_tokens, budget)
    )
    aim = both.band.aim_tokens
    if aim is not None:
        table.add_row(
            AIM_LABEL,
            tokens(aim),
            share(aim, budget),
            Text("where the band's own commit would stop; /fold lands every mark", styles.muted),
        )
    first = preview.first_changed
    table.add_row(
        "first changed message",
        "–" if first is None else f"{first:,}",
        "",
        Text(
            f"messages 0 to {first - 1:,} stay byte for byte (cached)"
            if first
            else "the whole window is rewritten",
            style=styles.muted,
        ),
    )
    table.add_row(
        "uncached tokens",
        tokens(preview.uncached_tokens, True),
        share(preview.uncached_tokens, budget),
        Text("what the rewrite costs the provider's prefix cache", style=styles.muted),
    )
    table.add_row("messages", f"{messages:,} → {preview.messages_after:,}")
    return table


def _mark_row(table: Table, number: int, mark: LandingMark) -> None:
    table.add_row(
        f"{number}",
        mark.id,
        mark.kind,
        f"{mark.start_id} … {mark.end_id}",
        tokens(mark.tokens, True),
    )


def _mark_table(title: str, styles: ReportStyles) -> Table:
    table = Table(
        title=title, title_justify="left", title_style=styles.heading, box=None, padding=(0, 1)
    )
    for name in ("#", "mark", "kind", "entries", "tokens now"):
        table.add_column(name, justify="right" if name in ("#", "tokens now") else "left")
    table.show_header = False
    return table


def _marks(preview: FoldPreview, styles: ReportStyles) -> RenderableType:
    command, band = preview.command, preview.band
    table = _mark_table("Marks that land, stalest first", styles)
    band_ids = {mark.id for mark in band.landing}
    stop_drawn = False
    for number, mark in enumerate(command.landing, start=1):
        if not stop_drawn and band.aim_tokens is not None and mark.id not in band_ids:
            stop_drawn = True
            table.add_row(
                "",
                Text(
                    f"── the band stops here: its own commit {aim_words(band.aim_tokens)} "
                    "and leaves the marks below pending ──",
                    style=styles.muted,
                ),
            )
        _mark_row(table, number, mark)
    parts: list[RenderableType] = [table]
    if not command.landing:
        parts.append(Text("No mark lands; the commit carries only what rides along.", styles.muted))
    elif not stop_drawn and band.aim_tokens is not None:
        extra = len(band.folds) - len(command.folds)
        more = f", and cut {extra} more span{'s' if extra != 1 else ''}" if extra > 0 else ""
        parts.append(
            Text(
                f"The band's own commit {aim_words(band.aim_tokens)} and would land all of "
                f"these too{more}.",
                style=styles.muted,
            )
        )
    if command.held:
        held = _mark_table("Held back (they reach the fresh tail or hold pins)", styles)
        for number, mark in enumerate(command.held, start=1):
            _mark_row(held, number, mark)
        parts.append(held)
    for mark_id, reason in command.dropped:
        parts.append(Text(f"{mark_id} is withdrawn instead: {reason}", style=styles.muted))
    return Group(*parts)


def _folds(preview: CommitPreview, styles: ReportStyles) -> RenderableType:
    table = Table(
        title="Folds it makes",
        title_justify="left",
        title_style=styles.heading,
        box=None,
        padding=(0, 1),
        show_header=False,
    )
    for name in ("handle", "kind", "entries", "count"):
        table.add_column(name, justify="right" if name == "count" else "left")
    for fold in preview.folds:
        table.add_row(
            fold.handle, fold.kind, f"{fold.start_id} … {fold.end_id}", f"{fold.entries} entries"
        )
    return table


def _riders(preview: CommitPreview) -> str:
    """What rides along with the marks, in one sentence (empty when nothing does)."""
    parts = []
    if preview.refolded:
        parts.append(f"{len(preview.refolded)} staged refolds")
    if preview.pin_opened:
        parts.append(f"{len(preview.pin_opened)} folds opened for pins")
    if preview.clipped:
        parts.append(f"{preview.clipped} tool results clipped")
    if preview.withdrawn:
        parts.append(f"{preview.withdrawn} peek copies withdrawn")
    return f"Riding along: {', '.join(parts)}." if parts else ""


@dataclass(frozen=True, slots=True)
class Landed:
    """A commit ``/fold`` made, with the projection's digests around it."""

    outcome: CommitOutcome
    """What the commit did."""
    before: tuple[str, ...]
    """Message digests before it."""
    after: tuple[str, ...]
    """Message digests after it."""
    uncached_tokens: int
    """Tokens from the first changed message to the end, after it."""
    budget: int
    """The serving budget, for shares."""
    expected_before: int
    """Occupancy expected for the next request before it (the trigger's scale)."""
    expected_after: int
    """Occupancy expected for the next request after it, on the same scale."""


def landed_report(landed: Landed, styles: ReportStyles) -> RenderableType:
    """What the commit did, from its own outcome."""
    outcome = landed.outcome
    budget = landed.budget
    before, after = landed.expected_before, landed.expected_after
    freed = before - after
    first = first_difference(landed.before, landed.after)
    table = figure_table()
    table.add_row("window before", tokens(before, True), share(before, budget))
    table.add_row("window after", tokens(after, True), share(after, budget))
    table.add_row("tokens freed", tokens(freed, True), share(freed, budget))
    table.add_row("first changed message", "–" if first is None else f"{first:,}")
    table.add_row(
        "uncached tokens",
        tokens(landed.uncached_tokens, True),
        share(landed.uncached_tokens, budget),
        Text("the next request is an attributed rewrite", style=styles.muted),
    )
    folds = Table(box=None, padding=(0, 1), show_header=False, expand=True)
    for name in ("handle", "kind", "range"):
        folds.add_column(name, no_wrap=True)
    # Only the brief gives way on a narrow terminal: handles and ids are what one copies.
    folds.add_column("brief", no_wrap=True, overflow="ellipsis", ratio=1)
    for built in outcome.built:
        fold = built.fold
        brief = fold.brief.splitlines()[0] if fold.brief else ""
        folds.add_row(fold.handle, fold.kind, f"{fold.first_id} … {fold.last_id}", brief)
    parts: list[RenderableType] = [
        heading(f"Commit {outcome.number} landed ({outcome.cause}).", styles),
        Text(),
        table,
        Text(),
        heading(f"{len(outcome.built)} folds made from {len(outcome.applied_marks)} marks", styles),
        folds,
    ]
    for mark_id, reason in sorted(outcome.dropped_marks.items()):
        parts.append(Text(f"{mark_id} withdrawn: {reason}", style=styles.muted))
    if outcome.held_marks:
        parts.append(Text(f"Still pending: {', '.join(outcome.held_marks)}", style=styles.muted))
    parts += [Text(), Text("Escape goes back.", style=styles.muted)]
    return Group(*parts)


__all__ = ["CONFIRM_HINT", "FoldPreview", "Landed", "landed_report", "preview_report"]
