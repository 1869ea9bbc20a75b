"""Reduced views: the tool-call diet and withdrawn ephemeral peeks (DESIGN §5, §7).

A view changes what one raw tool result shows, never what is stored: clipped results keep
their head and a marker naming the entry id, ``peek`` of that id returns the whole entry, and
a later fold of the span holds the full original. A withdrawn peek copy becomes one line,
only once it was sent and only at a commit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_core.canonical import parse_json
from pifold_core.engine import Engine, EngineError
from pifold_core.entries import Entry
from pifold_core.placeholders import TOOL_NAME
from pifold_core.views import CLIP_MIN_CHARS, clipped_text, head_of, withdrawn_text
from tests.core.builders import CharCounter, SessionBuilder, drive, expected_source, small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_reopens_identically,
    chapters,
    folded_engine,
    raw_tokens,
    unchanged,
)

BIG = ([3000, 2500], [2000])


def _item_text(engine: Engine, index: int) -> str:
    item = engine.view.projection.items[engine.view.projection.item_index_at(index)]
    assert (item.start, item.end) == (index, index + 1)
    content = item.message["content"]
    assert isinstance(content, list)
    block = content[0]
    assert isinstance(block, dict)
    return str(block.get("text", block.get("content", "")))


def _diet_engine(path: Path, share: float = 0.9, **kwargs: object) -> tuple[Engine, list[Entry]]:
    """Chapter 0 folded by a commit; chapters 1-3 left raw (unmarked), so the diet clips."""
    session = SessionBuilder()
    chapters(session, 4, sizes=BIG)
    session.user("what next?")
    session.assistant("Waiting.")
    options = small_options(
        budget=200_000, min_fold_chars=2_000, tool_fold_threshold=share, **kwargs
    )
    engine = Engine.open(path / "state", options, CharCounter())
    requests = drive(engine, session.entries)
    assert all(request.record.classification == "append" for request in requests)
    assert not engine.view.projection.views  # nothing is clipped between commits
    for mark in list(engine.view.marks.values()):
        if mark.start >= 7:
            engine.unmark(mark.id)
    engine.prepare_request()
    return engine, session.entries


# -- the tool-call diet ------------------------------------------------------------------------


def test_a_commit_clips_old_results_to_their_head_and_a_marker(tmp_path: Path) -> None:
    engine, entries = _diet_engine(tmp_path)
    commit = engine.commit_now()
    assert commit.clipped and commit.clipped == sorted(engine.view.projection.views)
    for index in commit.clipped:
        entry = engine.view.transcript.entries[index]
        assert entry.record_bytes == entries[index].record_bytes  # stored bytes untouched
        assert engine.view.projection.views[index] == ("clipped", clipped_text(entry))
        text = _item_text(engine, index)
        assert text == clipped_text(entry)
        assert text.startswith(head_of(entry.text))
        hidden = len(entry.text) - len(head_of(entry.text))
        assert f"[clipped: {hidden:,} more characters of this read result" in text
        assert f'{TOOL_NAME} {{"action":"peek","id":"{entry.id}"}}' in text
        assert engine.view.projection.raw_item(index).tokens < raw_tokens(engine, index)
        peeked = engine.peek(entry.id)
        assert peeked.kind == "entry" and peeked.complete
        assert peeked.data == entry.record_bytes
        assert Entry.from_record(parse_json(peeked.data)).text == entries[index].text
    request = engine.prepare_request()
    assert request.record.classification == "attributed"
    assert request.record.causes == (f"commit {commit.number} (command)",)
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_only_the_oldest_share_is_clipped(tmp_path: Path) -> None:
    share = 0.4
    engine, _ = _diet_engine(tmp_path, share=share)
    commit = engine.commit_now()
    assert commit.clipped
    # The window as the diet measured it: clipped results at their whole size.
    positions: dict[int, int] = {}
    total = 0
    for item in engine.view.projection.items:
        positions[item.start] = total
        total += raw_tokens(engine, item.start) if item.start in commit.clipped else item.tokens
    limit = share * total
    fresh = engine.view.transcript.fresh_start
    for index in commit.clipped:
        assert positions[index] < limit and index < fresh
    clippable_later = [
        index
        for index, entry in enumerate(engine.view.transcript.entries)
        if entry.kind == "tool_result"
        and len(entry.text) >= CLIP_MIN_CHARS
        and index in positions
        and index not in commit.clipped
        and engine.view.forest.root_containing(index) is None
    ]
    assert clippable_later  # results past the share stay whole
    assert all(positions[index] >= limit for index in clippable_later)
    assert_reopens_identically(engine)


def test_short_blacklisted_and_pinned_results_are_not_clipped(tmp_path: Path) -> None:
    session = SessionBuilder()
    chapters(session, 1, sizes=BIG)
    session.user("more")
    short = session.batch([CLIP_MIN_CHARS - 100], seed=5)[1]
    banned = session.batch([3000], tool="grep", seed=6)[1]
    pinned = session.batch([3000], seed=7)[1]
    kept = session.batch([3000], seed=8)[1]
    session.assistant("done")
    session.user("next")
    session.assistant("ok")
    options = small_options(
        budget=200_000,
        min_fold_chars=200_000,  # no marks at all: everything stays raw for the diet
        tool_fold_threshold=0.95,
        blacklist=frozenset({"grep"}),
    )
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    drive(engine, session.entries)
    engine.pin([pinned.id])
    engine.prepare_request()
    commit = engine.commit_now()
    index = engine.view.transcript.index_of
    assert index[kept.id] in commit.clipped
    for entry in (short, banned, pinned):
        assert index[entry.id] not in engine.view.projection.views
    assert_reopens_identically(engine)


def test_a_share_of_zero_turns_the_diet_off(tmp_path: Path) -> None:
    engine, _ = _diet_engine(tmp_path, share=0.0)
    commit = engine.commit_now()
    assert commit.clipped == [] and not engine.view.projection.views
    assert_reopens_identically(engine)


def test_a_later_fold_of_clipped_results_holds_the_full_originals(tmp_path: Path) -> None:
    session = SessionBuilder()
    chapters(session, 30, sizes=BIG)
    options = small_options(
        budget=30_000, min_fold_chars=2_000, consolidate_after=4, tool_fold_threshold=0.5
    )
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    ever: set[int] = set()
    for request in drive(engine, session.entries):
        if request.commit is not None:
            ever.update(request.commit.clipped)
    refolded = [index for index in ever if engine.view.forest.root_containing(index) is not None]
    assert refolded, "a clipped result was folded by a later commit"
    for index in refolded:
        assert index not in engine.view.projection.views
        entry = session.entries[index]
        fold = next(
            f
            for f in engine.view.forest.folds.values()
            if f.kind == "tool" and f.start <= index < f.end
        )
        source = engine.peek(fold.handle).data
        assert source == expected_source(engine, fold)
        records = [Entry.from_record(record) for record in parse_json(source)]  # type: ignore[union-attr]
        assert entry.text in [record.text for record in records]
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_expanding_a_fold_shows_a_once_clipped_result_whole(tmp_path: Path) -> None:
    engine, entries = _diet_engine(tmp_path)
    commit = engine.commit_now()
    index = commit.clipped[0]
    engine.prepare_request()
    # Fold the clipped result's chapter with a threshold commit at a smaller budget.
    engine.apply_options(small_options(budget=2_800, min_fold_chars=2_000))
    request = engine.prepare_request()
    assert request.commit is not None and request.commit.cause == "threshold"
    chain = engine.view.forest.chain_at(index)
    assert chain and index not in engine.view.projection.views
    for fold in chain:
        if fold.handle not in engine.view.forest.expanded:
            engine.expand(fold.handle)
    item = engine.view.projection.items[engine.view.projection.item_index_at(index)]
    assert item.fold is None and item.digest == entries[index].wire_digest
    assert engine.prepare_request().record.classification == "attributed"
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


# -- withdrawn ephemeral peeks -----------------------------------------------------------------


def _peek_call(engine: Engine, session: SessionBuilder, handle: str) -> tuple[str, Entry]:
    """The model calls peek on ``handle``; returns the call id and the result entry (unsent)."""
    call = session.assistant("Let me look.", [(TOOL_NAME, {"action": "peek", "id": handle})])
    drive(engine, [call])
    call_id = call.tool_calls[0].id
    engine.note_ephemeral_peek(call_id, handle)
    text = engine.peek(handle).data.decode("utf-8")
    result = session.result(call.tool_calls[0], text)
    engine.append(result)
    return call_id, result


def test_a_peek_copy_is_withdrawn_only_after_it_was_sent_and_only_at_a_commit(
    tmp_path: Path,
) -> None:
    engine, _ = folded_engine(tmp_path)
    handle = engine.view.forest.roots()[0].handle
    session = SessionBuilder(prefix="w")
    call_id, result = _peek_call(engine, session, handle)
    index = engine.view.transcript.index_of[result.id]
    assert engine._state.ephemeral == {call_id: handle}
    assert_reopens_identically(engine)

    # A commit before the copy was ever sent leaves it alone.
    early = engine.commit_now()
    assert early.withdrawn == [] and engine._state.ephemeral == {call_id: handle}
    # Sent, but no commit: it stays, request after request, as pure appends. (The peek batch
    # is still the newest closed unit, so no mark can fold it first.)
    drive(engine, [session.assistant("Noted.")])
    requests = [engine.prepare_request() for _ in range(3)]
    assert engine.view.transcript.fresh_start < index
    assert index not in engine.view.projection.views
    assert _item_text(engine, index) == result.text
    assert [r.record.classification for r in requests] == ["append"] * 3

    commit = engine.commit_now()
    assert commit.withdrawn == [index] and engine._state.ephemeral == {}
    line = _item_text(engine, index)
    assert line == withdrawn_text(handle) and "\n" not in line
    assert handle in line and f'"action":"peek","id":"{handle}"' in line
    assert engine.view.projection.views[index][0] == "withdrawn"
    assert engine.view.transcript.entries[index].record_bytes == result.record_bytes
    assert engine.peek(result.id).data == result.record_bytes
    assert engine.peek(handle).complete
    request = engine.prepare_request()
    assert request.record.classification == "attributed"
    assert_clean_audit(engine)
    assert_reopens_identically(engine)
    # Spent: the next commit has nothing more to withdraw.
    assert engine.commit_now().withdrawn == []


def test_a_pinned_peek_copy_is_spent_and_stays_whole(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    handle = engine.view.forest.roots()[0].handle
    session = SessionBuilder(prefix="w")
    _, result = _peek_call(engine, session, handle)
    index = engine.view.transcript.index_of[result.id]
    engine.pin([result.id])
    drive(engine, [session.assistant("Thanks.")])
    commit = engine.commit_now()
    assert commit.withdrawn == [] and engine._state.ephemeral == {}
    assert index not in engine.view.projection.views  # the pin decides: it shows whole
    assert_reopens_identically(engine)


def test_bad_ephemeral_notes_raise_and_change_nothing(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path)
    handle = engine.view.forest.roots()[0].handle
    session = SessionBuilder(prefix="w")
    call_id, _ = _peek_call(engine, session, handle)
    cases: list[tuple[object, object, str]] = [
        ("", handle, "call_id must be a non-empty string"),
        (None, handle, "call_id must be a non-empty string"),
        (call_id, handle, f"call {call_id} already has a result"),
        ("call_e2", handle, "call call_e2 already has a result"),
        ("call_new", "", "id must be"),
        ("call_new", None, "id must be"),
        ("call_new", "../store/x", "looks like a path"),
    ]
    for call, identifier, message in cases:
        with unchanged(engine), pytest.raises(EngineError, match=message):
            engine.note_ephemeral_peek(call, identifier)  # type: ignore[arg-type]
    engine.note_ephemeral_peek("call_new", handle)
    with unchanged(engine), pytest.raises(EngineError, match="already has a result or an eph"):
        engine.note_ephemeral_peek("call_new", handle)
