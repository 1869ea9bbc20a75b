"""The words after the bar: ``34% · commit at 80% · 7 Folds (2 Cons., 3 Span, 1 Pin)``.

Pure text with a role per piece, so a painter can colour each kind's label like its part of
the bar without parsing the string back. Each of the three figures (the reading, the trigger
with the floor that may block it, the folds) can be written in a full form and in shorter
ones, and :func:`fitted_suffix` chooses the forms the row's width can hold.

The bar's 40 cells always stay (they are the figure at a glance); the words after them are
shortened one step at a time, in this order, until they fit:

0. (the fixed prefix, ``prefix 2.8k``, stays until the fold counts have gone, step 2);
1. the floor that blocks a commit keeps its essentials (``commit at 80% blocked: 75k budget
   works``) instead of its breakdown of host, pins and tail;
2. the fold counts shrink to one letter per kind (``7 Folds (2C 3S 1P)``, each coloured like
   its part of the bar), then to the total (``7 Folds``), then go (the bar shows them), and
   the fixed prefix goes with them;
3. a blocked commit drops its percentage (``commit blocked: 75k budget works``; the bar's
   mark shows where it fires);
4. the reading's note shortens (``~34% after commit``, ``~34%``, ``not measured``,
   ``unavailable``);
5. a blocked commit drops the budget that works (``commit blocked``);
6. the trigger goes (and the reading's note is written out again if it then fits);
7. the reading goes, leaving the bar alone.

So the window figure is the last to go and then the trigger, and nothing is ever cut in the
middle of a word: a form either fits whole or a shorter one is taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum

from rich.cells import cell_len

from pifold_core.composition import Category, Composition
from pifold_tui.fold_bar.layout import BarState, round_half_up, state_of

SEPARATOR = " · "
"""Between the suffix's three figures."""

UNAVAILABLE_TEXT = "composition unavailable"
UNAVAILABLE_SHORT = "unavailable"
NOT_MEASURED_TEXT = "not measured yet"
NOT_MEASURED_SHORT = "not measured"
AFTER_COMMIT_NOTE = " estimated after commit"
"""After the ``~`` figure while the provider has not counted the window a commit rewrote:
the figure is the engine's estimate of the window now (the one the trigger compares), never
the count taken before the commit, which no longer describes the window."""
AFTER_COMMIT_SHORT = " after commit"
"""The same note where the width is short (the ``~`` still says it is an estimate)."""
ESTIMATE_PREFIX = "~"
ESTIMATE_NOTE = " estimated"
"""Around a reading that is the engine's own estimate rather than the provider's count
(the short form keeps only the ``~``)."""

KIND_LABELS: tuple[tuple[str, str, Category], ...] = (
    ("Cons.", "C", Category.CONSOLIDATED),
    ("Span", "S", Category.SPAN),
    ("Tool", "T", Category.TOOL),
    ("Mark", "M", Category.MARKED),
    ("Pin", "P", Category.PINNED),
)
"""The counted kinds in the bar's order: the label, its one-letter form (coloured like the
bar, as the label is) and the category whose colour it takes."""


class Role(StrEnum):
    """How a piece of the suffix is coloured."""

    TEXT = "text"
    """Ordinary foreground."""
    MUTED = "muted"
    """Separators, notes and states: secondary ink."""
    CATEGORY = "category"
    """A kind's count and label, in its category's colour."""


class ReadingForm(IntEnum):
    """How the occupancy figure is written, longest first."""

    FULL = 0
    """``~34% estimated after commit``, ``~34% estimated``, ``not measured yet``."""
    SHORT = 1
    """``~34% after commit``, ``~34%``, ``not measured``, ``unavailable``."""


class TriggerForm(IntEnum):
    """How the commit trigger, and the floor when it blocks the commit, are written."""

    FULL = 0
    """``commit at 80% blocked by floor (host 30k, pins 0, tail 9k; 75k budget works)``."""
    BLOCKED_AT = 1
    """``commit at 80% blocked: 75k budget works``."""
    BLOCKED = 2
    """``commit blocked: 75k budget works`` (the bar's mark shows where it fires)."""
    BLOCKED_BARE = 3
    """``commit blocked``."""
    HIDDEN = 4
    """Left out."""


