"""The fold editor's freeze steps aside when objects were frozen before it opened (issue 23).

The engine freezes what a session holds after an open and after each commit
(:mod:`pifold_core.settled_objects`): the editor's own objects, frozen on top of that, would
have no one to hand them back when it closes, so it freezes nothing then.
"""

from __future__ import annotations

import gc

from pifold_tui.screens.editor.long_lived import LongLivedObjects


def test_the_editor_freezes_nothing_over_an_earlier_freeze() -> None:
    gc.unfreeze()
    gc.freeze()
    before = gc.get_freeze_count()
    made_after = [object()]  # tracked, alive, and not frozen
    try:
        held = LongLivedObjects()
        held.freeze()
        assert not held.frozen
        assert any(candidate is made_after for candidate in gc.get_objects())
        held.release()
        assert gc.get_freeze_count() == before
    finally:
        gc.unfreeze()


def test_the_editor_hands_back_what_it_froze_itself() -> None:
    gc.unfreeze()
    held = LongLivedObjects()
    held.freeze()
    assert held.frozen and gc.get_freeze_count() > 0
    held.release()
    held.release()
    assert not held.frozen and gc.get_freeze_count() == 0
