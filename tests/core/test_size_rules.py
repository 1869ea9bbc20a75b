"""Size rules (DESIGN §5): folds under ``minFoldChars`` are not made, and a raw gap between
two folds smaller than it is absorbed rather than left as a raw island."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pifold_core.canonical import parse_json
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.folds import Fold
from pifold_core.options import Thresholds
from tests.core.builders import CharCounter, SessionBuilder, drive, expected_source, small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_reopens_identically,
    pending_engine,
)

# pending_engine(count=2): chapter 0 is entries 0-6, chapter 1 is 7-13, then a user message
# (14) and an answer (15). Marks: mark-1 tool [2,4), mark-2 span [0,6), mark-3 tool [9,11),
# mark-4 span [7,13). Entry 6 is chapter 0's closing message: 32 characters, unmarked.


def _with_min_fold_chars(engine: Engine, value: int) -> None:
    band = dataclasses.replace(engine.options.thresholds, min_fold_chars=value)
    engine.apply_options(
        dataclasses.replace(engine.options, thresholds=band, tool_fold_threshold=0.0)
    )


def _fold_at(engine: Engine, start: int, end: int) -> Fold:
    matches = [f for f in engine.view.forest.folds.values() if (f.start, f.end) == (start, end)]
    assert matches, f"no fold over [{start},{end})"
    return matches[0]


def _raw_item_at(engine: Engine, index: int) -> bool:
    item = engine.view.projection.items[engine.view.projection.item_index_at(index)]
    return item.fold is None and (item.start, item.end) == (index, index + 1)


# -- minFoldChars: marks under it are dropped --------------------------------------------------


def test_marks_under_min_fold_chars_are_dropped_at_the_commit(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    marks = set(engine.view.marks)
    _with_min_fold_chars(engine, 50_000)
    digests = engine.prepare_request().digests
    commit = engine.commit_now()
    assert commit.built == [] and commit.applied_marks == []
    held = set(commit.held_marks)
    assert set(commit.dropped_marks) == marks - held
    for reason in commit.dropped_marks.values():
        assert "under minFoldChars (50,000)" in reason
    assert set(engine.view.marks) == held  # dropped marks are gone for good
    request = engine.prepare_request()
    assert request.digests == digests  # not one byte moved
    assert request.record.classification == "append"
    assert_clean_audit(engine)
    reopened = assert_reopens_identically(engine)
    assert set(reopened.view.marks) == held


def test_a_mark_of_exactly_min_fold_chars_is_made_and_one_char_more_is_not(
    tmp_path: Path,
) -> None:
    sizes: list[int] = []
    for offset, made in ((0, True), (1, False)):
        engine, _ = pending_engine(tmp_path / str(offset), count=2)
        mark = engine.view.marks["mark-1"]
        size = engine.view.transcript.size_chars(mark.start, mark.end)
        sizes.append(size)
        _with_min_fold_chars(engine, size + offset)
        for other in [m for m in engine.view.marks if m != "mark-1"]:
            engine.unmark(other)
        commit = engine.commit_now()
        assert (commit.applied_marks == ["mark-1"]) is made
        assert ("mark-1" in commit.dropped_marks) is not made
        if made:
            _fold_at(engine, mark.start, mark.end)
        assert_reopens_identically(engine)
    assert sizes[0] == sizes[1]


def test_thresholds_refuse_a_min_fold_chars_under_one() -> None:
    try:
        Thresholds(min_fold_chars=0)
    except ValueError as error:
        assert "minFoldChars" in str(error)
    else:
        raise AssertionError("minFoldChars 0 was accepted")


# -- gap absorption ----------------------------------------------------------------------------


def test_a_small_raw_gap_before_a_span_is_absorbed(tmp_path: Path) -> None:
    engine, session = pending_engine(tmp_path, count=2)
    # Fold chapter 0 first, alone: its closing message (entry 6) stays a raw island.
    engine.unmark("mark-3")
    engine.unmark("mark-4")
    engine.commit_now()
    assert (engine.view.forest.roots()[0].start, engine.view.forest.roots()[0].end) == (0, 6)
    assert _raw_item_at(engine, 6)
    engine.prepare_request()
    # Chapter 2 gets marks; chapter 1 gets one again through a reboundary of it.
    more = SessionBuilder(prefix="g")
    more.chapter("Chapter 2", [[1500, 800], [1200]], seed=2)
    more.user("next?")
    more.assistant("ok")
    drive(engine, more.entries)
    late = min(engine.view.marks.values(), key=lambda m: m.start)
    engine.reboundary(late.id, session.entries[7].id, session.entries[12].id)
    for other in [m for m in engine.view.marks if m != late.id]:
        engine.unmark(other)

    commit = engine.commit_now()
    assert commit.applied_marks == [late.id]
    fold = _fold_at(engine, 6, 13)  # widened back over the 32-character gap
    records = [Entry.from_record(r) for r in parse_json(engine.peek(fold.handle).data)]  # type: ignore[union-attr]
    assert [r.id for r in records] == [e.id for e in session.entries[6:13]]
    assert engine.peek(fold.handle).data == expected_source(engine, fold)
    roots = [(r.start, r.end) for r in engine.view.forest.roots()]
    assert roots[:2] == [(0, 6), (6, 13)]  # no raw island between them
    assert engine.prepare_request().record.classification == "attributed"
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_a_small_raw_gap_after_a_span_is_absorbed(tmp_path: Path) -> None:
    engine, session = pending_engine(tmp_path, count=2)
    engine.pin([session.entries[0].id])  # hold chapter 0's span; fold chapter 1 first
    first = engine.commit_now()
    assert "mark-2" in first.held_marks and "mark-4" in first.applied_marks
    _fold_at(engine, 7, 13)
    assert _raw_item_at(engine, 6)
    engine.prepare_request()
    engine.unpin([session.entries[0].id])
    second = engine.commit_now()
    assert second.applied_marks == ["mark-2"]
    fold = _fold_at(engine, 0, 7)  # widened forward over entry 6 to the fold at 7
    assert fold.kind == "span"
    assert not any(_raw_item_at(engine, index) for index in range(13))
    assert engine.prepare_request().record.classification == "attributed"
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_a_pinned_gap_is_not_absorbed(tmp_path: Path) -> None:
    engine, session = pending_engine(tmp_path, count=2)
    engine.pin([session.entries[6].id])
    engine.commit_now()
    _fold_at(engine, 0, 6)
    _fold_at(engine, 7, 13)
    assert _raw_item_at(engine, 6)
    assert_reopens_identically(engine)


def test_a_gap_of_min_fold_chars_or_more_stays_raw(tmp_path: Path) -> None:
    session = SessionBuilder()
    closing = "Summary: " + "the fix touched src/x0.py and tests; " * 70
    assert len(closing) > 2_000
    session.chapter("Chapter 0: look at src/x0.py", [[1500, 800], [1200]], seed=0, closing=closing)
    session.chapter("Chapter 1: look at src/x1.py", [[1500, 800], [1200]], seed=1)
    session.user("what next?")
    session.assistant("Waiting.")
    options = small_options(budget=200_000, min_fold_chars=2_000)
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    drive(engine, session.entries)
    gap_mark = next(m for m in engine.view.marks.values() if (m.start, m.end) == (6, 7))
    engine.unmark(gap_mark.id)  # the big closing message would have been folded on its own
    engine.pin([session.entries[0].id])
    engine.commit_now()
    engine.unpin([session.entries[0].id])
    engine.commit_now()
    _fold_at(engine, 0, 6)
    _fold_at(engine, 7, 13)
    assert _raw_item_at(engine, 6)
    assert_clean_audit(engine)
    assert_reopens_identically(engine)
