"""The editor's actions, each planned before it runs: what it does, whether it moves bytes
already sent, and what that costs.

A plan only reads the engine (a commit's figures come from :meth:`Engine.preview_commit`, a
dry run that stores and logs nothing). Running a plan calls exactly one engine verb, the
same one the ``pi_fold_context`` tool calls, so the engine's own checks decide and its
refusal is what the user sees.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pifold_core.engine import Engine
from pifold_core.folds import Fold
from pifold_core.marks import Mark
from pifold_tui.screens.editor.row_list import MapRow


class ActionRefused(ValueError):
    """The action cannot apply to the selection; nothing ran. The message says why."""


@dataclass(frozen=True, slots=True)
class ActionPlan:
    """One action on the selection, described before it runs."""

    title: str
    """What it does, naming its target (``pin e00012``)."""
    moves_bytes: bool
    """Whether bytes already sent change now (an attributed rewrite)."""
    lines: tuple[str, ...]
    """What it will do and what it costs, one fact a line."""
    run: Callable[[], str]
    """Calls the engine verb; returns what happened, raises the engine's refusal."""

    @property
    def verdict(self) -> str:
        if self.moves_bytes:
            return "MOVES BYTES NOW: an attributed rewrite of the window"
        return "moves no bytes now: the cache keeps every byte already sent"


def row_identifier(engine: Engine, row: MapRow) -> str:
    return (
        row.handle if row.handle is not None else engine.view.transcript.entries[row.entry_index].id
    )


def row_span(engine: Engine, row: MapRow) -> tuple[int, int]:
    """The entry indices ``[start, end)`` a row stands for."""
    if row.handle is not None:
        fold = engine.view.forest.folds[row.handle]
        return fold.start, fold.end
    return row.entry_index, row.entry_index + 1


def mark_for(engine: Engine, row: MapRow) -> Mark:
    """The smallest pending mark holding the row, or :class:`ActionRefused`."""
    start, end = row_span(engine, row)
    covering = [m for m in engine.view.marks.values() if m.start <= start and end <= m.end]
    if not covering:
        raise ActionRefused(f"{row_identifier(engine, row)} is under no pending mark")
    return min(covering, key=lambda mark: (mark.end - mark.start, mark.id))


def _fold_of(engine: Engine, row: MapRow, verb: str) -> Fold:
    if row.handle is None:
        raise ActionRefused(f"{verb} applies to a fold; {row_identifier(engine, row)} is an entry")
    return engine.view.forest.folds[row.handle]


def _pin_figures(engine: Engine, adding: int) -> str:
    status = engine.status()
    after = status.pinned_tokens + adding
    return f"pinned mass after: {after:,} of the {status.pin_cap_tokens:,}-token cap"


def plan_pin(engine: Engine, row: MapRow) -> ActionPlan:
    """Pin the row's entries, or unpin them when every one is pinned already."""
    identifier = row_identifier(engine, row)
    start, end = row_span(engine, row)
    indices = range(start, end)
    if all(index in engine.view.pinned for index in indices):
        return ActionPlan(
            f"unpin {identifier}",
            False,
            (
                "releases the pin; the entries stay raw until a later commit folds them",
                "folds the pin opened collapse again at the next commit",
            ),
            lambda: _unpin(engine, identifier),
        )
    new = [index for index in indices if index not in engine.view.pinned]
    adding = sum(engine.view.projection.whole_tokens(index) for index in new)
    hidden = [
        index
        for index in new
        if not engine.view.forest.shows_raw(index) or index in engine.view.projection.views
    ]
    if hidden:
        effect = (
            f"{len(hidden)} of its entries are folded or clipped: the next commit restores "
            "them raw in its own rewrite"
        )
    else:
        effect = "it is raw now and stays raw through every commit"
    return ActionPlan(
        f"pin {identifier}",
        False,
        (effect, f"holds {adding:,} tokens raw", _pin_figures(engine, adding)),
        lambda: _pin(engine, identifier),
    )


def _pin(engine: Engine, identifier: str) -> str:
    outcome = engine.pin([identifier])
    staged = f", {len(outcome.staged)} restored at the next commit" if outcome.staged else ""
    return (
        f"pinned {identifier}{staged}: {outcome.pinned_tokens:,} of "
        f"{outcome.cap_tokens:,} cap tokens pinned"
    )


def _unpin(engine: Engine, identifier: str) -> str:
    outcome = engine.unpin([identifier])
    refolds = f"; {', '.join(outcome.refolds)} refold at the next commit" if outcome.refolds else ""
    return f"unpinned {len(outcome.released)} entries{refolds}"


def plan_unmark(engine: Engine, row: MapRow) -> ActionPlan:
    mark = mark_for(engine, row)
    tokens = _mark_tokens(engine, mark)
    return ActionPlan(
        f"unmark {mark.id}",
        False,
        (
            f"withdraws {mark.id} ({mark.kind}, {mark.end - mark.start} entries)",
            f"the next commit will not fold its {tokens:,} tokens",
        ),
        lambda: f"withdrew {engine.unmark(mark.id).id}",
    )


def _mark_tokens(engine: Engine, mark: Mark) -> int:
    for view in engine.status().marks:
        if view.id == mark.id:
            return view.tokens
    return 0


