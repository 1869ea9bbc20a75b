"""A session's long-lived objects kept out of the cycle collector's full passes (issue 23).

Python's cyclic garbage collector walks every tracked object at each full (generation-2)
collection, and it starts one whenever the objects promoted since the last grow past a
quarter of those it already holds. A session keeps almost everything it builds for as long
as it is open (its entries' facts and log spans, units, folds, projection items), about
eight tracked objects an entry: a full pass grows with the session's length, wherever it
falls, and one that lands inside a commit makes it the costliest (see **At scale** in
``docs/performance.md``).

The engine owns the moments after which what it holds is settled: an open has put the
session back, a commit has landed. :meth:`SettledObjects.settle` then moves every object
alive in the process to the collector's permanent generation (``gc.freeze()``), which no
collection walks, so later full passes walk only what was made since: their cost is
bounded by one commit's allocations, not by the session's length. After a commit it first
collects what is garbage among those (a full collection walks only the unfrozen objects),
so no garbage cycle made since the last settle is frozen. After an open it does not: the
open holds the collector off while it builds (:func:`pifold_core.checkpoint.collector_paused`),
so that collection would walk all it built, the cost the freeze is there to spare, and
what little an open leaves unreachable is collected once the engine closes.

What a freeze costs: an object frozen that later becomes part of a garbage cycle is not
collected until it is handed back. The engine's own objects that a commit lets go
(entries replaced by their facts, projection items, spent marks) hold no cycle and go by
reference counting, as before: a 10,000-entry drive left no garbage frozen.
:meth:`SettledObjects.release`, on the engine's close, hands every frozen object back
(``gc.unfreeze()``) so that a closed engine, itself a cycle (its commit runner calls it
back), and whatever its host froze with it are collected; another engine open in the same
process has its objects handed back too, and freezes them again at its next commit. A host
that turned the collector off (``gc.disable()``) has a policy of its own: nothing is frozen.
"""

from __future__ import annotations

import gc


class HeldFreeze:
    """A ``gc.freeze()`` its owner made and hands back once (``gc.unfreeze()``): the one
    mechanism under the engine's freeze (:class:`SettledObjects`) and the fold editor's."""

    def __init__(self) -> None:
        self.frozen = False
        """Whether this owner froze objects that :meth:`release` has not handed back."""

    def hold(self) -> None:
        """Freeze every object alive now, and remember to hand them back."""
        gc.freeze()
        self.frozen = True

    def release(self) -> None:
        """Hand the frozen objects back to the collector (idempotent)."""
        if self.frozen:
            self.frozen = False
            gc.unfreeze()


class SettledObjects(HeldFreeze):
    """Freezes every object alive once a session's state has settled (see the module
    docstring), and hands them back when the session closes."""

    def settle(self, collect: bool) -> None:
        """Leave every object alive now out of later full collections; with ``collect``,
        first collect the garbage among the objects made since the last freeze."""
        if not gc.isenabled():
            return
        if collect:
            gc.collect()
        self.hold()


__all__ = ["HeldFreeze", "SettledObjects"]
