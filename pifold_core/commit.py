"""The commit: the one moment bytes already sent may change (DESIGN §5).

A commit applies standing marks stalest first until the projection is at or under its
target, then (if marks alone were not enough) cuts more spans from the stalest eligible raw
material (:mod:`pifold_core.top_up`), then consolidates runs of visible roots so trees
deepen instead of the index growing (:mod:`pifold_core.consolidation`). Everything it
changes lands in one rewrite.

The :class:`Committer` mutates the forest, the projection and the marks in place; the engine
takes a snapshot first and restores it if anything fails before the commit is durable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pifold_core.builder import BuiltFold, FoldBuilder
from pifold_core.consolidation import FoldLevels, OwedRuns
from pifold_core.folds import Fold, FoldKind, Forest, ForestError
from pifold_core.marks import Mark
from pifold_core.options import EngineOptions
from pifold_core.pins import folds_to_open
from pifold_core.projection import Projection
from pifold_core.top_up import spans_to_cut
from pifold_core.transcript import Transcript
from pifold_core.views import clippable, clipped_text, withdrawn_text
from pifold_core.window import consolidated_at_once, shown_fold_kinds


@dataclass
class CommitOutcome:
    """What one commit did."""

    number: int
    """1-based commit number in the session."""
    cause: str
    """Why it ran: ``threshold``, ``command``, ``expand fold-…``, ``overflow``."""
    target: int | None
    """Token target it aimed at (``None``: apply every eligible mark)."""
    tokens_before: int
    """Projected tokens before."""
    tokens_after: int = 0
    """Projected tokens after."""
    built: list[BuiltFold] = field(default_factory=list)
    """New folds, in the order they were made."""
    applied_marks: list[str] = field(default_factory=list)
    held_marks: list[str] = field(default_factory=list)
    """Marks kept pending (fresh tail or pinned entries)."""
    dropped_marks: dict[str, str] = field(default_factory=dict)
    """Marks withdrawn, with the reason."""
    refolded: list[str] = field(default_factory=list)
    pin_opened: list[str] = field(default_factory=list)
    """Folds opened so staged pins show raw, outermost first."""
    pin_restored: list[int] = field(default_factory=list)
    """Pinned entries shown reduced (clipped, withdrawn) that this commit shows whole again."""
    clipped: list[int] = field(default_factory=list)
    """Entries whose tool result this commit clipped."""
    withdrawn: list[int] = field(default_factory=list)
    """Entries whose ephemeral peek copy this commit withdrew."""
    short_of_target: bool = False
    """The target was not reached: nothing more could be folded."""
    short_reason: str | None = None
    """Why the target was not reached, for status."""
    folds_shown: int = 0
    """Folds the window shows after the commit (:func:`~pifold_core.window.shown_fold_kinds`):
    the fold bar's ``N Folds`` once it lands. Not ``len(built)``: a commit may consolidate
    folds it built into a parent at once, and older roots with them."""

    @property
    def consolidated_at_once(self) -> int:
        """Folds this commit built that a consolidated fold it also built took in."""
        return consolidated_at_once([built.fold for built in self.built])

    @property
    def changed(self) -> bool:
        return bool(
            self.built
            or self.refolded
            or self.pin_opened
            or self.pin_restored
            or self.clipped
            or self.withdrawn
        )


class Committer:
    """Runs one commit over the engine's live structures."""

    def __init__(
        self,
        transcript: Transcript,
        forest: Forest,
        projection: Projection,
        marks: dict[str, Mark],
        options: EngineOptions,
        is_pinned: Callable[[int, int], bool],
        pinned: set[int] | None = None,
        ephemeral: dict[str, str] | None = None,
        sent_through: int = 0,
        levels: FoldLevels | None = None,
    ) -> None:
        self.transcript = transcript
        self.forest = forest
        self.projection = projection
        self.marks = marks
        self.options = options
        self.is_pinned = is_pinned
        self.pinned = pinned if pinned is not None else set()
        self.ephemeral = ephemeral if ephemeral is not None else {}
        """Pending ephemeral peeks (call id to the id peeked); withdrawn ones are removed."""
        self.sent_through = sent_through
        """Entries before this index have been sent to the provider at least once."""
        self.builder = FoldBuilder(transcript, forest)
        self.levels = levels if levels is not None else FoldLevels()
        """The folds' levels, kept across commits by whoever runs them."""
        self._protected: set[str] = set()

    def run(
        self,
        number: int,
        cause: str,
        target: int | None,
        staged_refolds: set[str],
        protect: set[str] | None = None,
        only: set[str] | None = None,
        top_up: bool = True,
    ) -> CommitOutcome:
        """Apply the commit. ``protect`` names folds no new fold may swallow (being expanded);
        ``only``, when given, names the marks to land (the others stay pending); without
        ``top_up`` no span is cut beyond the marks (a cold-cache commit lands marks only)."""
        outcome = CommitOutcome(number, cause, target, self.projection.tokens)
        self._protected = {h for h in (protect or set()) if h in self.forest}
        # A fold being expanded keeps its ancestors open: their staged refolds are dropped.
        keep_open = {a.handle for h in self._protected for a in self.forest.ancestors(h)}
        for handle in sorted(staged_refolds - keep_open):
            if handle in self.forest.expanded and self.forest.is_visible_open(handle):
                self.forest.collapse(handle)
                self.projection.show_fold(self.forest.folds[handle])
                outcome.refolded.append(handle)
        staged_refolds.clear()
        self._open_for_pins(outcome)
        fresh = self.transcript.fresh_start
        protected = [self.forest.folds[h] for h in (protect or set()) if h in self.forest]
        for mark in sorted(self.marks.values(), key=lambda m: (m.start, -m.end, m.id)):
            if mark.id not in self.marks or (only is not None and mark.id not in only):
                continue
            if target is not None and self.projection.tokens <= target:
                break
            if mark.end > fresh or self.is_pinned(mark.start, mark.end):
                outcome.held_marks.append(mark.id)
                continue
            if any(mark.start <= fold.start and fold.end <= mark.end for fold in protected):
                outcome.held_marks.append(mark.id)
                continue
            self._apply_mark(mark, outcome)
        if top_up and target is not None and self.projection.tokens > target:
            self._top_up(target, outcome)
        self._consolidate(outcome, target)
        self._withdraw_peeks(outcome)
        self._clip(outcome)
        outcome.tokens_after = self.projection.tokens
        outcome.folds_shown = len(shown_fold_kinds(self.projection, self.forest))
        if target is not None and self.projection.tokens > target:
            outcome.short_of_target = True
            outcome.short_reason = self._short_reason(target)
        return outcome

    def _short_reason(self, target: int) -> str:
        fresh = self.transcript.fresh_start
        fresh_tokens = sum(item.tokens for item in self.projection.items if item.start >= fresh)
        pinned_tokens = sum(
            item.tokens for item in self.projection.items if item.start in self.pinned
        )
        return (
            f"nothing more can be folded: {self.projection.tokens:,} tokens remain over the "
            f"target of {target:,}; the fresh tail holds {fresh_tokens:,} and pins hold "
            f"{pinned_tokens:,}"
        )

    # -- pins ----------------------------------------------------------------------------

    def _open_for_pins(self, outcome: CommitOutcome) -> None:
        """Open every collapsed fold around a pinned entry and show every pinned entry whole
        (staged pins land here)."""
        # A reduced view only ever sits on a top-level raw entry (a fold drops the views
        # inside it), so these are restored in place.
        for index in sorted(self.pinned.intersection(self.projection.views)):
            self.projection.clear_view(index)
            outcome.pin_restored.append(index)
        opened = folds_to_open(self.pinned, self.forest)
        if not opened:
            return
        self.forest.expanded.update(opened)
        outcome.pin_opened.extend(opened)
        chosen = set(opened)
        for handle in opened:
            parent = self.forest.parent.get(handle)
            if parent is None or (parent not in chosen and self.forest.is_visible_open(parent)):
                self.projection.show_fold(self.forest.folds[handle])

    # -- marks -------------------------------------------------------------------------------

    def _apply_mark(self, mark: Mark, outcome: CommitOutcome) -> None:
        if mark.kind == "span":
            inner = [
                other
                for other in self.marks.values()
                if other.kind == "tool" and mark.start <= other.start and other.end <= mark.end
            ]
            for tool_mark in sorted(inner, key=lambda m: m.start):
                self._fold_mark(tool_mark, outcome)
        self._fold_mark(mark, outcome)

    def _fold_mark(self, mark: Mark, outcome: CommitOutcome) -> None:
        del self.marks[mark.id]
        start, end = mark.start, mark.end
        if mark.kind == "span":
            start, end = self._absorb_gaps(start, end)
        size = self.transcript.size_chars(start, end)
        if size < self.options.thresholds.min_fold_chars:
            outcome.dropped_marks[mark.id] = (
                f"{size:,} characters is under minFoldChars "
                f"({self.options.thresholds.min_fold_chars:,})"
            )
            return
        try:
            self._fold(mark.kind, start, end, outcome, mark.brief)
        except ForestError as error:
            outcome.dropped_marks[mark.id] = str(error)
            return
        outcome.applied_marks.append(mark.id)

    def _absorb_gaps(self, start: int, end: int) -> tuple[int, int]:
        """Widen a span over raw gaps to its neighbouring folds that are under minFoldChars."""
        before = self.forest.root_before(start)
        if before is not None and self._absorbable(before.end, start):
            start = before.end
        after = self.forest.root_after(end)
        if after is not None and self._absorbable(end, after.start):
            end = after.start
        return start, end

    def _absorbable(self, start: int, end: int) -> bool:
        if not start < end <= self.transcript.fresh_start:
            return False
        if self.forest.root_overlapping(start, end):
            return False
        return (
            self.transcript.unit_aligned(start, end)
            and self.transcript.size_chars(start, end) < self.options.thresholds.min_fold_chars
            and not self.is_pinned(start, end)
            and not any(
                mark.overlaps(start, end) and not (start <= mark.start and mark.end <= end)
                for mark in self.marks.values()
            )
        )

    def _fold(
        self,
        kind: FoldKind,
        start: int,
        end: int,
        outcome: CommitOutcome,
        brief: str | None = None,
    ) -> Fold:
        built = self.builder.build(kind, start, end, outcome.number, brief)
        self.forest.add(built.fold)
        self.projection.drop_views(start, end)
        self.projection.show_fold(built.fold)
        outcome.built.append(built)
        # A mark wholly inside the new fold has nothing left to do.
        for other in list(self.marks.values()):
            if start <= other.start and other.end <= end:
                del self.marks[other.id]
                outcome.dropped_marks[other.id] = f"covered by {built.fold.handle}"
        return built.fold

    # -- top-up ------------------------------------------------------------------------------

    def _top_up(self, target: int, outcome: CommitOutcome) -> None:
        """Cut spans from the stalest raw material until the target is reached."""
        for start, end in spans_to_cut(
            self.transcript, self.forest, self.projection, self.options, self.is_pinned
        ):
            if self.projection.tokens <= target:
                return
            try:
                self._fold("span", start, end, outcome)
            except ForestError:
                continue

    # -- consolidation ------------------------------------------------------------------------

    def _consolidate(self, outcome: CommitOutcome, target: int | None) -> None:
        """Fold runs of ``consolidate_after`` visible roots (and small gaps) into one.

        Runs of one level first, so trees grow balanced. Only when the commit is still over
        its target are runs of mixed levels folded too, stalest first: a deeper chain is the
        price of reaching the target.
        """
        size = self.options.thresholds.consolidate_after
        runs = OwedRuns(
            self.transcript, self.forest, self.options, self.is_pinned, self._protected, self.levels
        )
        while True:
            group = runs.next_run(size)
            if group is None and target is not None and self.projection.tokens > target:
                group = runs.next_run(size, mixed=True)
            if group is None:
                return
            try:
                self._fold("consolidated", group[0].start, group[-1].end, outcome)
            except ForestError:
                return

    # -- views: withdrawn peeks and the tool-call diet ----------------------------------------

    def _top_level_raw(self, index: int) -> bool:
        return self.forest.root_containing(index) is None and index not in self.pinned

    def _withdraw_peeks(self, outcome: CommitOutcome) -> None:
        """Reduce every consumed ephemeral peek copy to one line."""
        for call_id, peeked in sorted(self.ephemeral.items()):
            sites = self.transcript.result_sites.get(call_id)
            if not sites:
                continue  # the result has not been appended yet
            index = sites[0]
            if index >= self.sent_through:
                continue  # the model has not read it yet
            del self.ephemeral[call_id]
            if not self._top_level_raw(index) or index in self.projection.views:
                continue  # folded or pinned since: the fold or the pin decides what shows
            self.projection.set_view(index, "withdrawn", withdrawn_text(peeked))
            outcome.withdrawn.append(index)

    def _clip(self, outcome: CommitOutcome) -> None:
        """Clip tool results in the oldest ``toolFoldThreshold`` share of the window."""
        share = self.options.tool_fold_threshold
        if share <= 0:
            return
        limit = share * self.projection.tokens
        fresh = self.transcript.fresh_start
        position = 0
        chosen: list[int] = []
        for item in self.projection.items:
            if position >= limit or item.start >= fresh:
                break
            position += item.tokens
            index = item.start
            if item.fold is not None or item.end - index != 1 or index in self.projection.views:
                continue
            entry = self.transcript.entries[index]
            if (
                clippable(entry)
                and entry.tool_name not in self.options.blacklist
                and self._top_level_raw(index)
            ):
                chosen.append(index)
        for index in chosen:
            self.projection.set_view(index, "clipped", clipped_text(self.transcript.entries[index]))
            outcome.clipped.append(index)
