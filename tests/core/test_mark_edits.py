"""Editing pending marks: ``set_brief``, ``reboundary``, ``unmark`` (DESIGN §7).

Marks live outside the window: every edit is free (no byte moves, the next request is a pure
append) and lands only at the commit that applies the mark. Bad edits raise naming what was
wrong and change nothing, the log included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pifold_core.briefs import MAX_BRIEF_CHARS
from pifold_core.engine import Engine, EngineError
from pifold_core.folds import Fold
from tests.core.builders import SessionBuilder, drive, expected_source
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_reopens_identically,
    chapters,
    folded_engine,
    pending_engine,
    unchanged,
)

# pending_engine: chapter n is entries 7n..7n+6 (e{7n+1:05d}..): a user ask, a batch of two
# reads (call 7n+1, results 7n+2, 7n+3), a batch of one (call 7n+4, result 7n+5) and a closing
# message 7n+6. Marks: mark-1 tool [2,4), mark-2 span [0,6), mark-3 tool [9,11), mark-4 span
# [7,13), ... and the fresh tail starts at entry 28.


def _id(index: int) -> str:
    return f"e{index + 1:05d}"


def _fold_at(engine: Engine, start: int, end: int) -> Fold:
    return next(f for f in engine.view.forest.folds.values() if (f.start, f.end) == (start, end))


def test_the_pending_marks_are_where_these_tests_expect(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    spans = {(m.id, m.kind, m.start, m.end) for m in engine.view.marks.values()}
    assert {("mark-1", "tool", 2, 4), ("mark-2", "span", 0, 6), ("mark-4", "span", 7, 13)} <= spans
    assert engine.view.transcript.fresh_start == 28
    assert_clean_audit(engine)


# -- brief -------------------------------------------------------------------------------------


def test_a_brief_is_free_rewritable_and_lands_in_the_fold(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    digests = engine.view.projection.digests()
    engine.set_brief("mark-4", "first draft of the brief")
    text = "Chapter 1: read src/x1.py and module_1_0.py; nothing to change (ticket X-1)."
    mark = engine.set_brief("mark-4", text)
    assert mark.brief == text and engine.view.marks["mark-4"].brief == text
    assert engine.view.projection.digests() == digests
    assert engine.prepare_request().record.classification == "append"
    assert_reopens_identically(engine)

    engine.commit_now()
    fold = _fold_at(engine, 6, 13)  # widened over the closing message of chapter 0
    assert fold.brief == text and fold.brief_provenance == "agent"
    item = engine.view.projection.items[engine.view.projection.item_index_at(0)]
    assert item.fold is not None and item.fold != fold.handle  # consolidated over it
    assert engine.fold_rows()[[r.handle for r in engine.fold_rows()].index(fold.handle)].brief_line
    assert engine.peek(fold.handle).data == expected_source(engine, fold)
    assert engine.prepare_request().record.classification == "attributed"
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_a_brief_of_exactly_the_limit_is_taken(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    text = ("word " * MAX_BRIEF_CHARS)[: MAX_BRIEF_CHARS - 1] + "x"
    assert len(text) == MAX_BRIEF_CHARS
    assert engine.set_brief("mark-2", text).brief == text
    engine.commit_now()
    assert engine.prepare_request().record.classification == "attributed"
    assert_reopens_identically(engine)


BAD_BRIEFS: dict[str, tuple[Any, Any, str]] = {
    "empty": ("mark-2", "", "not empty"),
    "whitespace": ("mark-2", "  \n\t ", "not empty or only whitespace"),
    "not text": ("mark-2", 42, "text must be a brief"),
    "over the limit": ("mark-2", "x" * (MAX_BRIEF_CHARS + 1), f"at most {MAX_BRIEF_CHARS:,}"),
    "no word": ("mark-2", "-- !! ..", "no content"),
    "a fold id": ("fold-000000000000", "a brief", "not a mark id"),
    "not a string id": (3, "a brief", "not a mark id"),
    "unknown mark": ("mark-999", "a brief", "no pending mark mark-999"),
}


@pytest.mark.parametrize("case", sorted(BAD_BRIEFS))
def test_bad_briefs_raise_and_change_nothing(tmp_path: Path, case: str) -> None:
    engine, _ = pending_engine(tmp_path)
    mark_id, text, message = BAD_BRIEFS[case]
    with unchanged(engine), pytest.raises(EngineError, match=message):
        engine.set_brief(mark_id, text)


def test_a_brief_that_was_refused_cannot_break_a_later_commit(tmp_path: Path) -> None:
    # Whatever set_brief accepts, the commit must be able to use.
    engine, _ = pending_engine(tmp_path)
    for text in ("ok", "a b c", "___", "12"):
        try:
            engine.set_brief("mark-2", text)
        except EngineError:
            continue
    engine.commit_now()
    assert engine.prepare_request().record.classification == "attributed"
    assert_reopens_identically(engine)


# -- reboundary --------------------------------------------------------------------------------


def test_reboundary_is_free_and_the_commit_folds_the_new_range(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    digests = engine.view.projection.digests()
    # mark-1 (a tool mark on chapter 0's first batch) becomes a span over chapters 0 and 1.
    mark = engine.reboundary("mark-1", _id(0), _id(13))
    assert (mark.kind, mark.start, mark.end) == ("span", 0, 14)
    assert engine.view.marks["mark-1"] == mark
    assert engine.view.projection.digests() == digests
    assert engine.prepare_request().record.classification == "append"
    assert_reopens_identically(engine)
    # The edit keeps a brief written before it.
    engine.set_brief("mark-1", "Chapters 0 and 1 in one fold")
    mark = engine.reboundary("mark-1", _id(0), _id(13))
    assert mark.brief == "Chapters 0 and 1 in one fold"

    commit = engine.commit_now()
    assert "mark-1" in commit.applied_marks
    fold = _fold_at(engine, 0, 14)
    assert fold.kind == "span" and fold.brief == "Chapters 0 and 1 in one fold"
    # The marks inside it were applied first (as its children) or are covered by it.
    assert "mark-2" not in engine.view.marks and "mark-4" not in engine.view.marks
    assert engine.peek(fold.handle).data == expected_source(engine, fold)
    assert engine.prepare_request().record.classification == "attributed"
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_reboundary_may_take_in_a_whole_fold(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    for mark_id in [m for m in engine.view.marks if engine.view.marks[m].start >= 7]:
        engine.unmark(mark_id)
    engine.commit_now()  # chapter 0 only
    engine.prepare_request()
    root = engine.view.forest.roots()[0]
    assert (root.start, root.end) == (0, 6)
    session = SessionBuilder(prefix="r")
    chapters(session, 1, first=40)
    session.user("more")
    session.assistant("ok")
    drive(engine, session.entries)
    mark_id = next(m.id for m in engine.view.marks.values() if m.start >= 28)
    mark = engine.reboundary(mark_id, _id(0), _id(20))
    assert (mark.start, mark.end) == (0, 21)
    engine.commit_now()
    assert engine.view.forest.parent[root.handle] is not None
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


BAD_REBOUNDARIES: dict[str, tuple[Any, Any, Any, str]] = {
    "splits a call from its result at the start": (
        "mark-2",
        _id(2),
        _id(6),
        "would split call call_e1, call_e2 from its result; start at 'e00002'",
    ),
    "splits a call from its result at the end": (
        "mark-2",
        _id(0),
        _id(1),
        "end 'e00002' would split a call from its result; end at 'e00004'",
    ),
    "backwards": ("mark-2", _id(6), _id(0), "end 'e00001' comes before start 'e00007'"),
    "into the fresh tail": ("mark-2", _id(0), _id(28), "reaches into the fresh tail"),
    "under minFoldChars": ("mark-2", _id(6), _id(6), "under minFoldChars"),
    "unknown start": ("mark-2", "nope", _id(6), "start: there is no entry 'nope'"),
    "unknown end": ("mark-2", _id(0), "nope", "end: there is no entry 'nope'"),
    "path start": ("mark-2", "../x", _id(6), "looks like a path"),
    "not a string": ("mark-2", None, _id(6), "start must be an entry id"),
    "unknown mark": ("mark-77", _id(0), _id(6), "no pending mark mark-77"),
    "not a mark id": ("e00001", _id(0), _id(6), "not a mark id"),
}


@pytest.mark.parametrize("case", sorted(BAD_REBOUNDARIES))
def test_bad_reboundaries_raise_and_change_nothing(tmp_path: Path, case: str) -> None:
    engine, _ = pending_engine(tmp_path)
    mark_id, start, end, message = BAD_REBOUNDARIES[case]
    with unchanged(engine), pytest.raises(EngineError, match=_literal(message)):
        engine.reboundary(mark_id, start, end)


def test_reboundary_refuses_to_overlap_or_repeat_a_fold(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    session = SessionBuilder(prefix="r")
    chapters(session, 2, first=40)
    session.user("more")
    session.assistant("ok")
    drive(engine, session.entries)
    mark_id = next(iter(engine.view.marks))
    entries = engine.view.transcript.entries
    last = engine.view.forest.roots()[-1]
    newest = entries[engine.view.transcript.fresh_start - 1].id
    assert last.end < engine.view.transcript.fresh_start - 1
    with unchanged(engine):
        with pytest.raises(EngineError, match=f"overlap fold {last.handle} partially"):
            engine.reboundary(mark_id, entries[last.start + 1].id, newest)
        with pytest.raises(EngineError, match=f"exactly fold {last.handle}"):
            engine.reboundary(mark_id, entries[last.start].id, entries[last.end - 1].id)
    # Taking the fold in whole is fine.
    mark = engine.reboundary(mark_id, entries[last.start].id, newest)
    assert mark.start == last.start


# -- unmark ------------------------------------------------------------------------------------


def test_unmark_withdraws_a_mark_for_free(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    digests = engine.view.projection.digests()
    withdrawn = engine.unmark("mark-4")
    assert withdrawn.id == "mark-4" and "mark-4" not in engine.view.marks
    assert engine.view.projection.digests() == digests
    assert engine.prepare_request().record.classification == "append"
    assert_reopens_identically(engine)
    engine.unmark("mark-3")  # the tool mark inside it too: chapter 1 must stay raw
    commit = engine.commit_now()
    assert "mark-4" not in commit.applied_marks
    assert all(not (f.start <= 9 < f.end) for f in engine.view.forest.folds.values())
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


@pytest.mark.parametrize(
    ("mark_id", "message"),
    [
        ("mark-999", "no pending mark mark-999"),
        ("fold-000000000000", "not a mark id"),
        ("", "not a mark id"),
        (None, "not a mark id"),
    ],
)
def test_bad_unmarks_raise_and_change_nothing(tmp_path: Path, mark_id: Any, message: str) -> None:
    engine, _ = pending_engine(tmp_path)
    with unchanged(engine), pytest.raises(EngineError, match=message):
        engine.unmark(mark_id)


def test_edits_of_an_applied_mark_are_refused(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    with unchanged(engine):
        for edit in (
            lambda: engine.unmark("mark-2"),
            lambda: engine.set_brief("mark-2", "too late now"),
            lambda: engine.reboundary("mark-2", _id(0), _id(5)),
        ):
            with pytest.raises(EngineError, match="it may have been applied"):
                edit()


def _literal(message: str) -> str:
    import re

    return re.escape(message)
