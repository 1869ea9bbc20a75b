"""Which visible roots a commit consolidates next (DESIGN §5).

A commit folds runs of ``consolidateAfter`` visible roots (and the small raw gaps between
them) into one consolidated fold, so trees deepen instead of the index growing.
:class:`OwedRuns` finds the next such run for the :class:`~pifold_core.commit.Committer`;
:class:`FoldLevels` knows each fold's height, which decides what may be grouped (runs of
one level first, so trees grow balanced).

What a search costs does not grow with the session (issue 23): it walks the roots, which
consolidation keeps few, reads the entries of the gaps and tool folds only (a span or
consolidated fold keeps each call with its results), and takes each root's level from
:class:`FoldLevels`, kept for the session: a fold's children never change, so neither does
its level. Computed afresh at each commit, the levels walked every fold under every root:
all of the session's folds, every commit.
"""

from __future__ import annotations

from collections.abc import Callable

from pifold_core.folds import Fold, Forest
from pifold_core.options import EngineOptions
from pifold_core.transcript import Transcript


class FoldLevels:
    """Each fold's height, computed once: 0 for a tool or span fold; a consolidated fold sits
    one above its highest child. A handle names a fold's parts (its digest), so a fold made
    again after a commit was taken back has the same children and the same level."""

    def __init__(self) -> None:
        self._levels: dict[str, int] = {}
        self.computed = 0
        """Levels computed so far (each fold's once; for tests)."""

    def __len__(self) -> int:
        """Folds whose level is known."""
        return len(self._levels)

    def of(self, fold: Fold, forest: Forest) -> int:
        """The level of ``fold``, a fold of ``forest``."""
        if fold.kind != "consolidated":
            return 0
        level = self._levels.get(fold.handle)
        if level is None:
            level = 1 + max(
                (self.of(forest.folds[child], forest) for child in fold.children), default=0
            )
            self._levels[fold.handle] = level
            self.computed += 1
        return level


class OwedRuns:
    """Finds the next run of visible roots a consolidated fold is owed, over the commit's
    live structures (see the module docstring)."""

    def __init__(
        self,
        transcript: Transcript,
        forest: Forest,
        options: EngineOptions,
        is_pinned: Callable[[int, int], bool],
        protected: set[str],
        levels: FoldLevels,
    ) -> None:
        self.transcript = transcript
        self.forest = forest
        self.options = options
        self.is_pinned = is_pinned
        self.protected = protected
        """Folds being expanded: no run may hold one."""
        self.levels = levels

    def next_run(self, size: int, mixed: bool = False) -> list[Fold] | None:
        """The stalest run of ``size`` foldable roots before the fresh tail, or ``None``.
        Without ``mixed`` only roots of one level are grouped."""
        fresh = self.transcript.fresh_start
        gap_limit = self.options.thresholds.min_fold_chars
        run: list[Fold] = []
        for root in self.forest.roots():
            if root.end > fresh:
                break
            if (
                root.handle in self.forest.expanded
                or root.handle in self.protected
                or self.is_pinned(root.start, root.end)
            ):
                run = []
                continue
            if run:
                gap_start, gap_end = run[-1].end, root.start
                if gap_end > gap_start and (
                    self.transcript.size_chars(gap_start, gap_end) >= gap_limit
                    or self.is_pinned(gap_start, gap_end)
                ):
                    run = []
            # With or without a gap: a run headed by a tool fold (its call sits before it) can
            # never be folded, so it must not hold up the roots that follow.
            if run and self._run_splits_call(run, root):
                run = []
            # Only roots of one level are grouped, so trees grow balanced (ten spans make a
            # parent, ten parents a grandparent) instead of a chain in which each parent holds
            # the previous one and reaching the oldest chapter takes one expand per link.
            if run and not mixed and self._level(root) != self._level(run[0]):
                run = []
            run.append(root)
            if len(run) == size:
                return run
        return None

    def _level(self, fold: Fold) -> int:
        return self.levels.of(fold, self.forest)

    def _run_splits_call(self, run: list[Fold], root: Fold) -> bool:
        """Whether folding ``run`` and ``root`` as one would separate a call from a result.

        Only the gaps between them and their tool folds can: a span or consolidated fold
        keeps each call with its results (checked when it was made), so its entries are
        not read. Scanning the whole range instead made each commit's grouping cost grow
        with the session (each root rescanned every run it might join: 60 % of a late
        commit's CPU at 10,000 entries).
        """
        indices: list[int] = []
        position = run[0].start
        for member in [*run, root]:
            indices.extend(range(position, member.start))
            if member.kind == "tool":
                indices.extend(range(member.start, member.end))
            position = member.end
        return self.transcript.split_call_among(indices, run[0].start, root.end) is not None


__all__ = ["FoldLevels", "OwedRuns"]
