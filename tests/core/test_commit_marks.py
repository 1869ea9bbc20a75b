"""``commit_marks``: land chosen pending marks now, in one attributed rewrite."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_core.engine import EngineError
from tests.core.engine_checks import assert_reopens_identically, pending_engine, unchanged


def test_only_the_named_marks_land(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    stalest = min(engine.view.marks.values(), key=lambda mark: (mark.start, -mark.end))
    outside = {
        mark.id: mark
        for mark in engine.view.marks.values()
        if mark.start >= stalest.end or mark.end <= stalest.start
    }
    assert outside
    before = engine.view.projection.digests()
    outcome = engine.commit_marks([stalest.id])
    # The named mark landed (a span takes the tool marks inside it along); no other did.
    assert stalest.id in outcome.applied_marks
    for mark_id in outcome.applied_marks:
        assert mark_id == stalest.id or mark_id not in outside
    assert {mark_id: engine.view.marks[mark_id] for mark_id in outside} == outside
    root = engine.view.forest.root_containing(stalest.start)
    assert root is not None and (root.start, root.end) == (stalest.start, stalest.end)
    request = engine.prepare_request()
    assert request.digests != before
    assert request.record.classification == "attributed"
    assert request.record.causes == (f"commit {outcome.number} (marks)",)
    assert_reopens_identically(engine)


@pytest.mark.parametrize(
    ("mark_ids", "message"),
    [
        ([], "non-empty list"),
        ("mark-1", "non-empty list"),
        (["mark-999"], "no pending mark mark-999"),
        (["fold-000000000000"], "not a mark id"),
    ],
)
def test_bad_mark_ids_change_nothing(tmp_path: Path, mark_ids: object, message: str) -> None:
    engine, _ = pending_engine(tmp_path)
    with unchanged(engine), pytest.raises(EngineError, match=message):
        engine.commit_marks(mark_ids)  # type: ignore[arg-type]