class FoldsForm(IntEnum):
    """How the fold counts are written."""

    FULL = 0
    """``7 Folds (2 Cons., 3 Span, 4 Mark, 1 Pin)``."""
    LETTERS = 1
    """``7 Folds (2C 3S 4M 1P)``."""
    COUNT = 2
    """``7 Folds``."""
    HIDDEN = 3
    """Left out."""


@dataclass(frozen=True, slots=True)
class SuffixForms:
    """Which form of each figure a suffix uses."""

    reading: ReadingForm = ReadingForm.FULL
    trigger: TriggerForm = TriggerForm.FULL
    folds: FoldsForm = FoldsForm.FULL
    prefix: bool = True
    """Whether the host's fixed prefix (``prefix 2.8k``) is named after the reading."""


FULL_FORMS = SuffixForms()
"""Every figure written out (DESIGN §10's suffix)."""


@dataclass(frozen=True, slots=True)
class SuffixPart:
    """A run of suffix text with one colour role."""

    text: str
    """The characters."""
    role: Role = Role.TEXT
    """How to colour them."""
    category: Category | None = None
    """For :attr:`Role.CATEGORY`, whose colour."""


def format_percent(fill_tokens: int, budget: int) -> str:
    """Occupancy as a whole percentage of the budget; ``<1%`` for a sliver, never ``0%``
    when something is there."""
    if budget <= 0:
        return "?%"
    percent = round_half_up(100 * fill_tokens / budget)
    if percent == 0 and fill_tokens > 0:
        return "<1%"
    return f"{percent}%"


def _reading_parts(
    composition: Composition, state: BarState, form: ReadingForm
) -> list[SuffixPart]:
    short = form is ReadingForm.SHORT
    if state is BarState.NOT_MEASURED or composition.fill_tokens is None:
        return [SuffixPart(NOT_MEASURED_SHORT if short else NOT_MEASURED_TEXT, Role.MUTED)]
    percent = format_percent(composition.fill_tokens, composition.budget)
    if state is BarState.ESTIMATED_AFTER_COMMIT:
        note = AFTER_COMMIT_SHORT if short else AFTER_COMMIT_NOTE
        return [SuffixPart(ESTIMATE_PREFIX + percent), SuffixPart(note, Role.MUTED)]
    if state is BarState.ESTIMATED:
        if short:
            return [SuffixPart(ESTIMATE_PREFIX + percent)]
        return [SuffixPart(ESTIMATE_PREFIX + percent), SuffixPart(ESTIMATE_NOTE, Role.MUTED)]
    return [SuffixPart(percent)]


def _folds_parts(composition: Composition, form: FoldsForm) -> list[SuffixPart]:
    if form is FoldsForm.HIDDEN:
        return []
    counts = composition.counts
    noun = "Fold" if counts.folds == 1 else "Folds"
    parts = [SuffixPart(f"{counts.folds} {noun}")]
    values = {
        Category.CONSOLIDATED: counts.consolidated,
        Category.SPAN: counts.span,
        Category.TOOL: counts.tool,
        Category.MARKED: counts.marks,
        Category.PINNED: counts.pins,
    }
    kinds = [
        (label, letter, category) for label, letter, category in KIND_LABELS if values[category] > 0
    ]
    if not kinds or form is FoldsForm.COUNT:
        return parts
    letters = form is FoldsForm.LETTERS
    parts.append(SuffixPart(" ("))
    for position, (label, letter, category) in enumerate(kinds):
        if position:
            parts.append(SuffixPart(" " if letters else ", "))
        text = f"{values[category]}{letter}" if letters else f"{values[category]} {label}"
        parts.append(SuffixPart(text, Role.CATEGORY, category))
    parts.append(SuffixPart(")"))
    return parts


def thousands(tokens: int) -> str:
    """Tokens in whole thousands (``30k``), or as they are under a thousand."""
    return f"{round_half_up(tokens / 1_000)}k" if tokens >= 1_000 else str(tokens)


