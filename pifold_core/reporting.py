"""Building the engine's status report and fold tree (DESIGN §7 ``status``).

Pure reads of engine state; the data types live in :mod:`pifold_core.status` and the text
in the tool's renderer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pifold_core.composition import Category, FoldCounts
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

if TYPE_CHECKING:
    from pifold_core.engine import Engine
    from pifold_core.marks import Mark


def _mark_view(engine: Engine, mark: Mark) -> MarkView:
    entries = engine.transcript.entries
    projection = engine.projection
    first = projection.item_index_at(mark.start)
    last = projection.item_index_at(mark.end - 1)
    tokens = sum(item.tokens for item in projection.items[first : last + 1])
    return MarkView(
        id=mark.id,
        kind=mark.kind,
        start_id=entries[mark.start].id,
        end_id=entries[mark.end - 1].id,
        entries=mark.end - mark.start,
        chars=engine.transcript.size_chars(mark.start, mark.end),
        tokens=tokens,
        brief=mark.brief,
    )


def build_status(engine: Engine) -> EngineStatus:
    """Everything ``status`` reports, read from the engine without changing it."""
    options = engine.options
    composition = engine.composition()
    estimate = engine.projection.tokens
    marks = sorted(engine.marks.values(), key=lambda m: (m.start, -m.end, m.id))
    entries = engine.transcript.entries
    pins = sorted(engine.pinned)
    counts = engine.audit.counts
    sources = {fold.source_digest: fold.source_bytes for fold in engine.forest.folds.values()}
    return EngineStatus(
        budget=options.budget,
        max_tokens=options.max_tokens,
        min_tokens=options.min_tokens,
        occupancy=Occupancy(
            tokens=engine.expected_tokens(),
            reading=composition.reading,
            shown_tokens=composition.fill_tokens,
            estimated_tokens=estimate,
            calibration=round(engine.meter.calibration, 4),
        ),
        counts=FoldCounts(
            consolidated=composition.counts.consolidated,
            span=composition.counts.span,
            tool=composition.counts.tool,
            marks=len(marks),
            pins=len(pins),
        ),
        total_folds=len(engine.forest),
        marks=tuple(_mark_view(engine, mark) for mark in marks),
        marked_tokens=composition.mass(Category.MARKED),
        pins=tuple(entries[index].id for index in pins),
        staged_pins=tuple(
            entries[index].id
            for index in pins
            if not engine.forest.shows_raw(index) or index in engine.projection.views
        ),
        pinned_tokens=sum(engine.projection.whole_tokens(index) for index in pins),
        pin_cap_tokens=options.min_tokens,
        staged_refolds=tuple(sorted(engine.staged_refolds)),
        clipped=sum(1 for kind, _ in engine.projection.views.values() if kind == "clipped"),
        audit=AuditView(
            requests=counts.requests,
            appends=counts.appends,
            attributed=counts.rewrites,
            unattributed=counts.unattributed,
        ),
        commits=engine.commit_count,
        last_commit=engine.last_commit,
        stalled_reason=engine.stalled_reason,
        floor=engine.floor,
        folding_stopped=engine.folding_stopped,
        torn_tail=engine.torn_tail,
        damaged=damaged_objects(engine),
        commit_history=tuple(engine.commit_history),
        clipped_total=engine.clipped_total,
        evidence_bytes=engine.evidence.used_bytes,
        evidence_cap_bytes=engine.evidence.cap_bytes,
        store_objects=len(sources),
        store_bytes=sum(sources.values()),
        max_depth=max((row.depth + 1 for row in fold_rows(engine)), default=0),
    )


def damaged_objects(engine: Engine) -> tuple[DamagedObject, ...]:
    """Folds whose store object, and evidence whose artifact, a read found damaged."""
    found: list[DamagedObject] = []
    for fold in engine.forest.in_order():
        error = engine.store.damaged.get(fold.source_digest)
        if error is not None:
            found.append(
                DamagedObject(fold.handle, "fold", error.digest, _problem(error), str(error))
            )
    for identifier, error in sorted(engine.evidence.damaged.items()):
        found.append(
            DamagedObject(identifier, "evidence", error.digest, _problem(error), str(error))
        )
    return tuple(found)


def _problem(error: StoreError) -> Literal["missing", "corrupt"]:
    return "missing" if isinstance(error, StoreObjectMissing) else "corrupt"


def fold_rows(engine: Engine) -> list[FoldRow]:
    """Every fold in transcript order, parents before children."""
    forest = engine.forest
    entries = engine.transcript.entries
    rows: list[FoldRow] = []
    for fold in forest.in_order():
        ancestors = list(forest.ancestors(fold.handle))
        state: FoldState
        if any(ancestor.handle not in forest.expanded for ancestor in ancestors):
            state = "hidden"
        elif fold.handle in forest.expanded:
            state = "expanded"
        else:
            state = "collapsed"
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
                state=state,
                staged_refold=fold.handle in engine.staged_refolds,
                brief_line=fold.brief.splitlines()[0] if fold.brief else "",
            )
        )
    return rows
