"""The engine API end to end: marks, commits, the audit, peek/expand/refold, evidence and
restart (DESIGN §4, §5, §8)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from pifold_core.canonical import parse_json, sha256_hex
from pifold_core.composition import Category
from pifold_core.engine import LOG_NAME, Engine, EngineError, Request
from pifold_core.entries import Entry
from pifold_core.folds import Fold
from pifold_core.options import EngineOptions
from pifold_core.peek import PeekError
from pifold_core.store import StoreObjectCorrupt, StoreObjectMissing
from pifold_core.tokens import TiktokenCounter
from tests.core.builders import (
    CharCounter,
    SessionBuilder,
    drive,
    expected_source,
    filler,
    random_session,
    small_options,
)
from tests.core.engine_checks import full_state, set_checkpoint_aside


def _engine(path: Path, options: EngineOptions | None = None, **kwargs: Any) -> Engine:
    return Engine.open(path / "state", options or small_options(**kwargs), CharCounter())


def _chapters(count: int, sizes: tuple[list[int], ...] = ([1500, 800], [1200])) -> SessionBuilder:
    session = SessionBuilder()
    for number in range(count):
        session.chapter(f"Chapter {number}: look at src/x{number}.py", list(sizes), seed=number)
    return session


def _folded(path: Path, chapters: int = 4, **kwargs: Any) -> tuple[Engine, SessionBuilder]:
    """An engine whose first chapters were folded by an explicit commit."""
    session = _chapters(chapters)
    session.user("what next?")
    session.assistant("Waiting.")
    engine = _engine(path, budget=200_000, min_fold_chars=2_000, **kwargs)
    drive(engine, session.entries)
    engine.commit_now()
    engine.prepare_request()
    return engine, session


# -- marks and commits -----------------------------------------------------------------------


def test_marks_never_move_bytes(tmp_path: Path) -> None:
    engine = _engine(tmp_path, budget=1_000_000, min_fold_chars=1_000)
    laid = 0
    for entry in _chapters(6).entries:
        if entry.kind == "assistant":
            engine.prepare_request()
        before = engine.view.projection.digests()
        marks_before = len(engine.view.marks)
        kept = engine.append(entry)
        assert engine.view.projection.digests() == [*before, kept.wire_digest]
        laid += len(engine.view.marks) - marks_before
    assert laid >= 10  # marks were laid on closed batches and chapters...
    assert engine._state.commits == []  # ...and none of them moved a byte
    assert not engine.view.forest.folds
    composition = engine.composition()
    assert composition.counts.marks == len(engine.view.marks)
    assert composition.masses[Category.MARKED] > 0


def test_marks_are_stalest_first_and_outside_the_fresh_tail(tmp_path: Path) -> None:
    engine = _engine(tmp_path, budget=1_000_000, min_fold_chars=1_000)
    drive(engine, _chapters(5).entries)
    starts = [mark.start for mark in engine.view.marks.values()]
    assert starts == sorted(starts) or len({m.kind for m in engine.view.marks.values()}) == 2
    fresh = engine.view.transcript.fresh_start
    assert all(mark.end <= fresh for mark in engine.view.marks.values())
    kinds = {mark.kind for mark in engine.view.marks.values()}
    assert kinds == {"tool", "span"}
    for mark in engine.view.marks.values():
        if mark.kind == "span":
            assert engine.view.transcript.split_call(mark.start, mark.end) is None
            assert engine.view.transcript.unit_aligned(mark.start, mark.end)
        else:
            # A tool mark is exactly the results of one batch: the call stays visible.
            unit = engine.view.transcript.units[engine.view.transcript.unit_of[mark.start]]
            assert (unit.start + 1, unit.end) == (mark.start, mark.end)


def test_commit_fires_at_max_target_and_lands_at_or_under_min_target(tmp_path: Path) -> None:
    options = small_options(budget=20_000, min_fold_chars=2_000, consolidate_after=10)
    engine = _engine(tmp_path, options)
    requests = drive(engine, _chapters(30).entries)
    commits = [request for request in requests if request.commit is not None]
    assert len(commits) >= 2
    previous: Request | None = None
    for request in requests:
        commit = request.commit
        if commit is None:
            # Between commits every request is a pure append, below the trigger.
            assert request.record.classification == "append"
            assert request.tokens < options.max_tokens
            if previous is not None:
                assert request.digests[: len(previous.digests)] == previous.digests
        else:
            assert commit.cause == "threshold"
            assert commit.tokens_before >= options.max_tokens
            assert not commit.short_of_target
            assert commit.tokens_after == request.tokens <= options.min_tokens
            assert request.record.classification == "attributed"
            assert request.record.causes == (f"commit {commit.number} (threshold)",)
            # Later marks wait for the next epoch: the commit stopped at the target.
            assert engine.view.marks or commit is not commits[-1].commit
        previous = request
    assert engine.view.audit_counts.unattributed == 0
    assert engine.view.audit_counts.rewrites == len(commits)


def test_commit_applies_marks_stalest_first_and_keeps_the_newest_raw(tmp_path: Path) -> None:
    options = small_options(budget=20_000, min_fold_chars=2_000, consolidate_after=100)
    engine = _engine(tmp_path, options)
    requests = drive(engine, _chapters(14).entries)
    commit = next(request.commit for request in requests if request.commit is not None)
    assert commit is not None and commit.applied_marks
    folded_end = max(built.fold.end for built in commit.built)
    pending = [mark for mark in engine.view.marks.values()]
    assert pending, "a commit that reached its target leaves later marks pending"
    assert all(mark.start >= folded_end for mark in pending)
    # The newest entries stay raw.
    last = engine.view.projection.items[-1]
    assert last.fold is None


def test_commit_now_applies_every_eligible_mark(tmp_path: Path) -> None:
    engine = _engine(tmp_path, budget=1_000_000, min_fold_chars=1_000)
    drive(engine, _chapters(3).entries)
    marks = set(engine.view.marks)
    outcome = engine.commit_now()
    assert set(outcome.applied_marks) | set(outcome.dropped_marks) == marks - set(
        outcome.held_marks
    )
    assert outcome.applied_marks
    assert not engine.view.marks or all(
        mark.end > engine.view.transcript.fresh_start for mark in engine.view.marks.values()
    )
    request = engine.prepare_request()
    assert request.record.classification == "attributed"
    assert request.record.causes == ("commit 1 (command)",)


def test_every_fold_round_trips_through_peek(tmp_path: Path) -> None:
    engine = _engine(tmp_path, budget=8_000, min_fold_chars=1_000)
    drive(engine, random_session(3, segments=8))
    assert engine._state.commits and len(engine.view.forest) > 3
    assert {fold.kind for fold in engine.view.forest.folds.values()} >= {"tool", "span"}
    for fold in engine.view.forest.folds.values():
        result = engine.peek(fold.handle)
        assert result.data == expected_source(engine, fold)
        assert result.complete and result.kind == "fold"
        assert result.source_digest == sha256_hex(result.data)
        records = parse_json(result.data)
        assert [Entry.from_record(r).id for r in records] == [
            entry.id for entry in engine.view.transcript.entries[fold.start : fold.end]
        ]
    engine.view.forest.validate(engine.view.transcript)
    assert engine.view.audit_counts.unattributed == 0


def test_peek_slices(tmp_path: Path) -> None:
    engine, _ = _folded(tmp_path)
    fold = next(iter(engine.view.forest.folds.values()))
    source = expected_source(engine, fold)
    head = engine.peek(fold.handle, offset=0, length=100)
    assert head.data == source[:100] and head.next_offset == 100
    middle = engine.peek(fold.handle, offset=100, length=50)
    assert middle.data == source[100:150]
    tail = engine.peek(fold.handle, offset=len(source) - 7)
    assert tail.data == source[-7:] and tail.next_offset is None


def test_peek_an_entry_returns_its_record(tmp_path: Path) -> None:
    engine, session = _folded(tmp_path)
    entry = session.entries[2]
    assert engine.peek(entry.id).data == entry.record_bytes
    assert engine.peek(entry.id).kind == "entry"


@pytest.mark.parametrize(
    ("identifier", "kwargs", "message"),
    [
        ("fold-000000000000", {}, "no fold"),
        ("fold-", {}, "no fold"),
        ("nothing-like-this", {}, "no fold, entry or evidence"),
        ("", {}, "non-empty"),
        ("../store/sha256", {}, "path"),
        ("a\\b", {}, "path"),
        ("evidence-xyz", {}, "not an evidence id"),
        ("FIRST", {"offset": 10**9}, "outside"),
        ("FIRST", {"offset": -1}, "offset"),
        ("FIRST", {"length": 0}, "bytes"),
    ],
)
def test_bad_peeks_raise_and_change_nothing(
    tmp_path: Path, identifier: str, kwargs: dict[str, int], message: str
) -> None:
    engine, _ = _folded(tmp_path)
    if identifier == "FIRST":
        identifier = next(iter(engine.view.forest.folds))
    before = full_state(engine)
    with pytest.raises(PeekError, match=message):
        engine.peek(identifier, **kwargs)
    assert full_state(engine) == before


# -- expand and refold ---------------------------------------------------------------------


def _root_with_child(engine: Engine) -> Fold:
    return next(fold for fold in engine.view.forest.roots() if fold.children)


def test_expand_restores_one_level_as_an_attributed_rewrite(tmp_path: Path) -> None:
    engine, _ = _folded(tmp_path)
    root = _root_with_child(engine)
    child = engine.view.forest.folds[root.children[0]]
    assert engine.view.forest.in_order()[0].handle == root.handle
    before = engine.view.projection.digests()
    outcome = engine.expand(root.handle)
    assert outcome.cause == f"expand {root.handle}"
    assert root.handle in engine.view.forest.expanded
    items = [item for item in engine.view.projection.items if root.start <= item.start < root.end]
    # One level only: the children come back as placeholders (the small gaps between the
    # chapters were absorbed by minFoldChars, so there are no raw leaves at this level).
    assert {item.fold for item in items if item.fold} == set(root.children)
    request = engine.prepare_request()
    assert request.digests != before
    assert request.record.classification == "attributed"
    assert request.record.causes == (f"commit {outcome.number} (expand {root.handle})",)
    # The child can be expanded next (its parent is open): raw leaves come back byte for
    # byte, and its own child stays a placeholder.
    engine.expand(child.handle)
    items = [item for item in engine.view.projection.items if child.start <= item.start < child.end]
    assert not any(item.fold == child.handle for item in items)
    assert any(item.fold is None for item in items)
    assert {item.fold for item in items if item.fold} == set(child.children)
    for item in items:
        if item.fold is None:
            assert item.digest == engine.view.transcript.entries[item.start].wire_digest
    engine.view.forest.validate(engine.view.transcript)
    assert engine.view.audit_counts.unattributed == 0


def test_expand_lands_pending_marks_in_the_same_rewrite(tmp_path: Path) -> None:
    engine, _ = _folded(tmp_path, chapters=2)
    more = SessionBuilder(prefix="m")
    for number in range(3):
        more.chapter(f"more {number}", [[1500, 800], [1200]], seed=50 + number)
    more.user("and?")
    more.assistant("ok")
    drive(engine, more.entries)
    pending = set(engine.view.marks)
    assert pending
    root = engine.view.forest.roots()[0]
    outcome = engine.expand(root.handle)
    assert set(outcome.applied_marks) & pending
    request = engine.prepare_request()
    assert request.record.classification == "attributed"
    assert len(request.record.causes) == 1  # one rewrite carries both
    assert root.handle in engine.view.forest.expanded
    assert engine.view.forest.is_visible_open(root.handle)
    engine.view.forest.validate(engine.view.transcript)


def test_expand_is_not_swallowed_by_consolidation_in_the_same_commit(tmp_path: Path) -> None:
    # Two folded chapters, then two more marked; consolidation is owed after 3 roots, so the
    # expand commit must not consolidate the very fold it is opening.
    engine, _ = _folded(tmp_path, chapters=2, consolidate_after=3)
    more = SessionBuilder(prefix="m")
    for number in range(2):
        more.chapter(f"more {number}", [[1500, 800], [1200]], seed=70 + number)
    more.user("and?")
    more.assistant("ok")
    drive(engine, more.entries)
    first = engine.view.forest.roots()[0]
    engine.expand(first.handle)
    assert engine.view.forest.is_visible_open(first.handle)
    assert any(
        item.fold is None and first.start <= item.start < first.end
        for item in engine.view.projection.items
    )
    assert engine.prepare_request().record.classification == "attributed"
    engine.view.forest.validate(engine.view.transcript)
    engine.view.projection.rebuild()


def test_expand_refusals_change_nothing(tmp_path: Path) -> None:
    engine, _ = _folded(tmp_path)
    root = _root_with_child(engine)
    child = root.children[0]
    before = full_state(engine)
    with pytest.raises(EngineError, match="inside collapsed fold"):
        engine.expand(child)
    with pytest.raises(EngineError, match="no fold"):
        engine.expand("fold-000000000000")
    with pytest.raises(EngineError, match="not a fold id"):
        engine.expand("mark-1")
    with pytest.raises(EngineError, match="not expanded"):
        engine.refold(root.handle)
    assert full_state(engine) == before
    engine.expand(root.handle)
    with pytest.raises(EngineError, match="already expanded"):
        engine.expand(root.handle)


def test_refold_is_staged_until_the_next_commit(tmp_path: Path) -> None:
    engine, _ = _folded(tmp_path)
    root = _root_with_child(engine)
    collapsed = engine.view.projection.digests()
    engine.expand(root.handle)
    opened = engine.prepare_request().digests
    engine.refold(root.handle)
    with pytest.raises(EngineError, match="already staged"):
        engine.refold(root.handle)
    request = engine.prepare_request()
    assert request.digests == opened  # nothing moved yet
    assert request.record.classification == "append"
    outcome = engine.commit_now()
    assert outcome.refolded == [root.handle]
    request = engine.prepare_request()
    assert request.digests == collapsed
    assert request.record.classification == "attributed"
    assert root.handle not in engine.view.forest.expanded


def test_expand_under_a_parent_staged_to_refold(tmp_path: Path) -> None:
    engine, _ = _folded(tmp_path)
    root = _root_with_child(engine)
    engine.expand(root.handle)
    engine.refold(root.handle)
    child = root.children[0]
    engine.expand(child)  # the later request keeps its parent open
    assert engine.view.forest.is_visible_open(child)
    engine.prepare_request()
    engine.view.forest.validate(engine.view.transcript)
    assert root.handle not in engine.view.staged_refolds  # the expand cancelled it
    rebuilt = list(engine.view.projection.digests())
    engine.view.projection.rebuild()
    assert engine.view.projection.digests() == rebuilt
    engine.close()
    reopened = Engine.open(engine.state_dir, None, CharCounter())
    assert reopened.view.staged_refolds == engine.view.staged_refolds == set()
    assert reopened.view.projection.digests() == rebuilt
    # The next commit does the same thing in both: the parent stays open.
    reopened.commit_now()
    assert reopened.view.forest.is_visible_open(root.handle)


# -- corruption ------------------------------------------------------------------------------


def _damage(path: Path) -> None:
    os.chmod(path, 0o644)
    data = bytearray(path.read_bytes())
    data[-2] ^= 0x20
    path.write_bytes(bytes(data))


def test_corrupt_store_object_fails_loudly(tmp_path: Path) -> None:
    engine, _ = _folded(tmp_path)
    root = _root_with_child(engine)
    path = engine._state.store.path_of(root.source_digest)
    _damage(path)
    before = full_state(engine)
    with pytest.raises(StoreObjectCorrupt) as caught:
        engine.peek(root.handle)
    assert caught.value.digest == root.source_digest
    with pytest.raises(StoreObjectCorrupt):
        engine.expand(root.handle)
    assert full_state(engine) == before
    path.unlink()
    with pytest.raises(StoreObjectMissing, match=root.source_digest):
        engine.peek(root.handle, offset=0, length=10)
    with pytest.raises(StoreObjectMissing):
        engine.expand(root.handle)
    assert full_state(engine) == before


# -- evidence --------------------------------------------------------------------------------


def test_huge_tool_result_becomes_evidence(tmp_path: Path) -> None:
    engine = _engine(tmp_path, budget=1_000_000)
    session = SessionBuilder()
    session.user("dump the log")
    call = session.assistant("", [("bash", {"cmd": "cat big.log"})])
    huge = filler(200_000, 1, stem="log")
    original = session.result(call.tool_calls[0], huge)
    session.assistant("It is long.")
    drive(engine, session.entries)
    kept = engine.view.transcript.entries[2]
    assert kept.id == original.id and kept.call_id == original.call_id
    assert len(kept.text) < 20_000
    assert kept.text.startswith(huge[:1000]) and kept.text.endswith(huge[-1000:])
    evidence = kept.extra["evidence"]
    assert isinstance(evidence, dict)
    identifier = str(evidence["id"])
    assert identifier.startswith("evidence-") and identifier in kept.text
    result = engine.peek(identifier)
    assert result.kind == "evidence"
    assert result.data == original.record_bytes
    assert Entry.from_record(parse_json(result.data)).text == huge
    assert engine.peek(identifier, offset=5, length=10).data == original.record_bytes[5:15]
    files = [path for path in (engine.state_dir / "pi-fold-evidence").rglob("*") if path.is_file()]
    assert len(files) == 1
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o400  # read-only and private
    _damage(files[0])
    with pytest.raises(StoreObjectCorrupt):
        engine.peek(identifier)


def test_evidence_past_the_cap_is_truncated_with_a_note(tmp_path: Path) -> None:
    engine = _engine(tmp_path, budget=1_000_000)
    engine._state.evidence.cap_bytes = 100_000
    session = SessionBuilder()
    call = session.assistant("", [("bash", {}), ("bash", {})])
    session.result(call.tool_calls[0], filler(60_000, 1))
    session.result(call.tool_calls[1], filler(60_000, 2))
    drive(engine, session.entries)
    first, second = engine.view.transcript.entries[1], engine.view.transcript.entries[2]
    assert first.extra["evidence"]["id"] is not None
    assert second.extra["evidence"]["id"] is None
    assert "cap" in second.text and "dropped" in second.text
    assert engine._state.evidence.used_bytes <= 100_000


def test_small_results_are_kept_whole(tmp_path: Path) -> None:
    engine = _engine(tmp_path, budget=1_000_000)
    session = SessionBuilder()
    call = session.assistant("", [("read", {})])
    result = session.result(call.tool_calls[0], filler(10_000))
    drive(engine, session.entries)
    assert engine.view.transcript.entries[1] is result


# -- restart ---------------------------------------------------------------------------------


def test_reopen_rebuilds_a_byte_identical_projection(tmp_path: Path) -> None:
    options = small_options(budget=8_000, min_fold_chars=1_000)
    engine = _engine(tmp_path, options)
    entries = random_session(11, segments=8)
    drive(engine, entries)
    root = _root_with_child(engine)
    engine.expand(root.handle)
    engine.prepare_request()
    engine.refold(root.handle)
    engine.close()

    reopened = Engine.open(tmp_path / "state", None, CharCounter())
    assert reopened.view.torn_tail is None
    assert reopened.options == options
    assert reopened.view.projection.digests() == engine.view.projection.digests()
    assert reopened.view.projection.messages() == engine.view.projection.messages()
    assert reopened.view.audit_counts == engine.view.audit_counts
    assert reopened._state.audit.previous == engine._state.audit.previous
    assert reopened.view.marks == engine.view.marks
    assert reopened.view.forest.folds == engine.view.forest.folds
    assert reopened.view.forest.expanded == engine.view.forest.expanded
    assert reopened.view.staged_refolds == engine.view.staged_refolds
    assert reopened.view.commit_count == engine.view.commit_count
    for fold in reopened.view.forest.folds.values():
        assert reopened.peek(fold.handle).data == expected_source(reopened, fold)


def test_reopen_and_continue_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    options = small_options(budget=8_000, min_fold_chars=1_000)
    entries = random_session(12, segments=10)
    whole = Engine.open(tmp_path / "whole", options, CharCounter())
    expected = [request.digests for request in drive(whole, entries)]

    half = len(entries) // 2
    first = Engine.open(tmp_path / "split", options, CharCounter())
    got = [request.digests for request in drive(first, entries[:half])]
    first.close()
    second = Engine.open(tmp_path / "split", None, CharCounter())
    got += [request.digests for request in drive(second, entries[half:])]
    assert got == expected
    assert second.view.audit_counts == whole.view.audit_counts


def test_torn_last_log_line_is_reported_and_nothing_earlier_is_lost(tmp_path: Path) -> None:
    engine, session = _folded(tmp_path)
    digests = engine.view.projection.digests()
    counts = engine.view.audit_counts
    log = engine.state_dir / LOG_NAME
    engine.close()
    intact = log.read_bytes()
    # A partially written line (as a kill mid-write leaves it).
    log.write_bytes(intact + b'{"n":999,"k":"entry","b":{"rec')
    reopened = Engine.open(engine.state_dir, None, CharCounter())
    assert reopened.view.torn_tail is not None
    assert reopened.view.torn_tail.line_number == intact.count(b"\n") + 1
    assert log.read_bytes() == intact
    assert reopened.view.projection.digests() == digests
    assert reopened.view.audit_counts == counts
    assert len(reopened.view.transcript) == len(session.entries)
    # The session goes on from where it was.
    more = SessionBuilder(prefix="t")
    more.user("continue")
    more.assistant("continuing")
    drive(reopened, more.entries)
    reopened.close()
    again = Engine.open(engine.state_dir, None, CharCounter())
    assert again.view.torn_tail is None
    assert len(again.view.transcript) == len(session.entries) + 2


def test_reopen_reports_a_missing_store_object_and_keeps_the_rest(tmp_path: Path) -> None:
    engine, _ = _folded(tmp_path)
    fold = next(iter(engine.view.forest.folds.values()))
    engine.close()
    engine._state.store.path_of(fold.source_digest).unlink()
    set_checkpoint_aside(engine.state_dir)
    reopened = Engine.open(engine.state_dir, None, CharCounter())
    damaged = reopened.status().damaged
    # A parent's object lists its children by digest (Merkle), so the folds above the
    # missing object cannot be read either; each names the missing object.
    ancestors = [fold.handle]
    while (parent := reopened.view.forest.parent.get(ancestors[-1])) is not None:
        ancestors.append(parent)
    assert sorted((item.id, item.problem) for item in damaged) == sorted(
        (handle, "missing") for handle in ancestors
    )
    assert {item.digest for item in damaged} == {fold.source_digest}
    for handle in ancestors:
        with pytest.raises(StoreObjectMissing, match=fold.source_digest):
            reopened.peek(handle)
    reopened.close()


def test_bad_append_changes_nothing(tmp_path: Path) -> None:
    engine, session = _folded(tmp_path)
    before = full_state(engine)
    with pytest.raises(ValueError, match="already"):
        engine.append(session.entries[0])
    assert full_state(engine) == before


# -- the real token counter ------------------------------------------------------------------


def test_engine_with_tiktoken(tmp_path: Path) -> None:
    counter = TiktokenCounter()
    options = small_options(budget=12_000, min_fold_chars=1_500)
    engine = Engine.open(tmp_path / "state", options, counter)
    entries = random_session(21, segments=10, max_size=5_000)
    requests = drive(engine, entries)
    assert engine._state.commits
    for request in requests:
        if request.commit is None:
            assert request.record.classification == "append"
            assert request.tokens < options.max_tokens
        else:
            assert request.commit.tokens_before >= options.max_tokens
    assert engine.view.audit_counts.unattributed == 0
    assert engine.view.projection.tokens == sum(
        counter.count_message(item.message, item.digest) for item in engine.view.projection.items
    )
    for fold in engine.view.forest.folds.values():
        assert engine.peek(fold.handle).data == expected_source(engine, fold)
    engine.close()
    reopened = Engine.open(tmp_path / "state", None, TiktokenCounter())
    assert reopened.view.projection.digests() == engine.view.projection.digests()
    assert reopened.view.projection.tokens == engine.view.projection.tokens


def test_a_stalled_commit_stays_stalled_after_reopen(tmp_path: Path) -> None:
    # Results too big for the budget: the threshold commit cannot reach its target, so the
    # engine does not retry it until something changes; a restart must not change that.
    # 7k and four results: the commit still buys runway (issue 12), so it lands, short.
    engine = _engine(tmp_path, budget=7_000, min_fold_chars=1_000)
    session = SessionBuilder()
    session.user("go")
    for seed in range(4):
        session.batch([6_000], seed=seed)
    drive(engine, session.entries)
    stalled = engine.prepare_request()
    assert stalled.commit is not None and stalled.commit.short_of_target
    handle = next(h for h in engine.view.forest.folds if engine.view.forest.is_visible(h))
    engine.expand(handle)
    engine.prepare_request()
    engine.refold(handle)
    live = engine.prepare_request()
    assert live.commit is None  # stalled: the staged refold waits
    engine.close()
    reopened = Engine.open(engine.state_dir, None, CharCounter())
    again = reopened.prepare_request()
    assert again.commit is None
    assert again.digests == live.digests
    assert reopened.view.staged_refolds == {handle}
    assert reopened.view.commit_count == engine.view.commit_count