def _trigger_parts(composition: Composition, form: TriggerForm) -> list[SuffixPart]:
    """``commit at 80%``, followed, when the floor blocks the commit, by why and what works."""
    if form is TriggerForm.HIDDEN:
        return []
    commit_at = f"commit at {round_half_up(100 * composition.max_target)}%"
    floor = composition.floor
    if floor is None:
        return [SuffixPart(commit_at)]
    works = f"{thousands(floor.budget_that_works)} budget works"
    if form is TriggerForm.FULL:
        note = (
            f" blocked by floor (host {thousands(floor.host_tokens)}, pins "
            f"{thousands(floor.pin_tokens)}, tail {thousands(floor.fresh_tokens)}; {works})"
        )
        return [SuffixPart(commit_at), SuffixPart(note, Role.MUTED)]
    if form is TriggerForm.BLOCKED_AT:
        return [SuffixPart(commit_at), SuffixPart(f" blocked: {works}", Role.MUTED)]
    if form is TriggerForm.BLOCKED:
        return [SuffixPart("commit"), SuffixPart(f" blocked: {works}", Role.MUTED)]
    return [SuffixPart("commit"), SuffixPart(" blocked", Role.MUTED)]


def prefix_figure(tokens: int) -> str:
    """The fixed prefix's size: ``2.8k`` under ten thousand, ``12k`` above, as is under one."""
    if tokens < 1_000:
        return str(tokens)
    return f"{tokens / 1_000:.1f}k" if tokens < 10_000 else thousands(tokens)


def _prefix_parts(composition: Composition, shown: bool) -> list[SuffixPart]:
    """``prefix 2.8k``: the system prompt and tools every request carries (issue 22), in the
    fill but in no category, so named in words."""
    if not shown or not composition.prefix_tokens:
        return []
    return [SuffixPart(f"prefix {prefix_figure(composition.prefix_tokens)}", Role.MUTED)]


def _joined(groups: Sequence[list[SuffixPart]]) -> tuple[SuffixPart, ...]:
    parts: list[SuffixPart] = []
    for group in groups:
        if not group:
            continue
        if parts:
            parts.append(SuffixPart(SEPARATOR, Role.MUTED))
        parts.extend(group)
    return tuple(parts)


def suffix_parts(
    composition: Composition | None, forms: SuffixForms = FULL_FORMS
) -> tuple[SuffixPart, ...]:
    """The suffix for ``composition`` as coloured runs (``None``: unavailable), each figure
    in the form ``forms`` names (all written out unless told otherwise)."""
    state = state_of(composition)
    if composition is None or state is BarState.UNAVAILABLE:
        short = forms.reading is ReadingForm.SHORT
        return (SuffixPart(UNAVAILABLE_SHORT if short else UNAVAILABLE_TEXT, Role.MUTED),)
    return _joined(
        (
            _reading_parts(composition, state, forms.reading),
            _prefix_parts(composition, forms.prefix),
            _trigger_parts(composition, forms.trigger),
            _folds_parts(composition, forms.folds),
        )
    )


def suffix_text(composition: Composition | None, forms: SuffixForms = FULL_FORMS) -> str:
    """The suffix as plain text."""
    return "".join(part.text for part in suffix_parts(composition, forms))


SHORTENING_ORDER: tuple[SuffixForms, ...] = (
    FULL_FORMS,
    SuffixForms(trigger=TriggerForm.BLOCKED_AT),
    SuffixForms(trigger=TriggerForm.BLOCKED_AT, folds=FoldsForm.LETTERS),
    SuffixForms(trigger=TriggerForm.BLOCKED_AT, folds=FoldsForm.COUNT),
    SuffixForms(trigger=TriggerForm.BLOCKED_AT, folds=FoldsForm.HIDDEN),
    SuffixForms(trigger=TriggerForm.BLOCKED_AT, folds=FoldsForm.HIDDEN, prefix=False),
    SuffixForms(trigger=TriggerForm.BLOCKED, folds=FoldsForm.HIDDEN, prefix=False),
    SuffixForms(ReadingForm.SHORT, TriggerForm.BLOCKED, FoldsForm.HIDDEN, False),
    SuffixForms(ReadingForm.SHORT, TriggerForm.BLOCKED_BARE, FoldsForm.HIDDEN, False),
    SuffixForms(ReadingForm.FULL, TriggerForm.HIDDEN, FoldsForm.HIDDEN, False),
    SuffixForms(ReadingForm.SHORT, TriggerForm.HIDDEN, FoldsForm.HIDDEN, False),
)
"""Every suffix the bar may show, fullest first, in the steps of the module's list."""


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
