"""Fitting the suffix to the columns the bar's row leaves: what goes first when it is narrow.

The bar's 40 cells always stay (they are the figure at a glance); the words after them are
shortened one step at a time, in this order, until they fit:

1. the floor that blocks a commit keeps its essentials (``commit at 80% blocked: 75k budget
   works``) instead of its breakdown of host, pins and tail;
2. the fold counts shrink to one letter per kind (``7 Folds (2C 3S 1P)``, each coloured like
   its part of the bar), then to the total (``7 Folds``), then go (the bar shows them);
3. a blocked commit drops its percentage (``commit blocked: 75k budget works``; the bar's
   mark shows where it fires);
4. the reading's note shortens (``34% stale``, ``~34%``, ``not measured``,
   ``unavailable``);
5. a blocked commit drops the budget that works (``commit blocked``);
6. the trigger goes (and the reading's note is written out again if it then fits);
7. the reading goes, leaving the bar alone.

So the window figure is the last to go and then the trigger, and nothing is ever cut in the
middle of a word: a form either fits whole or a shorter one is taken.
"""

from __future__ import annotations

from rich.cells import cell_len

from pifold_core.composition import Composition
from pifold_tui.fold_bar.suffix import (
    FULL_FORMS,
    FoldsForm,
    ReadingForm,
    SuffixForms,
    SuffixPart,
    TriggerForm,
    suffix_parts,
)

SHORTENING_ORDER: tuple[SuffixForms, ...] = (
    FULL_FORMS,
    SuffixForms(trigger=TriggerForm.BLOCKED_AT),
    SuffixForms(trigger=TriggerForm.BLOCKED_AT, folds=FoldsForm.LETTERS),
    SuffixForms(trigger=TriggerForm.BLOCKED_AT, folds=FoldsForm.COUNT),
    SuffixForms(trigger=TriggerForm.BLOCKED_AT, folds=FoldsForm.HIDDEN),
    SuffixForms(trigger=TriggerForm.BLOCKED, folds=FoldsForm.HIDDEN),
    SuffixForms(ReadingForm.SHORT, TriggerForm.BLOCKED, FoldsForm.HIDDEN),
    SuffixForms(ReadingForm.SHORT, TriggerForm.BLOCKED_BARE, FoldsForm.HIDDEN),
    SuffixForms(ReadingForm.FULL, TriggerForm.HIDDEN, FoldsForm.HIDDEN),
    SuffixForms(ReadingForm.SHORT, TriggerForm.HIDDEN, FoldsForm.HIDDEN),
)
"""Every suffix the bar may show, longest first (the steps of the module's list)."""


def width_of(parts: tuple[SuffixPart, ...]) -> int:
    """Terminal cells the parts take."""
    return sum(cell_len(part.text) for part in parts)


def fitted_forms(composition: Composition | None, columns: int | None) -> SuffixForms | None:
    """The first forms in :data:`SHORTENING_ORDER` whose suffix fits in ``columns`` cells
    (``None``: no limit), or ``None`` when not even the shortest does."""
    for forms in SHORTENING_ORDER:
        if columns is None or width_of(suffix_parts(composition, forms)) <= columns:
            return forms
    return None


def fitted_suffix(composition: Composition | None, columns: int | None) -> tuple[SuffixPart, ...]:
    """The suffix for ``composition`` in at most ``columns`` cells (empty if none fits)."""
    forms = fitted_forms(composition, columns)
    if forms is None:
        return ()
    return suffix_parts(composition, forms)
