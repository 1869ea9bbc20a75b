"""Building the engine's status report, window composition and fold tree (DESIGN §7
``status``).

Pure reads of the session state; the data types live in :mod:`pifold_core.status` and the text
in the tool's renderer.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from pifold_core.composition import Category, Composition, FoldCounts
from pifold_core.host_prefix import PrefixFloor, prefix_floor
from pifold_core.status import (
    AuditView,
    DamagedObject,
    EngineStatus,
    FoldRow,
    FoldState,
    MarkView,
    Occupancy,
)
from pifold_core.store import StoreError, StoreObjectMissing
from pifold_core.window import compose

if TYPE_CHECKING:
    from pifold_core.marks import Mark
    from pifold_core.session_state import SessionState


def _mark_view(state: SessionState, mark: Mark) -> MarkView:
    entries = state.transcript.entries
    projection = state.projection
    first = projection.item_index_at(mark.start)
    last = projection.item_index_at(mark.end - 1)
    tokens = sum(item.tokens for item in projection.items[first : last + 1])
    return MarkView(
        id=mark.id,
        kind=mark.kind,
        start_id=entries[mark.start].id,
        end_id=entries[mark.end - 1].id,
        entries=mark.end - mark.start,
        chars=state.transcript.size_chars(mark.start, mark.end),
        tokens=tokens,
        brief=mark.brief,
    )


def build_status(state: SessionState) -> EngineStatus:
    """Everything ``status`` reports, read from the session without changing it."""
    options = state.options
    composition = build_composition(state)
    estimate = state.projection.tokens
    marks = sorted(state.marks.values(), key=lambda m: (m.start, -m.end, m.id))
    entries = state.transcript.entries
    pins = sorted(state.pinned)
    counts = state.audit.counts
    sources = {fold.source_digest: fold.source_bytes for fold in state.forest.folds.values()}
    return EngineStatus(
        budget=options.budget,
        max_tokens=options.max_tokens,
        min_tokens=options.min_tokens,
        occupancy=Occupancy(
            tokens=state.expected_tokens(),
            reading=composition.reading,
            shown_tokens=composition.fill_tokens,
            estimated_tokens=state.meter.whole_estimate(estimate),
            calibration=round(state.meter.calibration, 4),
            prefix_tokens=state.meter.prefix_tokens,
        ),
        counts=FoldCounts(
            consolidated=composition.counts.consolidated,
            span=composition.counts.span,
            tool=composition.counts.tool,
            marks=len(marks),
            pins=len(pins),
        ),
        total_folds=len(state.forest),
        marks=tuple(_mark_view(state, mark) for mark in marks),
        marked_tokens=composition.mass(Category.MARKED),
        pins=tuple(entries[index].id for index in pins),
        staged_pins=tuple(
            entries[index].id
            for index in pins
            if not state.forest.shows_raw(index) or index in state.projection.views
        ),
        pinned_tokens=sum(state.projection.whole_tokens(index) for index in pins),
        pin_cap_tokens=options.min_tokens,
        staged_refolds=tuple(sorted(state.staged_refolds)),
        clipped=sum(1 for kind, _ in state.projection.views.values() if kind == "clipped"),
        audit=AuditView(
            requests=counts.requests,
            appends=counts.appends,
            attributed=counts.rewrites,
            unattributed=counts.unattributed,
        ),
        commits=state.commit_count,
        last_commit=state.last_commit,
        stalled_reason=state.stalled_reason,
        floor=state.floor,
        prefix_floor=state_prefix_floor(state),
        folding_stopped=state.folding_stopped,
        torn_tail=state.journal.torn,
        damaged=damaged_objects(state),
        commit_history=tuple(state.commit_history),
        clipped_total=state.clipped_total,
        evidence_bytes=state.evidence.used_bytes,
        evidence_cap_bytes=state.evidence.cap_bytes,
        store_objects=len(sources),
        store_bytes=sum(sources.values()),
        max_depth=max((row.depth + 1 for row in fold_rows(state)), default=0),
    )


def build_composition(state: SessionState) -> Composition:
    """What fills the window, for the fold bar."""
    reading = state.meter.reading(state.epoch)
    composed = compose(
        state.projection,
        state.forest,
        state.marks.values(),
        state.pinned,
        state.options,
        fill_tokens=state.meter.shown(state.projection.tokens, state.epoch),
        reading=reading,
        folding_stopped=state.folding_stopped is not None,
    )
    # A threshold commit held for runway; the host's prefix, in no category.
    return replace(composed, floor=state.floor, prefix_tokens=state.meter.prefix_tokens)


def state_prefix_floor(state: SessionState) -> PrefixFloor | None:
    """The floor the host's fixed prefix sets, in provider tokens (calibrated), if any."""
    prefix = round(state.meter.calibration * state.meter.prefix_tokens)
    return prefix_floor(state.options, prefix)


def damaged_objects(state: SessionState) -> tuple[DamagedObject, ...]:
    """Folds whose store object, and evidence whose artifact, a read found damaged."""
    found: list[DamagedObject] = []
    for fold in state.forest.in_order():
        error = state.store.damaged.get(fold.source_digest)
        if error is not None:
            found.append(
                DamagedObject(fold.handle, "fold", error.digest, _problem(error), str(error))
            )
    for identifier, error in sorted(state.evidence.damaged.items()):
        found.append(
            DamagedObject(identifier, "evidence", error.digest, _problem(error), str(error))
        )
    return tuple(found)


def _problem(error: StoreError) -> Literal["missing", "corrupt"]:
    return "missing" if isinstance(error, StoreObjectMissing) else "corrupt"


def fold_rows(state: SessionState) -> list[FoldRow]:
    """Every fold in transcript order, parents before children."""
    forest = state.forest
    entries = state.transcript.entries
    rows: list[FoldRow] = []
    for fold in forest.in_order():
        ancestors = list(forest.ancestors(fold.handle))
        shown: FoldState
        if any(ancestor.handle not in forest.expanded for ancestor in ancestors):
            shown = "hidden"
        elif fold.handle in forest.expanded:
            shown = "expanded"
        else:
            shown = "collapsed"
        rows.append(
            FoldRow(
                handle=fold.handle,
                kind=fold.kind,
                depth=len(ancestors),
                parent=forest.parent.get(fold.handle),
                start_id=entries[fold.start].id,
                end_id=entries[fold.end - 1].id,
                entries=fold.end - fold.start,
                source_bytes=fold.source_bytes,
                state=shown,
                staged_refold=fold.handle in state.staged_refolds,
                brief_line=fold.brief.splitlines()[0] if fold.brief else "",
            )
        )
    return rows
