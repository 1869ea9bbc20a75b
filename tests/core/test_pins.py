"""Pins (DESIGN §5, §7): entries held raw through every commit, capped at minTarget × budget.

Pinning a raw entry moves no byte; pinning a folded one is staged, and the next commit opens
the folds around it (an attributed rewrite). A pin over the cap is refused naming the cap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pifold_core.composition import Category
from pifold_core.engine import Engine, EngineError
from tests.core.builders import CharCounter, SessionBuilder, drive, expected_source, small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_reopens_identically,
    chapters,
    folded_engine,
    pending_engine,
    raw_tokens,
    shown_raw,
    unchanged,
)

# -- raw entries -------------------------------------------------------------------------------


def test_pinning_raw_entries_moves_no_byte_and_commits_hold_them(tmp_path: Path) -> None:
    engine, session = pending_engine(tmp_path)
    target = session.entries[2]  # a tool result of chapter 0, under two pending marks
    covering = {m.id for m in engine.view.marks.values() if m.start <= 2 < m.end}
    assert covering
    digests = engine.view.projection.digests()
    outcome = engine.pin([target.id])
    assert outcome.pinned == (target.id,) and outcome.staged == () and outcome.already == ()
    assert outcome.pinned_tokens == raw_tokens(engine, 2)
    assert outcome.cap_tokens == engine.options.min_tokens
    assert engine.view.projection.digests() == digests
    assert engine.prepare_request().record.classification == "append"
    assert engine.composition().mass(Category.PINNED) == raw_tokens(engine, 2)
    assert_reopens_identically(engine)

    commit = engine.commit_now()
    assert covering <= set(commit.held_marks)
    assert covering <= set(engine.view.marks)  # held, still pending
    assert commit.built  # the other chapters folded
    assert shown_raw(engine, 2)
    assert all(not fold.start <= 2 < fold.end for fold in engine.view.forest.folds.values())
    engine.prepare_request()
    # Pinning again is a no-op that says so.
    with unchanged(engine):
        again = engine.pin([target.id])
    assert again.already == (target.id,) and again.pinned == ()
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_pinning_a_fold_id_pins_every_entry_it_covers(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    tool = next(f for f in engine.view.forest.folds.values() if f.kind == "tool")
    outcome = engine.pin([tool.handle])
    ids = tuple(e.id for e in engine.view.transcript.entries[tool.start : tool.end])
    assert outcome.staged == ids and outcome.pinned == ()
    assert engine.view.pinned == set(range(tool.start, tool.end))
    assert engine.status().staged_pins == ids
    assert_reopens_identically(engine)


def test_unpin_releases_and_the_next_commit_may_fold_them(tmp_path: Path) -> None:
    engine, session = pending_engine(tmp_path)
    engine.pin([session.entries[2].id, session.entries[3].id])
    first = engine.commit_now()
    held = set(first.held_marks)
    assert held
    engine.prepare_request()
    digests = engine.view.projection.digests()
    outcome = engine.unpin([session.entries[2].id])
    assert outcome.released == (session.entries[2].id,)
    assert outcome.pinned_tokens == raw_tokens(engine, 3)
    assert engine.view.pinned == {3}
    assert engine.view.projection.digests() == digests  # nothing moves on unpin
    assert_reopens_identically(engine)
    engine.unpin([session.entries[3].id])
    assert not engine.view.pinned
    assert engine.prepare_request().record.classification == "append"
    second = engine.commit_now()
    assert held & set(second.applied_marks)
    assert any(fold.start <= 2 < fold.end for fold in engine.view.forest.folds.values())
    assert engine.prepare_request().record.classification == "attributed"
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


# -- the cap -----------------------------------------------------------------------------------


def test_a_pin_over_the_cap_is_refused_naming_the_cap(tmp_path: Path) -> None:
    session = SessionBuilder()
    chapters(session, 2)
    session.user("next")
    session.assistant("ok")
    probe = Engine.open(tmp_path / "probe", small_options(budget=1_000_000), CharCounter())
    drive(probe, session.entries)
    first, second = raw_tokens(probe, 2), raw_tokens(probe, 5)
    # minTarget 0.25 and a budget of 4 × the first pin: the cap is exactly the first pin.
    options = small_options(budget=4 * first, max_target=0.8, min_target=0.25)
    assert options.min_tokens == first
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    drive(engine, session.entries)
    engine.prepare_request()
    ids = [entry.id for entry in session.entries]

    outcome = engine.pin([ids[2]])  # exactly at the cap: allowed
    assert outcome.pinned_tokens == outcome.cap_tokens == first
    with unchanged(engine), pytest.raises(EngineError) as caught:
        engine.pin([ids[5]])
    message = str(caught.value)
    assert f"pin cap of {first:,}" in message and "minTarget × budget" in message
    assert f"{first + second:,} tokens" in message
    # After releasing the first pin the second fits.
    engine.unpin([ids[2]])
    assert engine.pin([ids[5]]).pinned_tokens == second
    assert engine.view.pinned == {5}
    assert_reopens_identically(engine)


def test_the_cap_is_checked_for_the_whole_request(tmp_path: Path) -> None:
    options = small_options(budget=200_000, min_target=0.005, min_fold_chars=2_000)
    engine, session = pending_engine(tmp_path, options=options)
    cap = engine.options.min_tokens
    assert cap == 1_000
    ids = [entry.id for entry in session.entries if entry.kind == "tool_result"]
    with unchanged(engine), pytest.raises(EngineError, match=f"over the pin cap of {cap:,}"):
        engine.pin(ids)  # all or nothing: not even the first few are pinned


# -- folded entries ----------------------------------------------------------------------------


def test_pinning_folded_entries_moves_nothing_until_the_next_commit(tmp_path: Path) -> None:
    engine, session = folded_engine(tmp_path)
    index = 2  # inside tool fold < span fold < consolidated fold
    chain = [fold.handle for fold in engine.view.forest.chain_at(index)]
    assert len(chain) == 3
    assert [engine.view.forest.folds[h].kind for h in chain] == ["consolidated", "span", "tool"]
    digests = engine.view.projection.digests()

    outcome = engine.pin([session.entries[index].id])
    assert outcome.staged == (session.entries[index].id,) and outcome.pinned == ()
    assert outcome.pinned_tokens == raw_tokens(engine, index)
    assert engine.view.projection.digests() == digests
    assert engine.status().staged_pins == (session.entries[index].id,)
    # Requests before the commit are pure appends: not one byte moved.
    more = SessionBuilder(prefix="p")
    more.user("keep going")
    more.assistant("Going.")
    requests = drive(engine, more.entries)
    assert [r.record.classification for r in requests] == ["append"]
    assert engine.prepare_request().record.classification == "append"
    assert_reopens_identically(engine)

    commit = engine.commit_now()
    assert commit.pin_opened == chain  # outermost first
    assert all(handle in engine.view.forest.expanded for handle in chain)
    assert shown_raw(engine, index)
    assert engine.status().staged_pins == ()
    request = engine.prepare_request()
    assert request.record.classification == "attributed"
    assert request.record.causes == (f"commit {commit.number} (command)",)
    # The folds are still there, whole, and still peek back their exact sources.
    for fold in engine.view.forest.folds.values():
        assert engine.peek(fold.handle).data == expected_source(engine, fold)
    assert engine.status().last_commit is not None
    assert engine.status().last_commit.pins_landed == 3  # type: ignore[union-attr]
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_unpinning_lets_the_folds_a_pin_opened_collapse_again(tmp_path: Path) -> None:
    engine, session = folded_engine(tmp_path)
    index = 2
    chain = [fold.handle for fold in engine.view.forest.chain_at(index)]
    engine.pin([session.entries[index].id])
    engine.commit_now()
    engine.prepare_request()
    assert engine._state.pin_opened == set(chain)
    digests = engine.view.projection.digests()

    outcome = engine.unpin([session.entries[index].id])
    # Unpinning moves no byte; the opened folds are staged to collapse at the next commit.
    assert set(outcome.refolds) == set(chain)
    assert engine.view.staged_refolds == set(chain)
    assert engine.view.projection.digests() == digests
    assert_reopens_identically(engine)

    commit = engine.commit_now()
    assert set(commit.refolded) >= {chain[0]}
    assert not engine.view.forest.shows_raw(index)
    assert engine._state.pin_opened == set()
    assert engine.prepare_request().record.classification == "attributed"
    assert_reopens_identically(engine)


def test_a_fold_still_holding_another_pin_stays_open(tmp_path: Path) -> None:
    engine, session = folded_engine(tmp_path)
    tool = next(f for f in engine.view.forest.folds.values() if f.kind == "tool" and f.start == 2)
    first, second = tool.start, tool.end - 1
    assert first != second
    engine.pin([session.entries[first].id, session.entries[second].id])
    engine.commit_now()
    outcome = engine.unpin([session.entries[first].id])
    assert outcome.refolds == ()  # the second pin still needs every fold around it open
    assert engine.view.staged_refolds == set()
    assert_reopens_identically(engine)


def test_pinned_entries_survive_later_threshold_commits(tmp_path: Path) -> None:
    options = small_options(budget=12_000, min_fold_chars=1_000, consolidate_after=3)
    session = SessionBuilder()
    chapters(session, 2)
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    drive(engine, session.entries)
    pinned = [2, 5]
    engine.pin([session.entries[i].id for i in pinned])
    more = SessionBuilder(prefix="q")
    chapters(more, 14, first=20)
    requests = drive(engine, more.entries)
    threshold = [r.commit for r in requests if r.commit is not None]
    assert len(threshold) >= 2
    for index in pinned:
        assert shown_raw(engine, index)
        assert all(not f.start <= index < f.end for f in engine.view.forest.folds.values())
    assert any(f.kind == "consolidated" for f in engine.view.forest.folds.values())
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_pinning_a_clipped_result_shows_it_whole_from_the_next_commit(tmp_path: Path) -> None:
    session = SessionBuilder()
    chapters(session, 4, sizes=([3000, 2500], [2000]))
    session.user("what next?")
    session.assistant("Waiting.")
    options = small_options(budget=200_000, min_fold_chars=2_000, tool_fold_threshold=0.9)
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    drive(engine, session.entries)
    for mark in list(engine.view.marks.values()):
        if mark.start >= 7:
            engine.unmark(mark.id)  # chapters 1.. stay raw, so the diet clips them
    engine.prepare_request()
    commit = engine.commit_now()
    assert commit.clipped
    index = commit.clipped[0]
    entry = engine.view.transcript.entries[index]
    engine.prepare_request()

    digests = engine.view.projection.digests()
    outcome = engine.pin([entry.id])
    # Shown clipped now, so the pin is staged and costs the whole entry.
    assert outcome.staged == (entry.id,) and outcome.pinned == ()
    assert outcome.pinned_tokens == raw_tokens(engine, index)
    assert engine.status().pinned_tokens == raw_tokens(engine, index)
    assert engine.status().staged_pins == (entry.id,)
    assert engine.view.projection.digests() == digests
    assert engine.prepare_request().record.classification == "append"

    engine.commit_now()
    assert index not in engine.view.projection.views
    assert shown_raw(engine, index)
    assert engine.composition().mass(Category.PINNED) == raw_tokens(engine, index)
    assert engine.prepare_request().record.classification == "attributed"
    # Later commits never clip it again.
    engine.commit_now()
    assert shown_raw(engine, index)
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


# -- bad input ---------------------------------------------------------------------------------

BAD_PINS: dict[str, tuple[Any, str]] = {
    "empty list": ([], "non-empty list"),
    "a bare string": ("e00001", "non-empty list"),
    "not a list": (None, "non-empty list"),
    "unknown id": (["nope"], "no entry or fold with id 'nope'"),
    "path": (["../store/sha256"], "looks like a path"),
    "backslash path": (["a\\b"], "looks like a path"),
    "not a string": ([7], "7, which is not an id"),
    "empty id": ([""], "'', which is not an id"),
    "unknown fold": (["fold-000000000000"], "no entry or fold"),
    "one bad among good": (["e00001", "missing"], "'missing'"),
}


@pytest.mark.parametrize("case", sorted(BAD_PINS))
def test_bad_pins_raise_and_change_nothing(tmp_path: Path, case: str) -> None:
    engine, _ = folded_engine(tmp_path)
    engine.pin(["e00029"])
    ids, message = BAD_PINS[case]
    with unchanged(engine):
        with pytest.raises(EngineError, match=message.replace("\\", "\\\\").replace("(", r"\(")):
            engine.pin(ids)
        with pytest.raises(EngineError):
            engine.unpin(ids)


def test_unpinning_what_is_not_pinned_is_refused_by_name(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    engine.pin(["e00029"])
    with unchanged(engine), pytest.raises(EngineError, match="not pinned: e00028"):
        engine.unpin(["e00029", "e00028"])
    assert engine.view.pinned == {28}


def test_a_fold_holding_a_pinned_entry_cannot_be_staged_to_refold(tmp_path: Path) -> None:
    engine, session = folded_engine(tmp_path)
    pinned = session.entries[2]
    engine.pin([pinned.id])
    opened = engine.commit_now().pin_opened
    engine.prepare_request()
    with unchanged(engine):
        for handle in opened:
            with pytest.raises(EngineError, match=f"holds pinned entry {pinned.id}; unpin"):
                engine.refold(handle)
    # Released, the folds the pin opened are staged to close again (unpin does it).
    engine.unpin([pinned.id])
    assert engine.view.staged_refolds == set(opened)
    commit = engine.commit_now()
    assert opened[0] in commit.refolded
    assert not any(handle in engine.view.forest.expanded for handle in opened)
    assert engine.prepare_request().record.classification == "attributed"
    assert_reopens_identically(engine)
