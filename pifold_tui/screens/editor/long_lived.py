"""Objects that outlive the fold editor are left out of the collector's full passes while
it is open (issue 23).

Python's cyclic garbage collector walks every tracked object at each full collection. A
session of 20,000 entries holds well over 100,000 (the transcript's entries and their
facts, the forest, the projection), all alive for as long as the session is, so a full
collection while the editor opens cost 130 to 190 ms of CPU measured with ``gc.callbacks``,
on the UI thread. ``gc.freeze()`` moves every object alive now to a permanent generation that
no collection walks; the editor's own objects, made after, are still collected as usual.

The freeze is scoped to the screen: when it closes, :meth:`LongLivedObjects.release` hands
the objects back with ``gc.unfreeze()``, so garbage cycles that happened to be alive when
the editor opened (a screen closed just before, say) are still collected afterwards. When
something froze objects before the editor opened (the engine does, after an open and after
each commit: :mod:`pifold_core.settled_objects`), the session's objects are out of full
collections already, and the editor freezes nothing: its own objects, frozen with no one to
hand them back, would outlive it.
"""

from __future__ import annotations

import gc

from pifold_core.settled_objects import HeldFreeze


class LongLivedObjects(HeldFreeze):
    """A freeze of every object alive, held while one screen is open."""

    def freeze(self) -> None:
        """Leave every object alive now out of full collections, unless objects were frozen
        already (idempotent)."""
        if self.frozen or gc.get_freeze_count() > 0:
            return
        self.hold()


__all__ = ["LongLivedObjects"]
