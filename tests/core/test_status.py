"""``status()`` and ``fold_rows()`` (DESIGN §7 ``status``): pure reads that report occupancy, the
band, marks, folds, pins and the audit exactly as the engine holds them."""

from __future__ import annotations

from pathlib import Path

from pifold_core.composition import Category, Reading
from pifold_core.engine import Engine
from pifold_core.entries import Usage
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_reopens_identically,
    folded_engine,
    pending_engine,
    reopen,
    unchanged,
)


def test_status_of_a_new_session(tmp_path: Path) -> None:
    options = small_options(budget=50_000, min_target=0.25)
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    status = engine.status()
    assert (status.budget, status.max_tokens, status.min_tokens) == (50_000, 40_000, 12_500)
    assert status.occupancy.reading is Reading.NOT_MEASURED
    assert status.occupancy.shown_tokens is None
    assert status.occupancy.tokens == status.occupancy.estimated_tokens == 0
    assert status.occupancy.calibration == 1.0
    assert status.counts.folds == status.counts.marks == status.counts.pins == 0
    assert status.total_folds == 0 and status.marks == () and status.pins == ()
    assert status.pin_cap_tokens == 12_500 and status.pinned_tokens == 0
    assert status.commits == 0 and status.last_commit is None
    assert (status.audit.requests, status.audit.unattributed) == (0, 0)
    assert status.stalled_reason is None and status.folding_stopped is None
    assert engine.fold_rows() == []


