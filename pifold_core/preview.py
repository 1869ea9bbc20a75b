"""The commit preview: what a commit would do, computed without doing it (DESIGN §11, §13).

``/fold`` shows it before anything moves, and the bundled agent places its Anthropic cache
breakpoint at the preview's first changed position (the settled boundary: bytes the next
commit will not rewrite). The engine runs the real :class:`~pifold_core.commit.Committer`
between a snapshot and its restore, never touching the store or the log; this module turns
the outcome and the two projections into plain data.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pifold_core.commit import CommitOutcome
from pifold_core.projection import Item

if TYPE_CHECKING:
    from pifold_core.session_state import SessionState

PREVIEW_CAUSES = ("command", "threshold", "overflow")
"""Causes a preview accepts: the ``/fold`` command (every mark) or a band commit."""


class PreviewError(ValueError):
    """The preview was asked for a cause no commit has; the message names it."""


@dataclass(frozen=True, slots=True)
class LandingMark:
    """A pending mark as the preview sees it."""

    id: str
    """``mark-<n>``."""
    kind: str
    """``tool`` or ``span``: the kind of fold it becomes."""
    start_id: str
    """Id of its first entry."""
    end_id: str
    """Id of its last entry (inclusive)."""
    tokens: int
    """Tokens its range costs in the projection now."""


@dataclass(frozen=True, slots=True)
class PreviewFold:
    """One fold the commit would make."""

    handle: str
    """The handle it would get (content-derived, so the real commit gives it the same)."""
    kind: str
    """``tool``, ``span`` or ``consolidated``."""
    start_id: str
    """Id of the first entry it would cover."""
    end_id: str
    """Id of the last entry it would cover (inclusive)."""
    entries: int
    """Entries it would cover."""


@dataclass(frozen=True, slots=True)
class CommitPreview:
    """A dry run of one commit: the figures the real commit would produce."""

    cause: str
    """The cause it was previewed for."""
    target: int | None
    """The committer's own stopping point, on the engine's uncalibrated tiktoken scale
    (``None``: every eligible mark lands). Not a figure for people: it is
    :attr:`aim_tokens` moved onto that scale, net of what the provider counts and the state
    never sees (the host's system prompt and tools), and may be far below it."""
    aim_tokens: int | None
    """Occupancy the commit aims for (``minTarget`` × budget), on the same scale as the
    trigger, the bar and ``/fold-status``'s ``commit aims for (minTarget)``; ``None`` for a
    ``/fold`` commit, which lands every eligible mark whatever the occupancy."""
    tokens_before: int
    """Projected tokens now, the engine's uncalibrated estimate (what the committer counts)."""
    tokens_after: int
    """Projected tokens after the commit, the same uncalibrated estimate."""
    expected_before: int
    """Occupancy expected for the next request now: ``/fold-status``'s ``expected next
    request`` (the provider's last count moved by the calibrated estimate; an estimate)."""
    expected_after: int
    """Occupancy expected for the next request after the commit, on the same scale."""
    landing: tuple[LandingMark, ...]
    """Marks that would land, stalest first."""
    waiting: tuple[LandingMark, ...]
    """Marks that would stay pending because the target was reached first: the band's
    stopping point is between the last landing mark and the first of these."""
    held: tuple[LandingMark, ...]
    """Marks that would stay pending because they reach into the fresh tail or hold pins."""
    dropped: tuple[tuple[str, str], ...]
    """Marks that would be withdrawn instead of folded, with the reason."""
    folds: tuple[PreviewFold, ...]
    """Folds it would make, in the order it would make them."""
    refolded: tuple[str, ...]
    """Expanded folds it would collapse again."""
    pin_opened: tuple[str, ...]
    """Folds it would open so staged pins show raw."""
    clipped: int
    """Tool results it would clip."""
    withdrawn: int
    """Ephemeral peek copies it would withdraw."""
    first_changed: int | None
    """Index of the first projection message whose bytes would change (``None``: none)."""
    uncached_tokens: int
    """Tokens from :attr:`first_changed` to the end of the new projection: what the rewrite
    costs the provider's prefix cache."""
    messages_after: int
    """Messages in the new projection."""
    short_reason: str | None
    """Why it would stop above its target, when it would."""
    refusal: str | None
    """Why no commit would run (nothing staged, folding stopped), or ``None``."""

    @property
    def freed_tokens(self) -> int:
        """Tokens the commit would take out of the window, on the occupancy scale (the same
        tokens the bar and ``/fold-status`` count)."""
        return self.expected_before - self.expected_after

    @property
    def refused(self) -> bool:
        return self.refusal is not None


def check_cause(cause: object) -> str:
    """``cause`` if a preview can be made for it, else a :class:`PreviewError` naming it."""
    if not isinstance(cause, str) or cause not in PREVIEW_CAUSES:
        raise PreviewError(
            f"cannot preview a commit with cause {cause!r}; causes: {', '.join(PREVIEW_CAUSES)}"
        )
    return cause


def first_difference(before: Sequence[str], after: Sequence[str]) -> int | None:
    """The first position where two digest lists differ, or ``None`` when they are equal."""
    for position, (old, new) in enumerate(zip(before, after, strict=False)):
        if old != new:
            return position
    if len(before) == len(after):
        return None
    return min(len(before), len(after))


def _landing(
    state: SessionState, mark_ids: Sequence[str], before: Sequence[Item]
) -> list[LandingMark]:
    """Views of the marks named, read from the state before the dry run ran."""
    entries = state.transcript.entries
    starts = [item.start for item in before]
    views: list[LandingMark] = []
    for mark_id in mark_ids:
        mark = state.marks.get(mark_id)
        if mark is None:
            continue
        first = bisect.bisect_right(starts, mark.start) - 1
        last = bisect.bisect_right(starts, mark.end - 1) - 1
        views.append(
            LandingMark(
                id=mark.id,
                kind=mark.kind,
                start_id=entries[mark.start].id,
                end_id=entries[mark.end - 1].id,
                tokens=sum(item.tokens for item in before[first : last + 1]),
            )
        )
    return views


def build_preview(
    state: SessionState,
    outcome: CommitOutcome,
    before: Sequence[Item],
    after: Sequence[Item],
) -> CommitPreview:
    """The preview of ``outcome``, read once the engine's state is back as it was.

    ``before`` and ``after`` are the projection's items around the dry run.
    """
    settled = set(outcome.applied_marks) | set(outcome.held_marks) | set(outcome.dropped_marks)
    stalest_first = sorted(state.marks.values(), key=lambda mark: (mark.start, -mark.end, mark.id))
    waiting = [mark.id for mark in stalest_first if mark.id not in settled]
    first = first_difference([item.digest for item in before], [item.digest for item in after])
    uncached = 0 if first is None else sum(item.tokens for item in after[first:])
    entries = state.transcript.entries
    return CommitPreview(
        cause=outcome.cause,
        target=outcome.target,
        aim_tokens=None if outcome.target is None else state.options.min_tokens,
        tokens_before=outcome.tokens_before,
        tokens_after=outcome.tokens_after,
        expected_before=state.meter.expected(outcome.tokens_before),
        expected_after=state.meter.expected(outcome.tokens_after),
        landing=tuple(_landing(state, outcome.applied_marks, before)),
        waiting=tuple(_landing(state, waiting, before)),
        held=tuple(_landing(state, outcome.held_marks, before)),
        dropped=tuple(sorted(outcome.dropped_marks.items())),
        folds=tuple(
            PreviewFold(
                handle=built.fold.handle,
                kind=built.fold.kind,
                start_id=entries[built.fold.start].id,
                end_id=entries[built.fold.end - 1].id,
                entries=built.fold.end - built.fold.start,
            )
            for built in outcome.built
        ),
        refolded=tuple(outcome.refolded),
        pin_opened=tuple(outcome.pin_opened),
        clipped=len(outcome.clipped),
        withdrawn=len(outcome.withdrawn),
        first_changed=first,
        uncached_tokens=uncached,
        messages_after=len(after),
        short_reason=outcome.short_reason,
        refusal=None if outcome.changed else nothing_staged_reason(state, outcome),
    )


def nothing_staged_reason(state: SessionState, outcome: CommitOutcome) -> str:
    """Why a commit would change nothing, naming what holds the pending marks back."""
    if not state.marks:
        return (
            "nothing staged: no pending mark, no staged refold or pin, and no tool result "
            "due to clip"
        )
    held = len(outcome.held_marks)
    dropped = len(outcome.dropped_marks)
    parts = []
    if held:
        parts.append(f"{held} held (fresh tail or pinned entries)")
    if dropped:
        parts.append(f"{dropped} too small or blocked")
    detail = ", ".join(parts) if parts else "none can land"
    return f"nothing staged that can land: {len(state.marks)} pending marks, {detail}"


def stopped_preview(state: SessionState, cause: str, reason: str) -> CommitPreview:
    """The preview when no commit may run at all (folding stopped)."""
    tokens = state.projection.tokens
    expected = state.meter.expected(tokens)
    return CommitPreview(
        cause=cause,
        target=None,
        aim_tokens=None,
        tokens_before=tokens,
        tokens_after=tokens,
        expected_before=expected,
        expected_after=expected,
        landing=(),
        waiting=(),
        held=(),
        dropped=(),
        folds=(),
        refolded=(),
        pin_opened=(),
        clipped=0,
        withdrawn=0,
        first_changed=None,
        uncached_tokens=0,
        messages_after=len(state.projection.items),
        short_reason=None,
        refusal=reason,
    )


__all__ = [
    "PREVIEW_CAUSES",
    "CommitPreview",
    "LandingMark",
    "PreviewError",
    "PreviewFold",
    "build_preview",
    "check_cause",
    "first_difference",
    "stopped_preview",
]
