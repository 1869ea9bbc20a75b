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
something else froze objects before the editor opened, the editor adds to that freeze and
never undoes it: the process has a policy of its own.
"""

from __future__ import annotations

import gc


class LongLivedObjects:
    """A freeze of every object alive, held while one screen is open."""

    def __init__(self) -> None:
        self.frozen = False
        """Whether :meth:`freeze` froze objects that :meth:`release` has not handed back."""
        self._owned = False
        """Nothing was frozen before :meth:`freeze`, so :meth:`release` may unfreeze all."""

    def freeze(self) -> None:
        """Leave every object alive now out of full collections (idempotent)."""
        if self.frozen:
            return
        self._owned = gc.get_freeze_count() == 0
        gc.freeze()
        self.frozen = True

    def release(self) -> None:
        """Hand the frozen objects back to the collector, unless another freeze was in
        force first (idempotent)."""
        if not self.frozen:
            return
        self.frozen = False
        if self._owned:
            gc.unfreeze()


__all__ = ["LongLivedObjects"]