def test_status_reports_every_pending_mark(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    engine.set_brief("mark-4", "Chapter 1 in a sentence.\nSecond line.")
    with unchanged(engine):
        status = engine.status()
    entries = engine.view.transcript.entries
    marks = sorted(engine.view.marks.values(), key=lambda m: (m.start, -m.end))
    assert [view.id for view in status.marks] == [mark.id for mark in marks]
    assert status.marks[0].id == "mark-2"  # the span [0, 6) before the tool mark [2, 4)
    for view, mark in zip(status.marks, marks, strict=True):
        assert view.kind == mark.kind
        assert (view.start_id, view.end_id) == (entries[mark.start].id, entries[mark.end - 1].id)
        assert view.entries == mark.end - mark.start
        assert view.chars == engine.view.transcript.size_chars(mark.start, mark.end)
        assert view.tokens == sum(
            engine.view.projection.raw_item(i).tokens for i in range(mark.start, mark.end)
        )
        assert view.brief == mark.brief
    assert next(v for v in status.marks if v.id == "mark-4").brief == (
        "Chapter 1 in a sentence.\nSecond line."
    )
    composition = engine.composition()
    assert status.marked_tokens == composition.mass(Category.MARKED) > 0
    assert status.counts.marks == len(engine.view.marks) == composition.counts.marks


def test_status_after_a_commit(tmp_path: Path) -> None:
    engine, session = pending_engine(tmp_path)
    engine.pin([session.entries[28].id])
    first = engine.prepare_request()
    engine.report_usage(first.record.number, Usage(input_tokens=first.tokens + 1_000))
    commit = engine.commit_now()
    status = engine.status()
    composition = engine.composition()
    assert status.commits == engine.view.commit_count == 1
    last = status.last_commit
    assert last is not None
    assert (last.number, last.cause) == (1, "command")
    assert (last.tokens_before, last.tokens_after) == (commit.tokens_before, commit.tokens_after)
    assert last.folds_made == len(commit.built) and last.marks_applied == len(commit.applied_marks)
    assert last.clipped == len(commit.clipped) and last.withdrawn == len(commit.withdrawn)
    assert last.pins_landed == 0 and last.short_reason is None
    assert status.total_folds == len(engine.view.forest) == len(commit.built)
    assert (status.counts.consolidated, status.counts.span, status.counts.tool) == (
        composition.counts.consolidated,
        composition.counts.span,
        composition.counts.tool,
    )
    assert status.counts.folds >= 1
    assert status.pins == (session.entries[28].id,) and status.staged_pins == ()
    assert status.pinned_tokens == composition.mass(Category.PINNED) > 0
    assert status.clipped == sum(
        1 for kind, _ in engine.view.projection.views.values() if kind == "clipped"
    )
    occupancy = status.occupancy
    assert occupancy.reading is Reading.ESTIMATED_AFTER_COMMIT
    # No count describes the rewritten window: the figure shown is the one the trigger uses.
    assert occupancy.shown_tokens == occupancy.tokens == engine.expected_tokens()
    assert occupancy.shown_tokens < first.tokens + 1_000
    assert occupancy.estimated_tokens == engine.view.projection.tokens
    counts = engine.view.audit_counts
    assert (status.audit.requests, status.audit.appends, status.audit.attributed) == (
        counts.requests,
        counts.appends,
        counts.rewrites,
    )
    # A reopened session reports the same, except the last commit (this process made none).
    reopened = reopen(engine)
    again = reopened.status()
    assert again.occupancy == status.occupancy and again.marks == status.marks
    assert again.counts == status.counts and again.audit == status.audit
    assert again.commits == status.commits and again.pins == status.pins
    assert_clean_audit(engine)


def test_fold_rows_list_every_fold_in_transcript_order(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    with unchanged(engine):
        rows = engine.fold_rows()
    assert [row.handle for row in rows] == [fold.handle for fold in engine.view.forest.in_order()]
    assert len(rows) == len(engine.view.forest)
    entries = engine.view.transcript.entries
    for row in rows:
        fold = engine.view.forest.folds[row.handle]
        ancestors = list(engine.view.forest.ancestors(row.handle))
        assert row.depth == len(ancestors)
        assert row.parent == (ancestors[0].handle if ancestors else None)
        assert row.kind == fold.kind
        assert (row.start_id, row.end_id) == (entries[fold.start].id, entries[fold.end - 1].id)
        assert row.entries == fold.end - fold.start
        assert row.source_bytes == len(engine.peek(row.handle).data)
        assert row.brief_line == fold.brief.splitlines()[0]
        assert row.state == ("collapsed" if row.depth == 0 else "hidden")
        assert not row.staged_refold
    starts = [engine.view.forest.folds[row.handle].start for row in rows]
    assert starts == sorted(starts)
    assert max(row.depth for row in rows) == 2


def test_fold_rows_follow_expand_and_refold(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    root = engine.fold_rows()[0]
    engine.expand(root.handle)
    rows = {row.handle: row for row in engine.fold_rows()}
    assert rows[root.handle].state == "expanded"
    for row in rows.values():
        if row.parent == root.handle:
            assert row.state == "collapsed"
        elif row.depth == 2 and engine.view.forest.parent[row.parent or ""] == root.handle:
            assert row.state == "hidden"
    engine.prepare_request()
    engine.refold(root.handle)
    rows = {row.handle: row for row in engine.fold_rows()}
    assert rows[root.handle].staged_refold and rows[root.handle].state == "expanded"
    assert engine.status().staged_refolds == (root.handle,)
    assert_reopens_identically(engine)
    engine.commit_now()
    rows = {row.handle: row for row in engine.fold_rows()}
    assert rows[root.handle].state == "collapsed" and not rows[root.handle].staged_refold


def test_a_brief_written_for_a_mark_heads_its_fold_row(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    engine.set_brief("mark-2", "Read x0 and module_0; all good.\nDetails follow.")
    engine.commit_now()
    row = next(r for r in engine.fold_rows() if r.start_id == "e00001" and r.kind == "span")
    assert row.brief_line == "Read x0 and module_0; all good."
    assert_reopens_identically(engine)


def test_status_says_why_a_threshold_commit_fell_short(tmp_path: Path) -> None:
    # 7k and four results: the commit still buys runway (issue 12), so it lands, short.
    engine = Engine.open(
        tmp_path / "state", small_options(budget=7_000, min_fold_chars=1_000), CharCounter()
    )
    session = SessionBuilder()
    session.user("go")
    for seed in range(4):
        session.batch([6_000], seed=seed)
    drive(engine, session.entries)
    request = engine.prepare_request()
    assert request.commit is not None and request.commit.short_of_target
    status = engine.status()
    assert status.stalled_reason is not None
    assert status.stalled_reason.startswith("nothing more can be folded")
    assert status.last_commit is not None
    assert status.last_commit.short_reason == status.stalled_reason
    reopened = assert_reopens_identically(engine)
    assert reopened.status().stalled_reason == status.stalled_reason
