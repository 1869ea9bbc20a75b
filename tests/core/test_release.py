"""Entries a landed fold holds are released from memory while driving (issue 12, memory).

The bound is counted, never timed: after every request, the entries held whole are at most
those no root fold holds (the window's raw entries, the fresh tail among them). And nothing
is lost by letting them go: a peek, a consolidation built over released entries and a
reopen each give back the exact bytes the host appended (compared with the entries as the
test made them, not as the engine reads them back).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.folds import source_of
from pifold_core.store import StoreObjectCorrupt
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, assert_reopens_identically


def _session(chapters: int = 30) -> list[Entry]:
    session = SessionBuilder()
    for number in range(chapters):
        session.chapter(f"Chapter {number}: src/m{number}.py", [[1800, 900], [1400]], seed=number)
    session.user("what next?")
    session.assistant("Waiting.")
    return session.entries


def _unfolded(engine: Engine) -> int:
    forest = engine.view.forest
    return sum(1 for i in range(len(engine.view.transcript)) if forest.root_containing(i) is None)


def _driven(path: Path) -> tuple[Engine, list[Entry], list[int]]:
    """A session at a small budget that commits and consolidates; the held-whole count
    checked against the bound after every request."""
    entries = _session()
    engine = Engine.open(path / "state", small_options(budget=6_000), CharCounter())
    held: list[int] = []

    def check(engine: Engine, _request: object) -> None:
        whole = engine.view.transcript.entries.held_whole()
        assert whole <= _unfolded(engine)
        held.append(whole)

    drive(engine, entries, check)
    return engine, entries, held


def _original_source(entries: list[Entry], start: int, end: int) -> bytes:
    return source_of(entries[start:end])


def test_held_whole_stays_within_the_unfolded_entries(tmp_path: Path) -> None:
    engine, entries, held = _driven(tmp_path)
    assert engine.view.commit_count >= 3
    consolidated = [f for f in engine.view.forest.folds.values() if f.kind == "consolidated"]
    assert consolidated, "the session must consolidate for the test to mean anything"
    whole = engine.view.transcript.entries.held_whole()
    # Released for real: most of the session is folded, and most of it is let go.
    assert whole == _unfolded(engine) < len(entries) // 2
    assert max(held) < len(entries)
    assert_clean_audit(engine)
    engine.close()


def test_peek_after_release_gives_back_the_appended_bytes(tmp_path: Path) -> None:
    engine, entries, _ = _driven(tmp_path)
    for fold in engine.view.forest.folds.values():
        assert not any(
            engine.view.transcript.entries.is_whole(i) for i in range(fold.start, fold.end)
        )
        result = engine.peek(fold.handle)
        assert result.complete
        assert result.data == _original_source(entries, fold.start, fold.end), fold.handle
    assert_clean_audit(engine)
    engine.close()


def test_consolidation_over_released_entries_hashes_their_exact_bytes(tmp_path: Path) -> None:
    engine, entries, _ = _driven(tmp_path)
    forest = engine.view.forest
    # A parent made by a later commit than a child: the child's entries were released
    # when that child's commit landed, so the parent was hashed from bytes read back.
    later = [
        fold
        for fold in forest.folds.values()
        if fold.kind == "consolidated"
        and any(forest.folds[child].commit < fold.commit for child in fold.children)
    ]
    assert later, "a consolidation must land in a later commit than one of its children"
    for fold in later:
        source = _original_source(entries, fold.start, fold.end)
        digest, length = engine._state.store.get(fold.source_digest), fold.source_bytes
        assert digest == source and length == len(source)
    engine.close()


def test_reopen_after_release_is_identical(tmp_path: Path) -> None:
    engine, entries, _ = _driven(tmp_path)
    reopened = assert_reopens_identically(engine)
    assert [e.record_bytes for e in reopened.view.transcript.entries] == [
        e.record_bytes for e in entries
    ]
    # Rebuilt from the whole log (too short for a checkpoint), then let go like the live one.
    assert reopened.view.checkpoint_records == 0
    held = reopened.view.transcript.entries.held_whole()
    assert held == engine.view.transcript.entries.held_whole() == _unfolded(reopened)
    engine.close()


def test_a_released_entry_with_a_damaged_line_is_refused_not_hashed(tmp_path: Path) -> None:
    engine, _, _ = _driven(tmp_path)
    entries = engine.view.transcript.entries
    index = next(i for i in range(len(entries)) if not entries.is_whole(i))
    span = entries.facts_of(index).span
    assert span is not None
    with engine._state.journal.path.open("r+b") as log:
        log.seek(span[0] + span[1] // 2)
        log.write(b"#")
    with pytest.raises(StoreObjectCorrupt, match=entries.facts_of(index).id):
        entries.record_bytes(index)
    engine.close()
