"""Do suggestions at a commit name folds the session goes on to need? (issue 21, part 3)

While the ``fold`` arm replays a trace, after every request whose commit landed the engine is
asked which folds its note would suggest (:meth:`Engine.suggestions`; nothing is appended, so
the arm's other figures are those of a run without surfacing), and which folds it could have
named instead: every fold that is innermost for some entry.

Afterwards, for each such commit at trace position ``p`` with ``k`` folds suggested:

* **only in them**: the identifiers (identifier-like tokens,
  :func:`pifold_core.identifiers.scan_text`, of each entry's text and of the model's tool-call
  arguments) that the suggested folds' entries hold and no other entry before ``p`` does:
  what the suggestion alone could bring back;
* **used later**: how many of the assistant entries among the next :data:`HORIZON` entries
  of the recorded session use one of them (in their text or tool calls).

The same count is taken for ``k`` folds drawn at random (seeded) from the folds it could have
named, :data:`RANDOM_DRAWS` times, and averaged: the baseline a suggestion must beat.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pifold_bench.arms import Arm, EngineArm
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.identifiers import later_uses, scan_entry, scan_text

HORIZON = 40
"""Later entries of the recorded session read for a use."""

RANDOM_DRAWS = 20
"""Random choices of folds averaged for the baseline."""


@dataclass(frozen=True, slots=True)
class SuggestionPoint:
    """What one commit would have suggested, as trace positions."""

    position: int
    """The trace position of the entry the request came before."""
    suggested: tuple[tuple[int, ...], ...]
    """Each suggested fold's entries."""
    pool: tuple[tuple[int, ...], ...]
    """Each fold it could have named (innermost for some entry), with its entries."""


@dataclass(frozen=True, slots=True)
class SuggestionMeasure:
    """The measure over one trace."""

    commits: int
    """Commits that suggested at least one fold."""
    folds: int
    """Folds suggested, over all of them."""
    later: int
    """Assistant entries read after them (within :data:`HORIZON` entries of each)."""
    used: int
    """Of those, the ones that use a name found only in the suggested folds."""
    used_at_random: float
    """The same for random folds of the same count (mean over the draws)."""

    def describe(self) -> str:
        """One line for the report."""
        if not self.commits:
            return "suggestions at a commit: no commit had a fold to suggest"
        return (
            f"suggestions at a commit: {self.commits} commits suggested {self.folds} folds; "
            f"{self.used} of the {self.later} model messages after them used a name found "
            f"only in those folds (random folds of the same count: {self.used_at_random:.1f})"
        )


class SuggestionWatcher:
    """Asks the engine after each commit what it would suggest (see the module docstring)."""

    def __init__(self, engine: Engine, entries: Sequence[Entry]) -> None:
        self._engine = engine
        self._entries = entries
        self._places = {entry.id: position for position, entry in enumerate(entries)}
        self._commits = engine.view.commit_count
        self.points: list[SuggestionPoint] = []
        """What each commit so far would have suggested."""

    def measure(self, seed: int = 7) -> SuggestionMeasure:
        """:func:`measure` of the points so far against the recorded session."""
        return measure(self._entries, self.points, seed)

    def after_request(self, position: int) -> None:
        """Called after each request, made before the entry at trace ``position``."""
        places = self._places
        view = self._engine.view
        if view.commit_count == self._commits:
            return
        self._commits = view.commit_count
        suggested = self._engine.suggestions()
        if not suggested:
            return
        folds = view.forest.folds

        def entries_of(handle: str) -> tuple[int, ...]:
            fold = folds[handle]
            ids = (view.transcript.id_of(index) for index in range(fold.start, fold.end))
            return tuple(places[identifier] for identifier in ids if identifier in places)

        pool = [
            handle
            for handle, fold in folds.items()
            if sum(folds[child].end - folds[child].start for child in fold.children)
            < fold.end - fold.start
        ]
        self.points.append(
            SuggestionPoint(
                position,
                tuple(entries_of(item.handle) for item in suggested),
                tuple(entries_of(handle) for handle in sorted(pool)),
            )
        )


def watch_suggestions(arm: Arm, entries: Sequence[Entry]) -> SuggestionWatcher | None:
    """A watcher for the ``fold`` arm only (one measure per trace: the other engine arms
    differ from it in when they commit, not in what is related)."""
    if isinstance(arm, EngineArm) and arm.name == "fold":
        return SuggestionWatcher(arm.engine, entries)
    return None


def measure(
    entries: Sequence[Entry], points: Sequence[SuggestionPoint], seed: int = 7
) -> SuggestionMeasure:
    """Score ``points`` against the recorded session ``entries`` (see the module docstring)."""
    names = [_names(entry) for entry in entries]
    before: Counter[str] = Counter()
    counted = 0
    read = 0
    used = 0
    at_random = 0.0
    folds = 0
    for point in points:
        for position in range(counted, point.position):
            before.update(names[position])
        counted = max(counted, point.position)
        later = [
            set(later_uses([entry]))
            for entry in entries[point.position : point.position + HORIZON]
            if entry.kind == "assistant"
        ]
        folds += len(point.suggested)
        read += len(later)
        used += _used(_only_in(point.suggested, names, before), later)
        draws = random.Random(f"{seed}:{point.position}")
        count = min(len(point.suggested), len(point.pool))
        hits = sum(
            _used(_only_in(draws.sample(point.pool, count), names, before), later)
            for _ in range(RANDOM_DRAWS)
        )
        at_random += hits / RANDOM_DRAWS
    return SuggestionMeasure(len(points), folds, read, used, at_random)


def _names(entry: Entry) -> frozenset[str]:
    """The identifiers an entry holds (and, for the model's entries, writes in its calls)."""
    found = scan_entry(entry).tokens()
    if entry.kind != "assistant" or not entry.tool_calls:
        return found
    return found | scan_text("\n".join(later_uses([entry]))).tokens()


def _only_in(
    chosen: Iterable[tuple[int, ...]], names: Sequence[frozenset[str]], before: Counter[str]
) -> set[str]:
    """Names the chosen folds' entries hold that no other entry before the commit holds."""
    inside: Counter[str] = Counter()
    for position in {position for fold in chosen for position in fold}:
        inside.update(names[position])
    return {name for name, count in inside.items() if before[name] == count}


def _used(only: set[str], later: Sequence[set[str]]) -> int:
    """How many later assistant entries use one of ``only``."""
    return sum(1 for uses in later if uses & only)


__all__ = [
    "HORIZON",
    "RANDOM_DRAWS",
    "SuggestionMeasure",
    "SuggestionPoint",
    "SuggestionWatcher",
    "measure",
    "watch_suggestions",
]