def plan_brief(engine: Engine, mark: Mark, text: str) -> ActionPlan:
    return ActionPlan(
        f"brief {mark.id}",
        False,
        (
            f"{len(text.strip()):,} characters; the fold {mark.id} becomes carries it",
            "it enters the window only with that fold, at the next commit",
        ),
        lambda: f"brief written for {engine.set_brief(mark.id, text).id}",
    )


def plan_recut(engine: Engine, mark: Mark, first: MapRow, last: MapRow) -> ActionPlan:
    start = row_span(engine, first)[0]
    end = row_span(engine, last)[1]
    entries = engine.view.transcript.entries
    start_id, end_id = entries[start].id, entries[end - 1].id
    return ActionPlan(
        f"re-cut {mark.id} to {start_id} … {end_id}",
        False,
        (
            f"now {entries[mark.start].id} … {entries[mark.end - 1].id} "
            f"({mark.end - mark.start} entries); after: {end - start} entries",
            "a pending mark lives outside the window: re-cutting it is free",
        ),
        lambda: _recut(engine, mark.id, start_id, end_id),
    )


def _recut(engine: Engine, mark_id: str, start_id: str, end_id: str) -> str:
    mark = engine.reboundary(mark_id, start_id, end_id)
    return f"re-cut {mark.id}: {mark.end - mark.start} entries"


def plan_expand(engine: Engine, row: MapRow) -> ActionPlan:
    fold = _fold_of(engine, row, "expand")
    projection = engine.view.projection
    position = projection.item_index_at(fold.start)
    shown = (
        projection.tokens_of_range(fold.start, fold.end)
        if engine.view.forest.is_visible(fold.handle)
        else 0
    )
    grows = sum(item.tokens for item in projection.interior_items(fold)) - shown
    preview = engine.preview_commit("command")
    lines = [
        f"restores {fold.handle} in place, one level ({fold.entry_count} entries): "
        f"~{grows:+,} tokens",
        f"messages from #{position:,} of {len(projection.items):,} change",
    ]
    first = position
    freed = 0
    if not preview.refused and preview.landing:
        # The uncached sum below is on the engine's estimate scale, as ``grows`` is; the
        # line shows the freed tokens on the bar's scale, as /fold does.
        freed = preview.tokens_before - preview.tokens_after
        first = min(position, preview.first_changed or position)
        lines.append(
            f"{len(preview.landing)} pending marks land in the same rewrite: "
            f"~{preview.freed_tokens:,} tokens freed"
        )
    after_first = sum(item.tokens for item in projection.items[first:])
    lines.append(f"uncached tokens the rewrite costs: ~{max(0, after_first + grows - freed):,}")
    return ActionPlan(
        f"expand {fold.handle}", True, tuple(lines), lambda: _expand(engine, fold.handle)
    )


def _expand(engine: Engine, handle: str) -> str:
    outcome = engine.expand(handle)
    return (
        f"expanded {handle} (commit {outcome.number}): "
        f"{outcome.tokens_before:,} → {outcome.tokens_after:,} tokens"
    )


def plan_refold(engine: Engine, row: MapRow) -> ActionPlan:
    fold = _fold_of(engine, row, "refold")
    projection = engine.view.projection
    placeholder = sum(item.tokens for item in projection.collapsed_items(fold))
    shown = (
        projection.tokens_of_range(fold.start, fold.end)
        if engine.view.forest.is_visible_open(fold.handle)
        else placeholder
    )
    return ActionPlan(
        f"refold {fold.handle}",
        False,
        (
            "stages it to collapse again at the next commit, in that commit's rewrite",
            f"it will then free ~{max(0, shown - placeholder):,} tokens",
        ),
        lambda: _refold(engine, fold.handle),
    )


def _refold(engine: Engine, handle: str) -> str:
    engine.refold(handle)
    return f"{handle} collapses at the next commit"


def plan_commit(engine: Engine) -> ActionPlan:
    """Commit every staged mark now, with the dry run's figures."""
    preview = engine.preview_commit("command")
    if preview.refusal is not None:
        raise ActionRefused(f"commit refused: {preview.refusal}")
    lines = [
        f"lands {len(preview.landing)} marks and makes {len(preview.folds)} folds"
        + (f", refolds {len(preview.refolded)}" if preview.refolded else ""),
        # The occupancy scale of the bar and /fold-status, so the three figures agree.
        f"expected next request ~{preview.expected_before:,} → ~{preview.expected_after:,} "
        f"(~{preview.freed_tokens:,} freed)",
    ]
    if preview.first_changed is not None:
        lines.append(
            f"first changed message #{preview.first_changed:,} of {preview.messages_after:,}; "
            f"uncached tokens the rewrite costs: {preview.uncached_tokens:,}"
        )
    if preview.clipped:
        lines.append(f"clips {preview.clipped} old tool results")
    return ActionPlan("commit now", True, tuple(lines), lambda: _commit(engine))


def _commit(engine: Engine) -> str:
    outcome = engine.commit_now()
    return (
        f"commit {outcome.number} landed {len(outcome.built)} folds: "
        f"{outcome.tokens_before:,} → {outcome.tokens_after:,} tokens"
    )
