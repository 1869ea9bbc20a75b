"""Overflow recovery, the pre-commit notice, options applied live, and the folding-stopped
state when a commit cannot be saved (DESIGN §8, §9)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pifold_core import journal as journal_module
from pifold_core.engine import LOG_NAME, Engine, EngineError
from pifold_core.journal import Journal
from pifold_core.notice import NOTICE_TAG
from pifold_core.options import EngineOptions
from pifold_core.store import FoldStore
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_reopens_identically,
    chapters,
    full_state,
    pending_engine,
    reopen,
    unchanged,
)


def _notices(engine: Engine) -> list[int]:
    return [
        index
        for index, entry in enumerate(engine.view.transcript.entries)
        if entry.extra.get("pifold") == NOTICE_TAG
    ]


def _log_kinds(engine: Engine) -> list[str]:
    return [record.kind for record in Journal(engine.state_dir / LOG_NAME).read_all()]


# -- overflow recovery ---------------------------------------------------------------------------


def test_overflow_recovery_commits_at_once_and_the_retry_fits(tmp_path: Path) -> None:
    # Under the trigger by the engine's count; the provider (with a system prompt the engine
    # never sees) refuses the request as too long.
    options = small_options(budget=6_000, min_fold_chars=2_000)
    engine, _ = pending_engine(tmp_path, options=options)
    refused = engine.prepare_request()
    assert refused.commit is None and refused.tokens < options.max_tokens
    recovery = engine.recover_from_overflow()
    assert recovery.commit.cause == "overflow"
    assert recovery.commit.applied_marks and recovery.commit.tokens_after < refused.tokens
    assert recovery.expected_tokens == engine.expected_tokens() <= engine.options.min_tokens
    assert recovery.fits
    retry = engine.prepare_request()
    assert retry.commit is None  # nothing more to do: the overflow commit already ran
    assert retry.record.classification == "attributed"
    assert retry.record.causes == (f"commit {recovery.commit.number} (overflow)",)
    assert retry.tokens == recovery.commit.tokens_after
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_overflow_recovery_says_when_the_retry_still_does_not_fit(tmp_path: Path) -> None:
    session = SessionBuilder()
    session.user("dump everything")
    session.batch([6_000, 6_000, 6_000], seed=1)  # all of it in the fresh tail
    session.assistant("That is a lot.")
    engine = Engine.open(tmp_path / "state", small_options(budget=3_000), CharCounter())
    drive(engine, session.entries)
    engine.prepare_request()
    recovery = engine.recover_from_overflow()
    assert not recovery.fits
    assert recovery.expected_tokens > engine.options.budget
    assert recovery.commit.short_of_target
    assert recovery.commit.short_reason is not None
    assert "nothing more can be folded" in recovery.commit.short_reason
    assert "fresh tail holds" in recovery.commit.short_reason
    assert engine.prepare_request().record.classification == "append"  # nothing moved
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


# -- the pre-commit notice -----------------------------------------------------------------------


def _notice_options(**kwargs: object) -> EngineOptions:
    return small_options(
        budget=12_000,
        min_fold_chars=1_000,
        consolidate_after=4,
        pre_commit_notice=True,
        notice_lead_share=0.2,
        **kwargs,  # type: ignore[arg-type]
    )


def test_the_notice_speaks_once_per_approach_and_again_after_a_commit(tmp_path: Path) -> None:
    options = _notice_options()
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    session = SessionBuilder()
    chapters(session, 30)
    # Per approach (the requests up to and including the commit that ends it): notices given.
    approaches: list[int] = [0]
    for entry in session.entries:
        if entry.kind == "assistant":
            count = len(_notices(engine))
            request = engine.prepare_request()
            approaches[-1] += len(_notices(engine)) - count
            if request.commit is not None:
                assert request.commit.cause == "threshold"
                approaches.append(0)
            else:
                assert request.record.classification == "append"
        engine.append(entry)
    assert len(approaches) >= 3  # at least two commits
    assert approaches[:-1] == [1] * (len(approaches) - 1)  # once per approach, each time
    assert approaches[-1] <= 1
    for index in _notices(engine):
        entry = engine.view.transcript.entries[index]
        assert entry.kind == "note"
        assert f"fires at {options.max_tokens:,} tokens" in entry.text
        assert "pi_fold_context" in entry.text and "pin / unpin" in entry.text
        assert f"cap {options.min_tokens:,}" in entry.text
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_the_notice_is_an_append_at_the_end_of_the_window(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", _notice_options(), CharCounter())
    session = SessionBuilder()
    chapters(session, 30)
    previous: list[str] = []
    for entry in session.entries:
        if entry.kind == "assistant":
            count = len(_notices(engine))
            request = engine.prepare_request()
            if len(_notices(engine)) > count:
                assert request.commit is None
                assert request.record.classification == "append"
                assert request.digests[: len(previous)] == previous
                notice = engine.view.transcript.entries[-1]
                assert notice.extra.get("pifold") == NOTICE_TAG
                assert request.digests[-1] == notice.wire_digest
                lead = engine.options.thresholds.max_target - engine.options.notice_lead_share
                assert request.expected_tokens >= lead * engine.options.budget
                break
            previous = request.digests
        engine.append(entry)
    else:
        raise AssertionError("no notice was given")
    assert_reopens_identically(engine)


def test_no_notice_unless_asked_for(tmp_path: Path) -> None:
    engine = Engine.open(
        tmp_path / "state", small_options(budget=12_000, min_fold_chars=1_000), CharCounter()
    )
    session = SessionBuilder()
    chapters(session, 20)
    requests = drive(engine, session.entries)
    assert any(r.commit for r in requests) and _notices(engine) == []
    assert_clean_audit(engine)


def test_a_reopened_session_does_not_repeat_its_notice(tmp_path: Path) -> None:
    options = _notice_options()
    session = SessionBuilder()
    chapters(session, 30)
    whole = Engine.open(tmp_path / "whole", options, CharCounter())
    expected = [r.digests for r in drive(whole, session.entries)]
    # Stop right after the first notice, reopen, and go on.
    split = Engine.open(tmp_path / "split", options, CharCounter())
    got: list[list[str]] = []
    position = 0
    for position, entry in enumerate(session.entries):  # noqa: B007
        if entry.kind == "assistant":
            got.append(split.prepare_request().digests)
            if _notices(split):
                split.append(entry)
                break
        split.append(entry)
    assert _notices(split) and split._state.noticed
    split.close()
    resumed = Engine.open(tmp_path / "split", None, CharCounter())
    assert resumed._state.noticed
    got += [r.digests for r in drive(resumed, session.entries[position + 1 :])]
    assert got == expected
    assert len(_notices(resumed)) == len(_notices(whole))
    assert_clean_audit(whole)
    assert_reopens_identically(resumed)


# -- options applied live ----------------------------------------------------------------------


def test_options_apply_live_and_survive_a_reopen(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path)
    assert engine.prepare_request().commit is None
    smaller = small_options(budget=5_000, min_fold_chars=2_000)
    with unchanged(engine):
        engine.apply_options(engine.options)  # the same options: nothing to log
    engine.apply_options(smaller)
    assert engine.options == smaller and _log_kinds(engine)[-1] == "options"
    assert engine.view.projection.tokens >= smaller.max_tokens  # nothing moved yet
    reopened = assert_reopens_identically(engine)
    assert reopened.options == smaller
    request = engine.prepare_request()  # the new trigger applies at once
    assert request.commit is not None and request.commit.cause == "threshold"
    assert request.tokens <= smaller.min_tokens
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_turning_the_notice_on_live(tmp_path: Path) -> None:
    options = small_options(budget=8_000, min_fold_chars=2_000)
    engine, _ = pending_engine(tmp_path, options=options)
    assert not _notices(engine)
    # The notice speaks from (0.8 - 0.25) × 8,000 = 4,400 tokens on: the window is past that.
    assert 4_400 <= engine.expected_tokens() < options.max_tokens
    engine.apply_options(
        small_options(
            budget=8_000, min_fold_chars=2_000, pre_commit_notice=True, notice_lead_share=0.25
        )
    )
    request = engine.prepare_request()
    assert len(_notices(engine)) == 1 and request.record.classification == "append"
    assert engine.prepare_request().record.classification == "append"
    assert len(_notices(engine)) == 1
    assert_reopens_identically(engine)


@pytest.mark.parametrize("value", [None, "budget=5", {"providerInputBudget": 5}])
def test_bad_options_are_refused_and_change_nothing(tmp_path: Path, value: object) -> None:
    engine, _ = pending_engine(tmp_path)
    with unchanged(engine), pytest.raises(EngineError, match="options must be EngineOptions"):
        engine.apply_options(value)  # type: ignore[arg-type]


# -- folding stopped ---------------------------------------------------------------------------


def _over_the_trigger(path: Path) -> tuple[Engine, SessionBuilder]:
    """A session one request away from a threshold commit."""
    engine, session = pending_engine(
        path, options=small_options(budget=200_000, min_fold_chars=2_000)
    )
    engine.apply_options(small_options(budget=5_000, min_fold_chars=2_000))
    assert engine.expected_tokens() >= engine.options.max_tokens
    return engine, session


def test_a_commit_that_cannot_be_saved_stops_folding_not_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = _over_the_trigger(tmp_path)
    calls: list[int] = []

    def broken_put(self: FoldStore, payload: bytes, *rest: object) -> str:
        calls.append(len(payload))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(FoldStore, "put_folds", broken_put)  # what a commit writes
    before = full_state(engine)
    request = engine.prepare_request()
    assert calls and request.commit is None
    assert engine.view.folding_stopped is not None
    assert "commit could not be saved" in engine.view.folding_stopped
    assert "No space left on device" in engine.view.folding_stopped
    # Nothing of the failed commit remains: same window, same marks, no commit logged.
    assert request.digests == before["digests"]
    assert request.record.classification == "append"
    assert engine.view.marks == before["marks"] and engine.view.forest.folds == before["folds"]
    assert "commit" not in _log_kinds(engine)
    assert engine.composition().folding_stopped
    assert engine.status().folding_stopped == engine.view.folding_stopped
    # The session goes on, unfolded: no further attempt, every request a pure append.
    more = SessionBuilder(prefix="s")
    chapters(more, 3, first=50)
    attempts = len(calls)
    requests = drive(engine, more.entries)
    assert len(calls) == attempts
    assert all(r.commit is None and r.record.classification == "append" for r in requests)
    assert_clean_audit(engine)
    # A restart (with a working store) rebuilds the same session and may fold again.
    monkeypatch.undo()
    live = engine.view.projection.digests()
    restarted = reopen(engine)
    assert restarted.view.folding_stopped is None
    assert restarted.view.projection.digests() == live
    assert restarted.prepare_request().commit is not None


def test_a_store_that_cannot_be_written_stops_folding(tmp_path: Path) -> None:
    engine, _ = _over_the_trigger(tmp_path)
    # A plain file where the object folders must go: every write fails, even as root.
    engine._state.store.root.mkdir(parents=True, exist_ok=True)
    (engine._state.store.root / "sha256").write_bytes(b"not a folder")
    digests = engine.view.projection.digests()
    request = engine.prepare_request()
    assert request.commit is None and engine.view.folding_stopped is not None
    assert request.digests == digests
    assert engine.composition().folding_stopped
    assert_clean_audit(engine)


def test_an_explicit_commit_that_cannot_be_saved_raises_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = pending_engine(tmp_path)

    def broken_put(self: FoldStore, payload: bytes, *rest: object) -> str:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(FoldStore, "put_folds", broken_put)  # what a commit writes
    with unchanged(engine), pytest.raises(OSError, match="Input/output error"):
        engine.commit_now()
    monkeypatch.undo()
    assert engine.commit_now().built  # the same commit succeeds once the store works
    assert_reopens_identically(engine)


def test_the_notice_never_lands_between_a_call_and_its_results(tmp_path: Path) -> None:
    options = small_options(budget=8_000, min_fold_chars=2_000)
    engine, _ = pending_engine(tmp_path, options=options)
    session = SessionBuilder(prefix="z")
    call = session.assistant("Two reads.", [("read", {"n": 1}), ("read", {"n": 2})])
    drive(engine, [call])
    engine.append(session.result(call.tool_calls[0], "first result"))
    engine.apply_options(
        small_options(
            budget=8_000, min_fold_chars=2_000, pre_commit_notice=True, notice_lead_share=0.25
        )
    )
    assert engine.expected_tokens() >= 4_400  # the notice is due...
    engine.prepare_request()  # ...but a result is still outstanding
    assert _notices(engine) == []
    second = session.result(call.tool_calls[1], "second result")
    engine.append(second)
    engine.prepare_request()
    notices = _notices(engine)
    assert len(notices) == 1
    assert notices[0] == engine.view.transcript.index_of[second.id] + 1
    assert engine.view.transcript.split_call(0, len(engine.view.transcript)) is None
    assert_reopens_identically(engine)


class _FsyncFails:
    """``os`` as the journal sees it, except that fsync reports an I/O error."""

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)

    @staticmethod
    def fsync(descriptor: int) -> None:
        raise OSError(5, "Input/output error")


def test_a_commit_record_that_cannot_be_made_durable_leaves_a_log_that_reopens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The store objects are written, the commit line reaches the file, then its fsync fails:
    # the commit did not happen, so the log must not hold it either.
    engine, _ = _over_the_trigger(tmp_path)
    log_before = engine._state.journal.path.read_bytes()
    monkeypatch.setattr(journal_module, "os", _FsyncFails())
    request = engine.prepare_request()
    monkeypatch.undo()
    assert request.commit is None and engine.view.folding_stopped is not None
    assert "Input/output error" in engine.view.folding_stopped
    assert "commit" not in _log_kinds(engine)
    assert engine._state.journal.path.read_bytes().startswith(log_before)
    more = SessionBuilder(prefix="s")
    chapters(more, 2, first=50)
    drive(engine, more.entries)
    assert_clean_audit(engine)
    restarted = reopen(engine)
    assert restarted.view.torn_tail is None
    assert restarted.view.projection.digests() == engine.view.projection.digests()
    assert restarted.view.audit_counts == engine.view.audit_counts
    assert restarted.view.marks == engine.view.marks
    assert restarted.prepare_request().commit is not None  # folding resumes after a restart
